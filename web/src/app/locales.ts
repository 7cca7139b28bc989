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

export function storedLocale(): Locale {
  const saved = localStorage.getItem(STORAGE_KEY);
  return isLocale(saved) ? saved : DEFAULT_LOCALE;
}

/** Keeps the choice and reloads the page, as the specification asks. */
export function chooseLocale(locale: Locale): void {
  localStorage.setItem(STORAGE_KEY, locale);
  window.location.reload();
}
