import * as z from 'zod';
import { isTimeZone } from '../time.ts';

/**
 * The engine's input, as `../shared/ATTENDANCE.md` gives it: the rules of one employee's group,
 * the holidays, the employee's dates and their punches. Times are `HH:mm` local to `timezone`,
 * dates `YYYY-MM-DD`, punches instants.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const MAX_PERIODS = 3;

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time of day as HH:mm');
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date');
const minutes = z.number().int().min(0).max(24 * 60);

export const periodShape = z
  .object({
    onDuty: clock,
    offDuty: clock,
    earliestCheckIn: clock,
    latestCheckOut: clock,
    lateTolerance: minutes,
    earlyLeaveTolerance: minutes,
  })
  .strict();
export type Period = z.infer<typeof periodShape>;

export const shiftShape = z.array(periodShape).min(1).max(MAX_PERIODS);

export const groupRulesShape = z
  .object({
    weekdays: z.object(Object.fromEntries(WEEKDAYS.map((d) => [d, z.string().min(1).nullable()])) as Record<Weekday, z.ZodNullable<z.ZodString>>).strict(),
    workdayOvertimeAfter: clock.nullable(),
    restDayMinHours: z.number().min(0).max(24).nullable(),
  })
  .strict();
export type GroupRules = z.infer<typeof groupRulesShape>;

export const holidayShape = z
  .object({
    name: z.string().min(1),
    start: date,
    end: date,
    workday: z.boolean(),
    shift: z.string().min(1).optional(),
  })
  .strict()
  .refine((h) => h.end >= h.start, { path: ['end'], message: 'before the start' })
  .refine((h) => !h.workday || !!h.shift, { path: ['shift'], message: 'a make-up workday needs its shift' });
export type Holiday = z.infer<typeof holidayShape>;

export const punchShape = z
  .object({
    at: z.string().refine((s) => !Number.isNaN(Date.parse(s)) && /T.*(Z|[+-]\d{2}:\d{2})$/.test(s), 'an instant with its offset, as 2026-03-02T00:00:00Z'),
    temperature: z.number().min(20).max(50).nullable().optional(),
  })
  .strict();
export type Punch = z.infer<typeof punchShape>;

export const engineInputShape = z
  .object({
    timezone: z.string().refine(isTimeZone, 'not a time zone this runtime knows'),
    from: date,
    to: date,
    shifts: z.record(z.string().min(1), shiftShape),
    group: groupRulesShape,
    holidays: z.array(holidayShape),
    employee: z.object({ since: date, resignedOn: date.nullable() }).strict(),
    punches: z.array(punchShape),
  })
  .strict()
  .refine((i) => i.to >= i.from, { path: ['to'], message: 'before from' })
  .superRefine((input, ctx) => {
    for (const [day, name] of Object.entries(input.group.weekdays)) {
      if (name !== null && !input.shifts[name]) ctx.addIssue({ code: 'custom', path: ['group', 'weekdays', day], message: `no shift named ${name}` });
    }
    input.holidays.forEach((h, i) => {
      if (h.shift && !input.shifts[h.shift]) ctx.addIssue({ code: 'custom', path: ['holidays', i, 'shift'], message: `no shift named ${h.shift}` });
    });
    for (const [name, periods] of Object.entries(input.shifts)) {
      for (const problem of shiftProblems(periods)) ctx.addIssue({ code: 'custom', path: ['shifts', name, problem.period, problem.field], message: problem.message });
    }
  });
export type EngineInput = z.infer<typeof engineInputShape>;

export const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * A period's times as minutes from the start of the day it belongs to (the day it starts):
 * off duty past on duty (the next day when it is not later), the earliest check-in at or before
 * on duty (the day before when it is later), the latest check-out at or after off duty.
 */
export function periodSpan(period: Period): { earliest: number; on: number; off: number; latest: number } {
  const on = minutesOf(period.onDuty);
  let off = minutesOf(period.offDuty);
  if (off <= on) off += 1440;
  let earliest = minutesOf(period.earliestCheckIn);
  if (earliest > on) earliest -= 1440;
  let latest = minutesOf(period.latestCheckOut) + (off >= 1440 ? 1440 : 0);
  if (latest < off) latest += 1440;
  return { earliest, on, off, latest };
}

/**
 * The spans of a shift's periods from the start of the shift's day: each period starts after the
 * one before it, so a later period that starts at a smaller time of day starts the next day.
 */
export function shiftSpans(periods: readonly Period[]): { earliest: number; on: number; off: number; latest: number }[] {
  const spans: { earliest: number; on: number; off: number; latest: number }[] = [];
  for (const period of periods) {
    const span = periodSpan(period);
    const before = spans.at(-1);
    const shift = before && span.on <= before.on ? 1440 : 0;
    spans.push({ earliest: span.earliest + shift, on: span.on + shift, off: span.off + shift, latest: span.latest + shift });
  }
  return spans;
}

/** What is wrong, for a reader's message: `other` is the earlier period (numbered from 1) it runs into. */
export type ShiftProblemCode = 'toleranceTooLong' | 'windowOverDay' | 'periodsOverlap' | 'windowIntoPeriod' | 'shiftOverDay';

export interface ShiftProblem {
  period: number;
  field: keyof Period;
  code: ShiftProblemCode;
  other?: number;
  message: string;
}

/**
 * What makes a shift unusable, naming the period and field: tolerances longer than the period,
 * periods that overlap, a check-out window that runs into the next period's check-in window, and
 * a shift longer than a day.
 */
export function shiftProblems(periods: readonly Period[]): ShiftProblem[] {
  const problems: ShiftProblem[] = [];
  const spans = shiftSpans(periods);
  spans.forEach((span, i) => {
    const length = span.off - span.on;
    if (periods[i]!.lateTolerance > length) problems.push({ period: i, field: 'lateTolerance', code: 'toleranceTooLong', message: 'longer than the period' });
    if (periods[i]!.earlyLeaveTolerance > length) problems.push({ period: i, field: 'earlyLeaveTolerance', code: 'toleranceTooLong', message: 'longer than the period' });
    if (span.latest - span.earliest > 1440) problems.push({ period: i, field: 'latestCheckOut', code: 'windowOverDay', message: 'the check-in and check-out windows span more than a day' });
    if (i === 0) return;
    const before = spans[i - 1]!;
    if (span.on < before.off) problems.push({ period: i, field: 'onDuty', code: 'periodsOverlap', other: i, message: `overlaps period ${i}` });
    else if (span.earliest < before.latest) problems.push({ period: i, field: 'earliestCheckIn', code: 'windowIntoPeriod', other: i, message: `before the latest check-out of period ${i}` });
  });
  if (spans.length > 1 && spans.at(-1)!.latest - spans[0]!.earliest > 1440) {
    problems.push({ period: spans.length - 1, field: 'latestCheckOut', code: 'shiftOverDay', message: 'the shift spans more than a day' });
  }
  return problems;
}
