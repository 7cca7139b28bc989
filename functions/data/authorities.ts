import { Entity, type EntityItem } from 'electrodb';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { SET_TYPE_OF_LIST, type SetType, type SyncFailure, type SyncState, type ValidityState } from '#contract/authorities';
import { deviceTopics, thingName, type FaceNotifyMessage, type FaceResult } from '#contract/protocol';
import { dynamo } from '#lib/aws';
import { ConflictError, NotFoundError, fieldError } from '#lib/errors';
import { publish } from '#lib/iot';
import { log } from '#lib/log';
import { pool } from '#lib/pool';
import { MAIN_TABLE, tableName } from './tables.ts';
import { SERVICE, entityConfig, finishBatch, isConditionFailure, lazy, nowIso, skPrefix, tenantPartition, transactPut, type TransactItem } from './entity.ts';
import { countDelta, countUpdate, dropCountsItem } from './syncCounts.ts';
import { AUTHORITY, FACES_PARTITION_TEMPLATE, FACE_SEQ, facesPartition } from './keys/main.ts';

/**
 * Authorizations: one person on one device, in the pass list (setType 0) or the blacklist
 * (setType 1). The item is also the device's face change: every change takes the next number of
 * the device's sequence (`seq`) and is indexed by it, so a terminal pulls exactly the changes
 * after its cursor, each in its latest state. A revoked authorization stays as a `remove` change
 * (`revoked`) until its device confirms it, then goes.
 *
 * Keys: `authority#<personKey>#<setType>#<deviceKey>` (a person's authorizations in one range);
 * gsi1 `<tenantId>#faces#<deviceKey>` / `<seq, 15 digits>` (a device's changes in order).
 */
export const SEQ_DIGITS = 15;
export const seqKey = (seq: number): string => String(seq).padStart(SEQ_DIGITS, '0');

export const authorities = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'authority', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          personKey: { type: 'string', required: true },
          setType: { type: 'number', required: true },
          deviceKey: { type: 'string', required: true },
          personKind: { type: ['employee', 'visitor'] as const, required: true },
          /** Copied from the person, so a terminal's pull needs no other read; a change of the person is a change here. */
          personName: { type: 'string', required: true },
          personId: { type: 'string', required: true },
          /** Name and personnel ID in lower case, for keyword filters. */
          search: { type: 'string', required: true },
          avatar: { type: 'string' },
          /** False while the employee has resigned: the face is removed from the device, the authorization kept. */
          personActive: { type: 'boolean', required: true, default: true },
          /** Days (`YYYY-MM-DD`, company time zone), absent for a permanent authorization. */
          startDay: { type: 'string' },
          endDay: { type: 'string' },
          /** The same bounds as moments (ISO), as the device receives them. */
          validFrom: { type: 'string' },
          validTo: { type: 'string' },
          revoked: { type: 'boolean', required: true, default: false },
          seq: { type: 'number', required: true },
          /** `seq` zero-padded, the index's sort key. */
          seqKey: { type: 'string', required: true },
          action: { type: ['upsert', 'remove'] as const, required: true },
          syncState: { type: ['pending', 'synced', 'failed'] as const, required: true },
          syncReason: { type: 'string' },
          /** The terminal's own words on why a sync failed, when it gave any. */
          syncDetail: { type: 'string' },
          syncAt: { type: 'string', required: true },
          createdAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: {
            pk: tenantPartition,
            sk: { field: 'sk', composite: ['personKey', 'setType', 'deviceKey'], template: AUTHORITY.template, casing: 'none' },
          },
          byDevice: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['tenantId', 'deviceKey'], template: FACES_PARTITION_TEMPLATE, casing: 'none' },
            sk: { field: 'gsi1sk', composite: ['seqKey'], template: '${seqKey}', casing: 'none' },
          },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type Authority = EntityItem<ReturnType<typeof authorities>> & { setType: SetType; syncState: SyncState; syncReason?: SyncFailure };

export async function findAuthority(tenantId: string, setType: SetType, personKey: string, deviceKey: string): Promise<Authority | undefined> {
  return ((await authorities().get({ tenantId, personKey, setType, deviceKey }).go()).data as Authority | null) ?? undefined;
}

/** True when the person is on the device's blacklist now (not revoked, within its validity). */
export async function isWatched(tenantId: string, personKey: string, deviceKey: string, at = new Date()): Promise<boolean> {
  const item = await findAuthority(tenantId, 1, personKey, deviceKey);
  if (!item || item.revoked) return false;
  const t = at.toISOString();
  return (!item.validFrom || item.validFrom <= t) && (!item.validTo || item.validTo >= t);
}

// Sequences

/** Takes `count` numbers of the device's change sequence in one write; answers the first. */
export async function takeSeqs(tenantId: string, deviceKey: string, count: number): Promise<number> {
  const out = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(MAIN_TABLE),
      Key: { pk: tenantId, sk: FACE_SEQ.of(deviceKey) },
      UpdateExpression: 'ADD #seq :n',
      ExpressionAttributeNames: { '#seq': 'seq' },
      ExpressionAttributeValues: { ':n': count },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return (out.Attributes!.seq as number) - count + 1;
}

/** The last number the device's sequence has handed out (0 before its first change). */
export async function currentSeq(tenantId: string, deviceKey: string): Promise<number> {
  const out = await dynamo().send(
    new GetCommand({ TableName: tableName(MAIN_TABLE), Key: { pk: tenantId, sk: FACE_SEQ.of(deviceKey) }, ConsistentRead: true }),
  );
  return Number(out.Item?.seq ?? 0);
}

// Changes

/** What the device must do for an authorization as it stands. */
export const actionOf = (item: Pick<Authority, 'revoked' | 'personActive'>): 'upsert' | 'remove' => (item.revoked || !item.personActive ? 'remove' : 'upsert');

/** Facts of a person an authorization carries. */
export interface FacePerson {
  personKey: string;
  kind: 'employee' | 'visitor';
  name: string;
  personId: string;
  avatar?: string | undefined;
  active: boolean;
}

/** The facts an authorization copies from a person (employees count only while active). */
export function facePersonOf(person: {
  personKey: string;
  kind: 'employee' | 'visitor';
  name: string;
  personId: string;
  avatar?: string | undefined;
  state?: string;
}): FacePerson {
  return {
    personKey: person.personKey,
    kind: person.kind,
    name: person.name,
    personId: person.personId,
    avatar: person.avatar,
    active: person.kind === 'visitor' || person.state !== 'resigned',
  };
}

export interface Bounds {
  startDay?: string | undefined;
  endDay?: string | undefined;
  validFrom?: string | undefined;
  validTo?: string | undefined;
}

/** The device's answer to the console: notifications go out after every change, best effort (a terminal also pulls when it connects and every few minutes). */
export async function notifyDevices(tenantId: string, deviceSeqs: Map<string, number>): Promise<void> {
  await Promise.all(
    [...deviceSeqs].map(async ([deviceKey, seq]) => {
      try {
        await publish(deviceTopics(thingName(tenantId, deviceKey)).facesNotify, { seq } satisfies FaceNotifyMessage);
      } catch (error) {
        log('warn', 'face notification not sent', { deviceKey, error: String(error) });
      }
    }),
  );
}

const searchText = (person: Pick<FacePerson, 'name' | 'personId'>): string => `${person.name}\n${person.personId}`.toLowerCase();

/**
 * Grants `people` on each of `devices` with one validity: every pair becomes a change of its
 * device. A pair that exists gets the new validity (and its version goes up). Writes go in
 * batches, each finished to the end (`finishBatch`); a grant that is retried after a failure
 * writes the same items again. `refresh`, when given, answers the people as they are just before
 * each device's share is written (those gone are left out); `onDevice` hears each share written.
 */
export async function grantPairs(
  tenantId: string,
  setType: SetType,
  persons: FacePerson[],
  deviceKeys: string[],
  bounds: Bounds,
  options: { refresh?: (persons: FacePerson[]) => Promise<FacePerson[]>; onDevice?: (pairs: number) => Promise<void> } = {},
): Promise<{ count: number; written: Map<string, FacePerson> }> {
  const now = nowIso();
  let count = 0;
  const written = new Map<string, FacePerson>();
  await pool(deviceKeys, 4, async (deviceKey) => {
    const share = options.refresh ? await options.refresh(persons) : persons;
    if (share.length > 0) {
      await writeShare(tenantId, setType, share, deviceKey, bounds, now);
      count += share.length;
      for (const person of share) written.set(person.personKey, person);
    }
    await options.onDevice?.(share.length);
  });
  return { count, written };
}

/** Authorizations written in one transaction with their device's counts (a transaction holds 100 writes). */
const SHARE_CHUNK = 99;

/**
 * One device's share of a grant: take the sequence numbers, then write in transactions of
 * SHARE_CHUNK, each conditioned on the version read and carrying the change of the device's
 * counts; a part that someone changed meanwhile is read again and written again. Tell the device.
 */
async function writeShare(tenantId: string, setType: SetType, persons: FacePerson[], deviceKey: string, bounds: Bounds, now: string): Promise<void> {
  const first = await takeSeqs(tenantId, deviceKey, persons.length);
  const chunks: { persons: FacePerson[]; first: number }[] = [];
  for (let i = 0; i < persons.length; i += SHARE_CHUNK) chunks.push({ persons: persons.slice(i, i + SHARE_CHUNK), first: first + i });
  await pool(chunks, 4, (chunk) => writeShareChunk(tenantId, setType, chunk.persons, deviceKey, bounds, now, chunk.first));
  // The device may start on its share at once.
  await notifyDevices(tenantId, new Map([[deviceKey, first + persons.length - 1]]));
}

async function writeShareChunk(
  tenantId: string,
  setType: SetType,
  persons: FacePerson[],
  deviceKey: string,
  bounds: Bounds,
  now: string,
  first: number,
): Promise<void> {
  const keys = persons.map((p) => ({ tenantId, personKey: p.personKey, setType, deviceKey }));
  for (let attempt = 0; ; attempt++) {
    const existing = new Map<string, Authority>();
    const found = await finishBatch('authorities read', keys, (part) =>
      authorities()
        .get(part)
        .go({ concurrency: 2, consistent: attempt > 0 }),
    );
    for (const item of found as Authority[]) existing.set(item.personKey, item);
    const delta = countDelta(undefined, undefined);
    const writes: TransactItem[] = persons.map((person, i) => {
      const before = existing.get(person.personKey);
      const seq = first + i;
      const item = {
        tenantId,
        personKey: person.personKey,
        setType,
        deviceKey,
        personKind: person.kind,
        personName: person.name,
        personId: person.personId,
        search: searchText(person),
        ...(person.avatar ? { avatar: person.avatar } : {}),
        personActive: person.active,
        ...definedBounds(bounds),
        revoked: false,
        seq,
        seqKey: seqKey(seq),
        action: person.active ? ('upsert' as const) : ('remove' as const),
        syncState: 'pending' as const,
        syncAt: now,
        createdAt: before && !before.revoked ? before.createdAt : now,
        version: (before?.version ?? 0) + 1,
      };
      countDelta(before, item, delta);
      const put = authorities().put(item);
      return transactPut(
        (before ? put.where((attr, op) => op.eq(attr.version, before.version)) : put.where((attr, op) => op.notExists(attr.personKey))).params(),
      );
    });
    const counts = countUpdate(tenantId, deviceKey, delta);
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: counts ? [...writes, counts] : writes }));
      return;
    } catch (error) {
      if (!isConditionFailure(error) || attempt >= 4) throw error;
    }
  }
}

const BOUND_KEYS = ['startDay', 'endDay', 'validFrom', 'validTo'] as const;

function definedBounds(bounds: Bounds): Bounds {
  const out: Bounds = {};
  for (const k of BOUND_KEYS) if (bounds[k]) out[k] = bounds[k];
  return out;
}

/**
 * Rewrites one authorization as a new change of its device, conditioned on the version it was
 * read at: `changes` are applied (a key given as undefined is removed), the sequence moves on and
 * the state goes back to pending.
 * Answers the new item, or undefined when someone changed it meanwhile.
 */
async function rechange(current: Authority, changes: Partial<Authority>, replaceBounds = false): Promise<Authority | undefined> {
  const seq = await takeSeqs(current.tenantId, current.deviceKey, 1);
  const next = { ...current } as Authority;
  // A new validity replaces the old one whole: bounds it does not name are gone.
  if (replaceBounds) for (const k of BOUND_KEYS) delete next[k];
  Object.assign(next, changes);
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete (next as Record<string, unknown>)[k];
  Object.assign(next, { seq, seqKey: seqKey(seq), action: actionOf(next), syncState: 'pending', syncAt: nowIso(), version: current.version + 1 });
  delete next.syncReason;
  delete next.syncDetail;
  try {
    const put = authorities()
      .put(next)
      .where((attr, op) => op.eq(attr.version, current.version));
    const counts = countUpdate(current.tenantId, current.deviceKey, countDelta(current, next));
    if (counts) await dynamo().send(new TransactWriteCommand({ TransactItems: [transactPut(put.params()), counts] }));
    else await put.go();
    return next;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Changes the validity of one authorization at `version`; 409 when it changed, 404 when gone or revoked. */
export async function changeValidity(tenantId: string, key: AuthorityKey, version: number, bounds: Bounds): Promise<Authority> {
  const current = await findAuthority(tenantId, key.setType, key.personKey, key.deviceKey);
  if (!current || current.revoked) throw new NotFoundError();
  if (current.version !== version) throw new ConflictError();
  const next = await rechange(current, definedBounds(bounds), true);
  if (!next) throw new ConflictError();
  await notifyDevices(tenantId, new Map([[next.deviceKey, next.seq]]));
  return next;
}

/** Revokes one authorization at `version`: it stays as a removal until its device confirms it. */
export async function revoke(tenantId: string, key: AuthorityKey, version: number): Promise<void> {
  const current = await findAuthority(tenantId, key.setType, key.personKey, key.deviceKey);
  if (!current || current.revoked) throw new NotFoundError();
  if (current.version !== version) throw new ConflictError();
  const next = await rechange(current, { revoked: true });
  if (!next) throw new ConflictError();
  await notifyDevices(tenantId, new Map([[next.deviceKey, next.seq]]));
}

/** Sends authorizations to their devices again (after a failure): each becomes a new change. */
export async function resend(tenantId: string, keys: AuthorityKey[]): Promise<number> {
  const seqs = new Map<string, number>();
  let count = 0;
  await Promise.all(
    keys.map(async (key) => {
      const current = await findAuthority(tenantId, key.setType, key.personKey, key.deviceKey);
      if (!current || current.revoked) return;
      const next = await rechange(current, {});
      if (!next) return;
      count++;
      seqs.set(next.deviceKey, Math.max(seqs.get(next.deviceKey) ?? 0, next.seq));
    }),
  );
  await notifyDevices(tenantId, seqs);
  return count;
}

export interface AuthorityKey {
  setType: SetType;
  personKey: string;
  deviceKey: string;
}

export function parseAuthorityKey(text: string): AuthorityKey {
  const [setType, personKey, deviceKey] = text.split('.');
  return { setType: Number(setType) as SetType, personKey: personKey!, deviceKey: deviceKey! };
}

/** Every authorization of a person, both lists, revoked ones included. */
export async function personAuthorities(tenantId: string, personKey: string): Promise<Authority[]> {
  const range = skPrefix(AUTHORITY.prefix(personKey));
  return queryAll({
    TableName: tableName(MAIN_TABLE),
    KeyConditionExpression: `#pk = :pk AND ${range.condition}`,
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: { ':pk': tenantId, ...range.values },
    // Strongly consistent: a grant written just before a person's deletion must be seen by it.
    ConsistentRead: true,
  });
}

/** Every authorization on a device, both lists. */
export async function deviceAuthorities(tenantId: string, deviceKey: string): Promise<Authority[]> {
  return queryAll({
    TableName: tableName(MAIN_TABLE),
    IndexName: 'gsi1',
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'gsi1pk' },
    ExpressionAttributeValues: { ':pk': facesPartition(tenantId, deviceKey) },
  });
}

/** What the capacity check reads of a device's authorizations: these attributes only. */
export type AuthorityFacts = Pick<Authority, 'personKey' | 'setType' | 'action' | 'personName' | 'revoked' | 'validTo'>;

/** Every authorization on a device, both lists, with only the attributes of AuthorityFacts read. */
export async function deviceAuthorityFacts(tenantId: string, deviceKey: string): Promise<AuthorityFacts[]> {
  return queryAll({
    TableName: tableName(MAIN_TABLE),
    IndexName: 'gsi1',
    KeyConditionExpression: '#pk = :pk',
    ProjectionExpression: '#personKey, #setType, #action, #personName, #revoked, #validTo',
    ExpressionAttributeNames: {
      '#pk': 'gsi1pk',
      '#personKey': 'personKey',
      '#setType': 'setType',
      '#action': 'action',
      '#personName': 'personName',
      '#revoked': 'revoked',
      '#validTo': 'validTo',
    },
    ExpressionAttributeValues: { ':pk': facesPartition(tenantId, deviceKey) },
  });
}

async function queryAll(input: QueryCommandInput): Promise<Authority[]> {
  const out: Authority[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    out.push(...((page.Items ?? []) as Authority[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * A person changed (name, photo, state) or was deleted (`person` undefined): each of their
 * authorizations becomes a change of its device. A deleted person's authorizations are revoked.
 */
export async function personChanged(tenantId: string, personKey: string, person: FacePerson | undefined): Promise<void> {
  const items = await personAuthorities(tenantId, personKey);
  if (items.length === 0) return;
  const seqs = new Map<string, number>();
  await pool(items, 8, async (item) => {
    if (item.revoked) return;
    const changes: Partial<Authority> = person
      ? { personName: person.name, personId: person.personId, search: searchText(person), personActive: person.active, avatar: person.avatar }
      : { revoked: true };
    let current: Authority | undefined = item;
    for (let attempt = 0; current && attempt < 5; attempt++) {
      const next = await rechange(current, changes);
      if (next) {
        seqs.set(next.deviceKey, Math.max(seqs.get(next.deviceKey) ?? 0, next.seq));
        return;
      }
      current = await findAuthority(tenantId, item.setType as SetType, personKey, item.deviceKey);
    }
  });
  await notifyDevices(tenantId, seqs);
}

/** A device is gone: its authorizations and its sequence go with it. */
export async function dropDeviceAuthorities(tenantId: string, deviceKey: string): Promise<void> {
  const items = await deviceAuthorities(tenantId, deviceKey);
  const keys = items.map((a) => ({ tenantId, personKey: a.personKey, setType: a.setType, deviceKey }));
  await finishBatch('authorities delete', keys, (part) => authorities().delete(part).go({ concurrency: 4 }));
  await dynamo().send(new DeleteCommand({ TableName: tableName(MAIN_TABLE), Key: { pk: tenantId, sk: FACE_SEQ.of(deviceKey) } }));
  await dynamo().send(new DeleteCommand(dropCountsItem(tenantId, deviceKey)));
}

// The device's side

/**
 * How far behind its cursor a device is shown changes that are still pending. A change takes its
 * number before it is written, so a write can land after a device has already read past its
 * number; looking back this far hands such a change over on the next pull.
 */
export const LOOKBACK = 500;

/** The device's changes after `cursor`, in order, and the pending ones within LOOKBACK before it. */
export async function changesAfter(tenantId: string, deviceKey: string, cursor: number, limit: number): Promise<{ items: Authority[]; more: boolean }> {
  const items: Authority[] = [];
  let start: Record<string, unknown> | undefined;
  let more = false;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        IndexName: 'gsi1',
        KeyConditionExpression: '#pk = :pk AND #sk > :after',
        FilterExpression: '#seq > :cursor OR #state = :pending',
        ExpressionAttributeNames: { '#pk': 'gsi1pk', '#sk': 'gsi1sk', '#seq': 'seq', '#state': 'syncState' },
        ExpressionAttributeValues: {
          ':pk': facesPartition(tenantId, deviceKey),
          ':after': seqKey(Math.max(0, cursor - LOOKBACK)),
          ':cursor': cursor,
          ':pending': 'pending',
        },
        ExclusiveStartKey: start,
        Limit: limit + LOOKBACK,
      }),
    );
    for (const item of (page.Items ?? []) as Authority[]) {
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(item);
    }
    start = page.LastEvaluatedKey;
    if (items.length === limit && start) more = true;
  } while (start && !more);
  return { items, more };
}

/**
 * What the device reports: a result counts only for the change it was given (`seq`); a newer
 * change meanwhile keeps its pending state. A confirmed removal of a revoked authorization deletes it.
 * A page of results is read with one batch read and written in transactions of up to RESULT_CHUNK
 * changes with the device's counts summed; a transaction cancelled because an authorization
 * changed since it was read writes each of its results on its own. Answers the results that
 * changed an authorization's state (a result sent again changes nothing).
 */
export async function recordResults(tenantId: string, deviceKey: string, results: FaceResult[]): Promise<FaceResult[]> {
  const now = nowIso();
  const keyOf = (r: Pick<FaceResult, 'personKey' | 'list'>) => ({ tenantId, personKey: r.personKey, setType: SET_TYPE_OF_LIST[r.list], deviceKey });
  const id = (personKey: string, setType: SetType) => `${personKey}#${setType}`;
  // One result per authorization (a page names each once; a repeated one is the same answer).
  const unique = [...new Map(results.map((r) => [id(r.personKey, SET_TYPE_OF_LIST[r.list]), r])).values()];
  const found = (await finishBatch('authorities read', unique.map(keyOf), (part) => authorities().get(part).go({ concurrency: 2 }))) as Authority[];
  const current = new Map(found.map((a) => [id(a.personKey, a.setType), a]));
  const changes: { result: FaceResult; item: Authority }[] = [];
  for (const result of unique) {
    const item = current.get(id(result.personKey, SET_TYPE_OF_LIST[result.list]));
    if (item && item.seq === result.seq) changes.push({ result, item });
  }
  const single = changes.filter((c) => c.item.revoked && c.result.state === 'synced');
  const batched = changes.filter((c) => !single.includes(c));
  // A removal the terminal confirmed: the revoked authorization goes, if still that change.
  await pool(single, 8, (c) => recordResult(tenantId, deviceKey, c.result, now));
  for (let i = 0; i < batched.length; i += RESULT_CHUNK) {
    const chunk = batched.slice(i, i + RESULT_CHUNK);
    const delta = countDelta(undefined, undefined);
    const updates = chunk.map(({ result, item }) => {
      countDelta(item, { ...item, syncState: result.state }, delta);
      return { Update: resultUpdate(keyOf(result), result, now).params() as TransactItem['Update'] };
    });
    const counts = countUpdate(tenantId, deviceKey, delta);
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: counts ? [...updates, counts] : updates }));
    } catch (error) {
      // An authorization changed since it was read (granted again, revoked) or a conflict: each result on its own.
      if (!isConditionFailure(error)) throw error;
      await pool(chunk, 8, (c) => recordResult(tenantId, deviceKey, c.result, now));
    }
  }
  return changes.filter((c) => c.item.syncState !== c.result.state).map((c) => c.result);
}

/** Results written in one transaction with the device's counts (a transaction holds 100 writes). */
const RESULT_CHUNK = 99;

/** The change a result makes to its authorization, conditioned on it still being the change the terminal answered (`seq`). */
function resultUpdate(key: { tenantId: string; personKey: string; setType: SetType; deviceKey: string }, result: FaceResult, now: string) {
  const failed = result.state === 'failed';
  const update = authorities().patch(key).set({ syncState: result.state, syncAt: now });
  const withReason = failed && result.reason ? update.set({ syncReason: result.reason }) : update.remove(['syncReason']);
  return (failed && result.detail ? withReason.set({ syncDetail: result.detail }) : withReason.remove(['syncDetail'])).where((attr, op) =>
    op.eq(attr.seq, result.seq),
  );
}

/** One result on its own: read, then its change and the device's counts together (or the revoked authorization deleted). A conflict with another transaction is tried again. */
async function recordResult(tenantId: string, deviceKey: string, result: FaceResult, now: string, attempt = 1): Promise<void> {
  const key = { tenantId, personKey: result.personKey, setType: SET_TYPE_OF_LIST[result.list], deviceKey };
  try {
    const item = (await authorities().get(key).go({ consistent: true })).data as Authority | null;
    if (!item || item.seq !== result.seq) return;
    if (item.revoked && result.state === 'synced') {
      await authorities()
        .delete(key)
        .where((attr, op) => op.eq(attr.seq, result.seq))
        .go();
      return;
    }
    // The state and the device's counts change together, or neither does.
    const counts = countUpdate(tenantId, deviceKey, countDelta(item, { ...item, syncState: result.state }));
    const update = resultUpdate(key, result, now);
    if (counts) await dynamo().send(new TransactWriteCommand({ TransactItems: [{ Update: update.params() as TransactItem['Update'] }, counts] }));
    else await update.go();
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (attempt < 5 && reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError')) {
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * (0.5 + Math.random())));
      return recordResult(tenantId, deviceKey, result, now, attempt + 1);
    }
    if (!isConditionFailure(error)) throw error;
  }
}

// The console's lists

export interface AuthorityFilter {
  setType?: SetType | undefined;
  personKey?: string | undefined;
  deviceKey?: string | undefined;
  keyword?: string | undefined;
  validity?: ValidityState | undefined;
  state?: SyncState | undefined;
}

function encodeCursor(item: Record<string, unknown>, index: boolean): string {
  const key = index ? { pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk } : { pk: item.pk, sk: item.sk };
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(tenantId: string, cursor: string, index: boolean): Record<string, string> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const strings = Object.values(key).every((v) => typeof v === 'string');
    const own = key.pk === tenantId && typeof key.sk === 'string' && AUTHORITY.owns(key.sk);
    const ownIndex = !index || (typeof key.gsi1pk === 'string' && key.gsi1pk.startsWith(facesPartition(tenantId, '')));
    if (strings && own && ownIndex && Object.keys(key).length === (index ? 4 : 2)) return key as Record<string, string>;
  } catch {
    // fall through to the field error
  }
  throw fieldError('cursor', 'error.badCursor');
}

/** How many authorizations one list request reads at most before it answers with a cursor. */
export const LIST_READ_BUDGET = 2000;

/**
 * One page of authorizations that are not revoked, with the filters applied: by person (their
 * range), by device (the device's index) or all (newest people first).
 */
export async function listAuthorities(
  tenantId: string,
  filter: AuthorityFilter,
  pageSize: number,
  cursor?: string,
  budget = LIST_READ_BUDGET,
): Promise<{ items: Authority[]; nextCursor: string | null }> {
  const names: Record<string, string> = { '#pk': 'pk', '#revoked': 'revoked' };
  const values: Record<string, unknown> = { ':pk': tenantId, ':false': false };
  const conditions = ['#revoked = :false'];
  let keyCondition: string;
  const index = !filter.personKey && !!filter.deviceKey;
  if (filter.personKey) {
    const range = skPrefix(AUTHORITY.head(filter.personKey, String(filter.setType ?? '')));
    names['#sk'] = 'sk';
    Object.assign(values, range.values);
    keyCondition = `#pk = :pk AND ${range.condition}`;
  } else if (index) {
    names['#pk'] = 'gsi1pk';
    values[':pk'] = facesPartition(tenantId, filter.deviceKey!);
    keyCondition = '#pk = :pk';
  } else {
    const range = skPrefix(AUTHORITY.prefix());
    names['#sk'] = 'sk';
    Object.assign(values, range.values);
    keyCondition = `#pk = :pk AND ${range.condition}`;
  }
  const add = (attr: string, condition: (name: string) => string, value?: unknown) => {
    names[`#${attr}`] = attr;
    if (value !== undefined) values[`:${attr}`] = value;
    conditions.push(condition(`#${attr}`));
  };
  if (filter.setType !== undefined) add('setType', (n) => `${n} = :setType`, filter.setType);
  if (filter.personKey && filter.deviceKey) add('deviceKey', (n) => `${n} = :deviceKey`, filter.deviceKey);
  if (filter.state) add('syncState', (n) => `${n} = :syncState`, filter.state);
  if (filter.keyword) add('search', (n) => `contains(${n}, :search)`, filter.keyword.toLowerCase());
  if (filter.validity) {
    if (filter.validity !== 'expired') names['#from'] = 'validFrom';
    if (filter.validity !== 'upcoming') names['#to'] = 'validTo';
    values[':now'] = nowIso();
    conditions.push(
      filter.validity === 'active'
        ? '(attribute_not_exists(#from) OR #from <= :now) AND (attribute_not_exists(#to) OR #to >= :now)'
        : filter.validity === 'upcoming'
          ? '#from > :now'
          : '#to < :now',
    );
  }
  const input: QueryCommandInput = {
    TableName: tableName(MAIN_TABLE),
    ...(index ? { IndexName: 'gsi1' } : {}),
    KeyConditionExpression: keyCondition,
    FilterExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  };
  let start: Record<string, unknown> | undefined = cursor ? decodeCursor(tenantId, cursor, index) : undefined;
  const items: Authority[] = [];
  let nextCursor: string | null = null;
  let read = 0;
  for (let round = 0; items.length < pageSize; round++) {
    const limit = Math.min(1000, pageSize * 2 * 4 ** round, budget - read);
    const page = await dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: limit }));
    read += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      items.push(item as Authority);
      if (items.length === pageSize) {
        const more = item !== page.Items!.at(-1) || page.LastEvaluatedKey;
        nextCursor = more ? encodeCursor(item, index) : null;
        break;
      }
    }
    if (items.length === pageSize || !page.LastEvaluatedKey) break;
    start = page.LastEvaluatedKey;
    // A rare keyword or state would read on through the whole list: the page answers what the
    // budget found, with a cursor to go on from where the reading stopped.
    if (read >= budget) {
      nextCursor = encodeCursor(start, index);
      break;
    }
  }
  return { items, nextCursor };
}

/** How many faces each device holds or will hold (not revoked, person active), counted from its index. */
export async function deviceFaceCount(tenantId: string, deviceKey: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        IndexName: 'gsi1',
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: '#action = :upsert',
        ExpressionAttributeNames: { '#pk': 'gsi1pk', '#action': 'action' },
        ExpressionAttributeValues: { ':pk': facesPartition(tenantId, deviceKey), ':upsert': 'upsert' },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}
