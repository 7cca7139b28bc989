/** Password rules: at least 8 characters, and up to 64 accepted whole (never truncated). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 64;

export type PasswordProblem = { id: 'password.tooShort'; params: { min: number } } | { id: 'password.tooLong'; params: { max: number } };

export function passwordProblem(password: string): PasswordProblem | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return { id: 'password.tooShort', params: { min: PASSWORD_MIN } };
  if (length > PASSWORD_MAX) return { id: 'password.tooLong', params: { max: PASSWORD_MAX } };
  return undefined;
}
