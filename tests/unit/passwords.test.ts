import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PASSWORD_MAX, passwordProblem } from '@passcloud/functions/domain/passwords';
import { hashPassword, passwordHashCost, PRODUCTION_HASH_COST, verifyPassword } from '@passcloud/functions/lib/crypto';
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

describe('password hashing cost', () => {
  const withCost = async <T>(value: string | undefined, run: () => Promise<T>): Promise<T> => {
    const before = process.env.PASSWORD_HASH_COST;
    if (value === undefined) delete process.env.PASSWORD_HASH_COST;
    else process.env.PASSWORD_HASH_COST = value;
    try {
      return await run();
    } finally {
      if (before === undefined) delete process.env.PASSWORD_HASH_COST;
      else process.env.PASSWORD_HASH_COST = before;
    }
  };

  it('hashes at scrypt N=2^17, r=8, p=1 unless the local setting lowers it, as every deployed function does', async () => {
    expect(PRODUCTION_HASH_COST).toBe(17);
    const hash = await withCost(undefined, () => hashPassword('purple elephants dance'));
    expect(hash).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword('purple elephants dance', hash)).toBe(true);
    expect(await verifyPassword('purple elephants dance!', hash)).toBe(false);
  });

  it('takes a lower cost from PASSWORD_HASH_COST, never a higher or a malformed one, and verifies hashes of either cost', async () => {
    expect(await withCost('10', () => Promise.resolve(passwordHashCost()))).toBe(10);
    for (const value of ['18', '30', '0', '-3', '9.5', 'cheap', '']) expect(await withCost(value, () => Promise.resolve(passwordHashCost())), value).toBe(17);
    const cheap = await withCost('10', () => hashPassword('長い合言葉は安全です'));
    expect(cheap.startsWith('scrypt$10$8$1$')).toBe(true);
    expect(await withCost(undefined, () => verifyPassword('長い合言葉は安全です', cheap))).toBe(true);
  });
});
