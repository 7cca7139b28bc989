import { afterAll, describe, expect, it, inject } from 'vitest';
import * as OTPAuth from 'otpauth';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { createAccount, findAccountByUsername } from '@passcloud/functions/data/identity';
import { SYSTEM_SCOPE } from '@passcloud/functions/data/tables';
import { loginChallenges } from '@passcloud/functions/data/twoFactor';
import { sha256 } from '@passcloud/functions/lib/crypto';
import { advanceHostClock, baseUrl, call, encrypt, hostNow, login, loginAnswer, newCompany, setHostClock, unique, type Answer, type UserInfo } from '../support/api.ts';

/**
 * Two-factor login through the HTTP API: enrolment, the second login step with codes computed
 * here from the secret (as an authenticator app does), replays, the window, recovery codes, the
 * throttles, the challenge's life, the owner's switch and an administrator's reset.
 */

const demo = () => inject('demo');
const PERIOD_MS = 30_000;

// Steps come by moving the host's clock (this file runs alone, tests/vitest.config.ts); it is put back after.
afterAll(() => setHostClock(0));

interface Challenge {
  twoFactor: { challenge: string; expiresAt: string };
}
interface Enrolment {
  uri: string;
  secret: string;
  expiresAt: string;
}

/** What an authenticator app shows for the secret at `at` (RFC 6238: SHA-1, 6 digits, 30 s). */
function appCode(secret: string, at = hostNow()): string {
  return new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: at });
}

/** Moves the host's clock into the next step while the current one has under 6 s left, so a code computed now is still of that step when the server checks it. */
async function freshStep(): Promise<void> {
  const left = PERIOD_MS - (hostNow() % PERIOD_MS);
  if (left < 6_000) await advanceHostClock(left + 50);
}

async function newAccount(tenantId = demo().tenantId, authCodes: string[] = [...AUTH_CODES]) {
  const username = unique('tfa');
  const password = 'secret-pass-1';
  await createAccount(tenantId, { username, password, authCodes: authCodes as never, email: `${username}@example.test` });
  return { username, password };
}

/** Turns two-factor login on for a logged-in account; answers the secret and the recovery codes. */
async function enrol(user: UserInfo, password: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await call<Enrolment>('POST', '/v1/systems/twoFactor/enrolment', { token: user.token });
  expect(started.status, started.body.message).toBe(200);
  await freshStep();
  const confirmed = await call<{ recoveryCodes: string[] }>('POST', '/v1/systems/twoFactor', {
    token: user.token,
    body: { password: await encrypt(user.key, password), code: appCode(started.body.data.secret) },
  });
  expect(confirmed.body.code, confirmed.body.message).toBe(201);
  return { secret: started.body.data.secret, recoveryCodes: confirmed.body.data.recoveryCodes };
}

/** An account with two-factor login on, logged out again (a new login replaces its session anyway). */
async function enrolledAccount(tenantId?: string) {
  const account = await newAccount(tenantId);
  const user = await login(account.username, account.password);
  const { secret, recoveryCodes } = await enrol(user, account.password);
  return { ...account, secret, recoveryCodes, user };
}

/** The first step: the right password answers a challenge instead of a session. */
async function firstStep(username: string, password: string): Promise<string> {
  const answer = await loginAnswer(username, password);
  expect(answer.status, answer.body.message).toBe(200);
  const data = answer.body.data as unknown as Challenge & { token?: string };
  expect(data.token).toBeUndefined();
  return data.twoFactor.challenge;
}

const secondStep = (challenge: string, code: string): Promise<Answer<UserInfo>> => call<UserInfo>('POST', '/v1/systems/login/twoFactor', { body: { challenge, code } });

async function auditOf(username: string): Promise<{ kind: string; reason: string | null; code: number }[]> {
  const admin = await login(demo().username, demo().password);
  const answer = await call<{ items: { kind: string; reason: string | null; code: number }[] }>('GET', `/v1/audit?username=${username}&pageSize=50`, { token: admin.token });
  expect(answer.status).toBe(200);
  return answer.body.data.items;
}

describe('two-factor login', () => {
  it('enrols with a secret answered once as an otpauth URI, kept sealed, confirmed with the password and a current code', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    expect(user).toMatchObject({ twoFactorEnabled: false, mustEnrolTwoFactor: false });
    const started = await call<Enrolment>('POST', '/v1/systems/twoFactor/enrolment', { token: user.token });
    expect(started.body.code).toBe(201);
    const { uri, secret } = started.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = OTPAuth.URI.parse(uri) as OTPAuth.TOTP;
    expect(uri).toMatch(/^otpauth:\/\/totp\/Pass%20Cloud:/);
    expect(parsed).toMatchObject({ issuer: 'Pass Cloud', label: username, algorithm: 'SHA1', digits: 6, period: 30 });
    expect(parsed.secret.base32).toBe(secret);

    // A wrong code or password leaves it off.
    await freshStep();
    const wrongCode = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/twoFactor', {
      token: user.token,
      body: { password: await encrypt(user.key, password), code: appCode(secret, hostNow() - 5 * PERIOD_MS) },
    });
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.body.data.issues.map((i) => i.path)).toEqual(['code']);
    const wrongPassword = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/twoFactor', {
      token: user.token,
      body: { password: await encrypt(user.key, 'not-the-password'), code: appCode(secret) },
    });
    expect(wrongPassword.status).toBe(422);
    expect(wrongPassword.body.data.issues.map((i) => i.path)).toEqual(['password']);
    expect((await call<{ enabled: boolean }>('GET', '/v1/systems/twoFactor', { token: user.token })).body.data.enabled).toBe(false);

    const confirmed = await call<{ recoveryCodes: string[] }>('POST', '/v1/systems/twoFactor', {
      token: user.token,
      body: { password: await encrypt(user.key, password), code: appCode(secret) },
    });
    expect(confirmed.body.code).toBe(201);
    const codes = confirmed.body.data.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    const state = await call<{ enabled: boolean; recoveryCodesLeft: number; enabledAt: string }>('GET', '/v1/systems/twoFactor', { token: user.token });
    expect(state.body.data).toMatchObject({ enabled: true, recoveryCodesLeft: 10, required: false });
    expect((await call<UserInfo>('GET', '/v1/systems/me', { token: user.token })).body.data).toMatchObject({ twoFactorEnabled: true, mustEnrolTwoFactor: false });
    // Never answered again: not by a new enrolment, nor in anything the account or an administrator reads.
    expect((await call('POST', '/v1/systems/twoFactor/enrolment', { token: user.token })).status).toBe(409);
    const admin = await login(demo().username, demo().password);
    const stored = (await findAccountByUsername(username))!;
    const listed = await call('GET', `/v1/accounts/${stored.accountId}`, { token: admin.token });
    expect(listed.body.data).toMatchObject({ twoFactor: true });
    for (const answer of [listed, state, await call('GET', '/v1/systems/me', { token: user.token })]) {
      expect(JSON.stringify(answer.body)).not.toContain(secret);
      expect(JSON.stringify(answer.body)).not.toContain(codes[0]);
    }
    // Stored sealed, and the recovery codes only as hashes.
    expect(stored.totpSecret).toMatch(/^gcm:/);
    expect(stored.totpSecret).not.toContain(secret);
    expect(stored.recoveryCodes).toHaveLength(10);
    expect(JSON.stringify(stored)).not.toContain(codes[0]!.replace('-', ''));
    expect(stored.totpPending).toBeUndefined();
  });

  it('answers a challenge instead of a token, and the token only for the right code; the login is recorded once', async () => {
    const { username, password, secret } = await enrolledAccount();
    const answer = await loginAnswer(username, password);
    const data = answer.body.data as unknown as Challenge;
    expect(Object.keys(data)).toEqual(['twoFactor']);
    expect(data.twoFactor.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const ttl = Date.parse(data.twoFactor.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(4 * 60_000);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000);
    // The challenge opens no session.
    expect((await call('GET', '/v1/systems/me', { token: `${demo().tenantId}.${data.twoFactor.challenge}` })).status).toBe(403);

    const before = (await auditOf(username)).filter((e) => e.kind === 'login').length;
    const wrong = await secondStep(data.twoFactor.challenge, '000000' === appCode(secret) ? '111111' : '000000');
    expect(wrong.status).toBe(401);
    expect(wrong.body.data).toBeNull();
    // Enrolment spent the current step's code: the next step's is in the window too.
    await freshStep();
    const right = await secondStep(data.twoFactor.challenge, appCode(secret, hostNow() + PERIOD_MS));
    expect(right.status, right.body.message).toBe(200);
    expect(right.body.data.token).toMatch(/^[a-z0-9]+\.[A-Za-z0-9_-]+$/);
    expect(right.body.data).toMatchObject({ username, twoFactorEnabled: true, mustEnrolTwoFactor: false });
    expect((await call('GET', '/v1/systems/me', { token: right.body.data.token })).status).toBe(200);
    // The session key is the login key of the first step: a password change encrypts with it.
    expect(right.body.data.key).toBeTruthy();

    const entries = await auditOf(username);
    expect(entries.filter((e) => e.kind === 'login')).toHaveLength(before + 1);
    expect(entries.filter((e) => e.kind === 'loginFailed' && e.reason === 'secondFactor' && e.code === 401)).toHaveLength(1);
  });

  it('refuses a code used once, and accepts the steps either side of now but not further', async () => {
    const { username, password, secret } = await enrolledAccount();
    // Enrolment used the current step: its code and the one before are spent.
    await freshStep();
    expect((await secondStep(await firstStep(username, password), appCode(secret))).status).toBe(401);
    expect((await secondStep(await firstStep(username, password), appCode(secret, hostNow() - PERIOD_MS))).status).toBe(401);
    // Two steps ahead is outside the window.
    expect((await secondStep(await firstStep(username, password), appCode(secret, hostNow() + 2 * PERIOD_MS))).status).toBe(401);
    // The next step's code is in the window, once.
    await freshStep();
    const next = appCode(secret, hostNow() + PERIOD_MS);
    expect((await secondStep(await firstStep(username, password), next)).status).toBe(200);
    const replay = await secondStep(await firstStep(username, password), next);
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe('The code is wrong or was already used');

    // A fresh account: the code of the step before now is accepted too.
    const other = await enrolledAccount();
    await advanceHostClock(PERIOD_MS - (hostNow() % PERIOD_MS) + 200);
    // A new step began: the one before is the step the enrolment used, spent; the one now is not.
    expect((await secondStep(await firstStep(other.username, other.password), appCode(other.secret, hostNow() - PERIOD_MS))).status).toBe(401);
    expect((await secondStep(await firstStep(other.username, other.password), appCode(other.secret))).status).toBe(200);
  }, 120_000);

  it('lets a recovery code log in once, also when it is sent on several challenges at the same time', async () => {
    const { username, password, recoveryCodes, secret } = await enrolledAccount();
    const challenges = await Promise.all(Array.from({ length: 4 }, () => firstStep(username, password)));
    const code = recoveryCodes[0]!;
    const answers = await Promise.all(challenges.map((challenge) => secondStep(challenge, code.toUpperCase())));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401]);
    const user = answers.find((a) => a.status === 200)!.body.data;
    expect((await call<{ recoveryCodesLeft: number }>('GET', '/v1/systems/twoFactor', { token: user.token })).body.data.recoveryCodesLeft).toBe(9);
    expect((await secondStep(await firstStep(username, password), code)).status).toBe(401);
    // Another one works, typed without its dash.
    expect((await secondStep(await firstStep(username, password), recoveryCodes[1]!.replace('-', ''))).status).toBe(200);

    // New codes (password and a code) replace the old ones.
    const session = (await secondStep(await firstStep(username, password), recoveryCodes[2]!)).body.data;
    await freshStep();
    const renewed = await call<{ recoveryCodes: string[] }>('POST', '/v1/systems/twoFactor/recoveryCodes', {
      token: session.token,
      body: { password: await encrypt(session.key, password), code: appCode(secret, hostNow() + PERIOD_MS) },
    });
    expect(renewed.body.code, renewed.body.message).toBe(201);
    expect(renewed.body.data.recoveryCodes).toHaveLength(10);
    expect((await secondStep(await firstStep(username, password), recoveryCodes[3]!)).status).toBe(401);
    expect((await secondStep(await firstStep(username, password), renewed.body.data.recoveryCodes[0]!)).status).toBe(200);
  });

  it('evaluates at most 5 wrong codes sent in parallel, ends the challenge and throttles the account', async () => {
    const { username, password, secret } = await enrolledAccount();
    const challenge = await firstStep(username, password);
    const wrong = await Promise.all(Array.from({ length: 12 }, (_, i) => secondStep(challenge, String(100000 + i * 7919).slice(0, 6))));
    const statuses = wrong.map((a) => a.status);
    // Each code is counted before it is looked at: no more than five are, the rest are refused unread.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 401 || s === 403 || s === 429)).toBe(true);
    // The right code no longer helps: the challenge has ended.
    await freshStep();
    const late = await secondStep(challenge, appCode(secret, hostNow() + PERIOD_MS));
    expect([403, 429]).toContain(late.status);
    // And the account takes no more tries for a while, even with the right password.
    const blocked = await loginAnswer(username, password);
    expect(blocked.status).toBe(429);
    const entries = await auditOf(username);
    expect(entries.filter((e) => e.reason === 'secondFactor').length).toBe(statuses.filter((s) => s === 401).length);
  });

  it('gives back no wrong code for a right password: a login again does not reset the account’s second-factor tries', async () => {
    const { username, password, secret } = await enrolledAccount();
    // Four wrong codes on one challenge, one on the next after the right password again: five in all.
    const first = await firstStep(username, password);
    for (let i = 0; i < 4; i++) expect((await secondStep(first, `20000${i}`)).status).toBe(401);
    const second = await firstStep(username, password);
    expect((await secondStep(second, '300000')).status).toBe(401);
    // The account's tries are used up: the next code is not looked at, even the right one, and no new challenge is given.
    await freshStep();
    expect((await secondStep(second, appCode(secret, hostNow() + PERIOD_MS))).status).toBe(429);
    const again = await loginAnswer(username, password);
    expect(again.status).toBe(429);
    expect((again.body.data as unknown as Challenge | null)?.twoFactor).toBeUndefined();
    const entries = await auditOf(username);
    expect(entries.filter((e) => e.reason === 'secondFactor')).toHaveLength(5);
    expect(entries.filter((e) => e.reason === 'throttled').length).toBeGreaterThanOrEqual(2);
  });

  it('ends a challenge after 5 wrong codes, after its use, and after 5 minutes', async () => {
    const { username, password, secret } = await enrolledAccount();
    const challenge = await firstStep(username, password);
    for (let i = 0; i < 4; i++) expect((await secondStep(challenge, `12345${i}`)).status).toBe(401);
    // Four wrong tries leave one: the right code still works, once.
    await freshStep();
    const code = appCode(secret, hostNow() + PERIOD_MS);
    expect((await secondStep(challenge, code)).status).toBe(200);
    const reused = await secondStep(challenge, code);
    expect(reused.status).toBe(403);
    expect(reused.body.message).toBe('This login has expired or ended; log in again');

    const other = await enrolledAccount();
    const expiring = await firstStep(other.username, other.password);
    await loginChallenges().patch({ tenantId: SYSTEM_SCOPE, challengeHash: sha256(expiring) }).set({ expiresAt: Date.now() - 1 }).go();
    await freshStep();
    expect((await secondStep(expiring, appCode(other.secret, hostNow() + PERIOD_MS))).status).toBe(403);
    // A challenge nobody was given.
    expect((await secondStep('A'.repeat(43), '123456')).status).toBe(403);
    // The answers are translated.
    const ja = await call('POST', '/v1/systems/login/twoFactor', { body: { challenge: 'A'.repeat(43), code: '123456' }, locale: 'ja_JP' });
    expect(ja.body.message).toBe('このログインは期限切れか終了しました。もう一度ログインしてください');
  });

  it('tells nothing about two-factor login before the password is right', async () => {
    const { username } = await enrolledAccount();
    const plain = await newAccount();
    const withTwoFactor = await loginAnswer(username, 'not-the-password');
    const without = await loginAnswer(plain.username, 'not-the-password');
    const unknown = await loginAnswer(unique('nobody'), 'not-the-password');
    expect(withTwoFactor.status).toBe(401);
    expect(withTwoFactor.body).toEqual(without.body);
    expect(unknown.body).toEqual(without.body);
  });

  it('turns off with the password and a code, and then logs in with the password alone', async () => {
    const { username, password, recoveryCodes } = await enrolledAccount();
    const session = (await secondStep(await firstStep(username, password), recoveryCodes[0]!)).body.data;
    const off = (body: { password: string; code: string }) => call<{ issues: { path: string }[] }>('POST', '/v1/systems/twoFactor/disable', { token: session.token, body });
    const wrongCode = await off({ password: await encrypt(session.key, password), code: '000000' });
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.body.data.issues.map((i) => i.path)).toEqual(['code']);
    const wrongPassword = await off({ password: await encrypt(session.key, 'nope-nope-1'), code: recoveryCodes[1]! });
    expect(wrongPassword.body.data.issues.map((i) => i.path)).toEqual(['password']);
    // A recovery code that is not one of the account's is refused like a wrong code.
    expect((await off({ password: await encrypt(session.key, password), code: 'abcde-fghjk' })).status).toBe(422);
    const done = await off({ password: await encrypt(session.key, password), code: recoveryCodes[1]! });
    expect(done.body.code, done.body.message).toBe(201);
    expect(await login(username, password)).toMatchObject({ twoFactorEnabled: false });
    expect((await findAccountByUsername(username))!.totpSecret).toBeUndefined();
  });

  it('lets an administrator reset another account’s two-factor login, which ends its session, within the rules of who manages whom', async () => {
    const target = await enrolledAccount();
    const session = (await secondStep(await firstStep(target.username, target.password), (await freshStep(), appCode(target.secret, hostNow() + PERIOD_MS)))).body.data;
    const stored = (await findAccountByUsername(target.username))!;

    // A sub-administrator holding fewer permissions than the target cannot.
    const sub = await newAccount(demo().tenantId, ['settings:account']);
    const subUser = await login(sub.username, sub.password);
    const refused = await call('DELETE', `/v1/accounts/${stored.accountId}/twoFactor`, { token: subUser.token, confirm: true });
    expect(refused.status).toBe(401);
    expect((await call('GET', '/v1/systems/me', { token: session.token })).status).toBe(200);
    // Nor does anyone reset their own here.
    const selfReset = await call('DELETE', `/v1/accounts/${(await findAccountByUsername(sub.username))!.accountId}/twoFactor`, { token: subUser.token, confirm: true });
    expect(selfReset.status).toBe(409);

    const admin = await login(demo().username, demo().password);
    // Like deleting an account, it asks for the administrator's password again.
    const unconfirmed = await call<{ reauth: string }>('DELETE', `/v1/accounts/${stored.accountId}/twoFactor`, { token: admin.token });
    expect(unconfirmed.status).toBe(401);
    expect(unconfirmed.body.data.reauth).toBe('required');
    expect((await call('GET', '/v1/systems/me', { token: session.token })).status).toBe(200);
    const reset = await call('DELETE', `/v1/accounts/${stored.accountId}/twoFactor`, { token: admin.token, confirm: true });
    expect(reset.body.code).toBe(204);
    expect((await call('GET', '/v1/systems/me', { token: session.token })).status).toBe(403);
    const after = (await findAccountByUsername(target.username))!;
    expect(after.totpSecret).toBeUndefined();
    expect(after.recoveryCodes).toBeUndefined();
    const plain = await login(target.username, target.password);
    expect(plain).toMatchObject({ twoFactorEnabled: false });
    // The reset is an administrator's change in the audit log.
    const changes = await call<{ items: { kind: string; action: string | null; target: Record<string, string> }[] }>('GET', `/v1/audit?username=${demo().username}&kind=change&pageSize=20`, { token: admin.token });
    expect(changes.body.data.items.some((e) => e.action === 'DELETE /v1/accounts/{accountKey}/twoFactor' && e.target.accountKey === stored.accountId)).toBe(true);
  });

  it('lets the owner require two-factor login, after which an account without it must enrol before anything else', async () => {
    const owner = await newCompany();
    const ownerAccount = (await findAccountByUsername(owner.username))!;
    const ownerUser = await login(owner.username, owner.password);
    const first = await call<{ issues: { path: string }[] }>('PUT', '/v1/settings/twoFactor', { token: ownerUser.token, body: { requireTwoFactor: true }, confirm: true });
    expect(first.status).toBe(422);
    expect(first.body.data.issues.map((i) => i.path)).toEqual(['requireTwoFactor']);
    const { secret } = await enrol(ownerUser, owner.password);
    const on = await call<{ requireTwoFactor: boolean }>('PUT', '/v1/settings/twoFactor', { token: ownerUser.token, body: { requireTwoFactor: true }, confirm: true });
    expect(on.body.code).toBe(201);
    expect(on.body.data).toMatchObject({ requireTwoFactor: true, canChange: true, ownEnabled: true });
    // The owner cannot turn its own off while it is required.
    expect((await call('POST', '/v1/systems/twoFactor/disable', { token: ownerUser.token, body: { password: await encrypt(ownerUser.key, owner.password), code: '123456' } })).status).toBe(409);

    // Another administrator with the privacy settings reads the rule but cannot change it.
    const other = await newAccount(ownerAccount.tenantId);
    const otherUser = await login(other.username, other.password);
    expect(otherUser.mustEnrolTwoFactor).toBe(true);
    expect((await call('GET', '/v1/settings/twoFactor', { token: otherUser.token })).status).toBe(401);
    const employees = await call('GET', '/v1/employees', { token: otherUser.token });
    expect(employees.status).toBe(401);
    expect(employees.body.message).toBe('Turn on two-factor login before going on');
    // What it may do: read itself and its menu, and enrol.
    expect((await call<UserInfo>('GET', '/v1/systems/me', { token: otherUser.token })).body.data).toMatchObject({ mustEnrolTwoFactor: true });
    expect((await call('GET', '/v1/systems/routes', { token: otherUser.token })).status).toBe(200);
    expect((await call<{ required: boolean }>('GET', '/v1/systems/twoFactor', { token: otherUser.token })).body.data).toMatchObject({ enabled: false, required: true });
    await enrol(otherUser, other.password);
    expect((await call('GET', '/v1/employees', { token: otherUser.token })).status).toBe(200);
    expect((await call<UserInfo>('GET', '/v1/systems/me', { token: otherUser.token })).body.data).toMatchObject({ mustEnrolTwoFactor: false, twoFactorEnabled: true });
    const read = await call<{ requireTwoFactor: boolean; canChange: boolean }>('GET', '/v1/settings/twoFactor', { token: otherUser.token });
    expect(read.body.data).toMatchObject({ requireTwoFactor: true, canChange: false, ownEnabled: true });
    const notOwner = await call('PUT', '/v1/settings/twoFactor', { token: otherUser.token, body: { requireTwoFactor: false }, confirm: true });
    expect(notOwner.status).toBe(401);

    // The owner turns it off again: a new account logs in as before.
    const ownerAgain = (await secondStep(await firstStep(owner.username, owner.password), (await freshStep(), appCode(secret, hostNow() + PERIOD_MS)))).body.data;
    // Without the password asked again, the requirement stays.
    const unconfirmed = await call<{ reauth?: string }>('PUT', '/v1/settings/twoFactor', { token: ownerAgain.token, body: { requireTwoFactor: false } });
    expect(unconfirmed.status).toBe(401);
    expect(unconfirmed.body.data.reauth).toBe('required');
    expect((await call<{ requireTwoFactor: boolean }>('GET', '/v1/settings/twoFactor', { token: ownerAgain.token })).body.data.requireTwoFactor).toBe(true);
    const confirmed = { 'x-confirm-password': await encrypt(ownerAgain.key, owner.password) };
    expect((await call('PUT', '/v1/settings/twoFactor', { token: ownerAgain.token, body: { requireTwoFactor: false }, headers: confirmed })).body.code).toBe(201);
    const third = await newAccount(ownerAccount.tenantId);
    expect(await login(third.username, third.password)).toMatchObject({ mustEnrolTwoFactor: false });
  });
});

describe('the test stack’s clock', () => {
  const clock = async () => ((await (await fetch(`${baseUrl()}/_local/clock`)).json()) as { data: { offsetMs: number } }).data.offsetMs;
  const move = (body: string) => fetch(`${baseUrl()}/_local/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('is moved by whole milliseconds within a year, and a refused move leaves it where it was', async () => {
    await setHostClock(45_000);
    expect(await clock()).toBe(45_000);
    for (const hostile of ['{"offsetMs":1e15}', '{"offsetMs":1.5}', '{"offsetMs":"60000"}', '{}', 'null', '[1]', '{"offsetMs":', 'x'.repeat(2000)]) {
      const answer = await move(hostile);
      expect(answer.status, hostile).toBe(422);
      expect(await clock(), hostile).toBe(45_000);
    }
    await setHostClock(0);
    expect(await clock()).toBe(0);
  });
});
