import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PASSWORD_MAX, passwordProblem } from '@passcloud/functions/domain/passwords';
import { COMMON_PASSWORDS_RANKED, commonPasswords, commonPasswordsJson } from '../support/commonPasswords.ts';
import { dictionary } from '@zxcvbn-ts/language-common';

const committed = resolve(import.meta.dirname, '../../functions/domain/commonPasswords.json');

describe('password rules', () => {
  it('holds the list the generator makes from zxcvbn-ts (npm run common-passwords writes it)', () => {
    expect(readFileSync(committed, 'utf8')).toBe(commonPasswordsJson());
  });

  it('refuses every one of the 3,000 most common passwords, whatever its case', () => {
    const ranked = (dictionary['passwords-common'] as string[]).slice(0, COMMON_PASSWORDS_RANKED);
    expect(ranked).toHaveLength(3000);
    for (const password of ranked) expect(passwordProblem(password), password).toBeDefined();
    for (const password of commonPasswords()) expect(passwordProblem(password.toUpperCase())?.id).toBe('password.tooCommon');
  });

  it('has no composition rules, and takes 64 characters of any script whole', () => {
    expect(passwordProblem('purple elephants dance quietly')).toBeUndefined();
    expect(passwordProblem('長い合言葉は安全です')).toBeUndefined();
    expect(passwordProblem('密'.repeat(PASSWORD_MAX))).toBeUndefined();
    expect(passwordProblem('密'.repeat(PASSWORD_MAX + 1))?.id).toBe('password.tooLong');
    expect(passwordProblem('short')?.id).toBe('password.tooShort');
  });
});
