import COMMON from './commonPasswords.json' with { type: 'json' };

/**
 * Password rules (NIST SP 800-63B, OWASP ASVS V6): at least 8 characters, up to 64 accepted whole
 * (never truncated), none of the 3,000 most common passwords, and no composition rules.
 */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 64;

/** The most common passwords of an allowed length, lower case (generated: `npm run common-passwords`). */
const common = new Set<string>(COMMON);

export type PasswordProblem =
  | { id: 'password.tooShort'; params: { min: number } }
  | { id: 'password.tooLong'; params: { max: number } }
  | { id: 'password.tooCommon'; params: Record<string, never> };

export function passwordProblem(password: string): PasswordProblem | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return { id: 'password.tooShort', params: { min: PASSWORD_MIN } };
  if (length > PASSWORD_MAX) return { id: 'password.tooLong', params: { max: PASSWORD_MAX } };
  if (common.has(password.toLowerCase())) return { id: 'password.tooCommon', params: {} };
  return undefined;
}
