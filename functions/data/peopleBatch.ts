import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PersonKind } from '#contract/people';
import { uniqueValue, type UniqueField } from '#domain/people';
import { dynamo } from '#lib/aws';
import { pool } from '#lib/pool';
import { newTimeId } from '#lib/crypto';
import { ConflictError } from '#lib/errors';
import { isConditionFailure, transactPut, type TransactItem } from './entity.ts';
import { PERSON_UNIQUE } from './keys/main.ts';
import { type Person, type PersonInput, UNIQUE_MESSAGES, claim, counting, newPersonRecord, people, reindex } from './people.ts';

/**
 * Many people made at once (imports): each written whole or not at all, in transactions of up to
 * 100 items with the counter, with the same guarantees as createPerson (data/people.ts).
 */

/** A transaction holds at most this many items (DynamoDB's limit). */
const TRANSACTION_ITEMS = 100;
/** How many transactions of one batch of new people are written at once. */
const CREATE_WIDTH = 2;
/** Cancellation codes worth trying again: a conflict with another transaction (on the shared counter), or throttling. */
const RETRIED_CODES = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);
const CREATE_ATTEMPTS = 8;

interface NewPerson {
  at: number;
  record: Person;
  /** The person's items (record, unique claims, keyword index), and what each is for. */
  items: TransactItem[];
  roles: ('record' | UniqueField)[];
}

/**
 * Creates many people with few round trips, with the guarantees of createPerson: each person is
 * written whole (record, claims of personnel ID and IC card, keyword index) or not at all, in
 * transactions of up to 100 items that also add to the counter. A person whose claim is refused
 * (the value was taken since it was checked, or an earlier input claims it too) is answered as a
 * ConflictError naming the field and the others of its transaction are written again without it.
 * Answers, in the order of `inputs`, the person stored or the error that refused it.
 */
export async function createPeople(tenantId: string, kind: PersonKind, inputs: readonly PersonInput[]): Promise<(Person | ConflictError)[]> {
  const out: (Person | ConflictError)[] = new Array(inputs.length);
  const claimed = new Set<string>();
  const planned: NewPerson[] = [];
  // Keys in the order of the inputs, so the list shows the last of them first, as if made one by one.
  const keys = inputs.map(() => newTimeId()).sort();
  inputs.forEach((input, at) => {
    const values = [
      PERSON_UNIQUE.of('personId', uniqueValue(input.personId)),
      ...(input.icCard ? [PERSON_UNIQUE.of('icCard', uniqueValue(input.icCard))] : []),
    ];
    const taken = values.find((v) => claimed.has(v));
    if (taken) {
      const field = taken.startsWith(PERSON_UNIQUE.prefix('personId')) ? 'personId' : 'icCard';
      out[at] = new ConflictError(UNIQUE_MESSAGES[field], field);
      return;
    }
    for (const v of values) claimed.add(v);
    const personKey = keys[at]!;
    const record = newPersonRecord(tenantId, kind, personKey, input) as Person;
    const items = [transactPut(people().create(record).params()), claim(tenantId, 'personId', input.personId, personKey)];
    const roles: NewPerson['roles'] = ['record', 'personId'];
    if (input.icCard) {
      items.push(claim(tenantId, 'icCard', input.icCard, personKey));
      roles.push('icCard');
    }
    const index = reindex(undefined, record);
    items.push(...index);
    roles.push(...index.map(() => 'record' as const));
    planned.push({ at, record, items, roles });
  });

  // Transactions of at most TRANSACTION_ITEMS items: the people's items and one counter update.
  const chunks: NewPerson[][] = [];
  let chunk: NewPerson[] = [];
  let size = 1;
  for (const person of planned) {
    if (chunk.length > 0 && size + person.items.length > TRANSACTION_ITEMS) {
      chunks.push(chunk);
      chunk = [];
      size = 1;
    }
    chunk.push(person);
    size += person.items.length;
  }
  if (chunk.length > 0) chunks.push(chunk);

  await pool(chunks, CREATE_WIDTH, async (whole) => {
    let left = whole;
    for (let attempt = 1; left.length > 0; attempt++) {
      const items = [...left.flatMap((p) => p.items), counting(tenantId, kind, 'active', left.length)];
      try {
        await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
        for (const person of left) out[person.at] = person.record;
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
        // Which person each item belongs to, and what for.
        const owners = left.flatMap((p) => p.roles.map((role) => ({ person: p, role })));
        const refused = new Map<NewPerson, UniqueField | 'record'>();
        reasons.forEach((reason, i) => {
          if (reason.Code === 'ConditionalCheckFailed' && owners[i] && !refused.has(owners[i].person)) refused.set(owners[i].person, owners[i].role);
        });
        if (refused.size > 0) {
          for (const [person, role] of refused) out[person.at] = role === 'record' ? new ConflictError() : new ConflictError(UNIQUE_MESSAGES[role], role);
          left = left.filter((p) => !refused.has(p));
          continue;
        }
        if (reasons.some((r) => RETRIED_CODES.has(r.Code ?? '')) && attempt < CREATE_ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(400, 5 * 2 ** attempt) * (0.5 + Math.random())));
          continue;
        }
        throw error;
      }
    }
  });
  return out;
}
