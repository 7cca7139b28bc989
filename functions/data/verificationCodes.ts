import { Entity } from 'electrodb';
import { MAIN_TABLE, SYSTEM_SCOPE } from './tables.ts';
import { entityConfig, epochSeconds, isConditionFailure, lazy, SERVICE, tenantPartition } from './entity.ts';
import { VERIFICATION_CODE } from './keys/main.ts';
import { CODE_MAX_ATTEMPTS, CODE_RESEND_SECONDS, CODE_TTL_MINUTES, secondsUntilResend } from '#domain/verification';
import { sha256, safeEqualText, sixDigitCode } from '#lib/crypto';
import { ThrottledError, fieldError } from '#lib/errors';
import { countAttempt } from './throttles.ts';

/** Mailed 6-digit codes for sign-up (by email) and password recovery (by username). */
export const verificationCodes = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'verificationCode', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          purpose: { type: ['register', 'retrieve'] as const, required: true },
          subject: { type: 'string', required: true },
          codeHash: { type: 'string', required: true },
          /** Tries counted so far, the right one included; counted before the code is compared. */
          attempts: { type: 'number', required: true, default: 0 },
          /** When the code was used up; a spent code stays until it expires, so the resend wait still holds. */
          spentAt: { type: 'number' },
          createdAt: { type: 'number', required: true },
          expiresAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: {
            pk: tenantPartition,
            sk: { field: 'sk', composite: ['purpose', 'subject'], template: VERIFICATION_CODE.template, casing: 'none' },
          },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

// Verification codes

type CodePurpose = 'register' | 'retrieve';
const codeHash = (purpose: CodePurpose, subject: string, code: string): string => sha256(`${purpose}:${subject}:${code}`);
const codeKey = (purpose: CodePurpose, subject: string) => ({ tenantId: SYSTEM_SCOPE, purpose, subject: subject.toLowerCase() });

/**
 * Makes a new code for the subject (an email or a username), replacing the old one. Refused
 * within a minute of the last one (one conditional write decides) and past the day's cap.
 */
export async function issueCode(purpose: CodePurpose, subject: string): Promise<string> {
  const key = codeKey(purpose, subject);
  const tooSoon = async () => {
    const latest = (await verificationCodes().get(key).go({ consistent: true })).data ?? undefined;
    return new ThrottledError('code.tooSoon', { seconds: Math.max(1, secondsUntilResend(latest, Date.now())) });
  };
  const existing = (await verificationCodes().get(key).go()).data ?? undefined;
  if (secondsUntilResend(existing, Date.now()) > 0) throw await tooSoon();
  await countAttempt('codesPerDay', `${purpose}:${key.subject}`, 'code.dailyLimit');
  const code = sixDigitCode();
  const now = Date.now();
  const expiresAt = now + CODE_TTL_MINUTES * 60_000;
  try {
    await verificationCodes()
      .put({ ...key, codeHash: codeHash(purpose, key.subject, code), attempts: 0, createdAt: now, expiresAt, ttl: epochSeconds(new Date(expiresAt)) + 60 })
      .where((attr, op) => `${op.notExists(attr.createdAt)} OR ${op.lte(attr.createdAt, now - CODE_RESEND_SECONDS * 1000)}`)
      .go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw await tooSoon();
  }
  return code;
}

/** Forgets a code that could not be mailed, so the sender may ask again at once. */
export async function dropCode(purpose: CodePurpose, subject: string): Promise<void> {
  await verificationCodes().delete(codeKey(purpose, subject)).go();
}

/**
 * Checks a code. The try is counted first, by one conditional write that refuses a code that has
 * expired, was used up or has no tries left, and only then is the code compared; with `consume`
 * a right code is used up (once, even under parallel requests). Throws a 422 naming `code`.
 */
export async function checkCode(purpose: CodePurpose, subject: string, code: string, consume: boolean): Promise<void> {
  const key = codeKey(purpose, subject);
  const now = Date.now();
  let stored: { codeHash: string } | undefined;
  try {
    stored = (
      await verificationCodes()
        .patch(key)
        .add({ attempts: 1 })
        .where((attr, op) => `${op.lt(attr.attempts, CODE_MAX_ATTEMPTS)} AND ${op.gte(attr.expiresAt, now)} AND ${op.notExists(attr.spentAt)}`)
        .go({ response: 'all_new' })
    ).data;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  if (!stored || !safeEqualText(stored.codeHash, codeHash(purpose, key.subject, code))) throw fieldError('code', 'code.invalid');
  if (consume) await spendCode(purpose, subject);
}

/** Uses a checked code up; when a parallel request used it first, the code is refused. */
export async function spendCode(purpose: CodePurpose, subject: string): Promise<void> {
  try {
    await verificationCodes()
      .patch(codeKey(purpose, subject))
      .set({ spentAt: Date.now() })
      .where((attr, op) => op.notExists(attr.spentAt))
      .go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw fieldError('code', 'code.invalid');
  }
}
