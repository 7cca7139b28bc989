import { Entity, type EntityItem } from 'electrodb';
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type SetType, type SyncFailure, type SyncState } from '#contract/authorities';
import { deviceTopics, thingName, type FaceNotifyMessage } from '#contract/protocol';
import { dynamo } from '#lib/aws';
import { ConflictError, NotFoundError } from '#lib/errors';
import { publish } from '#lib/iot';
import { log } from '#lib/log';
import { pool } from '#lib/pool';
import { MAIN_TABLE, tableName } from './tables.ts';
import { SERVICE, entityConfig, finishBatch, isConditionFailure, lazy, nowIso, skPrefix, tenantPartition, transactPut } from './entity.ts';
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
          /** The access schedule of a pass authority (setType 0); absent: at any time within the validity. */
          scheduleKey: { type: 'string' },
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
  /** The access schedule that goes with the validity (pass authority only). */
  scheduleKey?: string | undefined;
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

export const searchText = (person: Pick<FacePerson, 'name' | 'personId'>): string => `${person.name}\n${person.personId}`.toLowerCase();

const BOUND_KEYS = ['startDay', 'endDay', 'validFrom', 'validTo', 'scheduleKey'] as const;

export function definedBounds(bounds: Bounds): Bounds {
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
