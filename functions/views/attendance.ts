import type { AttendanceGroupJson, DayJson, HolidayJson, MonthJson, RecomputeJobJson, ShiftJson, TraceStepJson } from '#contract/attendance';
import { WEEKDAYS } from '#domain/attendance/index';
import type { MonthTotals, StoredDay } from '#data/attendanceDays';
import type { RecomputeJob } from '#data/attendanceJobs';
import type { AttendanceGroup, Holiday, Shift } from '#data/attendanceRules';
import type { StaffMember } from '#data/attendanceStaff';

/** Attendance rules, days, months and recomputations as the API answers them: their fields, not their storage keys. */

export function shiftJson(shift: Shift, groups: AttendanceGroup[]): ShiftJson {
  return {
    shiftKey: shift.shiftKey,
    name: shift.name,
    periods: shift.periods,
    usedBy: {
      groups: groups.filter((g) => Object.values(g.weekdays).includes(shift.shiftKey)).map((g) => ({ attendanceGroupKey: g.attendanceGroupKey, name: g.name })),
    },
    createTime: shift.createdAt,
    version: shift.version,
  };
}

export function groupJson(group: AttendanceGroup, staffCount: number): AttendanceGroupJson {
  return {
    attendanceGroupKey: group.attendanceGroupKey,
    name: group.name,
    staffCount,
    deviceKeys: group.deviceKeys,
    weekdays: Object.fromEntries(WEEKDAYS.map((d) => [d, group.weekdays[d] ?? null])) as AttendanceGroupJson['weekdays'],
    workdayOvertimeAfter: group.workdayOvertimeAfter ?? null,
    restDayMinHours: group.restDayMinHours ?? null,
    timezone: group.timezone,
    createTime: group.createdAt,
    version: group.version,
  };
}

export function holidayJson(holiday: Holiday): HolidayJson {
  return {
    holidayKey: holiday.holidayKey,
    name: holiday.name,
    start: holiday.start,
    end: holiday.end,
    remark: holiday.remark ?? null,
    workday: holiday.workday,
    shiftKey: holiday.shiftKey ?? null,
    createTime: holiday.createdAt,
    version: holiday.version,
  };
}

export const staffJson = (member: StaffMember, groupNames: Map<string, string>) => ({
  employeeKey: member.personKey,
  personId: member.personId,
  name: member.name,
  departmentKey: member.departmentKey,
  attendanceGroupKey: member.attendanceGroupKey,
  attendanceGroupName: member.attendanceGroupKey ? (groupNames.get(member.attendanceGroupKey) ?? null) : null,
  needsAttendance: member.needsAttendance,
  state: member.state,
});

export function recomputeJson(job: RecomputeJob): RecomputeJobJson {
  return {
    jobKey: job.jobKey,
    from: job.from,
    to: job.to,
    state: job.state,
    done: job.done,
    total: job.total,
    stored: job.stored,
    error: job.error ?? null,
    createTime: job.createdAt,
    finishTime: job.finishedAt ?? null,
  };
}

/** A stored day as the API answers it: its fields, not its storage keys. */
export const dayJson = (d: StoredDay): DayJson => ({
  personKey: d.personKey,
  personId: d.personId,
  name: d.name,
  departmentKey: d.departmentKey ?? null,
  attendanceGroupKey: d.attendanceGroupKey,
  computedAt: d.computedAt,
  date: d.date,
  kind: d.kind,
  status: d.status,
  shiftName: d.shiftName ?? null,
  open: d.open,
  firstIn: d.firstIn,
  lastOut: d.lastOut,
  late: d.late,
  earlyLeave: d.earlyLeave,
  work: d.work,
  absence: d.absence,
  missingIn: d.missingIn,
  missingOut: d.missingOut,
  overtimeWorkday: d.overtimeWorkday,
  overtimeRestDay: d.overtimeRestDay,
  overtimeHoliday: d.overtimeHoliday,
  temperature: d.temperature ?? null,
  trace: (d.trace as (TraceStepJson | string)[]).map(stepJson),
});

/** A step of trace; a line stored as English before steps had codes is answered as `text`. */
const stepJson = (step: TraceStepJson | string): TraceStepJson => (typeof step === 'string' ? { code: 'text', params: { text: step } } : step);

/** Stored month totals as the API answers them. */
export const monthJson = (m: MonthTotals): MonthJson => ({
  personKey: m.personKey,
  personId: m.personId,
  name: m.name,
  departmentKey: m.departmentKey ?? null,
  attendanceGroupKey: m.attendanceGroupKey,
  computedAt: m.computedAt,
  month: m.month,
  workdays: m.workdays,
  attended: m.attended,
  lateCount: m.lateCount,
  late: m.late,
  earlyLeaveCount: m.earlyLeaveCount,
  earlyLeave: m.earlyLeave,
  work: m.work,
  absence: m.absence,
  missing: m.missing,
  overtimeWorkday: m.overtimeWorkday,
  overtimeRestDay: m.overtimeRestDay,
  overtimeHoliday: m.overtimeHoliday,
});
