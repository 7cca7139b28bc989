import { DEFAULT_LOCALE, LOCALES, isLocale, type Locale } from '#contract/locales';
import { en_US, type Catalog, type MessageId } from './i18n/en_US.ts';
import { zh_CN } from './i18n/zh_CN.ts';
import { zh_TW } from './i18n/zh_TW.ts';
import { ja_JP } from './i18n/ja_JP.ts';
import { ko_KR } from './i18n/ko_KR.ts';
import { it_IT } from './i18n/it_IT.ts';
import { de_DE } from './i18n/de_DE.ts';
import { ru_RU } from './i18n/ru_RU.ts';
import { fr_FR } from './i18n/fr_FR.ts';
import { es_ES } from './i18n/es_ES.ts';
import { id_ID } from './i18n/id_ID.ts';

export type { MessageId };
export type MessageParams = Record<string, string | number>;

export const catalogs: Record<Locale, Catalog> = { en_US, zh_CN, zh_TW, ja_JP, ko_KR, it_IT, de_DE, ru_RU, fr_FR, es_ES, id_ID };

export function translate(locale: Locale, id: MessageId, params: MessageParams = {}): string {
  const text = catalogs[locale][id] ?? en_US[id];
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
