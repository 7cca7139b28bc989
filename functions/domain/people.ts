/** Rules about people that need no I/O. */

export type UniqueField = 'personId' | 'icCard';

/** Unique values compare without case and surrounding space: `e01` and `E01 ` are one personnel ID. */
export const uniqueValue = (value: string): string => value.trim().toUpperCase();

/** The lower-case text a keyword search looks in: name, personnel ID, phone and IC card. */
export function searchText(person: { name: string; personId: string; phone?: string | null; icCard?: string | null }): string {
  return [person.name, person.personId, person.phone ?? '', person.icCard ?? ''].join('\u0001').toLowerCase();
}

export const normalizeKeyword = (keyword: string): string => keyword.trim().toLowerCase();
