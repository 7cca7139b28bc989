import type * as z from 'zod';
import type { LoginChallengeAnswer, UserInfo, loginBody } from '#contract/systems';
import type { twoFactorLoginBody } from '#contract/twoFactor';
import { accounts as accountItems } from '#data/accounts';
import { clearAttempts, countAttempt, findAccountByUsername, findTenant, openSession, refundAttempt } from '#data/identity';
import { takeSecurityKey } from '#data/securityKeys';
import { blockedFor } from '#data/throttles';
import { createChallenge, spendChallenge, tryChallenge, useSecondFactor } from '#data/twoFactor';
import { throttleLimit } from '#domain/throttle';
import { auditLogin } from '#lib/audit';
import { withOwnerCodes, type AccountRecord } from '#lib/auth';
import { decoyPasswordHash, rsaDecrypt, verifyPassword, type RsaKeyPair } from '#lib/crypto';
import { AppError, SessionEndedError, ThrottledError, fieldError } from '#lib/errors';

type Tenant = Awaited<ReturnType<typeof findTenant>>;
type LoginBody = z.output<typeof loginBody>;
type TwoFactorLoginBody = z.output<typeof twoFactorLoginBody>;

/**
 * Logging in, as its steps go: the login key of one request, the sealed name and password, the
 * throttles of the address and the account, the password against the account's hash (or a decoy,
 * so a known name costs what an unknown one does), the second factor where the account has one,
 * and the session opened and recorded in the audit log. The systems resource answers with it.
 */

export async function userInfo(account: AccountRecord, key: string, session: { mustEnrolTwoFactor: boolean; tenant?: Tenant }): Promise<UserInfo> {
  const tenant = session.tenant ?? (await findTenant(account.tenantId));
  return {
    username: account.username,
    nickname: account.nickname,
    userCode: tenant?.userCode ?? '',
    companyName: tenant?.companyName ?? '',
    avatar: account.avatar ?? null,
    phone: account.phone ?? null,
    email: account.email ?? null,
    key,
    authCodes: withOwnerCodes(account).authCodes,
    mustChangePassword: account.mustChangePassword,
    twoFactorEnabled: !!account.totpSecret,
    mustEnrolTwoFactor: session.mustEnrolTwoFactor,
  };
}

/** Where a login came from, for the audit log. */
export type Seen = { sourceIp: string; userAgent: string | undefined; requestId: string };

/**
 * Opens the account's session once every factor was right, and records the login (once, here).
 * When the company requires two-factor login and the account has none, the session may only enrol.
 */
export async function startSession(account: AccountRecord, pair: RsaKeyPair, seen: Seen): Promise<UserInfo & { token: string }> {
  const tenant = await findTenant(account.tenantId);
  const enrol = !!tenant?.requireTwoFactor && !account.totpSecret;
  const token = await openSession(account, pair, { enrolTwoFactor: enrol });
  await auditLogin(account, account.username, { code: 200 }, seen);
  return { ...(await userInfo(account, pair.publicKey, { mustEnrolTwoFactor: enrol, tenant })), token };
}

/** The login key named in the request, taken for this one request. */
export async function loginKey(securityId: string): Promise<RsaKeyPair> {
  const pair = await takeSecurityKey(securityId);
  if (!pair) throw fieldError('securityId', 'auth.keyExpired');
  return pair;
}

export function decrypt(pair: RsaKeyPair, field: string, ciphertext: string): string {
  const plain = rsaDecrypt(pair.privateKey, ciphertext);
  if (plain === undefined) throw fieldError(field, 'auth.undecryptable');
  return plain;
}

/** The first step: a session, or the challenge of a second step when the account has two-factor login on. Every outcome is in the audit log of the account's company, a failure too. */
export async function passwordLogin(body: LoginBody, seen: Seen): Promise<(UserInfo & { token: string }) | LoginChallengeAnswer> {
  const { sourceIp } = seen;
  const pair = await loginKey(body.securityId);
  const username = decrypt(pair, 'account', body.account).trim().toLowerCase();
  const password = decrypt(pair, 'password', body.password);
  // Each try is counted before the password is checked, and a right one is given back.
  try {
    await countAttempt('address', sourceIp);
    try {
      await countAttempt('account', username);
    } catch (error) {
      await refundAttempt('address', sourceIp);
      throw error;
    }
  } catch (error) {
    if (error instanceof ThrottledError) await auditLogin(await findAccountByUsername(username), username, { code: 429, reason: 'throttled' }, seen);
    throw error;
  }
  const account = await findAccountByUsername(username);
  const valid = await verifyPassword(password, account?.passwordHash ?? (await decoyPasswordHash()));
  if (!account || !valid) {
    await auditLogin(account, username, { code: 401, reason: 'badCredentials' }, seen);
    throw new AppError(401, 'auth.badCredentials');
  }
  await Promise.all([clearAttempts('account', username), refundAttempt('address', sourceIp)]);
  if (account.disabled) {
    await auditLogin(account, username, { code: 661, reason: 'disabled' }, seen);
    throw new SessionEndedError(661);
  }
  if (account.totpSecret) {
    // Wrong codes of the second step are not given back by a right password: while they are used up, no new challenge.
    const minutes = await blockedFor('secondFactor', username);
    if (minutes > 0) {
      await auditLogin(account, username, { code: 429, reason: 'throttled' }, seen);
      throw new ThrottledError('auth.throttled', { minutes, limit: throttleLimit('secondFactor') });
    }
    // The password was right: a second step follows, and the login is recorded when it succeeds.
    const { challenge, expiresAt } = await createChallenge(account, pair);
    const answer: LoginChallengeAnswer = { twoFactor: { challenge, expiresAt: new Date(expiresAt).toISOString() } };
    return answer;
  }
  return startSession(account, pair, seen);
}

/** The second step: the challenge of the first and a code (or a recovery code). */
export async function secondFactorLogin(body: TwoFactorLoginBody, seen: Seen): Promise<UserInfo & { token: string }> {
  const { sourceIp } = seen;
  // Every code counts against the address first: guessing challenges is guessing too.
  await countAttempt('address', sourceIp);
  const challenged = await tryChallenge(body.challenge);
  if (!challenged) throw new AppError(403, 'auth.challengeEnded');
  const who = { tenantId: challenged.tenantId, accountId: challenged.accountId, username: challenged.username };
  const name = challenged.username.toLowerCase();
  try {
    await countAttempt('secondFactor', name);
  } catch (error) {
    await refundAttempt('address', sourceIp);
    if (error instanceof ThrottledError) await auditLogin(who, name, { code: 429, reason: 'throttled' }, seen);
    throw error;
  }
  const account = (await accountItems().get({ tenantId: challenged.tenantId, accountId: challenged.accountId }).go()).data;
  // Turned off (or reset by an administrator) since the password step: that login is over.
  if (!account?.totpSecret) throw new AppError(403, 'auth.challengeEnded');
  if (!(await useSecondFactor(account, body.code))) {
    await auditLogin(account, name, { code: 401, reason: 'secondFactor' }, seen);
    throw new AppError(401, 'auth.badSecondFactor');
  }
  if (!(await spendChallenge(challenged.challengeHash))) throw new AppError(403, 'auth.challengeEnded');
  await Promise.all([clearAttempts('secondFactor', name), refundAttempt('address', sourceIp)]);
  if (account.disabled) {
    await auditLogin(account, name, { code: 661, reason: 'disabled' }, seen);
    throw new SessionEndedError(661);
  }
  return startSession(account, challenged.pair, seen);
}
