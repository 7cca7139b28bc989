import { computeAttendance } from '@passcloud/functions/data/attendanceDays';
import { createAttendanceGroup, createHoliday, createShift, listAttendanceGroups } from '@passcloud/functions/data/attendanceRules';
import { attendanceStaff, moveStaff } from '@passcloud/functions/data/attendanceStaff';
import { storeRecord, type PassRecord } from '@passcloud/functions/data/passRecords';
import { companyTimezone } from '@passcloud/functions/data/tenants';
import { addDays, atLocalTime, clockOf, dayOf } from '@passcloud/functions/domain/time';
import { pool } from '@passcloud/functions/lib/pool';

/**
 * The demo company's attendance: an office shift, a group over the employees who need attendance
 * and the simulated terminals, a holiday, and `days` days of back-filled punches (most people on
 * time, some late, some leaving early, a few absent or forgetting to clock out), computed into
 * daily and monthly statistics. Made once, with the demo's people.
 */

/** A repeatable random number in [0, 1) for a person and day, so a restart back-fills the same history. */
export function chance(...parts: (string | number)[]): number {
  let h = 2166136261;
  for (const ch of parts.join('|')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return ((h >>> 0) % 10_000) / 10_000;
}

export async function seedDemoAttendance(tenantId: string, deviceKeys: string[], days = 30, now = new Date()): Promise<number> {
  if ((await listAttendanceGroups(tenantId)).length > 0 || deviceKeys.length === 0) return 0;
  const timezone = await companyTimezone(tenantId);
  const today = dayOf(now, timezone);
  const shift = await createShift(tenantId, {
    name: 'Office hours',
    periods: [{ onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '23:00', lateTolerance: 5, earlyLeaveTolerance: 5 }],
  });
  const work = shift.shiftKey;
  const group = await createAttendanceGroup(tenantId, {
    name: 'Head office',
    deviceKeys,
    weekdays: { sun: null, mon: work, tue: work, wed: work, thu: work, fri: work, sat: null },
    workdayOvertimeAfter: '19:00',
    restDayMinHours: 4,
    timezone,
  });
  const staff = (await attendanceStaff(tenantId)).filter((m) => m.needsAttendance && m.state === 'active');
  await moveStaff(
    tenantId,
    staff.map((m) => ({ personKey: m.personKey, from: m.attendanceGroupKey })),
    group.attendanceGroupKey,
  );
  // A day off in the history: the last Wednesday more than a week ago.
  let holiday = addDays(today, -8);
  while (new Date(`${holiday}T00:00:00Z`).getUTCDay() !== 3) holiday = addDays(holiday, -1);
  await createHoliday(tenantId, { name: 'Founders Day', start: holiday, end: holiday, remark: 'The company’s birthday', workday: false });

  const from = addDays(today, -days);
  const punches: PassRecord[] = [];
  const at = (day: string, minutes: number) => atLocalTime(day, minutes, timezone);
  for (let day = from; day < today; day = addDays(day, 1)) {
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
    if (weekday === 0 || weekday === 6 || day === holiday) continue;
    for (const m of staff) {
      const roll = chance(m.personKey, day);
      if (roll < 0.03) continue; // absent
      const arrive = 8 * 60 + 30 + Math.floor(chance(m.personKey, day, 'in') * (roll < 0.15 ? 60 : 28)); // 08:30–09:30, usually before 09:00
      const leave =
        roll > 0.93
          ? 17 * 60 + Math.floor(chance(m.personKey, day, 'early') * 50)
          : 18 * 60 + Math.floor(chance(m.personKey, day, 'out') * (roll > 0.85 ? 150 : 45));
      const times = roll > 0.97 ? [arrive] : [arrive, leave]; // some forget to clock out
      for (const [i, minutes] of times.entries()) {
        const verifyAt = at(day, minutes);
        const deviceKey = deviceKeys[(i + Math.floor(roll * 100)) % deviceKeys.length]!;
        punches.push({
          tenantId,
          deviceKey,
          recordId: `demo-${day}-${m.personKey}-${i}`,
          time: verifyAt.toISOString(),
          verifyTime: verifyAt.toISOString(),
          day,
          personKey: m.personKey,
          personKind: 'employee',
          name: m.name,
          nameLower: m.name.toLowerCase(),
          type: 'employee',
          temperature: Math.round((36.2 + chance(m.personKey, day, i) * 0.7) * 10) / 10,
          measured: true,
          fever: false,
          passState: 'passed',
          source: 'face',
          ttl: Math.floor(now.getTime() / 1000) + 180 * 86_400,
        });
      }
    }
  }
  await pool(punches, 8, (record) => storeRecord(record, Number(clockOf(new Date(record.verifyTime), timezone).slice(0, 2))));
  return computeAttendance(tenantId, from, addDays(today, -1));
}
