import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { type PassSource, type PassState, type RecordType } from '#contract/passRecords';
import type { PassDecision, RefusalReason } from '#contract/protocol';
import { dynamo } from '#lib/aws';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { type TransactItem } from './entity.ts';
import {
  PUNCH,
  RECORD,
  RECORD_COUNTER_SK,
  RECORD_FLAG,
  RECORD_MARKER,
  byDeviceSk,
  punchPartition,
  recordCounterPartition,
  recordDevicePartition,
  recordFlagPartition,
  recordMarkerPartition,
  recordPartition as dayPartition,
} from './keys/events.ts';

/**
 * Pass records in the events table, spread over partitions so that one busy company is not held
 * to one partition's throughput (docs/scale.md):
 *
 * - the record:        pk `<tenantId>#rec#<UTC day of verifyTime>#<shard of the device>`, sk
 *                      `rec#<verifyTime ISO>#<deviceKey>#<recordId>`: a day's records are
 *                      RECORD_SHARDS key ranges, merged newest first; gsi1 `<tenantId>#rec#<deviceKey>`
 *                      / `<verifyTime ISO>#<recordId>` for one device's records;
 * - its marker:        pk `<tenantId>#recid#<deviceKey>`, sk `recid#<recordId>`, written only if
 *                      absent: what makes a record sent twice (or twice at once) stored and counted
 *                      once;
 * - rare-filter copies: pk `<tenantId>#recx#<flag>#<UTC day>`, sk
 *                      `recx#<flag>#<verifyTime ISO>#<deviceKey>#<recordId>` for blacklist,
 *                      stranger, fever and refused records, so a list of only those reads only them;
 * - a known person's pass: pk `<tenantId>#punch#<personKey>`, for employees and visitors alike:
 *                      attendance reads an employee's range (their punches), erasure finds
 *                      every record of a person through it (data/erasures.ts);
 * - day counters:      pk `<tenantId>#cnt#<company day>#<shard>`, sk `cnt`, added to atomically
 *                      (`ADD`) in the same transaction as the markers; a day is spread over
 *                      COUNTER_SHARDS items (and partitions) so that records stored at the same
 *                      moment do not contend for one item. The dashboard reads these
 *                      (dayCounters), never the records.
 *
 * Every key starts with the tenant id. Every item of a record carries the record's TTL (privacy
 * settings' pass-record retention).
 */

export const COUNTER_SHARDS = 8;
/** Partitions a day's records are spread over, by device. */
export const RECORD_SHARDS = 4;
/** Filters rare enough to keep their own copy of each matching record. */
export const SPARSE_FLAGS = ['blacklist', 'stranger', 'fever', 'refused'] as const;
export type SparseFlag = (typeof SPARSE_FLAGS)[number];

export interface PassRecord {
  tenantId: string;
  deviceKey: string;
  recordId: string;
  /** When the cloud stored it (ISO). */
  time: string;
  /** When the terminal verified the person (ISO). */
  verifyTime: string;
  /** The company day of `verifyTime`. */
  day: string;
  personKey?: string;
  personKind?: 'employee' | 'visitor';
  /** As the terminal knew it; absent when privacy settings keep no visitor names. */
  name?: string;
  /** `name` in lower case, what the keyword filter reads. */
  nameLower?: string;
  groupKey?: string;
  type: RecordType;
  /** Absent when not measured or not kept. */
  temperature?: number;
  /** Whether a temperature was measured (kept even when the temperature itself is not). */
  measured: boolean;
  fever: boolean;
  mask?: boolean;
  passState: PassState;
  source: PassSource;
  /** Why the terminal refused it, when it said (absent: passed, or refused by a terminal that names no reason). */
  refusedFor?: Exclude<RefusalReason, 'unknown'>;
  /** How the terminal decided, as it reported it. */
  decision?: PassDecision;
  /**
   * Set when the terminal let through a person on its blacklist (a blacklist record with
   * `passState` passed): the blacklist wins at the door, so such a pass breaks the device protocol.
   */
  violation?: true;
  /** The person was erased: the record keeps when, where and the outcome, without them (flows/erasure.ts). */
  erased?: true;
  /** Where the capture goes (captures bucket, under the tenant's prefix), when one is wanted. */
  captureKey?: string;
  captureType?: string;
  captureSize?: number;
  /** The person's enrolled photo when the record was stored (photos bucket), kept while privacy settings keep photos. */
  avatarKey?: string;
  ttl: number;
}

const table = () => tableName(EVENTS_TABLE);

export const recordSk = (r: Pick<PassRecord, 'verifyTime' | 'deviceKey' | 'recordId'>): string => RECORD.of(r.verifyTime, r.deviceKey, r.recordId);
export const sparseSk = (flag: SparseFlag, r: Pick<PassRecord, 'verifyTime' | 'deviceKey' | 'recordId'>): string =>
  RECORD_FLAG.of(flag, r.verifyTime, r.deviceKey, r.recordId);
const devicePartition = recordDevicePartition;
const hashByte = (text: string): number => createHash('sha1').update(text).digest()[0]!;
/** The UTC day of an ISO time: what a record's partitions are cut by (a list's range of times names its days without the company's zone). */
export const utcDay = (iso: string): string => iso.slice(0, 10);
/** The partition of a record: its UTC day and its device's shard. */
export const recordPartition = (tenantId: string, r: Pick<PassRecord, 'verifyTime' | 'deviceKey'>): string =>
  dayPartition(tenantId, utcDay(r.verifyTime), hashByte(r.deviceKey) % RECORD_SHARDS);
export const flagPartition = (tenantId: string, flag: SparseFlag, day: string): string => recordFlagPartition(tenantId, flag, day);
export const markerKey = (tenantId: string, deviceKey: string, recordId: string) => ({
  pk: recordMarkerPartition(tenantId, deviceKey),
  sk: RECORD_MARKER.of(recordId),
});
export const counterKey = (tenantId: string, day: string, shard: number) => ({ pk: recordCounterPartition(tenantId, day, shard), sk: RECORD_COUNTER_SK });

/** The record's key in the API: `<deviceKey>.<recordId>` (record ids have no dots). */
export const recordKeyOf = (r: Pick<PassRecord, 'deviceKey' | 'recordId'>): string => `${r.deviceKey}.${r.recordId}`;

/** The flags of SPARSE_FLAGS a record carries. */
export function flagsOf(r: Pick<PassRecord, 'type' | 'fever' | 'passState'>): SparseFlag[] {
  const flags: SparseFlag[] = [];
  if (r.type === 'blacklist') flags.push('blacklist');
  if (r.type === 'stranger') flags.push('stranger');
  if (r.fever) flags.push('fever');
  if (r.passState === 'refused') flags.push('refused');
  return flags;
}

function shardOf(deviceKey: string, recordId: string): number {
  return hashByte(`${deviceKey}/${recordId}`) % COUNTER_SHARDS;
}

/** The counters one record adds to its day. */
export function counterNames(r: Pick<PassRecord, 'type' | 'fever' | 'measured' | 'passState'>, hour: number): string[] {
  return ['total', r.passState, r.type, ...(r.fever ? ['fever'] : r.measured ? ['normal'] : []), `h${String(hour).padStart(2, '0')}`];
}

/** The marker's note of what was stored: enough to answer a record sent again. */
export interface StoredNote {
  captureKey?: string;
  captureType?: string;
  captureSize?: number;
}

export type StoreOutcome = { stored: 'new' } | { stored: 'duplicate'; note: StoredNote };

/** The record's own items: the record (with its device index keys) and its rare-filter copies. */
export function recordPuts(record: PassRecord): Record<string, unknown>[] {
  const body = { ...record, kind: 'passRecord' };
  return [
    {
      ...body,
      pk: recordPartition(record.tenantId, record),
      sk: recordSk(record),
      gsi1pk: devicePartition(record.tenantId, record.deviceKey),
      gsi1sk: byDeviceSk(record.verifyTime, record.recordId),
    },
    ...flagsOf(record).map((flag) => ({ ...body, pk: flagPartition(record.tenantId, flag, utcDay(record.verifyTime)), sk: sparseSk(flag, record) })),
    ...(record.personKind && record.personKey ? [punchItem(record)] : []),
  ];
}

/**
 * A known person's pass: every record of a known employee or visitor is also kept in the
 * person's own partition `<tenantId>#punch#<personKey>`, under
 * `punch#<verifyTime>#<deviceKey>#<recordId>`, so one employee's punches of a range are one key
 * range (data/attendanceDays.ts), and every record of one person is one partition to read when
 * the person is erased (passesOf, erasePass). Attendance reads employees' partitions only.
 */
export const punchSk = (r: Pick<PassRecord, 'verifyTime' | 'deviceKey' | 'recordId'>): string => PUNCH.of(r.verifyTime, r.deviceKey, r.recordId);

function punchItem(record: PassRecord): Record<string, unknown> {
  return {
    pk: punchPartition(record.tenantId, record.personKey!),
    sk: punchSk(record),
    kind: 'punch',
    /** Whose pass it is: erasing a person checks the route's kind against it (flows/erasure.ts). */
    personKind: record.personKind,
    verifyTime: record.verifyTime,
    deviceKey: record.deviceKey,
    ...(record.temperature !== undefined ? { temperature: record.temperature } : {}),
    ttl: record.ttl,
  };
}

/** The items of one record's transaction: marker, record, rare-filter copies and the day counter. */
export function recordTransaction(record: PassRecord, hour: number): TransactItem[] {
  const { tenantId } = record;
  const note: StoredNote = {
    ...(record.captureKey ? { captureKey: record.captureKey, captureType: record.captureType, captureSize: record.captureSize } : {}),
  };
  const names = counterNames(record, hour);
  const items: TransactItem[] = [
    {
      Put: {
        TableName: table(),
        Item: {
          ...markerKey(tenantId, record.deviceKey, record.recordId),
          kind: 'passRecordId',
          recordPk: recordPartition(tenantId, record),
          recordSk: recordSk(record),
          ...note,
          ttl: record.ttl,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    ...recordPuts(record).map((Item): TransactItem => ({ Put: { TableName: table(), Item } })),
    {
      Update: {
        TableName: table(),
        Key: counterKey(tenantId, record.day, shardOf(record.deviceKey, record.recordId)),
        UpdateExpression: `SET #kind = :kind, #day = :day, #ttl = if_not_exists(#ttl, :ttl) ADD ${names.map((_, i) => `#c${i} :one`).join(', ')}`,
        ExpressionAttributeNames: { '#kind': 'kind', '#day': 'day', '#ttl': 'ttl', ...Object.fromEntries(names.map((n, i) => [`#c${i}`, n])) },
        ExpressionAttributeValues: { ':kind': 'passCounter', ':day': record.day, ':ttl': record.ttl, ':one': 1 },
      },
    },
  ];
  return items;
}

interface CancelReason {
  Code?: string;
  Item?: Record<string, unknown>;
}
function cancellationReasons(error: unknown): CancelReason[] | undefined {
  const e = error as { name?: string; CancellationReasons?: CancelReason[] };
  return e?.name === 'TransactionCanceledException' ? (e.CancellationReasons ?? []) : undefined;
}

const MAX_ATTEMPTS = 12;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stores one record with its counters in one transaction, unless its (device, record id) was
 * stored before: then nothing is written and the first storing's note is answered. A transaction
 * that lost a race on a counter shard, or was throttled, is tried again.
 */
export async function storeRecord(record: PassRecord, hour: number): Promise<StoreOutcome> {
  const items = recordTransaction(record, hour);
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
      return { stored: 'new' };
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      if (reasons[0]?.Code === 'ConditionalCheckFailed') {
        const old = reasons[0].Item ?? (await readMarker(record.tenantId, record.deviceKey, record.recordId));
        return { stored: 'duplicate', note: noteOf(old) };
      }
      const retried = reasons.some((r) => RETRIED_CODES.has(r.Code ?? ''));
      if (!retried || attempt >= MAX_ATTEMPTS) throw error;
      await pause(Math.min(400, 5 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}

/** The most items one DynamoDB transaction may hold. */
const TRANSACTION_ITEMS = 100;

/** One record of a batch, with the hour of the company day its counters go to. */
export interface BatchEntry {
  record: PassRecord;
  hour: number;
}

/** What became of one record of a batch: stored (new or before), or not stored (the terminal sends it again). */
export type BatchOutcome = StoreOutcome | { stored: 'failed'; error: unknown };

/**
 * The counter updates of several records, one per counter item: a transaction may name an item
 * once, so the increments of the records that share a day shard are summed.
 */
function summedCounters(entries: readonly BatchEntry[]): TransactItem[] {
  const byItem = new Map<string, { tenantId: string; day: string; shard: number; ttl: number; counts: Map<string, number> }>();
  for (const { record, hour } of entries) {
    const shard = shardOf(record.deviceKey, record.recordId);
    const id = `${record.day}#${shard}`;
    let item = byItem.get(id);
    if (!item) byItem.set(id, (item = { tenantId: record.tenantId, day: record.day, shard, ttl: record.ttl, counts: new Map() }));
    item.ttl = Math.max(item.ttl, record.ttl);
    for (const name of counterNames(record, hour)) item.counts.set(name, (item.counts.get(name) ?? 0) + 1);
  }
  return [...byItem.values()].map((item): TransactItem => {
    const names = [...item.counts.keys()];
    return {
      Update: {
        TableName: table(),
        Key: counterKey(item.tenantId, item.day, item.shard),
        UpdateExpression: `SET #kind = :kind, #day = :day, #ttl = if_not_exists(#ttl, :ttl) ADD ${names.map((_, i) => `#c${i} :n${i}`).join(', ')}`,
        ExpressionAttributeNames: { '#kind': 'kind', '#day': 'day', '#ttl': 'ttl', ...Object.fromEntries(names.map((n, i) => [`#c${i}`, n])) },
        ExpressionAttributeValues: {
          ':kind': 'passCounter',
          ':day': item.day,
          ':ttl': item.ttl,
          ...Object.fromEntries(names.map((n, i) => [`:n${i}`, item.counts.get(n)!])),
        },
      },
    };
  });
}

/** A record's marker, as its transaction writes it: only if absent. */
const markerItem = (entry: BatchEntry): TransactItem => recordTransaction(entry.record, entry.hour)[0]!;

/** Groups the entries into transactions of at most TRANSACTION_ITEMS items (a marker and the record's items each, counters summed per shard). */
function chunksOf(entries: readonly BatchEntry[]): BatchEntry[][] {
  const chunks: BatchEntry[][] = [];
  let chunk: BatchEntry[] = [];
  let items = 0;
  const shards = new Set<string>();
  for (const entry of entries) {
    const own = 1 + recordPuts(entry.record).length;
    const shard = `${entry.record.day}#${shardOf(entry.record.deviceKey, entry.record.recordId)}`;
    const extra = own + (shards.has(shard) ? 0 : 1);
    if (chunk.length > 0 && items + extra > TRANSACTION_ITEMS) {
      chunks.push(chunk);
      chunk = [];
      items = 0;
      shards.clear();
    }
    chunk.push(entry);
    items += own + (shards.has(shard) ? 0 : 1);
    shards.add(shard);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** Batch reads of markers: DynamoDB reads at most 100 keys per request. */
export const MARKER_READS = 100;

/**
 * The markers of records stored before, by `<deviceKey>/<recordId>`: read together (strongly
 * consistent) before a batch, so a message sent again costs one read instead of a cancelled
 * transaction and one transaction per record. Keys left unprocessed are simply not known here;
 * the transactions still tell them apart.
 */
async function storedMarkers(entries: readonly BatchEntry[]): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < entries.length; i += MARKER_READS) {
    const keys = entries.slice(i, i + MARKER_READS).map(({ record }) => markerKey(record.tenantId, record.deviceKey, record.recordId));
    const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: keys, ConsistentRead: true } } }));
    for (const item of out.Responses?.[table()] ?? []) found.set(`${String(item.pk)}/${String(item.sk)}`, item);
  }
  return found;
}

/** Cancellation codes worth trying again: a conflict with another transaction, or throttling. */
const RETRIED_CODES = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/**
 * Stores the records of one terminal message together, so a message costs a few round trips
 * instead of a transaction per record: transactions of up to TRANSACTION_ITEMS items, each holding
 * its records' markers (written only if absent), the records' own items and the counter updates
 * summed per shard. Records whose markers exist already (a message sent again) are answered from
 * the markers, read together first; a transaction cancelled because some markers appeared since
 * (the same message arriving twice at once) answers those records as duplicates and goes again
 * without them. Conflicts and throttling are tried again with back-off. A record id given twice in
 * one message is stored once, the second answered as a duplicate. Records are answered in the
 * order given.
 */
export async function storeRecords(entries: readonly BatchEntry[]): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = new Array(entries.length);
  const index = new Map<BatchEntry, number>(entries.map((e, i) => [e, i]));
  // A record id twice in one message: the first goes in the batch, the others are stored on their own after it (as duplicates).
  const seen = new Set<string>();
  const first: BatchEntry[] = [];
  const again: BatchEntry[] = [];
  for (const entry of entries) {
    const id = `${entry.record.deviceKey}/${entry.record.recordId}`;
    (seen.has(id) ? again : first).push(entry);
    seen.add(id);
  }
  const alone = async (entry: BatchEntry) => {
    outcomes[index.get(entry)!] = await storeRecord(entry.record, entry.hour).catch((error: unknown) => ({ stored: 'failed' as const, error }));
  };
  const markers = await storedMarkers(first);
  const unseen = first.filter((entry) => {
    const key = markerKey(entry.record.tenantId, entry.record.deviceKey, entry.record.recordId);
    const marker = markers.get(`${key.pk}/${key.sk}`);
    if (marker) outcomes[index.get(entry)!] = { stored: 'duplicate', note: noteOf(marker) };
    return !marker;
  });
  // Each record's marker (written only if absent) with the record's own items, and the summed
  // counters, in transactions: DynamoDB writes a transaction's items together, so a record is
  // stored, marked and counted at once or not at all.
  for (const whole of chunksOf(unseen)) {
    let chunk = whole;
    for (let attempt = 1; chunk.length > 0; attempt++) {
      const items: TransactItem[] = [];
      const markerAt = new Map<BatchEntry, number>();
      for (const entry of chunk) {
        markerAt.set(entry, items.length);
        items.push(markerItem(entry), ...recordPuts(entry.record).map((Item): TransactItem => ({ Put: { TableName: table(), Item } })));
      }
      items.push(...summedCounters(chunk));
      try {
        await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
        for (const entry of chunk) outcomes[index.get(entry)!] = { stored: 'new' };
        break;
      } catch (error) {
        const reasons = cancellationReasons(error);
        // Markers that exist (the same message on its way twice): those records are duplicates,
        // answered from the markers the cancellation returns; the rest go again without them.
        const taken = chunk.filter((entry) => reasons?.[markerAt.get(entry)!]?.Code === 'ConditionalCheckFailed');
        if (taken.length > 0) {
          for (const entry of taken) {
            const old = reasons![markerAt.get(entry)!]!.Item ?? (await readMarker(entry.record.tenantId, entry.record.deviceKey, entry.record.recordId));
            outcomes[index.get(entry)!] = { stored: 'duplicate', note: noteOf(old) };
          }
          chunk = chunk.filter((entry) => !taken.includes(entry));
          continue;
        }
        if (reasons && reasons.some((r) => RETRIED_CODES.has(r.Code ?? '')) && attempt < MAX_ATTEMPTS) {
          await pause(Math.min(400, 5 * 2 ** attempt) * (0.5 + Math.random()));
          continue;
        }
        for (const entry of chunk) outcomes[index.get(entry)!] = { stored: 'failed', error };
        break;
      }
    }
  }
  for (const entry of again) await alone(entry);
  return outcomes;
}

/** The note on a marker, read plainly or (from a cancelled transaction, which the document client leaves as it is) as DynamoDB attribute values. */
function noteOf(item: Record<string, unknown> | undefined): StoredNote {
  const plain = (value: unknown): unknown =>
    value && typeof value === 'object' ? ((value as { S?: string; N?: string }).S ?? (value as { N?: string }).N) : value;
  const captureKey = plain(item?.captureKey);
  if (!captureKey) return {};
  return { captureKey: String(captureKey), captureType: String(plain(item!.captureType)), captureSize: Number(plain(item!.captureSize)) };
}

export async function readMarker(tenantId: string, deviceKey: string, recordId: string): Promise<Record<string, unknown> | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: markerKey(tenantId, deviceKey, recordId), ConsistentRead: true }));
  return out.Item;
}
