/** Mailed verification codes: 6 digits, valid 10 minutes, 5 tries, one mail a minute per subject. */
export const CODE_TTL_MINUTES = 10;
export const CODE_MAX_ATTEMPTS = 5;
export const CODE_RESEND_SECONDS = 60;

export interface StoredCode {
  createdAt: number;
  expiresAt: number;
  attempts: number;
}

export function secondsUntilResend(code: StoredCode | undefined, now: number): number {
  if (!code) return 0;
  return Math.max(0, Math.ceil((code.createdAt + CODE_RESEND_SECONDS * 1000 - now) / 1000));
}
