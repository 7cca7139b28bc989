import dayjs from 'dayjs';
import { RECORD_RANGE_MAX_DAYS, type PassState, type RecordType } from '@passcloud/functions/contract/passRecords';
import { today } from './alerts.ts';

/** The general record screen, or the blacklist's own (the same filters, the type fixed). */
export type RecordScreen = 'pass' | 'blacklist';

export interface RecordFilters {
  /** Days (`YYYY-MM-DD`); the second may be missing while only one day is picked. */
  range: [string | null, string | null];
  deviceKey: string | null;
  type: RecordType | null;
  temperature: 'normal' | 'fever' | null;
  passState: PassState | null;
  keyword: string;
}

const DAY = 'YYYY-MM-DD';

export const defaultFilters = (now: Date = new Date()): RecordFilters => {
  const day = today(now);
  return { range: [day, day], deviceKey: null, type: null, temperature: null, passState: null, keyword: '' };
};

/** Days covered by a range, both ends counted. */
export const rangeDays = (from: string, to: string): number => Math.abs(dayjs(to).diff(dayjs(from), 'day')) + 1;

/** Whether a picked range is one the server lists (a single picked day counts as that day). */
export const rangeAllowed = ([from, to]: RecordFilters['range']): boolean => !from || rangeDays(from, to ?? from) <= RECORD_RANGE_MAX_DAYS;

/**
 * The days a picker may still offer: once the first end is picked, the other end stays within
 * RECORD_RANGE_MAX_DAYS of it; no day after today.
 */
export function pickableDays([from, to]: RecordFilters['range'], now: Date = new Date()): { minDate?: string; maxDate: string } {
  const last = today(now);
  if (!from || to) return { maxDate: last };
  const reach = RECORD_RANGE_MAX_DAYS - 1;
  const after = dayjs(from).add(reach, 'day').format(DAY);
  return { minDate: dayjs(from).subtract(reach, 'day').format(DAY), maxDate: after < last ? after : last };
}

/** A picked range as a list's query takes it: the days in order, one picked day as both ends. */
export function rangeQuery([first, second]: RecordFilters['range']): { from: string | undefined; to: string | undefined } {
  const [from, to] = first && second && second < first ? [second, first] : [first ?? undefined, second ?? first ?? undefined];
  return { from, to };
}

/** The query (and export body) of the filters: days in order, empty filters left out. */
export function recordQuery(filters: RecordFilters, screen: RecordScreen): Record<string, string | undefined> {
  return {
    ...rangeQuery(filters.range),
    deviceKey: filters.deviceKey ?? undefined,
    type: screen === 'pass' ? (filters.type ?? undefined) : undefined,
    temperature: filters.temperature ?? undefined,
    passState: filters.passState ?? undefined,
    keyword: filters.keyword.trim() || undefined,
  };
}

export const filtersNarrowed = (filters: RecordFilters): boolean =>
  !!(filters.deviceKey || filters.type || filters.temperature || filters.passState || filters.keyword.trim());
