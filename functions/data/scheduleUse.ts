import { addDays } from '#domain/time';
import { listHolidays } from './attendanceRules.ts';

/** The dates from `from` to `to` (inclusive) that a holiday of the company (a day off, not a working day) covers, in order. */
export async function closingHolidays(tenantId: string, from: string, to: string): Promise<string[]> {
  const dates = new Set<string>();
  for (const holiday of await listHolidays(tenantId)) {
    if (holiday.workday || holiday.end < from || holiday.start > to) continue;
    for (let day = holiday.start < from ? from : holiday.start; day <= holiday.end && day <= to; day = addDays(day, 1)) dates.add(day);
  }
  return [...dates].sort();
}
