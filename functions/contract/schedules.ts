import * as z from 'zod';
import { itemKey, pageCursor } from './fields.ts';

/**
 * Access schedules (`/v1/schedules`, permission `pass:authority`): when an authorization lets its
 * person through. A week of periods, Monday first, dates that replace their weekday, and whether
 * the company's holidays (the attendance holiday list, days off only) close it. The decision at a
 * moment is `domain/schedules.ts` `isOpenAt`, shared with the terminals.
 */

/** Schedules a company may have; a create beyond it answers 409 (one conditional write on a counter). */
export const SCHEDULE_LIMIT = 100;
/** Periods one day (or one exception date) may hold. */
export const MAX_DAY_PERIODS = 4;
/** Exception dates one schedule may hold. */
export const MAX_SCHEDULE_EXCEPTIONS = 100;
export const SCHEDULE_NAME_MAX = 64;
export const DAYS_IN_WEEK = 7;

const key = itemKey;
/** A time of day, `HH:MM`; `24:00` is the end of the day and only ends a period. */
const CLOCK = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const clock = z.string().regex(CLOCK, { message: 'schedules.timeFormat' });
const dateOnly = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'schedules.dateFormat' })
  .refine(isCalendarDate, { message: 'schedules.dateFormat' });

function isCalendarDate(d: string): boolean {
  const at = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(d);
}

/** One period of a day: open from `from` until just before `to`. */
export const schedulePeriod = z
  .object({ from: clock, to: clock })
  .strict()
  // Compared only once both are times: a malformed one says so on its own.
  .refine((p) => !CLOCK.test(p.from) || !CLOCK.test(p.to) || p.from < p.to, { message: 'schedules.periodReversed', path: ['to'] })
  .meta({ description: 'Open from `from` (inclusive) to `to` (exclusive), `HH:MM`; `to` may be `24:00`' });
export type SchedulePeriod = z.output<typeof schedulePeriod>;

/** A day's periods, at most four, none overlapping; answered in order of `from`. */
const dayPeriods = z
  .array(schedulePeriod)
  .max(MAX_DAY_PERIODS, { message: 'schedules.tooManyPeriods' })
  .superRefine((periods, ctx) => {
    const order = periods
      .map((p, index) => ({ ...p, index }))
      .filter((p) => CLOCK.test(p.from) && CLOCK.test(p.to) && p.from < p.to)
      .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
    for (let i = 1; i < order.length; i++) {
      const before = order[i - 1]!;
      const here = order[i]!;
      if (here.from < before.to) {
        ctx.addIssue({
          code: 'custom',
          path: [here.index, 'from'],
          message: 'schedules.periodsOverlap',
          params: { period: here.index + 1, other: before.index + 1 },
        });
      }
    }
  })
  .transform((periods) => [...periods].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0)))
  .meta({ description: `At most ${MAX_DAY_PERIODS} periods that do not overlap; an empty list: closed all day` });

const weekly = z.array(dayPeriods).length(DAYS_IN_WEEK, { message: 'schedules.sevenDays' }).meta({ description: 'Seven days of periods, Monday first' });

const exception = z
  .object({ date: dateOnly, periods: dayPeriods })
  .strict()
  .meta({ description: 'A date whose periods replace its weekday’s; no periods: closed' });
const exceptions = z
  .array(exception)
  .max(MAX_SCHEDULE_EXCEPTIONS, { message: 'schedules.tooManyExceptions' })
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((e, index) => {
      const first = seen.get(e.date);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: [index, 'date'], message: 'schedules.dateTwice', params: { date: e.date, other: first + 1 } });
      else seen.set(e.date, index);
    });
  })
  .transform((list) => [...list].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)));

const name = z.string().trim().min(1).max(SCHEDULE_NAME_MAX);
const holidaysClosed = z.boolean().meta({ description: 'The company’s holidays (days off on the attendance holiday list) close it' });

const fields = { name, weekly, exceptions, holidaysClosed };

/** `POST /v1/schedules`: a new schedule. */
export const scheduleBody = z.object(fields).strict();
export type ScheduleBody = z.output<typeof scheduleBody>;

/** `PATCH /v1/schedules/{scheduleKey}`: the fields that change, and the version last read. */
export const schedulePatch = z
  .object({ ...fields, version: z.number().int().min(1) })
  .partial({ name: true, weekly: true, exceptions: true, holidaysClosed: true })
  .strict();
export type SchedulePatch = z.output<typeof schedulePatch>;

export const scheduleKeyParams = z.object({ scheduleKey: key });
/** `DELETE /v1/schedules/{scheduleKey}?version=`. */
export const scheduleVersionQuery = z.object({ version: z.coerce.number().int().min(1) }).strict();
/** `GET /v1/schedules`: by name, oldest first. */
export const scheduleListQuery = z
  .object({
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: pageCursor.optional(),
    keyword: z.string().trim().max(SCHEDULE_NAME_MAX).optional(),
  })
  .strict();
export type ScheduleListQuery = z.output<typeof scheduleListQuery>;

const periodJson = z.object({ from: z.string(), to: z.string() });
/** A schedule, as `GET /v1/schedules/{scheduleKey}` reads it and a change answers it. */
export const scheduleView = z.object({
  scheduleKey: z.string(),
  name: z.string(),
  weekly: z.array(z.array(periodJson)).meta({ description: 'Seven days of periods, Monday first' }),
  exceptions: z.array(z.object({ date: z.iso.date(), periods: z.array(periodJson) })).meta({ description: 'Dates that replace their weekday, in date order' }),
  holidaysClosed: z.boolean(),
  version: z.number().int().min(1).meta({ description: 'Send it back with a change or a deletion: a stale one answers 409' }),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  usedBy: z.number().int().min(0).meta({ description: 'Authorizations that use it' }),
});
export type ScheduleView = z.output<typeof scheduleView>;

/** `GET /v1/schedules`. */
export const schedulePage = z.object({
  items: z.array(scheduleView),
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
});
export type SchedulePage = z.output<typeof schedulePage>;
