import { i18n } from '@lingui/core';
import dayjs from 'dayjs';
import localizedFormat from 'dayjs/plugin/localizedFormat';
import { isLocale } from '@passcloud/functions/contract/locales';
import { DAYJS_LOCALES } from './locales.ts';

/**
 * Numbers, sizes, temperatures, lists and moments in the console's language. Every value the
 * console shows goes through here, so German reads "11,6 GB" and "36,5 °C" and Japanese "2026/11/23".
 * Each formatter takes an optional BCP 47 tag; without it, the active catalog's language is used.
 */

dayjs.extend(localizedFormat);

/** The console's language as a BCP 47 tag ("de-DE"); English until a catalog is active. */
export const currentTag = (): string => i18n.locale || 'en-US';

const numberFormats = new Map<string, Intl.NumberFormat>();

function numberFormat(tag: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${tag} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(tag, options);
    numberFormats.set(key, format);
  }
  return format;
}

/** A number with the language's digit grouping and decimal sign ("1.234,5" in German). */
export const formatNumber = (value: number, options: Intl.NumberFormatOptions = {}, tag = currentTag()): string => numberFormat(tag, options).format(value);

/** A number with exactly `digits` decimals ("36,5"). */
export const formatDecimal = (value: number, digits = 1, tag = currentTag()): string =>
  formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits }, tag);

/** A percentage given from 0 to 100 ("35 %" in German, "35%" in English). */
export const formatPercent = (percent: number, tag = currentTag()): string => formatNumber(percent / 100, { style: 'percent', maximumFractionDigits: 1 }, tag);

const CELSIUS: Intl.NumberFormatOptions = { style: 'unit', unit: 'celsius', minimumFractionDigits: 1, maximumFractionDigits: 1 };

/** Degrees Celsius with one decimal ("37,3 °C"). */
export const formatTemperature = (celsius: number, tag = currentTag()): string => formatNumber(celsius, CELSIUS, tag);

/** The language's decimal sign, for inputs that take decimals. */
export const decimalSeparator = (tag = currentTag()): string =>
  numberFormat(tag, { minimumFractionDigits: 1 })
    .formatToParts(1.5)
    .find((p) => p.type === 'decimal')?.value ?? '.';

/** What follows a temperature ("°C" in English, " °C" in German), for an input's suffix. */
export const temperatureSuffix = (tag = currentTag()): string => suffixOf(numberFormat(tag, CELSIUS).formatToParts(1.5));

/** What follows a percentage ("%" in English, " %" in German), for an input's suffix. */
export const percentSuffix = (tag = currentTag()): string => suffixOf(numberFormat(tag, { style: 'percent' }).formatToParts(0.5));

/** The parts after the number; a language that writes the unit first gets none (the input shows the number alone). */
function suffixOf(parts: Intl.NumberFormatPart[]): string {
  const last = parts.findLastIndex((p) => p.type === 'integer' || p.type === 'fraction');
  return parts
    .slice(last + 1)
    .map((p) => p.value)
    .join('');
}

const BYTE_UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte', 'petabyte'] as const;

/**
 * A size in bytes with decimal units as storage makers count them ("11,6 GB", "32 GB"): one
 * decimal below 100, none from 100 up.
 */
export function formatBytes(bytes: number, tag = currentTag()): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  for (;;) {
    const digits = unit === 0 || value >= 99.95 ? 0 : 1;
    const rounded = Number(value.toFixed(digits));
    if (rounded < 1000 || unit === BYTE_UNITS.length - 1)
      return formatNumber(rounded, { style: 'unit', unit: BYTE_UNITS[unit], unitDisplay: 'short', maximumFractionDigits: digits }, tag);
    value /= 1000;
    unit++;
  }
}

/** Items joined as the language lists them ("A, B and C", "A、B、C"). */
export const formatList = (items: readonly string[], tag = currentTag()): string =>
  new Intl.ListFormat(tag, { style: 'long', type: 'conjunction' }).format(items);

/** Whether the language reads the clock in 12 hours with a day period (English, Korean) or in 24 (German, Japanese). */
export const uses12HourClock = (tag = currentTag()): boolean =>
  ['h11', 'h12'].includes(new Intl.DateTimeFormat(tag, { hour: 'numeric' }).resolvedOptions().hourCycle ?? '');

/** The language's names of the two day periods ("AM" and "PM", "오전" and "오후"). */
export function dayPeriods(tag = currentTag()): { am: string; pm: string } {
  const format = new Intl.DateTimeFormat(tag, { hour: 'numeric', hour12: true, timeZone: 'UTC' });
  const period = (hour: number) => format.formatToParts(Date.UTC(2020, 0, 1, hour)).find((p) => p.type === 'dayPeriod')?.value;
  return { am: period(9) ?? 'AM', pm: period(21) ?? 'PM' };
}

/** A dayjs moment in the language of `tag` (its dayjs locale must be loaded) or the active one. */
function moment(iso: string | number | Date, tag?: string) {
  const value = dayjs(iso);
  if (!tag) return value;
  const locale = tag.replace('-', '_');
  return value.locale(isLocale(locale) ? DAYJS_LOCALES[locale] : 'en');
}

const NONE = '—';

/** Date and time to the second ("23.11.2026 14:05:09"); a dash when there is none. */
export const formatTime = (iso: string | null | undefined, tag?: string): string => (iso ? moment(iso, tag).format('L LTS') : NONE);

/** Date and time to the minute ("23.11.2026 14:05"). */
export const formatDateTime = (iso: string | null | undefined, tag?: string): string => (iso ? moment(iso, tag).format('L LT') : NONE);

/** A date ("23.11.2026"). */
export const formatDate = (iso: string | null | undefined, tag?: string): string => (iso ? moment(iso, tag).format('L') : NONE);

/** A moment in few characters: the time alone when it is today. */
export function formatShortTime(iso: string | null | undefined, tag?: string, now: Date = new Date()): string {
  if (!iso) return NONE;
  const value = moment(iso, tag);
  return value.isSame(now, 'day') ? value.format('LTS') : value.format('L LT');
}

/** A day picked in a date range (`YYYY-MM-DD`) as the instant its local day starts, or the next one starts. */
export function dayBound(day: string | null, next = false): string | undefined {
  if (!day) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + (next ? 1 : 0)).toISOString();
}
