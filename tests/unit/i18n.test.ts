import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { catalog, catalogs, localeFromHeader, translate } from '@passcloud/functions/lib/i18n';
import { en_US } from '@passcloud/functions/lib/i18n/en_US';
import { LOCALES } from '@passcloud/functions/contract/locales';

/** Words that are the same in the language as in English (the console's names for them agree). */
const SAME_AS_ENGLISH: Record<string, string[]> = {
  it_IT: [
    'value.no',
    'column.email',
    'setting.volume',
    'option.temperatureDisplay.celsius',
    'option.temperatureDisplay.fahrenheit',
    'field.file',
    'field.password',
    'field.online',
    'field.firmware',
    'field.account',
    'column.account',
    'column.userAgent',
    'field.webhook',
  ],
  de_DE: [
    'audit.kind.export',
    'column.userAgent',
    'column.attendanceStatus',
    'value.attendance.normal',
    'field.person',
    'column.name',
    'option.temperatureOffsetMode.normal',
    'option.temperatureDisplay.celsius',
    'option.temperatureDisplay.fahrenheit',
    'field.online',
    'field.firmware',
    'field.webhook',
  ],
  fr_FR: [
    'audit.kind.export',
    'column.auditAction',
    'column.date',
    'value.attendance.normal',
    'value.attendance.absence',
    'field.invite',
    'setting.volume',
    'option.temperatureOffsetMode.normal',
    'option.temperatureDisplay.celsius',
    'option.temperatureDisplay.fahrenheit',
    'field.avatar',
    'field.type',
    'column.recordType',
    'column.source',
    'field.permanent',
    'field.message',
    'field.description',
    'field.webhook',
  ],
  es_ES: [
    'option.temperatureOffsetMode.normal',
    'option.temperatureDisplay.celsius',
    'option.temperatureDisplay.fahrenheit',
    'field.firmware',
    'value.no',
    'field.error',
    'value.attendance.normal',
    'field.webhook',
  ],
  id_ID: [
    'column.attendanceStatus',
    'value.attendance.normal',
    'column.email',
    'setting.volume',
    'option.temperatureOffsetMode.normal',
    'option.temperatureDisplay.celsius',
    'option.temperatureDisplay.fahrenheit',
    'field.file',
    'field.online',
    'field.model',
    'field.firmware',
    'field.webhook',
  ],
  ja_JP: ['field.webhook'],
  zh_CN: ['field.webhook'],
  zh_TW: ['field.webhook'],
};
/** Punctuation between sentences and after a field's name, which many languages share with English. */
const PUNCTUATION = ['issue.separator', 'issue.labelled'];

/** Where the catalogues of every locale but English are kept: one JSON file each, read on demand. */
const CATALOGUES = resolve(import.meta.dirname, '../../functions/lib/i18n');

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('server messages', () => {
  it('are one JSON file per locale besides English, and nothing else', () => {
    const files = readdirSync(CATALOGUES).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(LOCALES.filter((l) => l !== 'en_US').map((l) => `${l}.json`).sort());
  });

  // What the `Catalog` type checked when the catalogues were code: the same keys as English, no
  // others, each a string.
  it.each(LOCALES.filter((l) => l !== 'en_US'))('%s has every message, translated, with the same placeholders', (locale) => {
    const file = JSON.parse(readFileSync(resolve(CATALOGUES, `${locale}.json`), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(file).sort()).toEqual(Object.keys(en_US).sort());
    for (const value of Object.values(file)) expect(typeof value).toBe('string');
    expect(catalogs[locale]).toEqual(file);
    for (const [id, english] of Object.entries(en_US)) {
      const text = catalog(locale)[id as keyof typeof en_US];
      expect(text.trim().length, id).toBeGreaterThan(0);
      if (!SAME_AS_ENGLISH[locale]?.includes(id) && !PUNCTUATION.includes(id)) expect(text, `${locale} ${id} is still English`).not.toBe(english);
      expect(placeholders(text), id).toEqual(placeholders(english));
    }
  });

  it('reads a locale once, when it is first asked for, and falls back to English for an unknown one', () => {
    expect(catalog('ja_JP')).toBe(catalog('ja_JP'));
    expect(translate('ja_JP', 'status.404')).not.toBe(en_US['status.404']);
    expect(catalog('xx_XX' as never)).toBe(en_US);
    expect(Object.keys(catalogs).sort()).toEqual([...LOCALES].sort());
  });

  it('fills placeholders and leaves unknown ones visible', () => {
    expect(translate('en_US', 'auth.throttled', { minutes: 3 })).toBe('Too many failed attempts; try again in 3 minutes');
    expect(translate('en_US', 'auth.throttled')).toContain('{minutes}');
  });
});

describe('localeFromHeader', () => {
  it('takes the console’s locale code or a browser language list', () => {
    expect(localeFromHeader('ja_JP')).toBe('ja_JP');
    expect(localeFromHeader('zh-TW,zh;q=0.9')).toBe('zh_TW');
    expect(localeFromHeader('zh-Hant-HK')).toBe('zh_TW');
    expect(localeFromHeader('zh')).toBe('zh_CN');
    expect(localeFromHeader('pt-BR,de;q=0.5')).toBe('de_DE');
    expect(localeFromHeader('fr-CA')).toBe('fr_FR');
    expect(localeFromHeader('xx')).toBe('en_US');
    expect(localeFromHeader(undefined)).toBe('en_US');
  });
});
