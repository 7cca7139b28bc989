import { BatchGetCommand, BatchWriteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { attendanceDays, type DayResult, type EngineInput } from '#domain/attendance/index';
import { addDays, dayOf, endOfDay, startOfDay } from '#domain/time';
import { dynamo } from '#lib/aws';
import { pool } from '#lib/pool';
import { listAttendanceGroups, listHolidays, listShifts, type AttendanceGroup, type Shift } from './attendanceRules.ts';
import { attendanceStaff, staffByKeys, type StaffMember } from './attendanceStaff.ts';
import { finishBatch, isConditionFailure, nowIso } from './entity.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { ATTENDANCE_COUNTS, ATTENDANCE_DAY, ATTENDANCE_MONTH, PUNCH, punchPartition } from './keys/events.ts';

/**
 * Attendance results, stored in the events table under the tenant's partition:
 *
 * - a day:   `attDay#<date>#<personKey>`: the engine's DayResult for one employee and date, with
 *            who they are (name, department, group) and when it was computed, so a day's list is
 *            one key range read newest date first;
 * - a month: `attMonth#<YYYY-MM>#<personKey>`: the sums of that employee's days of the month,
 *            rewritten whenever one of its days is, so the monthly list reads one item per person;
 * - counts:  `attCounts#<date>`: a closed date's days counted by status (the dashboard's
 *            yesterday), kept until days of the date are stored again (see dayCounts).
 *
 * Punches are the employees' pass records (`punch#…`, data/passRecords.ts). The engine is pure
 * (domain/attendance); this module feeds it and keeps what it answers.
 */

const table = () => tableName(EVENTS_TABLE);
const daySk = (date: string, personKey: string): string => ATTENDANCE_DAY.of(date, personKey);
const monthSk = (month: string, personKey: string): string => ATTENDANCE_MONTH.of(month, personKey);
const countsSk = (date: string): string => ATTENDANCE_COUNTS.of(date);

/** Every item of the key range `lo`..`hi` of partition `pk` (the tenant's own, or one it owns), with only the attributes asked for. */
async function readAll(pk: string, lo: string, hi: string, attributes: string[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const names = Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a]));
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':pk': pk, ':lo': lo, ':hi': hi },
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: names,
        ExclusiveStartKey: start,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export interface StoredDay extends DayResult {
  personKey: string;
  personId: string;
  name: string;
  departmentKey: string | null;
  attendanceGroupKey: string;
  shiftName: string | null;
  /** Today's day, still going on: a period not over yet may still get its punches. */
  open: boolean;
  computedAt: string;
}

export interface MonthTotals {
  personKey: string;
  personId: string;
  name: string;
  departmentKey: string | null;
  attendanceGroupKey: string;
  month: string;
  /** Workdays of the month so far, and those with at least one clock-in or clock-out. */
  workdays: number;
  attended: number;
  lateCount: number;
  late: number;
  earlyLeaveCount: number;
  earlyLeave: number;
  work: number;
  absence: number;
  missing: number;
  overtimeWorkday: number;
  overtimeRestDay: number;
  overtimeHoliday: number;
  computedAt: string;
}

interface Punch {
  verifyTime: string;
  deviceKey: string;
  temperature?: number;
}

/** One employee's punches between two instants. */
export async function punchesOf(tenantId: string, personKey: string, fromIso: string, toIso: string): Promise<Punch[]> {
  return (await readAll(punchPartition(tenantId, personKey), PUNCH.head(fromIso), PUNCH.end(toIso), [
    'verifyTime',
    'deviceKey',
    'temperature',
  ])) as unknown as Punch[];
}

/** What the engine needs of the company's rules, read once for a computation. */
export interface Rules {
  shifts: Shift[];
  groups: Map<string, AttendanceGroup>;
  holidays: EngineInput['holidays'];
  /** Shift keys by the name the engine (and its trace) calls them. */
  shiftNames: Map<string, string>;
}

export async function readRules(tenantId: string): Promise<Rules> {
  const [shifts, groups, holidays] = await Promise.all([listShifts(tenantId), listAttendanceGroups(tenantId), listHolidays(tenantId)]);
  // The trace names shifts; two shifts of one name are told apart by their key.
  const counts = new Map<string, number>();
  for (const s of shifts) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  const shiftNames = new Map(shifts.map((s) => [s.shiftKey, counts.get(s.name)! > 1 ? `${s.name} (${s.shiftKey.slice(-4)})` : s.name]));
  return {
    shifts,
    groups: new Map(groups.map((g) => [g.attendanceGroupKey, g])),
    shiftNames,
    holidays: holidays.map((h) => ({
      name: h.name,
      start: h.start,
      end: h.end,
      workday: h.workday && !!h.shiftKey && shiftNames.has(h.shiftKey),
      ...(h.workday && h.shiftKey && shiftNames.has(h.shiftKey) ? { shift: shiftNames.get(h.shiftKey)! } : {}),
    })),
  };
}

/** The engine's input for one employee over `from`..`to`, from the stored rules and punches. */
export async function engineInputOf(
  tenantId: string,
  rules: Rules,
  member: StaffMember,
  group: AttendanceGroup,
  from: string,
  to: string,
): Promise<EngineInput> {
  const tz = group.timezone;
  // Periods may reach into the day before (an early check-in window) and the day after (a night shift).
  const punches = await punchesOf(tenantId, member.personKey, startOfDay(addDays(from, -1), tz).toISOString(), endOfDay(addDays(to, 2), tz).toISOString());
  const devices = new Set(group.deviceKeys);
  const counted = devices.size ? punches.filter((p) => devices.has(p.deviceKey)) : punches;
  const created = dayOf(new Date(member.createdAt), tz);
  const firstPunch = counted.length ? dayOf(new Date(counted[0]!.verifyTime), tz) : created;
  return {
    timezone: tz,
    from,
    to,
    shifts: Object.fromEntries(rules.shifts.map((s) => [rules.shiftNames.get(s.shiftKey)!, s.periods])),
    group: {
      weekdays: Object.fromEntries(
        Object.entries(group.weekdays).map(([d, key]) => [d, key && rules.shiftNames.has(key) ? rules.shiftNames.get(key)! : null]),
      ) as EngineInput['group']['weekdays'],
      workdayOvertimeAfter: group.workdayOvertimeAfter ?? null,
      restDayMinHours: group.restDayMinHours ?? null,
    },
    holidays: rules.holidays,
    // Employed from the day they were added, or their first punch when history came with them.
    employee: { since: firstPunch < created ? firstPunch : created, resignedOn: member.resignedAt ? dayOf(new Date(member.resignedAt), tz) : null },
    punches: counted.map((p) => ({ at: p.verifyTime, temperature: p.temperature ?? null })),
  };
}

async function writeAll(items: Record<string, unknown>[], deletes: Record<string, unknown>[] = []): Promise<void> {
  const requests = [...items.map((Item) => ({ PutRequest: { Item } })), ...deletes.map((Key) => ({ DeleteRequest: { Key } }))];
  for (let i = 0; i < requests.length; i += 25) {
    await finishBatch('attendance results', requests.slice(i, i + 25), async (part) => {
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table()]: part } }));
      return { unprocessed: out.UnprocessedItems?.[table()] ?? [] };
    });
  }
}

const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

/** The shift a workday was counted under: a make-up workday's, else its weekday's. */
function shiftOfDay(day: DayResult, input: EngineInput): string | null {
  if (day.kind !== 'workday') return null;
  const makeUp = input.holidays.find((h) => h.workday && h.start <= day.date && day.date <= h.end);
  return makeUp?.shift ?? input.group.weekdays[WEEKDAY_NAMES[new Date(`${day.date}T00:00:00Z`).getUTCDay()]!] ?? null;
}

/** The sums of a month's days. */
export function monthTotals(
  days: StoredDay[],
  member: Pick<StoredDay, 'personKey' | 'personId' | 'name' | 'departmentKey' | 'attendanceGroupKey'>,
  month: string,
): MonthTotals {
  const totals: MonthTotals = {
    personKey: member.personKey,
    personId: member.personId,
    name: member.name,
    departmentKey: member.departmentKey,
    attendanceGroupKey: member.attendanceGroupKey,
    month,
    workdays: 0,
    attended: 0,
    lateCount: 0,
    late: 0,
    earlyLeaveCount: 0,
    earlyLeave: 0,
    work: 0,
    absence: 0,
    missing: 0,
    overtimeWorkday: 0,
    overtimeRestDay: 0,
    overtimeHoliday: 0,
    computedAt: nowIso(),
  };
  for (const day of days) {
    if (day.kind === 'workday') {
      totals.workdays++;
      if (day.firstIn || day.lastOut) totals.attended++;
    }
    if (day.late > 0) totals.lateCount++;
    if (day.earlyLeave > 0) totals.earlyLeaveCount++;
    totals.late += day.late;
    totals.earlyLeave += day.earlyLeave;
    totals.work += day.work;
    totals.absence += day.absence;
    totals.missing += day.missingIn + day.missingOut;
    totals.overtimeWorkday += day.overtimeWorkday;
    totals.overtimeRestDay += day.overtimeRestDay;
    totals.overtimeHoliday += day.overtimeHoliday;
  }
  totals.absence = Math.round(totals.absence * 100) / 100;
  return totals;
}

async function daysOfMonth(tenantId: string, personKey: string, month: string): Promise<StoredDay[]> {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const keys = Array.from({ length: count }, (_, i) => ({ pk: tenantId, sk: daySk(`${month}-${String(i + 1).padStart(2, '0')}`, personKey) }));
  const out: StoredDay[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    const read = await finishBatch('attendance days', keys.slice(i, i + 100), async (part) => {
      const answer = await dynamo().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: part } } }));
      return { data: (answer.Responses?.[table()] ?? []) as StoredDay[], unprocessed: answer.UnprocessedKeys?.[table()]?.Keys ?? [] };
    });
    out.push(...read);
  }
  return out.sort((a, b) => a.date.localeCompare(b.date));
}

export interface ComputeOptions {
  /** Only these employees (new punches, a closing day's staff). */
  only?: ReadonlySet<string> | undefined;
  /** Leave the days of employees no longer counted alone. */
  keepStale?: boolean | undefined;
  /** Told of the employees computed so far, of how many, after each one (a background job's progress). */
  onProgress?: ((done: number, total: number, stored: number) => Promise<void>) | undefined;
}

/**
 * Computes and stores the days `from`..`to` of the company's employees who need attendance and
 * belong to a group (or only of `only`), and the months those days fall in. Days stored before
 * for an employee who no longer belongs to a group, or no longer needs attendance, are removed,
 * unless `keepStale` (new punches: who left a group is the group screens' and the recompute's
 * business, not every pass's). Answers how many employee-days were stored.
 */
export async function computeAttendance(tenantId: string, from: string, to: string, options: ComputeOptions = {}): Promise<number> {
  /** Closed dates whose days were stored or removed: their counts are out of date, even when the run stops midway. */
  const changed = new Set<string>();
  try {
    return await storeAttendance(tenantId, from, to, options, changed);
  } finally {
    await staleCounts(tenantId, changed);
  }
}

async function storeAttendance(
  tenantId: string,
  from: string,
  to: string,
  { only, keepStale = false, onProgress }: ComputeOptions,
  changed: Set<string>,
): Promise<number> {
  // A few employees (new punches) are read by key; a whole company at once.
  const staff = only && only.size <= 100 ? await staffByKeys(tenantId, [...only]) : await attendanceStaff(tenantId);
  const candidates = staff.filter((m) => m.needsAttendance && m.attendanceGroupKey && (!only || only.has(m.personKey)));
  // Passes of employees outside attendance, most of any company's, cost no read of the rules.
  if (keepStale && candidates.length === 0) return 0;
  const rules = await readRules(tenantId);
  const counted = candidates.filter((m) => rules.groups.has(m.attendanceGroupKey!));
  const computedAt = nowIso();
  let stored = 0;
  let done = 0;
  await onProgress?.(0, counted.length, 0);
  await pool(counted, 8, async (member) => {
    const group = rules.groups.get(member.attendanceGroupKey!)!;
    // Days to come are not counted; today is, as far as it went.
    const today = dayOf(new Date(), group.timezone);
    const end = to < today ? to : today;
    if (end < from) {
      await onProgress?.(++done, counted.length, stored);
      return;
    }
    const input = await engineInputOf(tenantId, rules, member, group, from, end);
    const days = attendanceDays(input);
    const items = days.map((day): StoredDay & Record<string, unknown> => ({
      pk: tenantId,
      sk: daySk(day.date, member.personKey),
      ...day,
      personKey: member.personKey,
      personId: member.personId,
      name: member.name,
      departmentKey: member.departmentKey,
      attendanceGroupKey: group.attendanceGroupKey,
      shiftName: shiftOfDay(day, input),
      open: day.date === today,
      computedAt,
    }));
    await writeAll(items);
    for (const item of items) if (!item.open) changed.add(item.date);
    stored += items.length;
    const touched = new Set(days.map((d) => d.date.slice(0, 7)));
    for (const month of touched) {
      const monthDays = await daysOfMonth(tenantId, member.personKey, month);
      await writeAll([{ pk: tenantId, sk: monthSk(month, member.personKey), kind: 'attendanceMonth', ...monthTotals(monthDays, items[0]!, month) }]);
    }
    await onProgress?.(++done, counted.length, stored);
  });
  if (keepStale) return stored;
  // Whoever is not counted any more loses the days of the range (and their months are summed again).
  const keep = new Set(counted.map((m) => m.personKey));
  const stale = only
    ? dayKeysOf(
        [...only].filter((k) => !keep.has(k)),
        from,
        to,
      )
    : (await storedDayKeys(tenantId, from, to)).filter((k) => !keep.has(k.personKey));
  if (stale.length) {
    await writeAll(
      [],
      stale.map((k) => ({ pk: tenantId, sk: daySk(k.date, k.personKey) })),
    );
    for (const k of stale) changed.add(k.date);
    const gone = new Map<string, Set<string>>();
    for (const k of stale) gone.set(k.personKey, (gone.get(k.personKey) ?? new Set()).add(k.date.slice(0, 7)));
    for (const [personKey, monthsOf] of gone) {
      for (const month of monthsOf) {
        const rest = await daysOfMonth(tenantId, personKey, month);
        if (rest.length) await writeAll([{ pk: tenantId, sk: monthSk(month, personKey), kind: 'attendanceMonth', ...monthTotals(rest, rest[0]!, month) }]);
        else await writeAll([], [{ pk: tenantId, sk: monthSk(month, personKey) }]);
      }
    }
  }
  return stored;
}

/** Every date of the range for each of `personKeys`. */
function dayKeysOf(personKeys: string[], from: string, to: string): { date: string; personKey: string }[] {
  const out: { date: string; personKey: string }[] = [];
  for (const personKey of personKeys) for (let date = from; date <= to; date = addDays(date, 1)) out.push({ date, personKey });
  return out;
}

async function storedDayKeys(tenantId: string, from: string, to: string): Promise<{ date: string; personKey: string }[]> {
  const items = await readAll(tenantId, ATTENDANCE_DAY.head(from), ATTENDANCE_DAY.end(to), ['date', 'personKey']);
  return items.map((item) => ({ date: String(item.date), personKey: String(item.personKey) }));
}

type DayCounts = Record<string, number> & { total: number };

/** Counts by status of one date's stored days, and whether any of them is still going on. */
async function countDay(tenantId: string, date: string): Promise<{ counts: DayCounts; open: boolean }> {
  const counts: DayCounts = { total: 0 };
  let open = false;
  for (const item of await readAll(tenantId, ATTENDANCE_DAY.prefix(date), ATTENDANCE_DAY.end(date), ['status', 'open'])) {
    counts.total++;
    if (item.open) open = true;
    const statuses = (item.status as string[] | undefined) ?? [];
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    // A day missing a clock-in and a clock-out is one day missing punches.
    if (statuses.includes('missingIn') || statuses.includes('missingOut')) counts.missingDays = (counts.missingDays ?? 0) + 1;
  }
  return { counts, open };
}

/**
 * Counts by status of one date's stored days (the dashboard's yesterday): one read once counted.
 * The counts item holds a generation that every store or removal of the date's closed days raises
 * (after writing them); counts are kept with the generation they were counted at, by a write
 * conditional on it being still current, so counts read while days were being stored are never
 * kept as current. A date with a day still going on is counted each time and not kept.
 */
export async function dayCounts(tenantId: string, date: string): Promise<DayCounts> {
  const key = { pk: tenantId, sk: countsSk(date) };
  const kept = (await dynamo().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item;
  const generation = Number(kept?.gen ?? 0);
  if (kept?.counts && kept.countedGen === generation) return kept.counts as DayCounts;
  const { counts, open } = await countDay(tenantId, date);
  if (open) return counts;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: 'SET #counts = :counts, #countedGen = :gen',
        ConditionExpression: generation === 0 ? 'attribute_not_exists(#gen) OR #gen = :gen' : '#gen = :gen',
        ExpressionAttributeNames: { '#counts': 'counts', '#countedGen': 'countedGen', '#gen': 'gen' },
        ExpressionAttributeValues: { ':counts': counts, ':gen': generation },
      }),
    );
  } catch (error) {
    // Days of the date were stored meanwhile: the next read counts again.
    if (!isConditionFailure(error)) throw error;
  }
  return counts;
}

/** Raises the generation of each date's counts: their days were stored or removed. */
async function staleCounts(tenantId: string, dates: Iterable<string>): Promise<void> {
  await pool([...dates], 4, async (date) => {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: tenantId, sk: countsSk(date) },
        UpdateExpression: 'ADD #gen :one',
        ExpressionAttributeNames: { '#gen': 'gen' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  });
}

/**
 * Punches just stored: the days they belong to are computed again for their employees, so today
 * shows who is late already. A punch may belong to the day before (a night shift), so that day is
 * computed too.
 */
export async function punchesArrived(tenantId: string, records: readonly { personKey?: string; personKind?: string; verifyTime: string }[]): Promise<void> {
  const punched = records.filter((r) => r.personKind === 'employee' && r.personKey);
  if (!punched.length) return;
  // A punch's local date is its UTC date or the day either side; a night shift's day starts the day before.
  const times = punched.map((r) => r.verifyTime).sort();
  const from = addDays(times[0]!.slice(0, 10), -2);
  const to = addDays(times.at(-1)!.slice(0, 10), 1);
  await computeAttendance(tenantId, from, to, { only: new Set(punched.map((r) => r.personKey!)), keepStale: true });
}
