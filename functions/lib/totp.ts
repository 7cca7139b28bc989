import { randomInt } from 'node:crypto';
import { RECOVERY_ALPHABET, RECOVERY_CODE_COUNT, TOTP_DIGITS, TOTP_ISSUER, TOTP_PERIOD_SECONDS, TOTP_WINDOW } from '#contract/twoFactor';
import { clockNow } from './clock.ts';
import { sha256 } from './crypto.ts';

/**
 * RFC 6238 codes through the `otpauth` library, loaded on first use (only logins of accounts with
 * two-factor login and its own screens need it, so it stays out of the functions' start).
 */
const library = () => import('otpauth');
type OtpAuth = Awaited<ReturnType<typeof library>>;

function totpOf(lib: OtpAuth, secretBase32: string, account = '') {
  return new lib.TOTP({
    issuer: TOTP_ISSUER,
    label: account,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: lib.Secret.fromBase32(secretBase32),
  });
}

/** A new secret of 160 random bits (RFC 4226's recommended length), in base32, and its `otpauth://` URI. */
export async function newTotpSecret(account: string): Promise<{ secret: string; uri: string }> {
  const lib = await library();
  const secret = new lib.Secret({ size: 20 }).base32;
  return { secret, uri: totpOf(lib, secret, account).toString() };
}

/** The time step a moment falls in. */
export const stepAt = (now: number): number => Math.floor(now / 1000 / TOTP_PERIOD_SECONDS);

/**
 * The step whose code `code` is, within the window around `now`; undefined when it is none of
 * them. The caller still makes sure the step is later than the last one accepted (no replay).
 */
export async function matchingStep(secretBase32: string, code: string, now = clockNow()): Promise<number | undefined> {
  const lib = await library();
  const delta = totpOf(lib, secretBase32).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  return delta === null ? undefined : stepAt(now) + delta;
}

/** The code of a moment (tests and the local tools compute what an app would show). */
export async function totpCode(secretBase32: string, now = clockNow()): Promise<string> {
  const lib = await library();
  return totpOf(lib, secretBase32).generate({ timestamp: now });
}

/** Recovery codes: `abcde-fghjk`, about 49 bits each from a cryptographic source. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const group = () => Array.from({ length: 5 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return Array.from({ length: count }, () => `${group()}-${group()}`);
}

/** What is stored of a recovery code: a hash bound to its account, of the code without its dash. */
export const recoveryCodeHash = (accountId: string, code: string): string => sha256(`recovery:${accountId}:${code.replace(/[\s-]/g, '').toLowerCase()}`);
