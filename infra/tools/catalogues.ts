import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCALES } from '@passcloud/functions/contract/locales';
import { en_US } from '@passcloud/functions/lib/i18n/en_US';

/**
 * The strict check of the server's message catalogues, as `lingui compile --strict` is for the
 * console's: every locale has every English message and no other, none empty, each with the same
 * placeholders as English, and none left in English. The build runs it (`npm run catalogues`), and
 * fails on any problem.
 *
 * Left in English means: a message identical to English, unless it is a word the language shares
 * with English (SAME_AS_ENGLISH, by locale and message); or, in a language not written in Latin
 * letters, a Latin word the English message does not have (brand and technical words such as
 * "Pass Cloud", "SMTP" or "API" come from the English message; LATIN_WORDS lists the others).
 */

/** Messages that are the same in the language as in English (the console's names for them agree). */
export const SAME_AS_ENGLISH: Record<string, string[]> = {
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
export const PUNCTUATION = ['issue.separator', 'issue.labelled'];
/** Languages not written in Latin letters: a Latin word in their messages is English left, unless English has it too. */
export const NON_LATIN = ['ja_JP', 'zh_CN', 'zh_TW', 'ko_KR', 'ru_RU'];
/** Latin words those languages write though the English message says them otherwise ("QR code" for "the code"). */
export const LATIN_WORDS = ['QR', 'IoT'];

const CATALOGUES = fileURLToPath(new URL('../../functions/lib/i18n/', import.meta.url));

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
const latinWords = (text: string): string[] => text.replace(/\{\w+\}/g, '').match(/[A-Za-z][A-Za-z0-9]*(?:-\d+)?/g) ?? [];

/** What is wrong with the catalogues of `locales` against `english`, one line each; none when all is well. */
export function catalogueProblems(
  english: Record<string, string>,
  locales: Record<string, Record<string, unknown>>,
  sameAsEnglish: Record<string, string[]> = SAME_AS_ENGLISH,
): string[] {
  const problems: string[] = [];
  for (const [locale, messages] of Object.entries(locales)) {
    const allowed = new Set([...(sameAsEnglish[locale] ?? []), ...PUNCTUATION]);
    for (const id of Object.keys(messages)) if (!(id in english)) problems.push(`${locale} ${id}: not an English message`);
    for (const [id, englishText] of Object.entries(english)) {
      const text = messages[id];
      if (text === undefined) problems.push(`${locale} ${id}: missing`);
      else if (typeof text !== 'string' || !text.trim()) problems.push(`${locale} ${id}: empty`);
      else {
        if (placeholders(text).join() !== placeholders(englishText).join())
          problems.push(`${locale} ${id}: placeholders {${placeholders(text).join('}, {')}} where English has {${placeholders(englishText).join('}, {')}}`);
        if (text === englishText && !allowed.has(id)) problems.push(`${locale} ${id}: still English`);
        if (text !== englishText && sameAsEnglish[locale]?.includes(id)) problems.push(`${locale} ${id}: listed as the same as English, but is not`);
        if (NON_LATIN.includes(locale)) {
          const known = englishText.toLowerCase();
          const left = latinWords(text).filter((w) => !known.includes(w.toLowerCase()) && !LATIN_WORDS.includes(w));
          if (left.length) problems.push(`${locale} ${id}: English words left: ${left.join(' ')}`);
        }
      }
    }
  }
  return problems;
}

/** Every locale's catalogue file but English's, as it is on disk. */
export function storedCatalogues(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    LOCALES.filter((l) => l !== 'en_US').map((l) => [l, JSON.parse(readFileSync(resolve(CATALOGUES, `${l}.json`), 'utf8')) as Record<string, unknown>]),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = catalogueProblems(en_US, storedCatalogues());
  for (const problem of problems) console.error(problem);
  if (problems.length) {
    console.error(`${problems.length} problem${problems.length > 1 ? 's' : ''} in the server's message catalogues (functions/lib/i18n)`);
    process.exit(1);
  }
  console.log('server message catalogues: complete');
}
