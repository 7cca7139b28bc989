import { addDays, atLocalTime, clockOf, dayOf } from '../time.ts';
import { WEEKDAYS, minutesOf, shiftSpans, type EngineInput, type Holiday, type Period } from './input.ts';
import { periodParams, type TraceCode, type TraceParams, type TraceStep } from './trace.ts';

/**
 * The attendance engine: punches + rules + calendar → one result per employed day, each figure
 * with a step of trace (trace.ts: a code and its parameters; `explainStep` says it in English).
 * Pure: the daily statistics, the daily mail and `npm run attendance -- explain` all call
 * `attendanceDays`. The arithmetic is `../shared/ATTENDANCE.md`'s; where it is
 * silent, the choices (as ZKTeco BioTime and Hikvision HikCentral make them) are noted here.
 *
 * Choices:
 * - Minutes are whole: every difference of instants is cut to the whole minute (09:04:59 after
 *   09:00 is 4 minutes), as terminals show times to the minute.
 * - A punch counts in at most one period: the first period that takes it as a clock-in or a
 *   clock-out keeps it (a punch exactly on the boundary of two windows closes the earlier period).
 * - A workday's punches are those between its first check-in window's start and its last
 *   check-out window's end: they give its temperature, its first and last punch, and its overtime.
 *   A rest day's or day-off holiday's punches are those of its calendar date.
 * - Workday overtime starts at `workdayOvertimeAfter` on the day it is not before the last period's
 *   off duty (a night shift ending at 06:00 counts overtime from the next evening's 19:00, never
 *   from the evening it started).
 * - `firstIn` and `lastOut`: on a workday the earliest clock-in and the latest clock-out of its
 *   periods; on a day off the first and last punch (the last only when there are two or more).
 * - Late minutes are counted whenever there is a clock-in, early-leave minutes whenever there is a
 *   clock-out, even when the other punch of the period is missing (ATTENDANCE.md: 17:30 alone is
 *   missing clock-in and 30 minutes early).
 * - A partly absent day is an `absence` too (`absence` < 1), beside its other statuses.
 * - A day-off holiday wins over the weekday's shift; a make-up workday holiday over a rest day.
 *   Of two holidays on one date, the make-up workday wins.
 */

export type DayKind = 'workday' | 'restDay' | 'holiday';
export type DayStatus = 'normal' | 'late' | 'earlyLeave' | 'missingIn' | 'missingOut' | 'absence';

export interface DayResult {
  date: string;
  kind: DayKind;
  status: DayStatus[];
  firstIn: string | null;
  lastOut: string | null;
  late: number;
  earlyLeave: number;
  work: number;
  absence: number;
  missingIn: number;
  missingOut: number;
  overtimeWorkday: number;
  overtimeRestDay: number;
  overtimeHoliday: number;
  temperature: number | null;
  trace: TraceStep[];
}

interface Instant {
  ms: number;
  temperature: number | null;
}

const MINUTE = 60_000;
const whole = (ms: number): number => Math.max(0, Math.floor(ms / MINUTE));

/**
 * Wall-clock arithmetic through Intl is the engine's main cost; the same dates, times and instants
 * recur for every employee of a group, so their answers are kept (up to CACHE_MAX of each).
 */
const CACHE_MAX = 200_000;
function remembered<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, (value = make()));
  }
  return value;
}
const instants = new Map<string, number>();
const clocks = new Map<string, string>();
const dates = new Map<string, string>();
const localInstant = (day: string, minutes: number, timeZone: string): number =>
  remembered(instants, `${timeZone}|${day}|${minutes}`, () => atLocalTime(day, minutes, timeZone).getTime());
const clockAt = (ms: number, timeZone: string): string => remembered(clocks, `${timeZone}|${ms}`, () => clockOf(new Date(ms), timeZone));
const dateAt = (ms: number, timeZone: string): string => remembered(dates, `${timeZone}|${Math.floor(ms / MINUTE)}`, () => dayOf(new Date(ms), timeZone));

/** The holiday of a date, if any: a make-up workday before a day off. */
function holidayOn(date: string, holidays: readonly Holiday[]): Holiday | undefined {
  const on = holidays.filter((h) => h.start <= date && date <= h.end);
  return on.find((h) => h.workday) ?? on[0];
}

/** Punches once each (identical instants count once, the higher temperature kept), in time order. */
function distinctPunches(punches: EngineInput['punches']): Instant[] {
  const byMs = new Map<number, number | null>();
  for (const p of punches) {
    const ms = Date.parse(p.at);
    const temperature = p.temperature ?? null;
    const seen = byMs.get(ms);
    byMs.set(ms, seen === undefined ? temperature : seen === null ? temperature : temperature === null ? seen : Math.max(seen, temperature));
  }
  return [...byMs].map(([ms, temperature]) => ({ ms, temperature })).sort((a, b) => a.ms - b.ms);
}

const between = (punches: Instant[], from: number, to: number, toInclusive: boolean) => punches.filter((p) => p.ms >= from && (toInclusive ? p.ms <= to : p.ms < to));

function emptyDay(date: string, kind: DayKind): DayResult {
  return {
    date,
    kind,
    status: [],
    firstIn: null,
    lastOut: null,
    late: 0,
    earlyLeave: 0,
    work: 0,
    absence: 0,
    missingIn: 0,
    missingOut: 0,
    overtimeWorkday: 0,
    overtimeRestDay: 0,
    overtimeHoliday: 0,
    temperature: null,
    trace: [],
  };
}

const note = (day: DayResult, code: TraceCode, params: TraceParams): void => void day.trace.push({ code, params });

function highest(punches: Instant[]): number | null {
  const measured = punches.map((p) => p.temperature).filter((t): t is number => t !== null);
  return measured.length ? Math.max(...measured) : null;
}

/** One workday under a shift. */
function workday(date: string, periods: readonly Period[], shiftName: string, input: EngineInput, punches: Instant[]): DayResult {
  const tz = input.timezone;
  const day = emptyDay(date, 'workday');
  const spans = shiftSpans(periods).map((s) => ({
    earliest: localInstant(date, s.earliest, tz),
    on: localInstant(date, s.on, tz),
    off: localInstant(date, s.off, tz),
    latest: localInstant(date, s.latest, tz),
  }));
  const used = new Set<number>();
  const clockIns: number[] = [];
  const clockOuts: number[] = [];
  let absent = 0;
  spans.forEach((span, i) => {
    const period = periods[i]!;
    const label = periodParams(i, spans.length, period);
    const mid = span.on + Math.floor((span.off - span.on) / 2);
    const inWindow = between(punches, span.earliest, mid, false).filter((p) => !used.has(p.ms));
    const outWindow = between(punches, mid, span.latest, true).filter((p) => !used.has(p.ms));
    const clockIn = inWindow[0];
    const clockOut = outWindow.at(-1);
    if (clockIn) used.add(clockIn.ms);
    if (clockOut) used.add(clockOut.ms);
    if (!clockIn && !clockOut) {
      absent++;
      note(day, 'absentPeriod', { ...label, from: clockAt(span.earliest, tz), to: clockAt(span.latest, tz) });
      return;
    }
    if (clockIn) {
      clockIns.push(clockIn.ms);
      const late = whole(clockIn.ms - span.on);
      if (late > period.lateTolerance) {
        day.late += late;
        note(day, 'late', { minutes: late, clockIn: clockAt(clockIn.ms, tz), onDuty: period.onDuty, tolerance: period.lateTolerance });
      } else note(day, 'onTimeIn', { clockIn: clockAt(clockIn.ms, tz), onDuty: period.onDuty, tolerance: period.lateTolerance });
    } else {
      day.missingIn++;
      note(day, 'missingIn', { ...label, from: clockAt(span.earliest, tz), to: clockAt(mid, tz) });
    }
    if (clockOut) {
      clockOuts.push(clockOut.ms);
      const early = whole(span.off - clockOut.ms);
      if (early > period.earlyLeaveTolerance) {
        day.earlyLeave += early;
        note(day, 'earlyLeave', { minutes: early, clockOut: clockAt(clockOut.ms, tz), offDuty: period.offDuty, tolerance: period.earlyLeaveTolerance });
      } else note(day, 'onTimeOut', { clockOut: clockAt(clockOut.ms, tz), offDuty: period.offDuty, tolerance: period.earlyLeaveTolerance });
    } else {
      day.missingOut++;
      note(day, 'missingOut', { ...label, from: clockAt(mid, tz), to: clockAt(span.latest, tz) });
    }
    if (clockIn && clockOut) {
      const work = whole(Math.min(clockOut.ms, span.off) - Math.max(clockIn.ms, span.on));
      day.work += work;
      note(day, 'work', { minutes: work, ...label, from: clockAt(Math.max(clockIn.ms, span.on), tz), to: clockAt(Math.min(clockOut.ms, span.off), tz) });
    }
  });
  day.trace.unshift({ code: 'workday', params: { shift: shiftName } });
  if (absent > 0) {
    day.absence = absent === spans.length ? 1 : Math.round((absent / spans.length) * 1000) / 1000;
    note(day, 'absence', { days: day.absence, absent, periods: spans.length });
  }
  day.firstIn = clockIns.length ? clockAt(Math.min(...clockIns), tz) : null;
  day.lastOut = clockOuts.length ? clockAt(Math.max(...clockOuts), tz) : null;

  const own = between(punches, spans[0]!.earliest, spans.at(-1)!.latest, true);
  const after = input.group.workdayOvertimeAfter;
  if (after !== null && own.length > 0) {
    const lastOff = spans.at(-1)!.off;
    let from = localInstant(date, minutesOf(after), tz);
    for (let next = 1; from < lastOff && next <= 2; next++) from = localInstant(date, minutesOf(after) + 1440 * next, tz);
    const last = own.at(-1)!.ms;
    const overtime = whole(last - from);
    if (overtime > 0) {
      day.overtimeWorkday = overtime;
      note(day, 'workdayOvertime', { minutes: overtime, lastPunch: clockAt(last, tz), after });
    }
  }
  day.temperature = highest(own);
  if (day.temperature !== null) note(day, 'temperature', { temperature: day.temperature });

  const flags: DayStatus[] = [];
  if (day.late > 0) flags.push('late');
  if (day.earlyLeave > 0) flags.push('earlyLeave');
  if (day.missingIn > 0) flags.push('missingIn');
  if (day.missingOut > 0) flags.push('missingOut');
  if (day.absence > 0) flags.push('absence');
  day.status = flags.length ? flags : ['normal'];
  return day;
}

/** A rest day or a day-off holiday: overtime only. */
function dayOff(date: string, kind: 'restDay' | 'holiday', holidayName: string | undefined, input: EngineInput, punches: Instant[]): DayResult {
  const tz = input.timezone;
  const day = emptyDay(date, kind);
  note(day, kind === 'holiday' ? 'holiday' : 'restDay', kind === 'holiday' ? { holiday: holidayName ?? '' } : {});
  const own = punches.filter((p) => dateAt(p.ms, tz) === date);
  if (own.length === 0) return day;
  const first = own[0]!.ms;
  const last = own.at(-1)!.ms;
  day.firstIn = clockAt(first, tz);
  day.lastOut = own.length > 1 ? clockAt(last, tz) : null;
  const span = whole(last - first);
  const minHours = input.group.restDayMinHours;
  if (minHours !== null && own.length > 1 && span >= minHours * 60) {
    if (kind === 'holiday') day.overtimeHoliday = span;
    else day.overtimeRestDay = span;
    note(day, kind === 'holiday' ? 'holidayOvertime' : 'restDayOvertime', { minutes: span, firstPunch: day.firstIn!, lastPunch: day.lastOut!, hours: minHours });
  } else if (minHours !== null) {
    note(day, 'noOvertime', { minutes: span, hours: minHours });
  }
  day.temperature = highest(own);
  if (day.temperature !== null) note(day, 'temperature', { temperature: day.temperature });
  return day;
}

/** Every employed date from `from` to `to`, in order. */
export function attendanceDays(input: EngineInput): DayResult[] {
  const punches = distinctPunches(input.punches);
  const days: DayResult[] = [];
  const first = input.from > input.employee.since ? input.from : input.employee.since;
  const last = input.employee.resignedOn !== null && input.employee.resignedOn < input.to ? input.employee.resignedOn : input.to;
  for (let date = first; date <= last; date = addDays(date, 1)) {
    const holiday = holidayOn(date, input.holidays);
    if (holiday && !holiday.workday) {
      days.push(dayOff(date, 'holiday', holiday.name, input, punches));
      continue;
    }
    const shiftName = holiday?.workday ? holiday.shift! : input.group.weekdays[WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!];
    if (!shiftName) {
      days.push(dayOff(date, 'restDay', undefined, input, punches));
      continue;
    }
    const day = workday(date, input.shifts[shiftName]!, shiftName, input, punches);
    if (holiday?.workday) day.trace.splice(1, 0, { code: 'makeUpWorkday', params: { holiday: holiday.name } });
    days.push(day);
  }
  return days;
}
