import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SYNC_STATES, type SetType, type SyncState } from '#contract/authorities';
import { dynamo } from '#lib/aws';
import { isConditionFailure, type TransactItem } from './entity.ts';
import { MAIN_TABLE, tableName } from './tables.ts';
import { AUTHORITY, SYNC_COUNTS, facesPartition } from './keys/main.ts';

/**
 * How many authorizations each device holds, by list and sync state (revoked ones left out, as
 * the lists leave them out). One item per device (`syncCounts#<deviceKey>` in the main table),
 * changed by an ADD in the same transaction as every change of an authorization's state, so the
 * counts never drift from the authorizations. A device's index can hold tens of thousands of
 * authorizations; these counts answer in one read. A person's authorizations are one range of
 * their own, at most two per device of the company, and are counted from it when asked.
 */

/**
 * `c<setType><state>`: authorizations by list and sync state; `s<scheduleKey>`: authorizations
 * (not revoked) that use an access schedule, summed over the devices as the schedule's `usedBy`.
 */
type Bucket = `c${SetType}${SyncState}` | `s${string}`;
export type StateCounts = Record<SyncState, number>;

/** What an authorization counts as: its list and state, or nothing when it is revoked or gone; and its schedule. */
export interface Countable {
  setType: number;
  syncState: string;
  revoked: boolean;
  scheduleKey?: string | undefined;
}

const bucketOf = (item: Countable | undefined): Bucket | null => (!item || item.revoked ? null : (`c${item.setType}${item.syncState}` as Bucket));
/** The usage bucket of a schedule. */
export const scheduleBucket = (scheduleKey: string): Bucket => `s${scheduleKey}`;
const scheduleOf = (item: Countable | undefined): Bucket | null => (!item || item.revoked || !item.scheduleKey ? null : scheduleBucket(item.scheduleKey));

/** The change of the counts when an authorization goes from `before` to `after` (either may be absent). */
export function countDelta(before: Countable | undefined, after: Countable | undefined, into: Map<Bucket, number> = new Map()): Map<Bucket, number> {
  for (const of of [bucketOf, scheduleOf]) {
    const from = of(before);
    const to = of(after);
    if (from === to) continue;
    if (from) into.set(from, (into.get(from) ?? 0) - 1);
    if (to) into.set(to, (into.get(to) ?? 0) + 1);
  }
  return into;
}

const counterKey = (tenantId: string, deviceKey: string) => ({ pk: tenantId, sk: SYNC_COUNTS.of(deviceKey) });

/** The counter update of a transaction, or nothing when the counts do not change. */
export function countUpdate(tenantId: string, deviceKey: string, delta: Map<Bucket, number>): TransactItem | null {
  const entries = [...delta].filter(([, n]) => n !== 0);
  if (entries.length === 0) return null;
  return {
    Update: {
      TableName: tableName(MAIN_TABLE),
      Key: counterKey(tenantId, deviceKey),
      UpdateExpression: `ADD ${entries.map((_, i) => `#b${i} :d${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([bucket], i) => [`#b${i}`, bucket])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, n], i) => [`:d${i}`, n])),
    },
  };
}

const sum = (item: Record<string, unknown> | undefined, setTypes: readonly SetType[]): StateCounts =>
  Object.fromEntries(
    SYNC_STATES.map((state) => [state, setTypes.reduce<number>((total, t) => total + Number(item?.[`c${t}${state}`] ?? 0), 0)]),
  ) as StateCounts;

/**
 * A device's counts over the given lists. A device whose authorizations were written before
 * the counts were kept has no counter yet: it is counted once from its index and stored.
 */
export async function deviceSyncCounts(tenantId: string, deviceKey: string, setTypes: readonly SetType[]): Promise<StateCounts> {
  const stored = (await dynamo().send(new GetCommand({ TableName: tableName(MAIN_TABLE), Key: counterKey(tenantId, deviceKey), ConsistentRead: true }))).Item;
  if (stored) return sum(stored, setTypes);
  const counted = await countRange({
    IndexName: 'gsi1',
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'gsi1pk' },
    ExpressionAttributeValues: { ':pk': facesPartition(tenantId, deviceKey) },
  });
  const anything = [...counted.values()].some((n) => n !== 0);
  if (anything) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(MAIN_TABLE),
          Item: { ...counterKey(tenantId, deviceKey), ...Object.fromEntries(counted) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      // A change made meanwhile started the counter; it is read next time.
      if (!isConditionFailure(error)) throw error;
    }
  }
  return sum(Object.fromEntries(counted), setTypes);
}

/** The whole company's counts: every device's counter in one range, a device without one counted as above. */
export async function companySyncCounts(tenantId: string, deviceKeys: string[], setTypes: readonly SetType[]): Promise<StateCounts> {
  const byList = await companySyncCountsByList(tenantId, deviceKeys, setTypes);
  const total: StateCounts = { pending: 0, synced: 0, failed: 0 };
  for (const counts of Object.values(byList)) for (const state of SYNC_STATES) total[state] += counts[state];
  return total;
}

/** The company's counts of each list apart, from the same one range. */
export async function companySyncCountsByList<T extends SetType>(
  tenantId: string,
  deviceKeys: string[],
  setTypes: readonly T[],
): Promise<Record<T, StateCounts>> {
  const stored = new Map<string, Record<string, unknown>>();
  for (const item of await companyCounters(tenantId, false)) stored.set(String(item.sk).slice(SYNC_COUNTS.prefix().length), item);
  const totals = Object.fromEntries(setTypes.map((t) => [t, { pending: 0, synced: 0, failed: 0 }])) as Record<T, StateCounts>;
  for (const deviceKey of deviceKeys) {
    for (const setType of setTypes) {
      const counts = stored.has(deviceKey) ? sum(stored.get(deviceKey), [setType]) : await deviceSyncCounts(tenantId, deviceKey, [setType]);
      for (const state of SYNC_STATES) totals[setType][state] += counts[state];
    }
  }
  return totals;
}

/** A person's counts over the given lists, read from their range (two authorizations per device at most). */
export async function personSyncCounts(tenantId: string, personKey: string, setTypes: readonly SetType[]): Promise<StateCounts> {
  const counted = await countRange({
    KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
    ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
    ExpressionAttributeValues: { ':pk': tenantId, ':prefix': AUTHORITY.prefix(personKey) },
  });
  return sum(Object.fromEntries(counted), setTypes);
}

/** Counts the authorizations of a key range by bucket, reading only the attributes it needs. */
async function countRange(input: {
  IndexName?: string;
  KeyConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}): Promise<Map<Bucket, number>> {
  const counted = new Map<Bucket, number>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        ...input,
        ProjectionExpression: '#setType, #syncState, #revoked, #scheduleKey',
        ExpressionAttributeNames: {
          ...input.ExpressionAttributeNames,
          '#setType': 'setType',
          '#syncState': 'syncState',
          '#revoked': 'revoked',
          '#scheduleKey': 'scheduleKey',
        },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of (page.Items ?? []) as Countable[]) countDelta(undefined, item, counted);
    start = page.LastEvaluatedKey;
  } while (start);
  return counted;
}

/** A device is gone, and its counts with it. */
export const dropCountsItem = (tenantId: string, deviceKey: string) => ({ TableName: tableName(MAIN_TABLE), Key: counterKey(tenantId, deviceKey) });

/**
 * How many authorizations use each schedule: every device's counter in one range (one item per
 * device), its schedule buckets summed. A device without a counter holds none written since
 * schedules exist.
 */
export async function scheduleUsage(tenantId: string): Promise<Map<string, number>> {
  const usage = new Map<string, number>();
  for (const item of await companyCounters(tenantId, true)) {
    for (const [name, value] of Object.entries(item)) {
      if (name.startsWith('s') && name !== 'sk' && typeof value === 'number' && value !== 0) usage.set(name.slice(1), (usage.get(name.slice(1)) ?? 0) + value);
    }
  }
  return usage;
}

/**
 * The devices holding a face whose authorization uses one of the schedules: those whose counter
 * has one of the schedules' buckets above 0. One item per device is read, however many
 * authorizations there are.
 */
export async function devicesUsingSchedules(tenantId: string, scheduleKeys: readonly string[]): Promise<Set<string>> {
  const buckets = scheduleKeys.map(scheduleBucket);
  const devices = new Set<string>();
  for (const item of await companyCounters(tenantId, true)) {
    if (buckets.some((bucket) => typeof item[bucket] === 'number' && (item[bucket] as number) > 0)) {
      devices.add(String(item.sk).slice(SYNC_COUNTS.prefix().length));
    }
  }
  return devices;
}

/** Every device's counter item of the company: one range, one item per device. */
async function companyCounters(tenantId: string, consistent: boolean): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': tenantId, ':prefix': SYNC_COUNTS.prefix() },
        ConsistentRead: consistent,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
