import type { Locale } from '#contract/locales';
import { type MonthTotals, type StoredDay } from '#data/attendanceDays';
import { listDays, listMonths, type DayFilter } from '#data/attendanceLists';
import { listAttendanceGroups } from '#data/attendanceRules';
import { listDepartments } from '#data/departments';
import { companyTimezone } from '#data/tenants';
import { translate, type MessageId } from '#lib/i18n';
import { sheetTime, writeSheet, xlsxDownload } from '#lib/xlsx';

/** Rows one export holds at most: a month of days of a large company. */
export const EXPORT_ROWS_MAX = 60_000;

/** Department and group names, and the company's time zone (when a day was computed is a date cell there). */
async function names(tenantId: string) {
  const [departments, groups, timeZone] = await Promise.all([listDepartments(tenantId), listAttendanceGroups(tenantId), companyTimezone(tenantId)]);
  return {
    department: new Map(departments.map((d) => [d.departmentKey, d.name])),
    group: new Map(groups.map((g) => [g.attendanceGroupKey, g.name])),
    when: sheetTime(timeZone),
  };
}

/** Every page of a list, up to EXPORT_ROWS_MAX rows. */
async function everything<T>(read: (cursor?: string) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && out.length < EXPORT_ROWS_MAX);
  return out.slice(0, EXPORT_ROWS_MAX);
}

/** The daily statistics as filtered, one row per employee and day, in the caller's language. */
export async function dailyWorkbook(tenantId: string, filter: DayFilter, locale: Locale) {
  const t = (id: MessageId) => translate(locale, id);
  const [days, named] = await Promise.all([everything<StoredDay>((cursor) => listDays(tenantId, filter, 200, cursor)), names(tenantId)]);
  const status = (d: StoredDay): string => {
    const words = d.status.map((s) => t(`value.attendance.${s}` as MessageId));
    if (!words.length) words.push(t(d.kind === 'holiday' ? 'value.attendance.holiday' : 'value.attendance.restDay'));
    if (d.open) words.push(t('value.attendance.open'));
    return words.join(', ');
  };
  const columns: [MessageId, number][] = [
    ['column.personId', 14],
    ['column.name', 18],
    ['column.department', 16],
    ['column.attendanceGroup', 16],
    ['column.date', 12],
    ['column.shift', 14],
    ['column.attendanceStatus', 22],
    ['column.firstIn', 10],
    ['column.lastOut', 10],
    ['column.lateMinutes', 10],
    ['column.earlyLeaveMinutes', 10],
    ['column.absenceDays', 10],
    ['column.missingPunches', 10],
    ['column.overtimeWorkday', 12],
    ['column.overtimeRestDay', 12],
    ['column.overtimeHoliday', 12],
    ['column.workMinutes', 10],
    ['column.temperature', 12],
    ['column.computedAt', 22],
  ];
  const rows = days.map((d) => [
    d.personId,
    d.name,
    d.departmentKey ? (named.department.get(d.departmentKey) ?? '') : '',
    named.group.get(d.attendanceGroupKey) ?? '',
    d.date,
    d.shiftName ?? '',
    status(d),
    d.firstIn ?? '',
    d.lastOut ?? '',
    d.late,
    d.earlyLeave,
    d.absence,
    d.missingIn + d.missingOut,
    d.overtimeWorkday,
    d.overtimeRestDay,
    d.overtimeHoliday,
    d.work,
    d.temperature,
    named.when(d.computedAt),
  ]);
  const workbook = await writeSheet(
    t('sheet.attendanceDaily'),
    columns.map(([id, width]) => ({ header: t(id), width })),
    rows,
  );
  return xlsxDownload(`attendance-daily-${filter.from}-${filter.to}.xlsx`, workbook);
}

/** The monthly statistics as filtered, one row per employee. */
export async function monthlyWorkbook(tenantId: string, month: string, filter: Omit<DayFilter, 'from' | 'to' | 'status'>, locale: Locale) {
  const t = (id: MessageId) => translate(locale, id);
  const [months, named] = await Promise.all([everything<MonthTotals>((cursor) => listMonths(tenantId, month, filter, 200, cursor)), names(tenantId)]);
  const columns: [MessageId, number][] = [
    ['column.personId', 14],
    ['column.name', 18],
    ['column.department', 16],
    ['column.attendanceGroup', 16],
    ['column.month', 10],
    ['column.workdays', 10],
    ['column.attended', 10],
    ['column.lateCount', 10],
    ['column.lateMinutes', 10],
    ['column.earlyLeaveCount', 10],
    ['column.earlyLeaveMinutes', 10],
    ['column.workMinutes', 10],
    ['column.absenceDays', 10],
    ['column.missingPunches', 10],
    ['column.overtimeWorkday', 12],
    ['column.overtimeRestDay', 12],
    ['column.overtimeHoliday', 12],
    ['column.computedAt', 22],
  ];
  const rows = months.map((m) => [
    m.personId,
    m.name,
    m.departmentKey ? (named.department.get(m.departmentKey) ?? '') : '',
    named.group.get(m.attendanceGroupKey) ?? '',
    m.month,
    m.workdays,
    m.attended,
    m.lateCount,
    m.late,
    m.earlyLeaveCount,
    m.earlyLeave,
    m.work,
    m.absence,
    m.missing,
    m.overtimeWorkday,
    m.overtimeRestDay,
    m.overtimeHoliday,
    named.when(m.computedAt),
  ]);
  const workbook = await writeSheet(
    t('sheet.attendanceMonthly'),
    columns.map(([id, width]) => ({ header: t(id), width })),
    rows,
  );
  return xlsxDownload(`attendance-monthly-${month}.xlsx`, workbook);
}
