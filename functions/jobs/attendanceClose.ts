import { computeAttendance } from '#data/attendanceDays';
import { attendanceTenants, listAttendanceGroups, markClosed } from '#data/attendanceRules';
import { attendanceStaff } from '#data/attendanceStaff';
import { addDays, dayOf } from '#domain/time';
import { log, logged } from '#lib/log';
import { pool } from '#lib/pool';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'MAIN_TABLE']);

/** A group whose days were not closed for a while (a new group, an outage) catches up this far back. */
export const CATCH_UP_DAYS = 7;
/** Companies closed at once: the run must end within the function's 15 minutes however many there are. */
const TENANTS_AT_ONCE = 8;

/**
 * Closes attendance days, every hour (AWS: an EventBridge Scheduler schedule; one machine: the
 * local host's timer): for each attendance group whose day ended in its own time zone since the last run,
 * the days since the last closed one (at most CATCH_UP_DAYS) are computed for its staff and the
 * group is marked closed through yesterday. The mark is a conditional write, so two runs close a
 * day once; computing a day again gives the same figures, so a run that dies midway is made
 * good by the next. Answers how many groups were closed.
 */
export async function closeAttendanceDays(now = new Date()): Promise<number> {
  let closed = 0;
  // One company failing (logged) does not keep the others' days open.
  await pool(await attendanceTenants(), TENANTS_AT_ONCE, async (tenantId) => {
    try {
      const groups = await listAttendanceGroups(tenantId);
      if (!groups.length) return;
      const staff = await attendanceStaff(tenantId);
      for (const group of groups) {
        const yesterday = addDays(dayOf(now, group.timezone), -1);
        if (group.closedThrough && group.closedThrough >= yesterday) continue;
        const earliest = addDays(yesterday, 1 - CATCH_UP_DAYS);
        const from = group.closedThrough && addDays(group.closedThrough, 1) > earliest ? addDays(group.closedThrough, 1) : earliest;
        const members = new Set(staff.filter((m) => m.attendanceGroupKey === group.attendanceGroupKey).map((m) => m.personKey));
        if (members.size) await computeAttendance(tenantId, from, yesterday, { only: members });
        if (await markClosed(tenantId, group.attendanceGroupKey, yesterday)) closed++;
      }
    } catch (error) {
      log('error', 'attendance days not closed', { tenantId, error: String(error) });
    }
  });
  return closed;
}

async function handle(): Promise<{ closed: number }> {
  return { closed: await closeAttendanceDays() };
}

export const handler = logged('attendanceClose', handle);
