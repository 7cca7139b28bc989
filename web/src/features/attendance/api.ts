import type { AttendanceGroupDetailJson, AttendanceGroupJson, HolidayJson, PeriodJson, ShiftJson, StaffJson } from '@passcloud/functions/contract/attendance';
import type { Weekday } from '@passcloud/functions/domain/attendance/index';
import { api } from '../../app/api.ts';

/** Attendance rules as the API answers them (functions/contract/attendance.ts). */
export type Shift = ShiftJson;
export type Period = PeriodJson;
export type AttendanceGroup = AttendanceGroupJson;
export type Holiday = HolidayJson;
export type { Weekday };

export type StaffMember = StaffJson;
export type AttendanceGroupDetail = AttendanceGroupDetailJson;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total: number;
}

export const WEEK: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const BASE = '/pass-platform/enterprise/attendance/settings';
export const SHIFTS_PATH = `${BASE}/shift`;
export const GROUPS_PATH = `${BASE}/group`;
export const HOLIDAYS_PATH = `${BASE}/holiday`;
export const shiftPath = (key: string): string => `${SHIFTS_PATH}/${key}`;
export const groupPath = (key: string): string => `${GROUPS_PATH}/${key}`;

/** Every shift of the company (a company keeps at most a hundred). */
export const allShifts = () => api.get<Page<Shift>>('/v1/attendance/shifts', { query: { pageSize: 200 } }).then((p) => p.items);

/** Employees who need attendance (all pages), with the group each belongs to. */
export async function allStaff(): Promise<StaffMember[]> {
  const out: StaffMember[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await api.get<Page<StaffMember>>('/v1/attendance/staff', { query: { pageSize: 500, cursor } });
    out.push(...page.items);
    if (!page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

/** "09:00–12:00" for each period of a shift; a period that ends the next day says so. */
export const periodText = (p: Period, nextDay: string): string => `${p.onDuty}–${p.offDuty}${p.offDuty <= p.onDuty ? ` (${nextDay})` : ''}`;

export const blankPeriod = (): Period => ({ onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '21:00', lateTolerance: 0, earlyLeaveTolerance: 0 });

const clockAt = (minutes: number): string => {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
};
const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A period to add after `last`: its check-in window opens where the last one's check-out window closes. */
export function nextPeriod(last: Period): Period {
  const open = minutesOf(last.latestCheckOut);
  return { onDuty: clockAt(open + 30), offDuty: clockAt(open + 270), earliestCheckIn: clockAt(open), latestCheckOut: clockAt(open + 330), lateTolerance: 0, earlyLeaveTolerance: 0 };
}
