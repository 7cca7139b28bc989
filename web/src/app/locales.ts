import { DEFAULT_LOCALE, LOCALES, isLocale, type Locale } from '@passcloud/functions/contract/locales';

export { LOCALES, type Locale };

/** Each language in its own name, for the language menu. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en_US: 'English',
  zh_CN: '简体中文',
  zh_TW: '繁體中文',
  ja_JP: '日本語',
  ko_KR: '한국어',
  it_IT: 'Italiano',
  de_DE: 'Deutsch',
  ru_RU: 'Русский',
  fr_FR: 'Français',
  es_ES: 'Español',
  id_ID: 'Bahasa Indonesia',
};

/** BCP 47 tag for Intl, Lingui catalogs and the html lang attribute. */
export const bcp47 = (locale: Locale): string => locale.replace('_', '-');

/** dayjs locale names. */
export const DAYJS_LOCALES: Record<Locale, string> = {
  en_US: 'en',
  zh_CN: 'zh-cn',
  zh_TW: 'zh-tw',
  ja_JP: 'ja',
  ko_KR: 'ko',
  it_IT: 'it',
  de_DE: 'de',
  ru_RU: 'ru',
  fr_FR: 'fr',
  es_ES: 'es',
  id_ID: 'id',
};

const STORAGE_KEY = 'locale';

/**
 * The console's language among the browser's preferred ones (`navigator.languages`, first
 * preference first): the same language and region, else the same language (Chinese written in
 * traditional characters, or of Taiwan, Hong Kong or Macau, is zh_TW; other Chinese zh_CN).
 */
export function localeOfLanguages(tags: readonly string[]): Locale | undefined {
  for (const tag of tags) {
    const [language = '', ...rest] = tag.toLowerCase().split(/[-_]/);
    if (language === 'zh') return rest.some((part) => ['hant', 'tw', 'hk', 'mo'].includes(part)) ? 'zh_TW' : 'zh_CN';
    const exact = LOCALES.find((locale) => locale.toLowerCase() === `${language}_${rest[0] ?? ''}`);
    const same = exact ?? LOCALES.find((locale) => locale.split('_')[0] === language);
    if (same) return same;
  }
  return undefined;
}

/** The language chosen in the language menu; before any choice, the browser's, else English. */
export function storedLocale(): Locale {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (isLocale(saved)) return saved;
  const languages = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  return localeOfLanguages(languages.filter(Boolean)) ?? DEFAULT_LOCALE;
}

/** Keeps the choice and reloads the page, as the specification asks. */
export function chooseLocale(locale: Locale): void {
  localStorage.setItem(STORAGE_KEY, locale);
  window.location.reload();
}
