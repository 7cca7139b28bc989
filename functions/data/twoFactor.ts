import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Entity } from 'electrodb';
import { CHALLENGE_MAX_ATTEMPTS, CHALLENGE_MINUTES, ENROLMENT_MINUTES, isTotpCode } from '#contract/twoFactor';
import { dynamo } from '#lib/aws';
import { randomToken, sha256, type RsaKeyPair } from '#lib/crypto';
import { openSecret, sealSecret } from '#lib/secretBox';
import { clockNow } from '#lib/clock';
import { matchingStep, recoveryCodeHash } from '#lib/totp';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, tenantPartition } from './entity.ts';
import { MAIN_TABLE, SYSTEM_SCOPE, tableName } from './tables.ts';
import { ACCOUNT, CHALLENGE } from './keys/main.ts';

/**
 * Two-factor login (contract/twoFactor.ts). The authenticator's secret lives on the account,
 * sealed; every change of it, of the last accepted step and of the recovery codes is one
 * conditional write, so a code is accepted once however many requests carry it at the same time.
 */

/** The context a secret is sealed under: on AWS the KMS grant names this purpose. */
export const TOTP_SECRET_PURPOSE = 'totp-secret';
const sealContext = (tenantId: string) => ({ tenantId, purpose: TOTP_SECRET_PURPOSE });

export const sealTotpSecret = (tenantId: string, secret: string): Promise<string> => sealSecret(secret, sealContext(tenantId));
export const openTotpSecret = (tenantId: string, sealed: string): Promise<string> => openSecret(sealed, sealContext(tenantId));

/** The second step of a login: who passed the first, and the login key that becomes the session's. */
export const loginChallenges = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'loginChallenge', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          /** SHA-256 of the challenge; the challenge itself is never stored. */
          challengeHash: { type: 'string', required: true },
          accountTenantId: { type: 'string', required: true },
          accountId: { type: 'string', required: true },
          username: { type: 'string', required: true },
          publicKey: { type: 'string', required: true },
          privateKey: { type: 'string', required: true },
          /** Codes tried with it; at CHALLENGE_MAX_ATTEMPTS it takes no more. */
          attempts: { type: 'number', required: true, default: 0 },
          expiresAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['challengeHash'], template: CHALLENGE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export interface Challenged {
  challengeHash: string;
  tenantId: string;
  accountId: string;
  username: string;
  pair: RsaKeyPair;
}

/** Opens the second step for an account whose password was right; the login key waits in it. */
export async function createChallenge(
  account: { tenantId: string; accountId: string; username: string },
  pair: RsaKeyPair,
): Promise<{ challenge: string; expiresAt: number }> {
  const challenge = randomToken();
  const expiresAt = Date.now() + CHALLENGE_MINUTES * 60_000;
  await loginChallenges()
    .create({
      tenantId: SYSTEM_SCOPE,
      challengeHash: sha256(challenge),
      accountTenantId: account.tenantId,
      accountId: account.accountId,
      username: account.username,
      ...pair,
      attempts: 0,
      expiresAt,
      ttl: epochSeconds(new Date(expiresAt)) + 60,
    })
    .go();
  return { challenge, expiresAt };
}

/**
 * Counts one code against a challenge, before the code is looked at: one conditional write that
 * refuses a challenge that is unknown, expired, used or out of tries. Undefined then.
 */
export async function tryChallenge(challenge: string): Promise<Challenged | undefined> {
  const challengeHash = sha256(challenge);
  const now = Date.now();
  try {
    const item = (
      await loginChallenges()
        .patch({ tenantId: SYSTEM_SCOPE, challengeHash })
        .add({ attempts: 1 })
        .where((attr, op) => `${op.lt(attr.attempts, CHALLENGE_MAX_ATTEMPTS)} AND ${op.gt(attr.expiresAt, now)}`)
        .go({ response: 'all_new' })
    ).data;
    return {
      challengeHash,
      tenantId: item.accountTenantId!,
      accountId: item.accountId!,
      username: item.username!,
      pair: { publicKey: item.publicKey!, privateKey: item.privateKey! },
    };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Uses the challenge up; false when a parallel request did first. */
export async function spendChallenge(challengeHash: string): Promise<boolean> {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: tableName(MAIN_TABLE),
        Key: { pk: SYSTEM_SCOPE, sk: CHALLENGE.of(challengeHash) },
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

const accountKey = (tenantId: string, accountId: string) => ({ pk: tenantId, sk: ACCOUNT.of(accountId) });

/** One conditional update of an account item; false when its condition failed. */
async function conditionalUpdate(
  tenantId: string,
  accountId: string,
  input: { update: string; condition: string; names?: Record<string, string>; values?: Record<string, unknown> },
): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(MAIN_TABLE),
        Key: accountKey(tenantId, accountId),
        UpdateExpression: input.update,
        ConditionExpression: `attribute_exists(pk) AND (${input.condition})`,
        ...(input.names ? { ExpressionAttributeNames: input.names } : {}),
        ...(input.values ? { ExpressionAttributeValues: input.values } : {}),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Keeps a new secret, sealed, until the account confirms it with a code; refused (false) while two-factor login is on. */
export async function startEnrolment(tenantId: string, accountId: string, secret: string): Promise<{ expiresAt: number } | undefined> {
  const sealed = await sealTotpSecret(tenantId, secret);
  const expiresAt = Date.now() + ENROLMENT_MINUTES * 60_000;
  const done = await conditionalUpdate(tenantId, accountId, {
    update: 'SET totpPending = :sealed, totpPendingUntil = :until',
    condition: 'attribute_not_exists(totpSecret)',
    values: { ':sealed': sealed, ':until': expiresAt },
  });
  return done ? { expiresAt } : undefined;
}

/**
 * Turns two-factor login on with the pending secret, if it is still the one the code was checked
 * against: the step of that code is the last accepted, and the recovery codes' hashes are kept.
 */
export async function enableTwoFactor(tenantId: string, accountId: string, pendingSealed: string, step: number, recoveryHashes: string[]): Promise<boolean> {
  return conditionalUpdate(tenantId, accountId, {
    update: 'SET totpSecret = :sealed, totpLastStep = :step, twoFactorAt = :at, recoveryCodes = :codes REMOVE totpPending, totpPendingUntil',
    condition: 'totpPending = :sealed AND attribute_not_exists(totpSecret)',
    values: { ':sealed': pendingSealed, ':step': step, ':at': new Date().toISOString(), ':codes': new Set(recoveryHashes) },
  });
}

/** Replaces the recovery codes, while two-factor login is on with this secret. */
export async function replaceRecoveryCodes(tenantId: string, accountId: string, sealed: string, recoveryHashes: string[]): Promise<boolean> {
  return conditionalUpdate(tenantId, accountId, {
    update: 'SET recoveryCodes = :codes',
    condition: 'totpSecret = :sealed',
    values: { ':sealed': sealed, ':codes': new Set(recoveryHashes) },
  });
}

/** Turns two-factor login off: the secret, the recovery codes and any pending enrolment are gone. */
export async function disableTwoFactor(tenantId: string, accountId: string): Promise<void> {
  await conditionalUpdate(tenantId, accountId, {
    update: 'REMOVE totpSecret, twoFactorAt, totpLastStep, recoveryCodes, totpPending, totpPendingUntil',
    condition: 'attribute_exists(sk)',
  });
}

/** What the second factor is checked against: the sealed secret (or the pending one, at enrolment) and the codes' hashes. */
export interface SecondFactorHolder {
  tenantId: string;
  accountId: string;
  totpSecret?: string | undefined;
  recoveryCodes?: readonly string[] | undefined;
}

/**
 * Checks a code and uses it up: the app's code of a step later than the last accepted (that step
 * becomes the last, by a conditional write, so the same code or an older one is refused after),
 * or a recovery code not yet used (removed from the account by a conditional write). False for
 * anything else, including a code another request used a moment before.
 */
export async function useSecondFactor(account: SecondFactorHolder, code: string, now = clockNow()): Promise<boolean> {
  if (!account.totpSecret) return false;
  if (isTotpCode(code)) {
    const step = await matchingStep(await openTotpSecret(account.tenantId, account.totpSecret), code, now);
    if (step === undefined) return false;
    return conditionalUpdate(account.tenantId, account.accountId, {
      update: 'SET totpLastStep = :step',
      condition: 'totpSecret = :sealed AND (attribute_not_exists(totpLastStep) OR totpLastStep < :step)',
      values: { ':step': step, ':sealed': account.totpSecret },
    });
  }
  const hash = recoveryCodeHash(account.accountId, code);
  if (!account.recoveryCodes?.includes(hash)) return false;
  return conditionalUpdate(account.tenantId, account.accountId, {
    update: 'DELETE recoveryCodes :one',
    condition: 'contains(recoveryCodes, :hash)',
    values: { ':one': new Set([hash]), ':hash': hash },
  });
}
