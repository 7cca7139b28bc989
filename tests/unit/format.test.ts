import { describe, expect, it } from 'vitest';
import { i18n } from '@lingui/core';
import 'dayjs/locale/de';
import 'dayjs/locale/ja';
import {
  decimalSeparator,
  formatBytes,
  formatDate,
  formatDateTime,
  formatDecimal,
  formatList,
  formatNumber,
  formatPercent,
  formatShortTime,
  formatTemperature,
  formatTime,
  dayPeriods,
  percentSuffix,
  temperatureSuffix,
  uses12HourClock,
} from '../../web/src/app/format.ts';

/** ICU puts a no-break or narrow no-break space between a number and its unit; compared as a plain space. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

// A moment in the local time zone, so the expected text holds wherever the tests run.
const moment = new Date(2026, 10, 23, 14, 5, 9).toISOString();

describe('console formatters', () => {
  it('write numbers and decimals with the language’s signs', () => {
    expect(formatNumber(1234567, {}, 'en-US')).toBe('1,234,567');
    expect(formatNumber(1234567, {}, 'de-DE')).toBe('1.234.567');
    expect(formatNumber(1234567, {}, 'ja-JP')).toBe('1,234,567');
    expect(formatDecimal(36.5, 1, 'en-US')).toBe('36.5');
    expect(formatDecimal(36.5, 1, 'de-DE')).toBe('36,5');
    expect(formatDecimal(36, 1, 'ja-JP')).toBe('36.0');
    expect(decimalSeparator('de-DE')).toBe(',');
    expect(decimalSeparator('ja-JP')).toBe('.');
  });

  it('write sizes in decimal units: 11.6 GB free of 32 GB', () => {
    expect(formatBytes(11_600_000_000, 'en-US')).toBe('11.6 GB');
    expect(plain(formatBytes(11_600_000_000, 'de-DE'))).toBe('11,6 GB');
    expect(plain(formatBytes(11_600_000_000, 'ja-JP'))).toBe('11.6 GB');
    expect(plain(formatBytes(32_000_000_000, 'de-DE'))).toBe('32 GB');
    expect(plain(formatBytes(512, 'en-US'))).toBe('512 byte');
    expect(plain(formatBytes(256_400_000, 'en-US'))).toBe('256 MB');
    // Rounding up to the next unit writes that unit, never "1,000 MB".
    expect(plain(formatBytes(999_990_000, 'en-US'))).toBe('1 GB');
    expect(plain(formatBytes(0, 'de-DE'))).toBe('0 Byte');
  });

  it('write temperatures and percentages, and give the suffixes inputs use', () => {
    expect(plain(formatTemperature(37.3, 'en-US'))).toBe('37.3°C');
    expect(plain(formatTemperature(37.3, 'de-DE'))).toBe('37,3 °C');
    expect(plain(formatTemperature(35, 'ja-JP'))).toBe('35.0°C');
    expect(plain(temperatureSuffix('de-DE'))).toBe(' °C');
    expect(plain(temperatureSuffix('en-US'))).toBe('°C');
    expect(plain(formatPercent(35, 'de-DE'))).toBe('35 %');
    expect(formatPercent(35, 'en-US')).toBe('35%');
    expect(formatPercent(35, 'ja-JP')).toBe('35%');
    expect(plain(percentSuffix('de-DE'))).toBe(' %');
    expect(percentSuffix('ja-JP')).toBe('%');
  });

  it('join lists as the language does', () => {
    expect(formatList(['Start on boot', 'Screensaver brightness'], 'en-US')).toBe('Start on boot and Screensaver brightness');
    expect(formatList(['Lautstärke', 'Lüfter', 'App-Passwort'], 'de-DE')).toBe('Lautstärke, Lüfter und App-Passwort');
    expect(formatList(['音量', 'ファン', 'アプリのパスワード'], 'ja-JP')).toBe('音量、ファン、アプリのパスワード');
  });

  it('write dates and times in the language’s order', () => {
    expect(formatTime(moment, 'en-US')).toBe('11/23/2026 2:05:09 PM');
    expect(formatTime(moment, 'de-DE')).toBe('23.11.2026 14:05:09');
    expect(formatTime(moment, 'ja-JP')).toBe('2026/11/23 14:05:09');
    expect(formatDateTime(moment, 'de-DE')).toBe('23.11.2026 14:05');
    expect(formatDate(moment, 'ja-JP')).toBe('2026/11/23');
    expect(formatShortTime(moment, 'de-DE', new Date(2026, 10, 23, 18))).toBe('14:05:09');
    expect(formatShortTime(moment, 'en-US', new Date(2026, 10, 24, 9))).toBe('11/23/2026 2:05 PM');
    expect(formatTime(null, 'de-DE')).toBe('—');
  });

  it('tell which clock the language reads', () => {
    expect(uses12HourClock('en-US')).toBe(true);
    expect(uses12HourClock('de-DE')).toBe(false);
    expect(uses12HourClock('ja-JP')).toBe(false);
    expect(dayPeriods('en-US')).toEqual({ am: 'AM', pm: 'PM' });
    expect(dayPeriods('ja-JP')).toEqual({ am: '午前', pm: '午後' });
  });

  it('follow the active catalog when no language is named', () => {
    i18n.loadAndActivate({ locale: 'de-DE', messages: {} });
    try {
      expect(plain(formatBytes(11_600_000_000))).toBe('11,6 GB');
      expect(formatDecimal(36.5)).toBe('36,5');
    } finally {
      i18n.loadAndActivate({ locale: 'en-US', messages: {} });
    }
  });
});
