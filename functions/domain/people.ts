/** Rules about people that need no I/O. */

export type UniqueField = 'personId' | 'icCard';

/** Unique values compare without case and surrounding space: `e01` and `E01 ` are one personnel ID. */
export const uniqueValue = (value: string): string => value.trim().toUpperCase();

/** How a keyword is compared: Unicode-normalized, lower-case, single spaces, no control characters. */
export const normalizeKeyword = (keyword: string): string =>
  keyword
    .normalize('NFKC')
    .replace(/\p{Cc}/gu, '')
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ');

/** Scripts written without spaces between words: a name in them is found from any of its characters. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const SEPARATOR = /[\s\-_.,·・'()]/u;
/** Longest term kept; keywords are at most this long too. */
export const TERM_MAX = 64;
const NAME_TERMS_MAX = 12;

/** Every tail of `text` that starts a word (or, in unspaced scripts, a character). */
function tails(text: string, limit: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  chars.forEach((ch, i) => {
    if (out.length >= limit || SEPARATOR.test(ch)) return;
    if (i === 0 || SEPARATOR.test(chars[i - 1]!) || UNSPACED.test(ch)) out.push(chars.slice(i).join('').slice(0, TERM_MAX));
  });
  return out;
}

/**
 * The terms keyword search finds a person by; a keyword matches when some term starts with it.
 * The name is found from the start of each of its words (and from each character in Chinese,
 * Japanese or Korean), so "smith", "john sm" and "三" find "John Smith" and "张三". Personnel ID,
 * phone and IC card are found from their start; a phone also from each of its groups, as digits
 * only, and by its last four digits.
 */
export function searchTerms(person: { name: string; personId: string; phone?: string | null | undefined; icCard?: string | null | undefined }): string[] {
  const terms = new Set<string>(tails(normalizeKeyword(person.name), NAME_TERMS_MAX));
  terms.add(normalizeKeyword(person.personId).slice(0, TERM_MAX));
  if (person.icCard) terms.add(normalizeKeyword(person.icCard).slice(0, TERM_MAX));
  if (person.phone) {
    const phone = normalizeKeyword(person.phone);
    for (const tail of tails(phone, 6)) terms.add(tail);
    const digits = phone.replace(/\D/g, '');
    if (digits) terms.add(digits);
    if (digits.length > 4) terms.add(digits.slice(-4));
  }
  terms.delete('');
  return [...terms];
}

/** The terms in one string, each behind a \u0001, so `contains(text, "\u0001" + keyword)` is "some term starts with keyword". */
export const termText = (terms: string[]): string => terms.map((t) => `\u0001${t}`).join('');

/** What of an employee says whether attendance counts them: the group they are in and the switch. */
export interface AttendanceChoice {
  attendanceGroupKey?: string | null | undefined;
  needsAttendance?: boolean | null | undefined;
}

/**
 * An employee in an attendance group needs attendance: a group's days count only those who do, and
 * the group's staff are named from them. A change that names either field (or a new employee) must
 * leave the two agreeing; a change of other fields leaves an older disagreement as it is. True when
 * `changes` on `before` (none for a new employee) would leave someone in a group not needing attendance.
 */
export function groupWithoutAttendance(before: AttendanceChoice | undefined, changes: AttendanceChoice): boolean {
  if (before && changes.attendanceGroupKey === undefined && changes.needsAttendance === undefined) return false;
  const group = changes.attendanceGroupKey !== undefined ? changes.attendanceGroupKey : before?.attendanceGroupKey;
  const needs = changes.needsAttendance !== undefined ? changes.needsAttendance : before?.needsAttendance;
  return !!group && !needs;
}
