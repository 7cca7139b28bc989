import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import dayjs from 'dayjs';
import {
  PASS_STATES,
  RECORD_RANGE_MAX_DAYS,
  RECORD_TYPES,
  REFUSAL_REASONS,
  TEMPERATURE_FILTERS,
  type PassState,
  type RecordType,
  type RefusalReason,
} from '@passcloud/functions/contract/passRecords';
import { today } from './alerts.ts';

/** The general record screen, or the blacklist's own (the same filters, the type fixed). */
export type RecordScreen = 'pass' | 'blacklist';

export interface RecordFilters {
  /** Days (`YYYY-MM-DD`); the second may be missing while only one day is picked. */
  range: [string | null, string | null];
  deviceKey: string | null;
  /** One employee's or visitor's passes: set by the link of a person's recent passes. */
  personKey: string | null;
  type: RecordType | null;
  temperature: 'normal' | 'fever' | null;
  passState: PassState | null;
  /** Refused passes for this reason. */
  refusedFor: RefusalReason | null;
  keyword: string;
}

const DAY = 'YYYY-MM-DD';

export const defaultFilters = (now: Date = new Date()): RecordFilters => {
  const day = today(now);
  return { range: [day, day], deviceKey: null, personKey: null, type: null, temperature: null, passState: null, refusedFor: null, keyword: '' };
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
    personKey: filters.personKey ?? undefined,
    type: screen === 'pass' ? (filters.type ?? undefined) : undefined,
    temperature: filters.temperature ?? undefined,
    passState: filters.passState ?? undefined,
    refusedFor: filters.refusedFor ?? undefined,
    keyword: filters.keyword.trim() || undefined,
  };
}

export const filtersNarrowed = (filters: RecordFilters): boolean =>
  !!(filters.deviceKey || filters.personKey || filters.type || filters.temperature || filters.passState || filters.refusedFor || filters.keyword.trim());

/** The URL parameters of the filters; other parameters (`record`, an alert's link) are left alone. */
const URL_NAMES = ['from', 'to', 'deviceKey', 'personKey', 'type', 'temperature', 'passState', 'refusedFor', 'keyword'] as const;
const KEY = /^[0-9a-z]{8,32}$/;
const DAY_FORMAT = /^\d{4}-\d{2}-\d{2}$/;
const oneOf = <T extends string>(values: readonly T[], value: string | null): T | null => (values.includes(value as T) ? (value as T) : null);

/** The filters a URL names, the defaults for what it leaves out or names wrongly. */
export function filtersOfUrl(params: URLSearchParams, now: Date = new Date()): RecordFilters {
  const base = defaultFilters(now);
  const day = (name: string) => (DAY_FORMAT.test(params.get(name) ?? '') ? params.get(name) : null);
  const key = (name: string) => (KEY.test(params.get(name) ?? '') ? params.get(name) : null);
  const from = day('from');
  return {
    range: from ? [from, day('to') ?? from] : base.range,
    deviceKey: key('deviceKey'),
    personKey: key('personKey'),
    type: oneOf(RECORD_TYPES, params.get('type')),
    temperature: oneOf(TEMPERATURE_FILTERS, params.get('temperature')),
    passState: oneOf(PASS_STATES, params.get('passState')),
    refusedFor: oneOf(REFUSAL_REASONS, params.get('refusedFor')),
    keyword: params.get('keyword') ?? '',
  };
}

/** The link to the record list with these filters (a person's or a terminal's recent passes). */
export function recordsLink(path: string, filters: Partial<Record<(typeof URL_NAMES)[number], string | undefined>>): string {
  const params = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => !!e[1]));
  return `${path}?${params.toString()}`;
}

/**
 * The applied filters of a record list, kept in the URL so a filtered list (a link to one
 * person's passes) survives a reload; today's range and empty filters are left out of it.
 */
export function useRecordUrlFilters(): [RecordFilters, (next: RecordFilters) => boolean] {
  const [params, setParams] = useSearchParams();
  const serialized = params.toString();
  // The filters change only with the URL.
  const filters = useMemo(() => filtersOfUrl(params), [serialized]);
  const setFilters = useCallback(
    (next: RecordFilters) => {
      if (JSON.stringify(next) === JSON.stringify(filtersOfUrl(params))) return false;
      const today = defaultFilters().range;
      const { from, to } = rangeQuery(next.range);
      const values: Record<(typeof URL_NAMES)[number], string | null | undefined> = {
        from: from === today[0] && to === today[1] ? null : from,
        to: from === today[0] && to === today[1] ? null : to,
        deviceKey: next.deviceKey,
        personKey: next.personKey,
        type: next.type,
        temperature: next.temperature,
        passState: next.passState,
        refusedFor: next.refusedFor,
        keyword: next.keyword.trim(),
      };
      setParams(
        (current) => {
          const updated = new URLSearchParams(current);
          for (const name of URL_NAMES) {
            const value = values[name];
            if (value) updated.set(name, value);
            else updated.delete(name);
          }
          return updated;
        },
        { replace: true },
      );
      return true;
    },
    [serialized, setParams],
  );
  return [filters, setFilters];
}
