import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { catalog, catalogs, localeFromHeader, translate } from '@passcloud/functions/lib/i18n';
import { catalogueProblems, storedCatalogues } from '@passcloud/infra/tools/catalogues';
import { en_US } from '@passcloud/functions/lib/i18n/en_US';
import { LOCALES } from '@passcloud/functions/contract/locales';

/** Where the catalogues of every locale but English are kept: one JSON file each, read on demand. */
const CATALOGUES = resolve(import.meta.dirname, '../../functions/lib/i18n');

describe('server messages', () => {
  it('are one JSON file per locale besides English, and nothing else', () => {
    const files = readdirSync(CATALOGUES).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(LOCALES.filter((l) => l !== 'en_US').map((l) => `${l}.json`).sort());
  });

  it.each(LOCALES.filter((l) => l !== 'en_US'))('%s is the file the service reads', (locale) => {
    const file = JSON.parse(readFileSync(resolve(CATALOGUES, `${locale}.json`), 'utf8')) as Record<string, unknown>;
    expect(catalogs[locale]).toEqual(file);
  });

  // The strict check the build runs (npm run catalogues), as lingui compile --strict is for the console.
  it('has every message in every locale, translated, with the same placeholders', () => {
    expect(catalogueProblems(en_US, storedCatalogues())).toEqual([]);
  });

  it('finds what the strict check is for: missing, extra, empty, changed placeholders, English left', () => {
    const english = { 'a.greeting': 'Hello {name}', 'b.brand': 'Open Pass Cloud', 'c.word': 'Webhook', 'd.sentence': 'The SMTP server refused it' };
    const good = { 'a.greeting': 'こんにちは {name}', 'b.brand': 'Pass Cloud を開く', 'c.word': 'Webhook', 'd.sentence': 'SMTP サーバーが拒否しました' };
    const allow = { ja_JP: ['c.word'], de_DE: ['c.word'] };
    expect(catalogueProblems(english, { ja_JP: good }, allow)).toEqual([]);
    expect(
      catalogueProblems(
        english,
        {
          ja_JP: { 'a.greeting': 'こんにちは {user}', 'b.brand': 'Open Pass Cloud', 'c.word': 'ウェブフック', 'd.sentence': 'SMTP サーバーが rejected しました', 'e.extra': 'x' },
          de_DE: { 'a.greeting': ' ', 'b.brand': 'Pass Cloud öffnen', 'c.word': 'Webhook' },
        },
        allow,
      ),
    ).toEqual([
      'ja_JP e.extra: not an English message',
      'ja_JP a.greeting: placeholders {user} where English has {name}',
      'ja_JP b.brand: still English',
      'ja_JP c.word: listed as the same as English, but is not',
      'ja_JP d.sentence: English words left: rejected',
      'de_DE a.greeting: empty',
      'de_DE d.sentence: missing',
    ]);
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
