import { dictionary } from '@zxcvbn-ts/language-common';
import { PASSWORD_MAX, PASSWORD_MIN } from '@passcloud/functions/domain/passwords';

/** How many of the most common passwords are refused. */
export const COMMON_PASSWORDS_RANKED = 3000;

/**
 * The 3,000 most common passwords of zxcvbn-ts's ranked list (from leaked password sets), of which
 * only those of an allowed length are kept: the shorter ones are refused by length already.
 */
export function commonPasswords(): string[] {
  const ranked = dictionary['passwords-common'] as string[];
  const allowed = (p: string) => [...p].length >= PASSWORD_MIN && [...p].length <= PASSWORD_MAX;
  return [...new Set(ranked.slice(0, COMMON_PASSWORDS_RANKED).map((p) => p.toLowerCase()))].filter(allowed);
}

export const commonPasswordsJson = (): string => `${JSON.stringify(commonPasswords(), null, 0)}\n`;
