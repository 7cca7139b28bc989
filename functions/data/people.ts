import { Entity, type EntityItem } from 'electrodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PersonKind } from '#contract/people';
import { searchTerms, termText, uniqueValue, type UniqueField } from '#domain/people';
import { dynamo } from '#lib/aws';

import { newTimeId } from '#lib/crypto';
import { ConflictError, NotFoundError, fieldError } from '#lib/errors';
import { facePersonOf, personChanged } from './authorities.ts';
import { MAIN_TABLE } from './tables.ts';
import {
  SERVICE,
  entityConfig,
  finishBatch,
  isConditionFailure,
  lazy,
  nowIso,
  tenantPartition,
  transactDelete,
  transactPut,
  transactUpdate,
  type TransactItem,
} from './entity.ts';
import { PERSON, PERSON_COUNT, PERSON_TERM, PERSON_UNIQUE } from './keys/main.ts';

/** Employees and visitors: one entity, told apart by `kind`. */
export const people = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'person', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          kind: { type: ['employee', 'visitor'] as const, required: true },
          personKey: { type: 'string', required: true },
          personId: { type: 'string', required: true },
          name: { type: 'string', required: true },
          role: { type: 'string', required: true },
          gender: { type: ['male', 'female'] as const, required: true },
          groupKey: { type: 'string', required: true },
          phone: { type: 'string' },
          email: { type: 'string' },
          icCard: { type: 'string' },
          avatar: { type: 'string' },
          remark: { type: 'string' },
          departmentKey: { type: 'string' },
          attendanceGroupKey: { type: 'string' },
          needsAttendance: { type: 'boolean' },
          remoteDoorOpen: { type: 'boolean' },
          state: { type: ['active', 'resigned'] as const, required: true, default: 'active' },
          resignedAt: { type: 'string' },
          /** The person's search terms in one string (domain/people.ts termText), for filtered reads. */
          terms: { type: 'string', required: true },
          createdAt: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['kind', 'personKey'], template: PERSON.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

/** Personnel IDs and IC cards claimed in a tenant, across employees and visitors. */
export const personUniques = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'personUnique', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          field: { type: ['personId', 'icCard'] as const, required: true },
          value: { type: 'string', required: true },
          personKey: { type: 'string', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['field', 'value'], template: PERSON_UNIQUE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

/**
 * The keyword index: one item per search term of a person (domain/people.ts searchTerms), sorted
 * by the term, so a keyword is one range read of the terms that start with it. It carries
 * the list filters, so a filtered keyword list needs nothing else; every write of a person
 * rewrites its terms in the same transaction.
 */
export const personTerms = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'personTerm', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          kind: { type: ['employee', 'visitor'] as const, required: true },
          term: { type: 'string', required: true },
          personKey: { type: 'string', required: true },
          state: { type: ['active', 'resigned'] as const, required: true },
          groupKey: { type: 'string', required: true },
          departmentKey: { type: 'string' },
        },
        indexes: {
          primary: {
            pk: tenantPartition,
            sk: { field: 'sk', composite: ['kind', 'term', 'personKey'], template: PERSON_TERM.template, casing: 'none' },
          },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
type Indexed = Pick<Person, 'tenantId' | 'kind' | 'personKey' | 'state' | 'groupKey' | 'departmentKey'> & Parameters<typeof searchTerms>[0];

/** The index items of a person as it is (or is about to be) stored. */
export function termItems(person: Indexed) {
  return searchTerms(person).map((term) => ({
    tenantId: person.tenantId,
    kind: person.kind,
    term,
    personKey: person.personKey,
    state: person.state,
    groupKey: person.groupKey,
    ...(person.departmentKey ? { departmentKey: person.departmentKey } : {}),
  }));
}

/**
 * The transaction items that take a person's index from `before` to `after` (either may be
 * absent): puts for every term of `after` when anything indexed changed, deletes for the terms
 * `after` no longer has. DynamoDB refuses two operations on one item in a transaction, so a kept
 * term is only put.
 */
export function reindex(before: Indexed | undefined, after: Indexed | undefined): TransactItem[] {
  const old = before ? termItems(before) : [];
  const next = after ? termItems(after) : [];
  const same = (a: (typeof old)[number], b: (typeof old)[number]) =>
    a.term === b.term && a.state === b.state && a.groupKey === b.groupKey && a.departmentKey === b.departmentKey;
  const items: TransactItem[] = [];
  const kept = new Set(next.map((t) => t.term));
  for (const t of old) {
    if (!kept.has(t.term))
      items.push(transactDelete(personTerms().delete({ tenantId: t.tenantId, kind: t.kind, term: t.term, personKey: t.personKey }).params()));
  }
  for (const t of next) {
    if (!old.some((o) => same(o, t))) items.push(transactPut(personTerms().put(t).params()));
  }
  return items;
}

/** How many people of each kind and state a tenant has, kept in the same transactions as the people. */
export const peopleCounters = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'peopleCounter', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          kind: { type: ['employee', 'visitor'] as const, required: true },
          state: { type: ['active', 'resigned'] as const, required: true },
          count: { type: 'number', required: true, default: 0 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['kind', 'state'], template: PERSON_COUNT.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

type PersonState = 'active' | 'resigned';
export const counting = (tenantId: string, kind: PersonKind, state: PersonState, by: number): TransactItem =>
  transactUpdate(peopleCounters().update({ tenantId, kind, state }).add({ count: by }).params());

export type Person = EntityItem<ReturnType<typeof people>>;

export interface PersonInput {
  personId: string;
  name: string;
  role: string;
  gender: 'male' | 'female';
  groupKey: string;
  phone?: string | undefined;
  email?: string | undefined;
  icCard?: string | undefined;
  avatar?: string | undefined;
  remark?: string | undefined;
  departmentKey?: string | undefined;
  attendanceGroupKey?: string | undefined;
  needsAttendance?: boolean;
  remoteDoorOpen?: boolean;
}

/** A change: a missing field stays, `null` removes an optional one. */
export type PersonChanges = { [K in keyof PersonInput]?: PersonInput[K] | null };

export const UNIQUE_MESSAGES = { personId: 'people.personIdTaken', icCard: 'people.icCardTaken' } as const;
const OPTIONAL = ['phone', 'email', 'icCard', 'avatar', 'remark', 'departmentKey', 'attendanceGroupKey'] as const;

export const claim = (tenantId: string, field: UniqueField, value: string, personKey: string): TransactItem =>
  transactPut(
    personUniques()
      .create({ tenantId, field, value: uniqueValue(value), personKey })
      .params(),
  );

const release = (tenantId: string, field: UniqueField, value: string, personKey: string): TransactItem =>
  transactDelete(
    personUniques()
      .delete({ tenantId, field, value: uniqueValue(value) })
      .where((attr, op) => op.eq(attr.personKey, personKey))
      .params(),
  );

/**
 * Runs a transaction whose items are described by `roles` ('record' for the person, or the
 * unique field claimed); a refused claim becomes a 409 naming the field.
 */
async function transact(items: TransactItem[], roles: (UniqueField | 'record' | 'release')[], onRecordRefused: () => Promise<never>): Promise<void> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    const failed = roles.find((_, i) => reasons[i]?.Code === 'ConditionalCheckFailed');
    if (failed === 'personId' || failed === 'icCard') throw new ConflictError(UNIQUE_MESSAGES[failed], failed);
    await onRecordRefused();
  }
}

/** Why a write conditioned on a person's version was refused: the person is gone (404) or changed (409). */
const refusal = (tenantId: string, kind: PersonKind, personKey: string) => async (): Promise<never> => {
  throw (await findPerson(tenantId, kind, personKey)) ? new ConflictError() : new NotFoundError();
};

/** A new person's record as it is first written: active, version 1, with its search terms. */
export function newPersonRecord(tenantId: string, kind: PersonKind, personKey: string, input: PersonInput) {
  const now = nowIso();
  return { ...input, tenantId, kind, personKey, state: 'active' as const, terms: termText(searchTerms(input)), createdAt: now, updatedAt: now, version: 1 };
}

export async function createPerson(tenantId: string, kind: PersonKind, input: PersonInput): Promise<Person> {
  const personKey = newTimeId();
  const record = newPersonRecord(tenantId, kind, personKey, input);
  const items = [transactPut(people().create(record).params()), claim(tenantId, 'personId', input.personId, personKey), counting(tenantId, kind, 'active', 1)];
  const roles: ('record' | UniqueField)[] = ['record', 'personId', 'record'];
  if (input.icCard) {
    items.push(claim(tenantId, 'icCard', input.icCard, personKey));
    roles.push('icCard');
  }
  const index = reindex(undefined, record);
  items.push(...index);
  roles.push(...index.map(() => 'record' as const));
  await transact(items, roles, () => Promise.reject(new ConflictError()));
  return record as Person;
}

export async function findPerson(tenantId: string, kind: PersonKind, personKey: string): Promise<Person | undefined> {
  return (await people().get({ tenantId, kind, personKey }).go()).data ?? undefined;
}

/** Who holds each of these unique values (as written; compared by uniqueValue): one read per 100. */
export async function findClaims(tenantId: string, field: UniqueField, values: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(values.map(uniqueValue))];
  const held = new Map<string, string>();
  if (wanted.length === 0) return held;
  const data = await finishBatch(
    'unique claims read',
    wanted.map((value) => ({ tenantId, field, value })),
    (part) => personUniques().get(part).go({ concurrency: 4 }),
  );
  for (const claimed of data) held.set(claimed.value, claimed.personKey);
  return new Map(values.map((v) => [v, held.get(uniqueValue(v))]).filter((e): e is [string, string] => e[1] !== undefined));
}

/** People of a kind by key; keys of no such person are left out. One read per 100. */
export async function findPeople(tenantId: string, kind: PersonKind, keys: readonly string[]): Promise<Map<string, Person>> {
  return new Map((await peopleByKeys(tenantId, kind, [...new Set(keys)])).map((p) => [p.personKey, p]));
}

export async function requirePerson(tenantId: string, kind: PersonKind, personKey: string): Promise<Person> {
  const person = await findPerson(tenantId, kind, personKey);
  if (!person) throw new NotFoundError();
  return person;
}

/** What the terminals hold of a person: a change of any is sent to their devices. */
const FACE_FACTS = ['name', 'personId', 'avatar'] as const;

/** Applies a change to `current` (as just read) at `version`: moves the unique claims that change and rewrites the search terms, in one transaction. */
export async function updatePerson(current: Person, version: number, changes: PersonChanges): Promise<Person> {
  const { tenantId, kind, personKey } = current;
  if (current.version !== version) throw new ConflictError();
  const next = { ...current } as Record<string, unknown>;
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    if (value === null) {
      if ((OPTIONAL as readonly string[]).includes(name) && next[name] !== undefined) remove.push(name);
      delete next[name];
    } else {
      set[name] = value;
      next[name] = value;
    }
  }
  const now = nowIso();
  set.terms = termText(searchTerms(next as Person));
  set.updatedAt = now;

  let update = people().patch({ tenantId, kind, personKey }).set(set).add({ version: 1 });
  if (remove.length) update = update.remove(remove as never);
  const items: TransactItem[] = [transactUpdate(update.where((attr, op) => op.eq(attr.version, version)).params())];
  const roles: ('record' | 'release' | UniqueField)[] = ['record'];
  for (const field of ['personId', 'icCard'] as const) {
    const before = current[field];
    const after = next[field] as string | undefined;
    if ((before ? uniqueValue(before) : undefined) === (after ? uniqueValue(after) : undefined)) continue;
    if (before) {
      items.push(release(tenantId, field, before, personKey));
      roles.push('release');
    }
    if (after) {
      items.push(claim(tenantId, field, after, personKey));
      roles.push(field);
    }
  }
  const index = reindex(current, next as Person);
  items.push(...index);
  roles.push(...index.map(() => 'record' as const));
  await transact(items, roles, refusal(tenantId, kind, personKey));
  const updated = { ...(next as Person), ...set, version: version + 1 } as Person;
  // What terminals hold of the person changed: each of their authorizations becomes a change of its device.
  if (FACE_FACTS.some((field) => current[field] !== updated[field])) await personChanged(tenantId, personKey, facePersonOf(updated));
  return updated;
}

/** Resigns an active employee or brings a resigned one back, at `version`. */
export async function setEmployeeState(tenantId: string, personKey: string, version: number, state: 'active' | 'resigned'): Promise<Person> {
  const current = await requirePerson(tenantId, 'employee', personKey);
  if (current.version !== version) throw new ConflictError();
  if (current.state === state) throw fieldError('state', state === 'resigned' ? 'people.alreadyResigned' : 'people.notResigned');
  const now = nowIso();
  let update = people().patch({ tenantId, kind: 'employee', personKey }).set({ state, updatedAt: now }).add({ version: 1 });
  update = state === 'resigned' ? update.set({ resignedAt: now }) : update.remove(['resignedAt']);
  const items: TransactItem[] = [
    transactUpdate(update.where((attr, op) => `${op.eq(attr.version, version)} AND ${op.eq(attr.state, current.state)}`).params()),
    counting(tenantId, 'employee', current.state, -1),
    counting(tenantId, 'employee', state, 1),
    ...reindex(current, { ...current, state }),
  ];
  await transact(
    items,
    items.map(() => 'record' as const),
    refusal(tenantId, 'employee', personKey),
  );
  const { resignedAt: _resignedAt, ...rest } = current;
  const updated = { ...rest, state, updatedAt: now, version: version + 1, ...(state === 'resigned' ? { resignedAt: now } : {}) } as Person;
  // A resigned employee's faces leave the terminals; back at work, they return.
  await personChanged(tenantId, personKey, facePersonOf(updated));
  return updated;
}

export async function deletePerson(tenantId: string, kind: PersonKind, personKey: string, version: number): Promise<Person> {
  const current = await requirePerson(tenantId, kind, personKey);
  if (current.version !== version) throw new ConflictError();
  const items: TransactItem[] = [
    transactDelete(
      people()
        .delete({ tenantId, kind, personKey })
        .where((attr, op) => op.eq(attr.version, version))
        .params(),
    ),
    release(tenantId, 'personId', current.personId, personKey),
    counting(tenantId, kind, current.state, -1),
  ];
  if (current.icCard) items.push(release(tenantId, 'icCard', current.icCard, personKey));
  items.push(...reindex(current, undefined));
  await transact(
    items,
    items.map(() => 'record' as const),
    refusal(tenantId, kind, personKey),
  );
  await personChanged(tenantId, personKey, undefined);
  return current;
}

/** People by key, in the order of `keys`; one read per 100. */
export async function peopleByKeys(tenantId: string, kind: PersonKind, keys: string[]): Promise<Person[]> {
  if (keys.length === 0) return [];
  const data = await finishBatch(
    'people read',
    keys.map((personKey) => ({ tenantId, kind, personKey })),
    (part) => people().get(part).go({ concurrency: 2 }),
  );
  const byKey = new Map(data.map((p) => [p.personKey, p]));
  return keys.map((k) => byKey.get(k)).filter((p): p is Person => !!p);
}
