import { i18n, type Messages } from '@lingui/core';
import dayjs from 'dayjs';
import localizedFormat from 'dayjs/plugin/localizedFormat';
import { bcp47, DAYJS_LOCALES, type Locale } from './locales.ts';

import { messages as englishPublic } from '../locales/en-US/public.po';

// Each locale has two catalogs (lingui.config.ts): public.po, the messages of the screens opened
// without logging in and of the shell, and messages.po, the console's, which loads with the
// console. English public messages ship with the first bundle (one request less for most first
// visits); the rest loads on demand.
dayjs.extend(localizedFormat);

type Catalog = { messages: Messages };
type Catalogs = Record<string, () => Promise<Catalog>>;
const publicCatalogs = import.meta.glob<Catalog>(['../locales/*/public.po', '!../locales/en-US/public.po']);
const consoleCatalogs = import.meta.glob<Catalog>('../locales/*/messages.po');
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

let consoleMessages: Promise<void> | undefined;

async function load(catalogs: Catalogs, path: string): Promise<Messages> {
  const catalog = catalogs[path];
  if (!catalog) throw new Error(`no catalog ${path}`);
  return (await catalog()).messages;
}

const publicMessagesOf = (tag: string) => (tag === 'en-US' ? Promise.resolve(englishPublic) : load(publicCatalogs, `../locales/${tag}/public.po`));
const consoleMessagesOf = (tag: string) => load(consoleCatalogs, `../locales/${tag}/messages.po`);

/**
 * Loads and activates the catalog and date locale of `locale` before the first render: the public
 * catalog, and the console's too when the page opened is the console's.
 */
export async function activateLocale(locale: Locale, { withConsole }: { withConsole: boolean }): Promise<void> {
  const tag = bcp47(locale);
  const [messages, more] = await Promise.all([publicMessagesOf(tag), withConsole ? consoleMessagesOf(tag) : {}, loadDayjs(locale)]);
  i18n.loadAndActivate({ locale: tag, messages: { ...messages, ...more } });
  if (withConsole) consoleMessages = Promise.resolve();
  dayjs.locale(DAYJS_LOCALES[locale]);
  document.documentElement.lang = tag;
}

/** Adds the console's messages to the active locale's (once); the console's routes wait for them. */
export function loadConsoleMessages(): Promise<void> {
  consoleMessages ??= consoleMessagesOf(i18n.locale).then(
    (messages) => i18n.load(i18n.locale, messages),
    (error: unknown) => {
      consoleMessages = undefined;
      throw error;
    },
  );
  return consoleMessages;
}

// The build checks that public screens use public messages only; should one slip through, the
// console's catalog loads and the screen renders again with it.
i18n.on('missing', () => void loadConsoleMessages().catch(() => undefined));

async function loadDayjs(locale: Locale): Promise<void> {
  await dayjsLocales[DAYJS_LOCALES[locale]]?.();
}

export { i18n };
