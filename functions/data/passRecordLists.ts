import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { RECORD_RANGE_MAX_DAYS, type PassState, type RecordType, type RefusalReason } from '#contract/passRecords';
import { dayOf, endOfDay, startOfDay } from '#domain/time';
import { dynamo } from '#lib/aws';
import { fieldError } from '#lib/errors';
import { HIGH, decodeCursor, encodeCursor, readNewestFirst, readSpreadNewestFirst } from './newestFirst.ts';
import { PUNCH, RECORD, RECORD_FLAG, punchPartition, recordPartition as dayPartition } from './keys/events.ts';
import { type PassRecord, RECORD_SHARDS, type SparseFlag, flagPartition, readMarker, recordPartition, recordSk, sparseSk, utcDay } from './passRecords.ts';
import { dayCounters, previousDay, type CounterName } from './passCounters.ts';
import { recordDevicePartition } from './keys/events.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';

const table = () => tableName(EVENTS_TABLE);
const GSI = EVENTS_TABLE.indexes[0]!.name;

/**
 * The lists of pass records: one key range per filter (a day's shards merged newest first, a
 * device's index, a rare flag's copies), read within a budget with a cursor; one record by its key;
 * and the API's filters turned into a range of times.
 */

// Lists

export interface RecordFilter {
  /** The range of verify times, inclusive (ISO). */
  fromIso: string;
  toIso: string;
  deviceKey?: string;
  /** One known person's passes (employee or visitor). */
  personKey?: string;
  type?: RecordType;
  temperature?: 'normal' | 'fever';
  passState?: PassState;
  /** Refused for this reason (`unknown`: refused with none named). */
  refusedFor?: RefusalReason;
  /** Lower case. */
  keyword?: string;
}

export interface RecordPage {
  items: PassRecord[];
  nextCursor: string | null;
}

/** One list request reads at most this many items when filters skip most of them; the cursor goes on from there. */
export const READ_BUDGET = 500;

type Source = { kind: 'all' } | { kind: 'device'; deviceKey: string } | { kind: 'flag'; flag: SparseFlag } | { kind: 'person'; personKey: string };

/**
 * Where a filtered list reads from: one person's own partition (their passes, data/passRecords.ts),
 * else the copies of the rarest flag asked for, else the device's index, else all records.
 */
function sourceOf(filter: RecordFilter): Source {
  if (filter.personKey) return { kind: 'person', personKey: filter.personKey };
  if (filter.type === 'blacklist' || filter.type === 'stranger') return { kind: 'flag', flag: filter.type };
  if (filter.temperature === 'fever') return { kind: 'flag', flag: 'fever' };
  if (filter.passState === 'refused' || filter.refusedFor) return { kind: 'flag', flag: 'refused' };
  if (filter.deviceKey) return { kind: 'device', deviceKey: filter.deviceKey };
  return { kind: 'all' };
}

/**
 * Newest first, within the range of verify times. Reads one key range (see sourceOf), filters the
 * rest, and stops after READ_BUDGET items read: a page may then hold fewer items than asked for,
 * with a cursor that goes on where reading stopped. `budget` raises the bound (exports).
 */
export async function listRecords(tenantId: string, filter: RecordFilter, pageSize: number, cursor?: string, budget = READ_BUDGET): Promise<RecordPage> {
  const source = sourceOf(filter);
  if (source.kind === 'person') return personRecords(tenantId, source.personKey, filter, pageSize, cursor, budget);
  const prefix = source.kind === 'all' ? RECORD.prefix() : source.kind === 'flag' ? RECORD_FLAG.prefix(source.flag) : '';
  const skName = source.kind === 'device' ? 'gsi1sk' : 'sk';
  const after = cursor ? decodeCursor(cursor, prefix, 'issue.invalid') : undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions: string[] = [];
  const add = (condition: string, attrs: Record<string, string>, vals: Record<string, unknown>) => {
    conditions.push(condition);
    Object.assign(names, attrs);
    Object.assign(values, vals);
  };
  if (filter.deviceKey && source.kind !== 'device') add('#dk = :dk', { '#dk': 'deviceKey' }, { ':dk': filter.deviceKey });
  if (filter.type && !(source.kind === 'flag' && source.flag === filter.type)) add('#ty = :ty', { '#ty': 'type' }, { ':ty': filter.type });
  if (filter.temperature === 'fever' && !(source.kind === 'flag' && source.flag === 'fever')) add('#fe = :true', { '#fe': 'fever' }, { ':true': true });
  if (filter.temperature === 'normal') add('#me = :true AND #fe = :false', { '#me': 'measured', '#fe': 'fever' }, { ':true': true, ':false': false });
  if (filter.passState && !(source.kind === 'flag' && source.flag === filter.passState)) add('#ps = :ps', { '#ps': 'passState' }, { ':ps': filter.passState });
  if (filter.refusedFor === 'unknown')
    add('#ps = :refused AND attribute_not_exists(#rf)', { '#ps': 'passState', '#rf': 'refusedFor' }, { ':refused': 'refused' });
  else if (filter.refusedFor) add('#rf = :rf', { '#rf': 'refusedFor' }, { ':rf': filter.refusedFor });
  if (filter.keyword) add('contains(#nl, :kw)', { '#nl': 'nameLower' }, { ':kw': filter.keyword });
  const common = {
    table: table(),
    lower: `${prefix}${filter.fromIso}`,
    upper: `${prefix}${filter.toIso}#${HIGH}`,
    after,
    filter: { conditions, names, values },
    pageSize,
    budget,
  };
  if (source.kind === 'device') {
    return readNewestFirst<PassRecord>({
      ...common,
      index: GSI,
      partition: { name: 'gsi1pk', value: recordDevicePartition(tenantId, source.deviceKey) },
      sortKey: skName,
      keyOf: (last) => `${last.verifyTime}#${last.recordId}`,
    });
  }
  // The UTC days of the range, newest first: a day's shards (or its flag's copies) are one group.
  const groups: { partitions: string[]; floor: string }[] = [];
  for (let day = utcDay(filter.toIso); day >= utcDay(filter.fromIso); day = previousDay(day)) {
    const partitions =
      source.kind === 'all'
        ? Array.from({ length: RECORD_SHARDS }, (_, shard) => dayPartition(tenantId, day, shard))
        : [flagPartition(tenantId, source.flag, day)];
    groups.push({ partitions, floor: `${prefix}${day}` });
  }
  return readSpreadNewestFirst<PassRecord>({ ...common, groups, keyOf: (last) => keyIn(source, last) });
}

const keyIn = (source: Source, r: PassRecord): string => (source.kind === 'flag' ? sparseSk(source.flag, r) : recordSk(r));

/** Whether a record passes the filters a person's passes cannot be read by (their partition holds when, where and the temperature). */
function matchesRest(r: PassRecord, filter: RecordFilter): boolean {
  return (
    (!filter.type || r.type === filter.type) &&
    (filter.temperature !== 'fever' || r.fever) &&
    (filter.temperature !== 'normal' || (r.measured && !r.fever)) &&
    (!filter.passState || r.passState === filter.passState) &&
    (!filter.refusedFor || (r.passState === 'refused' && (r.refusedFor ?? 'unknown') === filter.refusedFor)) &&
    (!filter.keyword || (r.nameLower ?? '').includes(filter.keyword))
  );
}

/**
 * One person's passes: their partition read newest first within the range (the device filtered
 * there), then the records themselves, read together, and the other filters applied to them;
 * round after round until the page is full, the range ends or READ_BUDGET passes were read (the
 * cursor then goes on after the last pass read), as every list reads.
 */
async function personRecords(
  tenantId: string,
  personKey: string,
  filter: RecordFilter,
  pageSize: number,
  cursor: string | undefined,
  budget: number,
): Promise<RecordPage> {
  const prefix = PUNCH.prefix();
  const narrowed = !!(filter.type || filter.temperature || filter.passState || filter.refusedFor || filter.keyword);
  const byDevice: { conditions: string[]; names: Record<string, string>; values: Record<string, unknown> } = filter.deviceKey
    ? { conditions: ['#dk = :dk'], names: { '#dk': 'deviceKey' }, values: { ':dk': filter.deviceKey } }
    : { conditions: [], names: {}, values: {} };
  const items: { record: PassRecord; sk: string }[] = [];
  let after = cursor ? decodeCursor(cursor, prefix, 'issue.invalid') : undefined;
  let read = 0;
  for (;;) {
    const passes = await readNewestFirst<{ sk: string; verifyTime: string; deviceKey: string }>({
      table: table(),
      partition: { name: 'pk', value: punchPartition(tenantId, personKey) },
      sortKey: 'sk',
      lower: `${prefix}${filter.fromIso}`,
      upper: `${prefix}${filter.toIso}#${HIGH}`,
      after,
      filter: byDevice,
      // Without other filters every pass read is given: one more than the page tells whether another follows.
      pageSize: narrowed ? Math.max(1, Math.min(100, budget - read)) : pageSize + 1 - items.length,
      budget: budget - read,
      keyOf: (last) => last.sk,
    });
    read += passes.items.length;
    const records = await recordsOf(tenantId, passes.items);
    for (const pass of passes.items) {
      const record = records.get(pass.sk);
      // A record its retention has just ended is left out.
      if (record && matchesRest(record, filter)) items.push({ record, sk: pass.sk });
      if (items.length > pageSize) return { items: items.slice(0, pageSize).map((i) => i.record), nextCursor: encodeCursor(items[pageSize - 1]!.sk) };
    }
    if (!passes.nextCursor) return { items: items.map((i) => i.record), nextCursor: null };
    // The budget is spent, or the device filter spent a read's own budget on other devices' passes.
    if (read >= budget || passes.items.length === 0) return { items: items.map((i) => i.record), nextCursor: passes.nextCursor };
    after = decodeCursor(passes.nextCursor, prefix);
  }
}

/** The records of these passes of a person, by the pass's sort key. */
async function recordsOf(tenantId: string, passes: readonly { sk: string; verifyTime: string; deviceKey: string }[]): Promise<Map<string, PassRecord>> {
  const keyed = passes.map((p) => {
    const r = { verifyTime: p.verifyTime, deviceKey: p.deviceKey, recordId: p.sk.slice(PUNCH.prefix(p.verifyTime, p.deviceKey).length) };
    return { pass: p.sk, key: { pk: recordPartition(tenantId, r), sk: recordSk(r) } };
  });
  const bySk = new Map(keyed.map((k) => [k.key.sk, k.pass]));
  const found = new Map<string, PassRecord>();
  for (let i = 0; i < keyed.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = { [table()]: { Keys: keyed.slice(i, i + 100).map((k) => k.key) } };
    while (request && Object.keys(request).length > 0) {
      const out = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of (out.Responses?.[table()] ?? []) as (PassRecord & { sk: string })[]) found.set(bySk.get(item.sk)!, item);
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return found;
}

/** One record by its key (`<deviceKey>.<recordId>`), through its marker. */
export async function findRecord(tenantId: string, recordKey: string): Promise<PassRecord | undefined> {
  const [deviceKey, recordId] = recordKey.split('.') as [string, string | undefined];
  if (!recordId) return undefined;
  const marker = await readMarker(tenantId, deviceKey, recordId);
  if (!marker) return undefined;
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: String(marker.recordPk), sk: String(marker.recordSk) } }));
  return out.Item as PassRecord | undefined;
}

// Filters as the API gives them

export interface RecordQuery {
  from?: string;
  to?: string;
  deviceKey?: string;
  personKey?: string;
  type?: RecordType;
  temperature?: 'normal' | 'fever';
  passState?: PassState;
  refusedFor?: RefusalReason;
  keyword?: string;
}

/**
 * The filter of a list or export: `from` and `to` are company days, both today when not given (one
 * given alone makes a one-day range with today on the far side); at most RECORD_RANGE_MAX_DAYS days.
 */
export function recordFilterOf(query: RecordQuery, timeZone: string, now = new Date()): RecordFilter & { fromDay: string; toDay: string } {
  const today = dayOf(now, timeZone);
  const fromDay = query.from ?? (query.to && query.to < today ? query.to : today);
  const toDay = query.to ?? (fromDay > today ? fromDay : today);
  if (fromDay > toDay) throw fieldError('to', 'records.rangeOrder');
  const days = Math.round((Date.parse(toDay) - Date.parse(fromDay)) / 86_400_000) + 1;
  if (days > RECORD_RANGE_MAX_DAYS) throw fieldError('to', 'records.rangeTooLong', { max: RECORD_RANGE_MAX_DAYS });
  const keyword = query.keyword?.trim().toLowerCase();
  return {
    fromDay,
    toDay,
    fromIso: startOfDay(fromDay, timeZone).toISOString(),
    toIso: endOfDay(toDay, timeZone).toISOString(),
    ...(query.deviceKey ? { deviceKey: query.deviceKey } : {}),
    ...(query.personKey ? { personKey: query.personKey } : {}),
    ...(query.type ? { type: query.type } : {}),
    ...(query.temperature ? { temperature: query.temperature } : {}),
    ...(query.passState ? { passState: query.passState } : {}),
    ...(query.refusedFor ? { refusedFor: query.refusedFor } : {}),
    ...(keyword ? { keyword } : {}),
  };
}

/** How many records a filter matches, from the day counters alone; undefined when they cannot tell. */
export async function countedTotal(tenantId: string, filter: RecordFilter & { fromDay: string; toDay: string }): Promise<number | undefined> {
  if (filter.deviceKey || filter.personKey || filter.keyword || filter.refusedFor) return undefined;
  const picked = [filter.type, filter.temperature, filter.passState].filter((v): v is NonNullable<typeof v> => !!v);
  if (picked.length > 1) return undefined;
  const name = (picked[0] ?? 'total') as CounterName;
  return (await dayCounters(tenantId, filter.fromDay, filter.toDay)).reduce((sum, d) => sum + d.counts[name], 0);
}
