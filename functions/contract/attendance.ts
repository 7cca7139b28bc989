import * as z from 'zod';
import { itemKey, pageCursor } from './fields.ts';
import { MAX_PERIODS, TRACE_CODES, WEEKDAYS, shiftProblems, type ShiftProblemCode, type Weekday } from '#domain/attendance/index';
import { isTimeZone } from '#domain/time';

/**
 * Attendance rules (SPEC.md §3): shifts of one to three periods, groups that give each weekday a
 * shift or rest, and holidays. The engine's arithmetic is `domain/attendance`; these are the
 * shapes the console sends and reads.
 */

/** How many of each a company keeps; a create beyond it answers 409 (one conditional write). */
export const ATTENDANCE_LIMITS = { shift: 100, group: 100, holiday: 300 } as const;
export type AttendanceKind = keyof typeof ATTENDANCE_LIMITS;

/** Staff one group may hold: the group screen sends them in one request. */
export const MAX_GROUP_STAFF = 5000;
export const MAX_GROUP_DEVICES = 500;

const key = itemKey;
const name = z.string().trim().min(1).max(64);
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'devices.clockFormat' });
const dateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'attendance.dateFormat' }).refine(isCalendarDate, { message: 'attendance.dateFormat' });
const tolerance = z.number().int().min(0).max(24 * 60);

function isCalendarDate(d: string): boolean {
  const at = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(d);
}

/** The message that names what is wrong with a shift's period. */
export const SHIFT_PROBLEM_MESSAGES: Record<ShiftProblemCode, `attendance.${string}`> = {
  toleranceTooLong: 'attendance.toleranceTooLong',
  windowOverDay: 'attendance.windowOverDay',
  periodsOverlap: 'attendance.periodsOverlap',
  windowIntoPeriod: 'attendance.windowIntoPeriod',
  shiftOverDay: 'attendance.shiftOverDay',
};

export const periodBody = z
  .object({
    onDuty: clock,
    offDuty: clock,
    earliestCheckIn: clock,
    latestCheckOut: clock,
    lateTolerance: tolerance,
    earlyLeaveTolerance: tolerance,
  })
  .strict();
export type PeriodBody = z.infer<typeof periodBody>;

export const shiftBody = z
  .object({
    name,
    periods: z.array(periodBody).min(1).max(MAX_PERIODS),
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const problem of shiftProblems(body.periods)) {
      ctx.addIssue({
        code: 'custom',
        path: ['periods', problem.period, problem.field],
        message: SHIFT_PROBLEM_MESSAGES[problem.code],
        params: { period: problem.period + 1, ...(problem.other ? { other: problem.other } : {}) },
      });
    }
  });
export type ShiftBody = z.infer<typeof shiftBody>;
export const shiftPatchBody = z.intersection(shiftBody, z.object({ version: z.number().int().min(1) }));

export const shiftKeyParams = z.object({ shiftKey: key });
export const attendanceGroupKeyParams = z.object({ attendanceGroupKey: key });
export const holidayKeyParams = z.object({ holidayKey: key });

/** A weekday's shift, or null for a rest day. */
const weekdays = z
  .object(Object.fromEntries(WEEKDAYS.map((d) => [d, key.nullable()])) as Record<Weekday, z.ZodNullable<typeof key>>)
  .strict()
  .refine((w) => Object.values(w).some((v) => v !== null), { message: 'attendance.noWorkday' });

export const attendanceGroupBody = z
  .object({
    name,
    employeeKeys: z.array(key).max(MAX_GROUP_STAFF).default([]),
    deviceKeys: z.array(key).max(MAX_GROUP_DEVICES).default([]),
    weekdays,
    /** Overtime on a workday counts from this time; null: none is counted. */
    workdayOvertimeAfter: clock.nullable(),
    /** Work on a rest day or holiday counts as overtime from this many hours; null: none is counted. */
    restDayMinHours: z.number().min(0).max(24).nullable(),
    /** IANA time zone; the company's when absent. */
    timezone: z.string().max(64).refine(isTimeZone, { message: 'attendance.timezoneUnknown' }).optional(),
    /** Staff who belong to another group move here; without it such staff answer 409 naming them. */
    moveStaff: z.boolean().default(false),
  })
  .strict();
export type AttendanceGroupBody = z.infer<typeof attendanceGroupBody>;
export const attendanceGroupPatchBody = z.intersection(attendanceGroupBody, z.object({ version: z.number().int().min(1) }));

export const holidayBody = z
  .object({
    name,
    start: dateOnly,
    end: dateOnly,
    remark: z.string().trim().max(500).optional(),
    /** A make-up workday: worked with `shiftKey` although it may fall on a rest day. */
    workday: z.boolean(),
    shiftKey: key.nullable().optional(),
  })
  .strict()
  .superRefine((h, ctx) => {
    if (h.end < h.start) ctx.addIssue({ code: 'custom', path: ['end'], message: 'attendance.endBeforeStart' });
    if (h.workday && !h.shiftKey) ctx.addIssue({ code: 'custom', path: ['shiftKey'], message: 'attendance.workdayNeedsShift' });
    const days = (Date.parse(`${h.end}T00:00:00Z`) - Date.parse(`${h.start}T00:00:00Z`)) / 86_400_000;
    if (days > 366) ctx.addIssue({ code: 'custom', path: ['end'], message: 'attendance.holidayTooLong' });
  });
export type HolidayBody = z.infer<typeof holidayBody>;
export const holidayPatchBody = z.intersection(holidayBody, z.object({ version: z.number().int().min(1) }));

export const attendanceListQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(200).default(20),
  cursor: key.optional(),
  keyword: z.string().trim().max(64).optional(),
});
export const holidayListQuery = attendanceListQuery.extend({
  year: z.coerce.number().int().min(2000).max(2100).optional(),
});
export const staffListQuery = attendanceListQuery.extend({
  pageSize: z.coerce.number().int().min(1).max(500).default(50),
  attendanceGroupKey: key.optional(),
});
export const attendanceVersionQuery = z.object({ version: z.coerce.number().int().min(1) });

export type PeriodJson = PeriodBody;
const shiftJson = z.object({
  shiftKey: z.string(),
  name: z.string(),
  periods: z.array(periodBody),
  usedBy: z
    .object({ groups: z.array(z.object({ attendanceGroupKey: z.string(), name: z.string() })) })
    .meta({ description: 'Attendance groups that use the shift' }),
  createTime: z.iso.datetime(),
  version: z.number().int().min(1),
});
export type ShiftJson = z.output<typeof shiftJson>;
/** `GET|POST|PATCH /v1/attendance/shifts/{shiftKey}`. */
export const shiftAnswer = shiftJson;
/** `GET /v1/attendance/shifts`. */
export const shiftPage = z.object({ items: z.array(shiftJson), nextCursor: z.string().nullable(), total: z.number().int().min(0) });

const weekdayShifts = z
  .object(Object.fromEntries(WEEKDAYS.map((d) => [d, z.string().nullable()])) as Record<Weekday, z.ZodNullable<z.ZodString>>)
  .meta({ description: 'Each weekday’s shift, or null for a rest day' });
const attendanceGroupJson = z.object({
  attendanceGroupKey: z.string(),
  name: z.string(),
  staffCount: z.number().int().min(0),
  deviceKeys: z.array(z.string()),
  weekdays: weekdayShifts,
  workdayOvertimeAfter: z.string().nullable(),
  restDayMinHours: z.number().nullable(),
  timezone: z.string(),
  createTime: z.iso.datetime(),
  version: z.number().int().min(1),
});
export type AttendanceGroupJson = z.output<typeof attendanceGroupJson>;
const staffJson = z.object({
  employeeKey: z.string(),
  personId: z.string(),
  name: z.string(),
  departmentKey: z.string().nullable(),
  attendanceGroupKey: z.string().nullable(),
  attendanceGroupName: z.string().nullable(),
  needsAttendance: z.boolean(),
  state: z.enum(['active', 'resigned']),
});
export type StaffJson = z.output<typeof staffJson>;
/** `GET /v1/attendance/groups`. */
export const attendanceGroupPage = z.object({ items: z.array(attendanceGroupJson), nextCursor: z.string().nullable(), total: z.number().int().min(0) });
/** `GET|POST|PATCH /v1/attendance/groups/{attendanceGroupKey}`: the group and its staff. */
export const attendanceGroupAnswer = attendanceGroupJson.extend({ staff: z.array(staffJson) });
/** `GET /v1/attendance/staff`. */
export const staffPage = z.object({ items: z.array(staffJson), nextCursor: z.string().nullable(), total: z.number().int().min(0) });
export type AttendanceGroupDetailJson = z.output<typeof attendanceGroupAnswer>;
/** `GET /v1/attendance/groupNames`. */
export const attendanceGroupNames = z.object({ items: z.array(z.object({ attendanceGroupKey: z.string(), name: z.string() })), nextCursor: z.null() });
const holidayJson = z.object({
  holidayKey: z.string(),
  name: z.string(),
  start: z.iso.date(),
  end: z.iso.date(),
  remark: z.string().nullable(),
  workday: z.boolean().meta({ description: 'A make-up working day (with `shiftKey`) rather than a day off' }),
  shiftKey: z.string().nullable(),
  createTime: z.iso.datetime(),
  version: z.number().int().min(1),
});
export type HolidayJson = z.output<typeof holidayJson>;
/** `POST|PATCH /v1/attendance/holidays/{holidayKey}`. */
export const holidayAnswer = holidayJson;
/** `GET /v1/attendance/holidays`. */
export const holidayPage = z.object({ items: z.array(holidayJson), nextCursor: z.string().nullable(), total: z.number().int().min(0) });

/** Daily statistics cover at most this many days per request. */
export const DAILY_RANGE_MAX_DAYS = 31;
export const DAY_STATUSES = ['normal', 'late', 'earlyLeave', 'missingIn', 'missingOut', 'absence'] as const;

export const dailyQuery = z
  .object({
    from: dateOnly,
    to: dateOnly,
    departmentKey: key.optional(),
    attendanceGroupKey: key.optional(),
    status: z.enum(DAY_STATUSES).optional(),
    keyword: z.string().trim().max(64).optional(),
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: pageCursor.optional(),
  })
  .superRefine((q, ctx) => {
    if (q.to < q.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'attendance.endBeforeStart' });
    else if ((Date.parse(`${q.to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000 >= DAILY_RANGE_MAX_DAYS) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'attendance.rangeTooLong', params: { days: DAILY_RANGE_MAX_DAYS } });
    }
  });

export const monthlyQuery = z.object({
  month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'attendance.monthFormat' }),
  departmentKey: key.optional(),
  attendanceGroupKey: key.optional(),
  keyword: z.string().trim().max(64).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).default(20),
  cursor: pageCursor.optional(),
});

const minutes = (description: string) => z.number().int().min(0).meta({ description: `${description}, in minutes` });
const who = {
  personKey: z.string(),
  personId: z.string(),
  name: z.string(),
  departmentKey: z.string().nullable(),
  attendanceGroupKey: z.string(),
  computedAt: z.iso.datetime().meta({ description: 'When the service computed it' }),
};

/**
 * One step of a day's trace: a code with its parameters (functions/domain/attendance/trace.ts), said
 * in the reader's language by the console. A day computed before its steps had codes answers each
 * line as `text`, with the engine's English in `params.text`.
 */
export const TRACE_STEP_CODES = [...TRACE_CODES, 'text'] as const;
const traceStep = z
  .object({
    code: z.enum(TRACE_STEP_CODES),
    params: z.record(z.string(), z.union([z.string(), z.number()])).meta({ description: 'The step’s figures, times (HH:mm) and names' }),
  })
  .meta({ example: { code: 'late', params: { minutes: 12, clockIn: '09:12', onDuty: '09:00', tolerance: 5 } } });
export type TraceStepJson = z.output<typeof traceStep>;

/** One employee's day, as the attendance engine computed it (docs: ATTENDANCE.md). */
const dayJson = z.object({
  ...who,
  date: z.string().meta({ description: 'The day, in the company’s timezone (YYYY-MM-DD)' }),
  kind: z.enum(['workday', 'restDay', 'holiday']),
  status: z.array(z.enum(DAY_STATUSES)),
  shiftName: z.string().nullable(),
  open: z.boolean().meta({ description: 'Today, still going on: a period not over yet may still get its punches' }),
  firstIn: z.string().nullable().meta({ description: 'The first clock-in (HH:mm), or null' }),
  lastOut: z.string().nullable().meta({ description: 'The last clock-out (HH:mm), or null' }),
  late: minutes('Late'),
  earlyLeave: minutes('Left early'),
  work: minutes('Worked'),
  absence: minutes('Absent'),
  missingIn: z.number().int().min(0).meta({ description: 'Clock-ins missing' }),
  missingOut: z.number().int().min(0).meta({ description: 'Clock-outs missing' }),
  overtimeWorkday: minutes('Overtime on a workday'),
  overtimeRestDay: minutes('Overtime on a rest day'),
  overtimeHoliday: minutes('Overtime on a holiday'),
  temperature: z.number().nullable().meta({ description: 'The temperature of the first measured punch, or null' }),
  trace: z.array(traceStep).meta({ description: 'How the engine reached it, step by step' }),
});
export type DayJson = z.output<typeof dayJson>;

/** `GET /v1/attendance/daily`: a page of days, newest date first. */
export const dailyPage = z.object({
  items: z.array(dayJson),
  nextCursor: z.string().nullable(),
  rulesChangedAt: z.string().nullable().meta({ description: 'When the company’s attendance rules last changed: days computed before it may be recomputed' }),
});

/** One employee's month so far. */
const monthJson = z.object({
  ...who,
  month: z.string(),
  workdays: z.number().int().min(0).meta({ description: 'Workdays of the month so far' }),
  attended: z.number().int().min(0).meta({ description: 'Workdays with at least one clock-in or clock-out' }),
  lateCount: z.number().int().min(0),
  late: minutes('Late'),
  earlyLeaveCount: z.number().int().min(0),
  earlyLeave: minutes('Left early'),
  work: minutes('Worked'),
  absence: minutes('Absent'),
  missing: z.number().int().min(0).meta({ description: 'Clock-ins and clock-outs missing' }),
  overtimeWorkday: minutes('Overtime on workdays'),
  overtimeRestDay: minutes('Overtime on rest days'),
  overtimeHoliday: minutes('Overtime on holidays'),
});
export type MonthJson = z.output<typeof monthJson>;

/** `GET /v1/attendance/monthly`: a page of month totals. */
export const monthlyPage = z.object({ items: z.array(monthJson), nextCursor: z.string().nullable() });

/** Computes a range of days again (after a change of rules, holidays or punches). */
export const recomputeBody = z
  .object({ from: dateOnly, to: dateOnly })
  .strict()
  .superRefine((q, ctx) => {
    if (q.to < q.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'attendance.endBeforeStart' });
    else if ((Date.parse(`${q.to}T00:00:00Z`) - Date.parse(`${q.from}T00:00:00Z`)) / 86_400_000 >= DAILY_RANGE_MAX_DAYS) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'attendance.rangeTooLong', params: { days: DAILY_RANGE_MAX_DAYS } });
    }
  });
export const recomputeJobParams = z.object({ jobKey: key });

/**
 * `GET /v1/attendance/recompute/{jobKey}` and `GET /v1/attendance/recompute` (the newest, or null):
 * a recomputation in the background. `done` employees of `total` are computed; a failed run says
 * why in `error`, and the days it did not reach keep their earlier figures.
 */
const recomputeJobJson = z.object({
  jobKey: z.string(),
  from: z.iso.date(),
  to: z.iso.date(),
  state: z.enum(['queued', 'running', 'done', 'failed']),
  done: z.number().int().min(0).meta({ description: 'Employees computed so far' }),
  total: z.number().int().min(0),
  stored: z.number().int().min(0).meta({ description: 'Days stored' }),
  error: z.string().nullable(),
  createTime: z.iso.datetime(),
  finishTime: z.iso.datetime().nullable(),
});
export type RecomputeJobJson = z.output<typeof recomputeJobJson>;
/** `GET /v1/attendance/recompute/{jobKey}`. */
export const recomputeJobAnswer = recomputeJobJson;
/** `GET /v1/attendance/recompute`: the newest recomputation, or null. */
export const latestRecomputeAnswer = recomputeJobJson.nullable();
