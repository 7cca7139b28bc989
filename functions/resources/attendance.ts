import * as z from 'zod';
import { jobStarted } from '#contract/passRecords';
import {
  attendanceGroupBody,
  attendanceGroupKeyParams,
  attendanceGroupPatchBody,
  attendanceListQuery,
  attendanceVersionQuery,
  dailyPage,
  dailyQuery,
  monthlyPage,
  monthlyQuery,
  recomputeBody,
  recomputeJobParams,
  holidayBody,
  holidayKeyParams,
  holidayListQuery,
  holidayPatchBody,
  shiftBody,
  shiftKeyParams,
  shiftPatchBody,
  staffListQuery,
  attendanceGroupAnswer,
  attendanceGroupNames,
  attendanceGroupPage,
  holidayAnswer,
  holidayPage,
  latestRecomputeAnswer,
  recomputeJobAnswer,
  shiftAnswer,
  shiftPage,
  staffPage,
  type AttendanceGroupBody,
} from '#contract/attendance';
import { WEEKDAYS } from '#domain/attendance/index';
import { dayOf } from '#domain/time';
import {
  createAttendanceGroup,
  createHoliday,
  createShift,
  deleteAttendanceGroup,
  deleteHoliday,
  deleteShift,
  findShift,
  listAttendanceGroups,
  listHolidays,
  listShifts,
  requireAttendanceGroup,
  requireHoliday,
  requireShift,
  rulesChangedAt,
  shiftUsers,
  updateAttendanceGroup,
  updateHoliday,
  updateShift,
  type GroupRecord,
} from '#data/attendanceRules';
import { attendanceStaff, moveStaff, type StaffMember } from '#data/attendanceStaff';
import { listDays, listMonths } from '#data/attendanceLists';
import { dayJson, groupJson, holidayJson, monthJson, recomputeJson, shiftJson, staffJson } from '#views/attendance';

import { createRecomputeJob, failRecomputeJob, findRecomputeJob, latestRecomputeJob, type RecomputeJob } from '#data/attendanceJobs';
import { releaseJobSlot, takeJobSlot } from '#data/jobSlots';
import type { Locale } from '#contract/locales';
import { translate } from '#lib/i18n';
import { lostWorker, startWorker } from '#lib/jobs';
import { newTimeId } from '#lib/crypto';
import { allFaceTerminals } from '#data/devices';
import { dailyWorkbook, monthlyWorkbook } from '#views/attendanceWorkbooks';
import { companyTimezone } from '#data/tenants';
import { AppError, ConflictError, NotFoundError, ValidationError, fieldError, type FieldIssue } from '#lib/errors';
import { created, defineResource, deleted, ok, queued, sessionRoute } from '#lib/http';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'EVENTS_TABLE', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'RECOMPUTE_WORKER_FUNCTION']);

/** Names as a message shows them: the first few, then how many more. */
const NAMES_SHOWN = 5;
const namesOf = (names: string[]): string =>
  names.length > NAMES_SHOWN ? `${names.slice(0, NAMES_SHOWN).join(', ')} +${names.length - NAMES_SHOWN}` : names.join(', ');

/** A page of an already bounded, sorted list: `cursor` is the key of the last item of the page before. */
function pageOf<T>(all: T[], keyOf: (item: T) => string, pageSize: number, cursor?: string): { page: T[]; nextCursor: string | null; total: number } {
  const start = cursor ? all.findIndex((item) => keyOf(item) === cursor) + 1 : 0;
  const page = cursor && start === 0 ? [] : all.slice(start, start + pageSize);
  const more = page.length > 0 && start + pageSize < all.length;
  return { page, nextCursor: more ? keyOf(page.at(-1)!) : null, total: all.length };
}

const matches = (keyword: string | undefined, ...texts: (string | null | undefined)[]): boolean =>
  !keyword || texts.some((t) => t?.toLocaleLowerCase().includes(keyword.toLocaleLowerCase()));

/** The staff chosen elsewhere belong to other groups: 409 naming them, unless the caller confirmed the move. */
class StaffInOtherGroupError extends AppError {
  constructor(people: { employeeKey: string; name: string; attendanceGroupName: string }[]) {
    super(409, 'attendance.staffInOtherGroup', { names: namesOf(people.map((p) => p.name)) }, { people });
  }
}

/**
 * Checks a group's references (shifts of the weekdays, devices, staff) and answers what to store
 * and whom to move. An employee must exist and, to join, need attendance; one who belongs to another
 * group moves only when the caller said so.
 */
async function prepareGroup(tenantId: string, body: AttendanceGroupBody, attendanceGroupKey?: string) {
  const [shiftList, devices, staff, groups] = await Promise.all([
    listShifts(tenantId),
    allFaceTerminals(tenantId),
    attendanceStaff(tenantId),
    listAttendanceGroups(tenantId),
  ]);
  const issues: FieldIssue[] = [];
  const shiftKeys = new Set(shiftList.map((s) => s.shiftKey));
  for (const day of WEEKDAYS) {
    const key = body.weekdays[day];
    if (key && !shiftKeys.has(key)) issues.push({ path: `weekdays.${day}`, message: 'attendance.shiftMissing' });
  }
  // A device removed since the group named it leaves the group; one never there must exist.
  const known = new Set(devices.map((d) => d.deviceKey));
  const before = new Set(groups.find((g) => g.attendanceGroupKey === attendanceGroupKey)?.deviceKeys ?? []);
  const deviceKeys = [...new Set(body.deviceKeys)].filter((k) => known.has(k) || !before.has(k));
  if (deviceKeys.some((k) => !known.has(k))) issues.push({ path: 'deviceKeys', message: 'attendance.deviceMissing' });

  const byKey = new Map(staff.map((m) => [m.personKey, m]));
  const wanted = [...new Set(body.employeeKeys)];
  const unknown = wanted.filter((k) => !byKey.has(k));
  if (unknown.length) issues.push({ path: 'employeeKeys', message: 'attendance.staffMissing' });
  // Someone already in the group stays though they do not need attendance (kept from before the rule); joining needs it.
  const notNeeding = wanted.map((k) => byKey.get(k)).filter((m): m is StaffMember => !!m && !m.needsAttendance && m.attendanceGroupKey !== attendanceGroupKey);
  if (notNeeding.length)
    issues.push({ path: 'employeeKeys', message: 'attendance.staffNotNeeding', params: { names: namesOf(notNeeding.map((m) => m.name)) } });
  if (issues.length) throw new ValidationError(issues);

  const groupNames = new Map(groups.map((g) => [g.attendanceGroupKey, g.name]));
  const joining = wanted.map((k) => byKey.get(k)!).filter((m) => m.attendanceGroupKey !== attendanceGroupKey || !attendanceGroupKey);
  const elsewhere = joining.filter((m) => m.attendanceGroupKey && m.attendanceGroupKey !== attendanceGroupKey && groupNames.has(m.attendanceGroupKey));
  if (elsewhere.length && !body.moveStaff) {
    throw new StaffInOtherGroupError(
      elsewhere.map((m) => ({ employeeKey: m.personKey, name: m.name, attendanceGroupName: groupNames.get(m.attendanceGroupKey!)! })),
    );
  }
  const wantedSet = new Set(wanted);
  const leaving = attendanceGroupKey ? staff.filter((m) => m.attendanceGroupKey === attendanceGroupKey && !wantedSet.has(m.personKey)) : [];
  const record: GroupRecord = {
    name: body.name,
    deviceKeys,
    weekdays: body.weekdays,
    workdayOvertimeAfter: body.workdayOvertimeAfter,
    restDayMinHours: body.restDayMinHours,
    timezone: body.timezone ?? (await companyTimezone(tenantId)),
  };
  return { record, joining, leaving, staffCount: wanted.length };
}

/** Moves the staff after the group is stored; someone moved meanwhile by another request stays where that put them. */
async function settleStaff(tenantId: string, attendanceGroupKey: string, joining: StaffMember[], leaving: StaffMember[]): Promise<void> {
  await moveStaff(
    tenantId,
    joining.map((m) => ({ personKey: m.personKey, from: m.attendanceGroupKey })),
    attendanceGroupKey,
  );
  await moveStaff(
    tenantId,
    leaving.map((m) => ({ personKey: m.personKey, from: attendanceGroupKey })),
    null,
  );
}

async function groupDetail(tenantId: string, attendanceGroupKey: string) {
  const [group, staff] = await Promise.all([requireAttendanceGroup(tenantId, attendanceGroupKey), attendanceStaff(tenantId)]);
  const members = staff.filter((m) => m.attendanceGroupKey === attendanceGroupKey).sort((a, b) => a.name.localeCompare(b.name));
  const names = new Map([[group.attendanceGroupKey, group.name]]);
  return { ...groupJson(group, members.length), staff: members.map((m) => staffJson(m, names)) };
}

/** Starts a recomputation in the background, one (JOB_LIMIT_RECOMPUTE) per company at a time. */
async function startRecompute(tenantId: string, from: string, to: string, locale: string): Promise<string> {
  const now = new Date();
  const jobKey = newTimeId(now.getTime());
  // The slot first: a refused start leaves no job behind, and the running one stays the newest.
  await takeJobSlot(tenantId, 'recompute', jobKey, now.toISOString(), now.getTime());
  let job: RecomputeJob | undefined;
  try {
    job = await createRecomputeJob(tenantId, jobKey, from, to, locale, now);
    await startWorker(
      'RECOMPUTE_WORKER_FUNCTION',
      { tenantId, jobKey },
      (task) => import('../jobs/attendanceRecompute.ts').then((m) => m.runRecompute(task)),
      'attendance recomputation',
    );
  } catch (error) {
    if (job) await failRecomputeJob(job, translate(locale as Locale, 'jobs.notStarted'));
    else await releaseJobSlot(tenantId, 'recompute', jobKey, now.toISOString());
    throw error;
  }
  return jobKey;
}

/** A job whose worker was lost says so (lib/jobs.ts), and the screen stops waiting for it. */
async function settled(job: RecomputeJob): Promise<RecomputeJob> {
  if (!lostWorker(job.state, job.startedAt ?? job.createdAt)) return job;
  return failRecomputeJob(job, translate(job.locale as Locale, job.state === 'queued' ? 'jobs.notStarted' : 'jobs.stopped'));
}

export const attendance = defineResource('attendance', {
  'GET /v1/attendance/daily': sessionRoute({
    query: dailyQuery,
    answer: dailyPage,
    async handle({ auth, query }) {
      const { pageSize, cursor, ...filter } = query;
      const [page, changedAt] = await Promise.all([listDays(auth.tenantId, filter, pageSize, cursor), rulesChangedAt(auth.tenantId)]);
      return ok({ items: page.items.map(dayJson), nextCursor: page.nextCursor, rulesChangedAt: changedAt });
    },
  }),
  'GET /v1/attendance/daily/export': sessionRoute({
    query: dailyQuery,
    async handle({ auth, query, locale }) {
      const { pageSize: _pageSize, cursor: _cursor, ...filter } = query;
      return dailyWorkbook(auth.tenantId, filter, locale);
    },
  }),
  'GET /v1/attendance/monthly/export': sessionRoute({
    query: monthlyQuery,
    async handle({ auth, query, locale }) {
      const { pageSize: _pageSize, cursor: _cursor, month, ...filter } = query;
      return monthlyWorkbook(auth.tenantId, month, filter, locale);
    },
  }),
  'GET /v1/attendance/monthly': sessionRoute({
    query: monthlyQuery,
    answer: monthlyPage,
    async handle({ auth, query }) {
      const { pageSize, cursor, month, ...filter } = query;
      const page = await listMonths(auth.tenantId, month, filter, pageSize, cursor);
      return ok({ items: page.items.map(monthJson), nextCursor: page.nextCursor });
    },
  }),
  'GET /v1/attendance/groupNames': sessionRoute({
    answer: attendanceGroupNames,
    async handle({ auth }) {
      const groups = await listAttendanceGroups(auth.tenantId);
      return ok({ items: groups.map((g) => ({ attendanceGroupKey: g.attendanceGroupKey, name: g.name })), nextCursor: null });
    },
  }),
  'POST /v1/attendance/recompute': sessionRoute({
    answer: jobStarted,
    body: recomputeBody,
    async handle({ auth, body, locale }) {
      const today = dayOf(new Date(), await companyTimezone(auth.tenantId));
      if (body.from > today) throw fieldError('from', 'attendance.fromInFuture');
      const to = body.to > today ? today : body.to;
      return queued({ jobKey: await startRecompute(auth.tenantId, body.from, to, locale) });
    },
  }),
  'GET /v1/attendance/recompute': sessionRoute({
    answer: latestRecomputeAnswer,
    async handle({ auth }) {
      const job = await latestRecomputeJob(auth.tenantId);
      return ok(job ? recomputeJson(await settled(job)) : null);
    },
  }),
  'GET /v1/attendance/recompute/{jobKey}': sessionRoute({
    answer: recomputeJobAnswer,
    params: recomputeJobParams,
    async handle({ auth, params }) {
      const job = await findRecomputeJob(auth.tenantId, params.jobKey);
      if (!job) throw new NotFoundError();
      return ok(recomputeJson(await settled(job)));
    },
  }),

  'GET /v1/attendance/shifts': sessionRoute({
    answer: shiftPage,
    query: attendanceListQuery,
    async handle({ auth, query }) {
      const [all, groups] = await Promise.all([listShifts(auth.tenantId), listAttendanceGroups(auth.tenantId)]);
      const { page, nextCursor, total } = pageOf(
        all.filter((s) => matches(query.keyword, s.name)),
        (s) => s.shiftKey,
        query.pageSize,
        query.cursor,
      );
      return ok({ items: page.map((s) => shiftJson(s, groups)), nextCursor, total });
    },
  }),
  'POST /v1/attendance/shifts': sessionRoute({
    answer: shiftAnswer,
    body: shiftBody,
    async handle({ auth, body }) {
      return created(shiftJson(await createShift(auth.tenantId, body), []));
    },
  }),
  'GET /v1/attendance/shifts/{shiftKey}': sessionRoute({
    answer: shiftAnswer,
    params: shiftKeyParams,
    async handle({ auth, params }) {
      const [shift, groups] = await Promise.all([requireShift(auth.tenantId, params.shiftKey), listAttendanceGroups(auth.tenantId)]);
      return ok(shiftJson(shift, groups));
    },
  }),
  'PATCH /v1/attendance/shifts/{shiftKey}': sessionRoute({
    answer: shiftAnswer,
    params: shiftKeyParams,
    body: shiftPatchBody,
    async handle({ auth, params, body }) {
      const { version, ...rest } = body;
      await requireShift(auth.tenantId, params.shiftKey);
      const shift = await updateShift(auth.tenantId, params.shiftKey, version, rest);
      return created(shiftJson(shift, await listAttendanceGroups(auth.tenantId)));
    },
  }),
  'DELETE /v1/attendance/shifts/{shiftKey}': sessionRoute({
    answer: z.null(),
    params: shiftKeyParams,
    query: attendanceVersionQuery,
    async handle({ auth, params, query }) {
      await requireShift(auth.tenantId, params.shiftKey);
      const users = await shiftUsers(auth.tenantId, params.shiftKey);
      if (users.groups.length) throw new ConflictError('attendance.shiftInUse', undefined, { groups: namesOf(users.groups.map((g) => g.name)) });
      if (users.holidays.length) throw new ConflictError('attendance.shiftInUseByHoliday', undefined, { holidays: namesOf(users.holidays.map((h) => h.name)) });
      await deleteShift(auth.tenantId, params.shiftKey, query.version);
      return deleted();
    },
  }),

  'GET /v1/attendance/groups': sessionRoute({
    answer: attendanceGroupPage,
    query: attendanceListQuery,
    async handle({ auth, query }) {
      const [all, staff] = await Promise.all([listAttendanceGroups(auth.tenantId), attendanceStaff(auth.tenantId)]);
      const counts = new Map<string, number>();
      for (const m of staff) if (m.attendanceGroupKey) counts.set(m.attendanceGroupKey, (counts.get(m.attendanceGroupKey) ?? 0) + 1);
      const { page, nextCursor, total } = pageOf(
        all.filter((g) => matches(query.keyword, g.name)),
        (g) => g.attendanceGroupKey,
        query.pageSize,
        query.cursor,
      );
      return ok({ items: page.map((g) => groupJson(g, counts.get(g.attendanceGroupKey) ?? 0)), nextCursor, total });
    },
  }),
  'POST /v1/attendance/groups': sessionRoute({
    answer: attendanceGroupAnswer,
    body: attendanceGroupBody,
    async handle({ auth, body }) {
      const { record, joining } = await prepareGroup(auth.tenantId, body);
      const group = await createAttendanceGroup(auth.tenantId, record);
      await settleStaff(auth.tenantId, group.attendanceGroupKey, joining, []);
      return created(await groupDetail(auth.tenantId, group.attendanceGroupKey));
    },
  }),
  'GET /v1/attendance/groups/{attendanceGroupKey}': sessionRoute({
    answer: attendanceGroupAnswer,
    params: attendanceGroupKeyParams,
    async handle({ auth, params }) {
      return ok(await groupDetail(auth.tenantId, params.attendanceGroupKey));
    },
  }),
  'PATCH /v1/attendance/groups/{attendanceGroupKey}': sessionRoute({
    answer: attendanceGroupAnswer,
    params: attendanceGroupKeyParams,
    body: attendanceGroupPatchBody,
    async handle({ auth, params, body }) {
      const current = await requireAttendanceGroup(auth.tenantId, params.attendanceGroupKey);
      if (current.version !== body.version) throw new ConflictError();
      const { record, joining, leaving } = await prepareGroup(auth.tenantId, body, params.attendanceGroupKey);
      await updateAttendanceGroup(auth.tenantId, params.attendanceGroupKey, body.version, record);
      await settleStaff(auth.tenantId, params.attendanceGroupKey, joining, leaving);
      return created(await groupDetail(auth.tenantId, params.attendanceGroupKey));
    },
  }),
  'DELETE /v1/attendance/groups/{attendanceGroupKey}': sessionRoute({
    answer: z.null(),
    params: attendanceGroupKeyParams,
    query: attendanceVersionQuery,
    async handle({ auth, params, query }) {
      await requireAttendanceGroup(auth.tenantId, params.attendanceGroupKey);
      await deleteAttendanceGroup(auth.tenantId, params.attendanceGroupKey, query.version);
      const staff = (await attendanceStaff(auth.tenantId)).filter((m) => m.attendanceGroupKey === params.attendanceGroupKey);
      await settleStaff(auth.tenantId, params.attendanceGroupKey, [], staff);
      return deleted();
    },
  }),
  // Employees who need attendance, with the group each belongs to: whom a group screen may choose.
  'GET /v1/attendance/staff': sessionRoute({
    answer: staffPage,
    query: staffListQuery,
    async handle({ auth, query }) {
      const [staff, groups] = await Promise.all([attendanceStaff(auth.tenantId), listAttendanceGroups(auth.tenantId)]);
      const names = new Map(groups.map((g) => [g.attendanceGroupKey, g.name]));
      const chosen = staff
        .filter((m) => m.needsAttendance && m.state === 'active')
        .filter((m) => matches(query.keyword, m.name, m.personId))
        .filter((m) => !query.attendanceGroupKey || m.attendanceGroupKey === query.attendanceGroupKey)
        .sort((a, b) => a.name.localeCompare(b.name) || a.personKey.localeCompare(b.personKey));
      const { page, nextCursor, total } = pageOf(chosen, (m) => m.personKey, query.pageSize, query.cursor);
      return ok({ items: page.map((m) => staffJson(m, names)), nextCursor, total });
    },
  }),

  'GET /v1/attendance/holidays': sessionRoute({
    answer: holidayPage,
    query: holidayListQuery,
    async handle({ auth, query }) {
      const all = (await listHolidays(auth.tenantId))
        .filter((h) => matches(query.keyword, h.name, h.remark))
        .filter((h) => !query.year || (h.start <= `${query.year}-12-31` && h.end >= `${query.year}-01-01`));
      const { page, nextCursor, total } = pageOf(all, (h) => h.holidayKey, query.pageSize, query.cursor);
      return ok({ items: page.map(holidayJson), nextCursor, total });
    },
  }),
  'POST /v1/attendance/holidays': sessionRoute({
    answer: holidayAnswer,
    body: holidayBody,
    async handle({ auth, body }) {
      if (body.workday && body.shiftKey) await requireShiftOf(auth.tenantId, body.shiftKey);
      const holiday = await createHoliday(auth.tenantId, body);
      await holidaysChanged(auth.tenantId);
      return created(holidayJson(holiday));
    },
  }),
  'PATCH /v1/attendance/holidays/{holidayKey}': sessionRoute({
    answer: holidayAnswer,
    params: holidayKeyParams,
    body: holidayPatchBody,
    async handle({ auth, params, body }) {
      const { version, ...rest } = body;
      await requireHoliday(auth.tenantId, params.holidayKey);
      if (rest.workday && rest.shiftKey) await requireShiftOf(auth.tenantId, rest.shiftKey);
      const holiday = await updateHoliday(auth.tenantId, params.holidayKey, version, rest);
      await holidaysChanged(auth.tenantId);
      return created(holidayJson(holiday));
    },
  }),
  'DELETE /v1/attendance/holidays/{holidayKey}': sessionRoute({
    answer: z.null(),
    params: holidayKeyParams,
    query: attendanceVersionQuery,
    async handle({ auth, params, query }) {
      await requireHoliday(auth.tenantId, params.holidayKey);
      await deleteHoliday(auth.tenantId, params.holidayKey, query.version);
      await holidaysChanged(auth.tenantId);
      return deleted();
    },
  }),
});

/**
 * The holiday list changed: the terminals whose faces use a schedule that holidays close read it
 * again (flows/scheduleDelivery.ts). Loaded on first use, so face sync counts in no start-up budget
 * of this function.
 */
async function holidaysChanged(tenantId: string): Promise<void> {
  await (await import('#flows/scheduleDelivery')).holidaysChanged(tenantId);
}

/** A holiday's shift must be one of the company's: 422 naming `shiftKey` otherwise. */
async function requireShiftOf(tenantId: string, shiftKey: string): Promise<void> {
  if (!(await findShift(tenantId, shiftKey))) throw new ValidationError([{ path: 'shiftKey', message: 'attendance.shiftMissing' }]);
}

export const handler = attendance.handler;
