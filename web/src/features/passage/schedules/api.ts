import type { SchedulePage, SchedulePeriod, ScheduleView } from '@passcloud/functions/contract/schedules';
import { api } from '../../../app/api.ts';
import { currentTag } from '../../../app/format.ts';

/** Access schedules as the API answers them (functions/contract/schedules.ts). */
export type Schedule = ScheduleView;
export type Period = SchedulePeriod;
export type { SchedulePage };

export const SCHEDULES_PATH = '/pass-platform/passage/schedule';
export const schedulePath = (key: string): string => `${SCHEDULES_PATH}/${key}`;

/** Every schedule of the company (a company keeps at most a hundred), for choosers. */
export const allSchedules = () => api.get<SchedulePage>('/v1/schedules', { query: { pageSize: 200 } }).then((p) => p.items);

/** 2024-01-01 was a Monday: the weekday names come from it, Monday first. */
const MONDAY = Date.UTC(2024, 0, 1);
export function weekdayName(index: number, width: 'long' | 'short' = 'long', tag = currentTag()): string {
  return new Intl.DateTimeFormat(tag, { weekday: width, timeZone: 'UTC' }).format(new Date(MONDAY + index * 86_400_000));
}

/** "07:00–19:00, 20:00–22:00" for a day's periods. */
export const periodsText = (periods: readonly Period[]): string => periods.map((p) => `${p.from}–${p.to}`).join(', ');

/** The week as a short summary: days with the same periods run together ("Mon–Fri 07:00–19:00"). */
export function weekText(weekly: readonly (readonly Period[])[], closed: string): string[] {
  const parts: string[] = [];
  for (let i = 0; i < weekly.length;) {
    const text = periodsText(weekly[i]!);
    let j = i;
    while (j + 1 < weekly.length && periodsText(weekly[j + 1]!) === text) j++;
    const days = i === j ? weekdayName(i, 'short') : `${weekdayName(i, 'short')}–${weekdayName(j, 'short')}`;
    parts.push(`${days} ${text || closed}`);
    i = j + 1;
  }
  return parts;
}
