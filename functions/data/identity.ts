import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { AUTH_CODES, type AuthCode } from '#contract/menu';
import { CODE_MAX_ATTEMPTS, CODE_TTL_MINUTES, codeUsable, secondsUntilResend } from '#domain/verification';
import { THROTTLE_LIMITS, THROTTLE_WINDOW_MS, blockedMinutes, type ThrottleScope } from '#domain/throttle';
import { dynamo } from '#lib/aws';
import { hashPassword, newId, newUserCode, randomToken, sha256, safeEqualText, sixDigitCode, type RsaKeyPair } from '#lib/crypto';
import { ConflictError, ThrottledError, fieldError } from '#lib/errors';
import { makeToken, sessionMaxMs } from '#lib/auth';
import { accounts } from './accounts.ts';
import { claims } from './claims.ts';
import { epochSeconds, isConditionFailure, nowIso, transactPut, versionedWrite, type TransactItem } from './entity.ts';
import { securityKeys } from './securityKeys.ts';
import { sessions } from './sessions.ts';
import { SYSTEM_SCOPE } from './tables.ts';
import { tenants } from './tenants.ts';
import { throttles } from './throttles.ts';
import { verificationCodes } from './verificationCodes.ts';

/** Accounts, sessions and the records around signing in. */

const normalizeName = (username: string): string => username.trim().toLowerCase();

export async function findAccountByUsername(username: string) {
  const claim = (await claims().get({ tenantId: SYSTEM_SCOPE, kind: 'username', value: normalizeName(username) }).go()).data;
  if (!claim?.accountId) return undefined;
  return (await accounts().get({ tenantId: claim.ownerTenantId, accountId: claim.accountId }).go()).data ?? undefined;
}

export async function findTenant(tenantId: string) {
  return (await tenants().get({ tenantId }).go()).data ?? undefined;
}

export interface NewTenant {
  companyName: string;
  username: string;
  email: string;
  password: string;
  nickname?: string;
}

interface NewAccount {
  username: string;
  password: string;
  authCodes: AuthCode[];
  email?: string;
  nickname?: string;
  remark?: string;
  owner?: boolean;
}

/** The writes that create an account: its username claim first (a taken name cancels the transaction), then the account. */
async function accountWrites(tenantId: string, accountId: string, input: NewAccount, createdAt: string) {
  const username = input.username.trim();
  if (await findAccountByUsername(username)) throw new ConflictError('register.usernameTaken', 'username');
  return [
    transactPut(claims().create({ tenantId: SYSTEM_SCOPE, kind: 'username', value: normalizeName(username), ownerTenantId: tenantId, accountId }).params()),
    transactPut(
      accounts()
        .create({
          tenantId,
          accountId,
          username,
          email: input.email,
          nickname: input.nickname ?? username,
          remark: input.remark,
          passwordHash: await hashPassword(input.password),
          authCodes: input.authCodes,
          owner: input.owner ?? false,
          createdAt,
        })
        .params(),
    ),
  ];
}

/** Runs a transaction whose first write is a username claim; a taken username answers 409, any other refusal is returned. */
async function claimingWrite(items: TransactItem[]): Promise<'written' | 'refused'> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
    return 'written';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (reasons.length === 0 || reasons[0]?.Code === 'ConditionalCheckFailed') throw new ConflictError('register.usernameTaken', 'username');
    return 'refused';
  }
}

/**
 * Creates a tenant and its owner account holding every authCode, with a unique device binding
 * code; the username and the binding code are claimed in the same transaction.
 */
export async function createTenantWithOwner(input: NewTenant): Promise<{ tenantId: string; accountId: string; userCode: string }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const tenantId = newId();
    const accountId = newId();
    const userCode = newUserCode();
    const createdAt = nowIso();
    const writes = await accountWrites(tenantId, accountId, { ...input, authCodes: [...AUTH_CODES], owner: true }, createdAt);
    writes.push(
      transactPut(claims().create({ tenantId: SYSTEM_SCOPE, kind: 'userCode', value: userCode, ownerTenantId: tenantId }).params()),
      transactPut(tenants().create({ tenantId, companyName: input.companyName.trim(), userCode, createdAt }).params()),
    );
    // Only the binding code can collide here: try another.
    if ((await claimingWrite(writes)) === 'written') return { tenantId, accountId, userCode };
  }
  throw new Error('could not allocate a unique device binding code');
}

/** Adds an account to an existing tenant (account management uses this; so do the tests). */
export async function createAccount(tenantId: string, input: NewAccount): Promise<string> {
  const accountId = newId();
  await claimingWrite(await accountWrites(tenantId, accountId, input, nowIso()));
  return accountId;
}

// Login keys

export const SECURITY_KEY_TTL_MS = 5 * 60_000;

export async function storeSecurityKey(pair: RsaKeyPair): Promise<string> {
  const securityId = newId(24);
  const expiresAt = Date.now() + SECURITY_KEY_TTL_MS;
  await securityKeys()
    .create({ tenantId: SYSTEM_SCOPE, securityId, ...pair, expiresAt, ttl: epochSeconds(new Date(expiresAt)) + 60 })
    .go();
  return securityId;
}

export async function loadSecurityKey(securityId: string): Promise<RsaKeyPair | undefined> {
  const key = (await securityKeys().get({ tenantId: SYSTEM_SCOPE, securityId }).go()).data;
  if (!key || key.expiresAt < Date.now()) return undefined;
  return { publicKey: key.publicKey, privateKey: key.privateKey };
}

export async function dropSecurityKey(securityId: string): Promise<void> {
  await securityKeys().delete({ tenantId: SYSTEM_SCOPE, securityId }).go();
}

// Sessions

/**
 * Opens the account's one live session: the login key pair becomes the session key pair, and
 * the account now points at this token, so any older token answers 662.
 */
export async function openSession(account: { tenantId: string; accountId: string; authVersion: number }, pair: RsaKeyPair): Promise<string> {
  const token = makeToken(account.tenantId, randomToken());
  const tokenHash = sha256(token);
  const now = Date.now();
  const expiresAt = now + sessionMaxMs();
  await sessions()
    .create({
      tenantId: account.tenantId,
      tokenHash,
      accountId: account.accountId,
      authVersion: account.authVersion,
      ...pair,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      ttl: epochSeconds(new Date(expiresAt)) + 86_400,
    })
    .go();
  await accounts().patch({ tenantId: account.tenantId, accountId: account.accountId }).set({ activeSession: tokenHash }).go();
  return token;
}

export async function closeSession(tenantId: string, tokenHash: string, accountId: string): Promise<void> {
  await sessions().delete({ tenantId, tokenHash }).go();
  await accounts()
    .patch({ tenantId, accountId })
    .remove(['activeSession'])
    .where((attr, op) => op.eq(attr.activeSession, tokenHash))
    .go()
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/** Sets a new password; with `endSessions` the live session is closed too (its token then answers 403). */
export async function setPassword(tenantId: string, accountId: string, password: string, endSessions: boolean): Promise<void> {
  const passwordHash = await hashPassword(password);
  const account = (await accounts().get({ tenantId, accountId }).go()).data;
  if (!account) return;
  await accounts().patch({ tenantId, accountId }).set({ passwordHash }).go();
  if (endSessions && account.activeSession) await closeSession(tenantId, account.activeSession, accountId);
}

// Failed-login throttling

export async function throttleWait(scope: ThrottleScope, subject: string): Promise<void> {
  const counter = (await throttles().get({ tenantId: SYSTEM_SCOPE, scope, subject }).go()).data ?? undefined;
  const limit = Number(process.env[`THROTTLE_${scope.toUpperCase()}_LIMIT`] ?? THROTTLE_LIMITS[scope]);
  const minutes = blockedMinutes(limit, counter, Date.now());
  if (minutes > 0) throw new ThrottledError('auth.throttled', { minutes });
}

export async function recordLoginFailure(scope: ThrottleScope, subject: string): Promise<void> {
  const now = Date.now();
  const key = { tenantId: SYSTEM_SCOPE, scope, subject };
  const counter = (await throttles().get(key).go()).data;
  if (!counter || counter.windowEndsAt <= now) {
    const windowEndsAt = now + THROTTLE_WINDOW_MS;
    await throttles()
      .put({ ...key, failures: 1, windowEndsAt, ttl: epochSeconds(new Date(windowEndsAt)) + 60 })
      .go();
  } else {
    await throttles().patch(key).add({ failures: 1 }).go();
  }
}

export async function clearLoginFailures(scope: ThrottleScope, subject: string): Promise<void> {
  await throttles().delete({ tenantId: SYSTEM_SCOPE, scope, subject }).go();
}

// Verification codes

type CodePurpose = 'register' | 'retrieve';
const codeHash = (purpose: CodePurpose, subject: string, code: string): string => sha256(`${purpose}:${subject}:${code}`);

/** Makes a new code for the subject (an email or a username), replacing the old one; refuses within a minute of the last. */
export async function issueCode(purpose: CodePurpose, subject: string): Promise<string> {
  const key = { tenantId: SYSTEM_SCOPE, purpose, subject: subject.toLowerCase() };
  const existing = (await verificationCodes().get(key).go()).data ?? undefined;
  const now = Date.now();
  const wait = secondsUntilResend(existing, now);
  if (wait > 0) throw new ThrottledError('code.tooSoon', { seconds: wait });
  const code = sixDigitCode();
  const expiresAt = now + CODE_TTL_MINUTES * 60_000;
  await verificationCodes()
    .put({ ...key, codeHash: codeHash(purpose, key.subject, code), attempts: 0, createdAt: now, expiresAt, ttl: epochSeconds(new Date(expiresAt)) + 60 })
    .go();
  return code;
}

/**
 * Checks a code; a wrong one counts against its tries. With `consume` a right one is used up.
 * Throws a 422 naming `code` when it does not match, has expired or has no tries left.
 */
export async function checkCode(purpose: CodePurpose, subject: string, code: string, consume: boolean): Promise<void> {
  const key = { tenantId: SYSTEM_SCOPE, purpose, subject: subject.toLowerCase() };
  const stored = (await verificationCodes().get(key).go()).data ?? undefined;
  if (!stored || !codeUsable(stored, Date.now())) throw fieldError('code', 'code.invalid');
  if (!safeEqualText(stored.codeHash, codeHash(purpose, key.subject, code))) {
    if (stored.attempts + 1 >= CODE_MAX_ATTEMPTS) await verificationCodes().delete(key).go();
    else await verificationCodes().patch(key).add({ attempts: 1 }).go();
    throw fieldError('code', 'code.invalid');
  }
  if (consume) await verificationCodes().delete(key).go();
}

// Profile

export interface ProfileChanges {
  nickname?: string;
  phone?: string;
  email?: string;
  avatar?: string;
  remark?: string;
}

/** Changes an account's profile if `version` is still current; answers the updated account. */
export async function updateProfile(tenantId: string, accountId: string, version: number, changes: ProfileChanges) {
  const key = { tenantId, accountId };
  const result = await versionedWrite(
    () =>
      accounts()
        .patch(key)
        .set(changes)
        .add({ version: 1 })
        .where((attr, op) => op.eq(attr.version, version))
        .go({ response: 'all_new' }),
    async () => !!(await accounts().get(key).go()).data,
  );
  return result.data;
}
