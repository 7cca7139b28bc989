import * as z from 'zod';
import { sealed } from './sealed.ts';

/**
 * Two-factor login with a time-based one-time password (RFC 6238: HMAC-SHA-1, 6 digits, a new
 * code every 30 seconds, the codes of the step before and after accepted too), and single-use
 * recovery codes for a lost authenticator. docs/architecture.md ("Two-factor login") tells the flow.
 */

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one (clock drift, a code typed as it changed). */
export const TOTP_WINDOW = 1;
/** How long the second step of a login may follow the first. */
export const CHALLENGE_MINUTES = 5;
/** Wrong codes one login challenge takes before it ends (the account's throttle counts them too). */
export const CHALLENGE_MAX_ATTEMPTS = 5;
/** How long a secret handed out for enrolment waits for its confirmation. */
export const ENROLMENT_MINUTES = 15;
/** Recovery codes made at enrolment (and each time they are made again). */
export const RECOVERY_CODE_COUNT = 10;
/** The issuer an authenticator app shows beside the account. */
export const TOTP_ISSUER = 'Pass Cloud';

/** A recovery code as shown: two groups of five of these characters (no 0/o, 1/l/i), `abcde-fghjk`. */
export const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE = /^[a-z2-9]{5}-?[a-z2-9]{5}$/;

/** A code as typed: six digits from the app, or a recovery code (spaces, dashes and case do not matter). */
export const secondFactorCode = z
  .string()
  .max(32)
  .transform((text) => text.replace(/\s+/g, '').toLowerCase())
  .refine((text) => /^\d{6}$/.test(text) || RECOVERY_CODE.test(text), { message: 'twoFactor.codeFormat' });

/** Whether a (normalized) code is one of the authenticator's. */
export const isTotpCode = (code: string): boolean => /^\d{6}$/.test(code);

/** `POST /v1/systems/login/twoFactor`: the challenge the first step answered, and a code. */
export const twoFactorLoginBody = z.object({ challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, { message: 'auth.challengeEnded' }), code: secondFactorCode });

/**
 * Turning two-factor login on, off, or making new recovery codes: the account's password (RSA-OAEP
 * with the session key, as the password change sends it) and a current code.
 */
export const twoFactorConfirmBody = z.object({ password: sealed('session', 'The account’s password'), code: secondFactorCode }).strict();

/** `GET /v1/systems/twoFactor`: the caller's own state. */
export const twoFactorState = z.object({
  enabled: z.boolean(),
  enabledAt: z.iso.datetime().nullable().meta({ description: 'When it was turned on, or null' }),
  recoveryCodesLeft: z.number().int().min(0).meta({ description: 'Recovery codes not yet used' }),
  required: z.boolean().meta({ description: 'The company requires two-factor login of every account: it cannot be turned off' }),
});
export type TwoFactorState = z.output<typeof twoFactorState>;

/** `POST /v1/systems/twoFactor/enrolment`: a new secret, answered this once. */
export const twoFactorEnrolment = z.object({
  uri: z.string().meta({ description: '`otpauth://totp/...`, for the QR code' }),
  secret: z.string().meta({ description: 'The same secret in base32, for typing into an app by hand' }),
  issuer: z.string(),
  account: z.string(),
  expiresAt: z.iso.datetime().meta({ description: 'After it, the secret must be asked for again' }),
});
export type TwoFactorEnrolment = z.output<typeof twoFactorEnrolment>;

/** Turning it on, or making codes again: the new recovery codes, shown once. */
export const recoveryCodes = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.output<typeof recoveryCodes>;

/** `GET|PUT /v1/settings/twoFactor`: the company's rule, changed by its owner only. */
export const twoFactorPolicyBody = z.object({ requireTwoFactor: z.boolean() }).strict();
export const twoFactorPolicy = z.object({
  requireTwoFactor: z.boolean(),
  canChange: z.boolean().meta({ description: 'Whether the caller may change it (the owner)' }),
  ownEnabled: z.boolean().meta({ description: 'Whether the caller has two-factor login on (the owner turns it on for itself first)' }),
});
export type TwoFactorPolicy = z.output<typeof twoFactorPolicy>;
