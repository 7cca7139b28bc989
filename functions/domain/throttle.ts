/**
 * Attempts are counted per subject (an account name, an address, a mailbox, a company) over a fixed window.
 * An attempt is counted before it is evaluated, by one conditional write that refuses past the
 * limit, so parallel attempts cannot all slip under it.
 */
import { env, type EnvName } from '../lib/env.ts';

export const THROTTLE_SCOPES = ['account', 'secondFactor', 'address', 'keys', 'codeMails', 'codesPerDay', 'testMails', 'invitations', 'alertMails', 'surveyLinks', 'webhookTests', 'webhookReplays', 'apiKey'] as const;
export type ThrottleScope = (typeof THROTTLE_SCOPES)[number];

export const THROTTLES: Record<ThrottleScope, { limit: number; windowMs: number }> = {
  /** Failed logins and wrong original passwords per account name, whether or not it exists. */
  account: { limit: 5, windowMs: 15 * 60_000 },
  /**
   * Wrong second-factor codes per account name. A right password gives none of them back (only a
   * right code does), and while they are used up the password step answers 429 too.
   */
  secondFactor: { limit: 5, windowMs: 15 * 60_000 },
  /** Failed logins, wrong verification codes and unknown binding codes per client address. */
  address: { limit: 30, windowMs: 15 * 60_000 },
  /** Login keys (RSA key pairs) handed out per client address. */
  keys: { limit: 60, windowMs: 15 * 60_000 },
  /** Verification codes mailed per client address. */
  codeMails: { limit: 10, windowMs: 15 * 60_000 },
  /** Verification codes made per purpose and mailbox or username in a day. */
  codesPerDay: { limit: 10, windowMs: 24 * 60 * 60_000 },
  /** Test mails per company in an hour (counted under the company's own partition). */
  testMails: { limit: 10, windowMs: 60 * 60_000 },
  /** Invitation links mailed per company in an hour (new accounts and password resets). */
  invitations: { limit: 50, windowMs: 60 * 60_000 },
  /** Fever and blacklist alert mails per company in an hour; those past it are not sent. */
  alertMails: { limit: 200, windowMs: 60 * 60_000 },
  /** Unknown or forged survey links (the public QR-code page) per client address; a link that works is given back. */
  surveyLinks: { limit: 30, windowMs: 15 * 60_000 },
  /** Webhook test events per company in an hour (each is a request to the company's receiver). */
  webhookTests: { limit: 60, windowMs: 60 * 60_000 },
  /** Webhook deliveries replayed per company in an hour, one by one or by range (each is a request to the company's receiver). */
  webhookReplays: { limit: 1000, windowMs: 60 * 60_000 },
  /** Requests per API key in a minute, counted on the key's own item (data/apiKeys.ts); docs/api.md states it. */
  apiKey: { limit: 600, windowMs: 60_000 },
};

export const THROTTLE_WINDOW_MS = THROTTLES.account.windowMs;

/** The limit of a scope; `THROTTLE_<SCOPE>_LIMIT` overrides it (the local host's tests and benchmarks log in from one address). */
export function throttleLimit(scope: ThrottleScope, overrides?: Record<string, string | undefined>): number {
  const name = `THROTTLE_${scope.toUpperCase()}_LIMIT` as EnvName;
  const configured = Number(overrides ? overrides[name] : env(name));
  return Number.isInteger(configured) && configured > 0 ? configured : THROTTLES[scope].limit;
}

export interface ThrottleCounter {
  failures: number;
  windowEndsAt: number;
}

/** Minutes left before another try is allowed, or 0 when the caller may try now. */
export function blockedMinutes(limit: number, counter: ThrottleCounter | undefined, now: number): number {
  if (!counter || now >= counter.windowEndsAt || counter.failures < limit) return 0;
  return Math.max(1, Math.ceil((counter.windowEndsAt - now) / 60_000));
}
