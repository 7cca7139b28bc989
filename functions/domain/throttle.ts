/**
 * Failed logins are counted per account name and per address over a fixed window; past the
 * limit, login answers 429 until the window ends, whether or not the account exists.
 */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const THROTTLE_LIMITS = { account: 5, address: 30 } as const;
export type ThrottleScope = keyof typeof THROTTLE_LIMITS;

export interface ThrottleCounter {
  failures: number;
  windowEndsAt: number;
}

/** Minutes left before another try is allowed, or 0 when the caller may try now. */
export function blockedMinutes(limit: number, counter: ThrottleCounter | undefined, now: number): number {
  if (!counter || now >= counter.windowEndsAt || counter.failures < limit) return 0;
  return Math.max(1, Math.ceil((counter.windowEndsAt - now) / 60_000));
}
