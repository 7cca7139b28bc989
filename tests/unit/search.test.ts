import { describe, expect, it } from 'vitest';
import { normalizeKeyword, searchTerms, termText } from '@passcloud/functions/domain/people';

/** What `contains(terms, "\u0001" + keyword)` answers, as DynamoDB evaluates it. */
const matches = (person: Parameters<typeof searchTerms>[0], keyword: string) => termText(searchTerms(person)).includes(termText([normalizeKeyword(keyword)]));

describe('search terms', () => {
  it('start at each word of a name and at each character of an unspaced script', () => {
    expect(searchTerms({ name: 'Mary-Jane  O’Neil Watson', personId: 'E1' })).toEqual(['mary-jane o’neil watson', 'jane o’neil watson', 'o’neil watson', 'watson', 'e1']);
    expect(searchTerms({ name: '山田 花子', personId: 'J7' })).toEqual(['山田 花子', '田 花子', '花子', '子', 'j7']);
    expect(searchTerms({ name: '김민준', personId: 'K1' })).toEqual(['김민준', '민준', '준', 'k1']);
  });

  it('hold a phone from each group, as digits and by its last four, and the IC card and personnel ID whole', () => {
    expect(searchTerms({ name: 'A', personId: 'P-01', phone: '+86 138-0013-8000', icCard: 'AB12' })).toEqual([
      'a',
      'p-01',
      'ab12',
      '+86 138-0013-8000',
      '138-0013-8000',
      '0013-8000',
      '8000',
      '8613800138000',
    ]);
  });

  it('compare full-width, upper-case and spaced keywords as typed plainly', () => {
    const person = { name: 'Ada  Lovelace', personId: 'ＥＭＰ９' };
    for (const keyword of ['ADA LOVE', ' lovelace ', 'emp9', 'ＥＭＰ']) expect(matches(person, keyword), keyword).toBe(true);
    for (const keyword of ['velace', 'adalove', 'mp9']) expect(matches(person, keyword), keyword).toBe(false);
  });

  it('keep a name to twelve terms of at most 64 characters', () => {
    const terms = searchTerms({ name: Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ') + 'x'.repeat(80), personId: 'Z' });
    expect(terms.length).toBe(13);
    expect(Math.max(...terms.map((t) => t.length))).toBe(64);
  });

  it('never carry the separator that termText puts between terms', () => {
    expect(searchTerms({ name: 'Bad\u0001Name', personId: 'Q\u00011' }).join('')).not.toContain('\u0001');
  });
});
