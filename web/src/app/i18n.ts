import { i18n } from '@lingui/core';
import dayjs from 'dayjs';
import localizedFormat from 'dayjs/plugin/localizedFormat';
import { bcp47, DAYJS_LOCALES, type Locale } from './locales.ts';

import { messages as english } from '../locales/en-US/messages.po';

// English ships with the first bundle (one request less for most first visits); the others load on demand.
dayjs.extend(localizedFormat);

const catalogs = import.meta.glob<{ messages: Record<string, string> }>(['../locales/*/messages.po', '!../locales/en-US/messages.po']);
const dayjsLocales: Record<string, () => Promise<unknown>> = {
  'zh-cn': () => import('dayjs/locale/zh-cn'),
  'zh-tw': () => import('dayjs/locale/zh-tw'),
  ja: () => import('dayjs/locale/ja'),
  ko: () => import('dayjs/locale/ko'),
  it: () => import('dayjs/locale/it'),
  de: () => import('dayjs/locale/de'),
  ru: () => import('dayjs/locale/ru'),
  fr: () => import('dayjs/locale/fr'),
  es: () => import('dayjs/locale/es'),
  id: () => import('dayjs/locale/id'),
};

/** Loads and activates the catalog and date locale of `locale` before the first render. */
export async function activateLocale(locale: Locale): Promise<void> {
  const tag = bcp47(locale);
  const load = tag === 'en-US' ? async () => ({ messages: english }) : catalogs[`../locales/${tag}/messages.po`];
  if (!load) throw new Error(`no catalog for ${tag}`);
  const [{ messages }] = await Promise.all([load(), loadDayjs(locale)]);
  i18n.loadAndActivate({ locale: tag, messages });
  dayjs.locale(DAYJS_LOCALES[locale]);
  document.documentElement.lang = tag;
}

async function loadDayjs(locale: Locale): Promise<void> {
  await dayjsLocales[DAYJS_LOCALES[locale]]?.();
}

export { i18n };
