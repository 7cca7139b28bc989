import { readFileSync } from 'node:fs';
import { DEFAULT_LOCALE, LOCALES, isLocale, type Locale } from '#contract/locales';
import { en_US, type Catalog, type MessageId } from './i18n/en_US.ts';

export type { Catalog, MessageId };
export type MessageParams = Record<string, string | number>;

/**
 * Server messages. English is part of the code (the fallback, and the source of `MessageId`);
 * every other locale is a JSON file beside it (`i18n/<locale>.json`, copied beside each bundle
 * that needs them), read the first time a request asks for that locale and kept. A function
 * thus loads only the languages its callers speak, not all eleven at start.
 */
const loaded = new Map<Locale, Catalog>([['en_US', en_US]]);

/** The messages of one locale, read from its file on first use. */
export function catalog(locale: Locale): Catalog {
  let messages = loaded.get(locale);
  if (!messages) {
    // Only a known locale names a file.
    if (!isLocale(locale)) return en_US;
    messages = JSON.parse(readFileSync(new URL(`./i18n/${locale}.json`, import.meta.url), 'utf8')) as Catalog;
    loaded.set(locale, messages);
  }
  return messages;
}

/**
 * Every locale's messages, each read when first looked up (`catalogs.ja_JP`); for what matches
 * text in any language, such as the column names of an imported sheet.
 */
export const catalogs: Readonly<Record<Locale, Catalog>> = Object.freeze(
  Object.defineProperties(
    {} as Record<Locale, Catalog>,
    Object.fromEntries(LOCALES.map((locale) => [locale, { enumerable: true, get: () => catalog(locale) }])),
  ),
);

export function translate(locale: Locale, id: MessageId, params: MessageParams = {}): string {
  const text = catalog(locale)[id] ?? en_US[id];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/**
 * The caller's language: the console sends its locale code (`ja_JP`) in `Accept-Language`;
 * a browser-style list (`ja,en;q=0.8`) is matched by language and region.
 */
export function localeFromHeader(header: string | undefined): Locale {
  if (!header) return DEFAULT_LOCALE;
  const direct = header.trim().replace('-', '_');
  if (isLocale(direct)) return direct;
  const wanted = header
    .split(',')
    .map((part) => part.split(';')[0]!.trim().replace('_', '-').toLowerCase())
    .filter(Boolean);
  for (const tag of wanted) {
    const [lang, region] = tag.split('-');
    if (lang === 'zh') {
      if (region && ['tw', 'hk', 'mo', 'hant'].includes(region)) return 'zh_TW';
      return 'zh_CN';
    }
    const exact = LOCALES.find((l) => l.toLowerCase() === `${lang}_${region ?? ''}`);
    if (exact) return exact;
    const byLang = LOCALES.find((l) => l.startsWith(`${lang}_`));
    if (byLang) return byLang;
  }
  return DEFAULT_LOCALE;
}

export const isMessageId = (value: string): value is MessageId => Object.hasOwn(en_US, value);
