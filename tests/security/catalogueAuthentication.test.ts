import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@passcloud/functions/data/identity';
import { throttles } from '@passcloud/functions/data/throttles';
import { SYSTEM_SCOPE } from '@passcloud/functions/data/tables';
import { THROTTLES, throttleLimit } from '@passcloud/functions/domain/throttle';
import { call, encrypt, login, loginAnswer, newCompany, securityKey, unique, latestCode } from '../support/api.ts';
import { commonPasswords } from '../support/commonPasswords.ts';

/**
 * The security catalogue, authentication (OWASP ASVS 5.0 V6): throttled logins without a
 * permanent lockout, no user enumeration, and the password rules.
 */

let tenantId: string;
beforeAll(async () => {
  const owner = await newCompany();
  tenantId = (await login(owner.username, owner.password)).token.split('.')[0]!;
});

async function newAccount(password = 'catalogue-pass-1'): Promise<{ username: string; password: string }> {
  const username = unique('cat');
  await createAccount(tenantId, { username, password, authCodes: [] });
  return { username, password };
}

const counterKey = (scope: 'account' | 'address', subject: string) => ({ tenantId: SYSTEM_SCOPE, scope, subject });
const counter = async (scope: 'account' | 'address', subject: string) => (await throttles().get(counterKey(scope, subject)).go({ consistent: true })).data;
/** Moves a throttle window's end into the past, as 15 minutes passing would. */
async function endWindow(scope: 'account' | 'address', subject: string): Promise<void> {
  await throttles()
    .patch(counterKey(scope, subject))
    .set({ windowEndsAt: Date.now() - 1 })
    .go();
}

/** The address counter of this machine is put back as it was after each test that moves it. */
let addressBefore: Awaited<ReturnType<typeof counter>> | undefined | null = null;
afterEach(async () => {
  if (addressBefore === null) return;
  if (addressBefore)
    await throttles()
      .put({ ...addressBefore })
      .go();
  else await throttles().delete(counterKey('address', '127.0.0.1')).go();
  addressBefore = null;
});

describe('V6.3.1 / V6.1.1 login throttling well before 100 failures, without a permanent lockout', () => {
  it('V6.3.1 limits failures per account name and per address well under 100 by default', () => {
    expect(THROTTLES.account.limit).toBeLessThanOrEqual(10);
    expect(THROTTLES.address.limit).toBeLessThan(100);
    expect(THROTTLES.account.windowMs).toBeLessThanOrEqual(60 * 60_000);
    expect(THROTTLES.address.windowMs).toBeLessThanOrEqual(60 * 60_000);
  });

  it('V6.3.1 per account: after the limit even the right password answers 429; V6.1.1 once the window ends it logs in again', async () => {
    const { username, password } = await newAccount();
    const limit = throttleLimit('account');
    for (let i = 0; i < limit; i++) expect((await loginAnswer(username, `wrong-password-${i}`)).status).toBe(401);
    const blocked = await loginAnswer(username, password);
    expect(blocked.status).toBe(429);
    // Another account from the same address is not locked out by it.
    const other = await newAccount();
    expect((await loginAnswer(other.username, other.password)).status).toBe(200);
    await endWindow('account', username.toLowerCase());
    expect((await loginAnswer(username, password)).status).toBe(200);
  });

  it('V6.3.1 per address: past the address limit a right password of any account answers 429; V6.1.1 once the window ends it logs in again', async () => {
    const { username, password } = await newAccount();
    addressBefore = (await counter('address', '127.0.0.1')) ?? undefined;
    const limit = throttleLimit('address');
    await throttles()
      .put({ ...counterKey('address', '127.0.0.1'), failures: limit - 1, windowEndsAt: Date.now() + 60_000, ttl: Math.floor(Date.now() / 1000) + 600 })
      .go();
    // The last failure the address may make, under a name never seen.
    expect((await loginAnswer(unique('nobody'), 'not-the-password')).status).toBe(401);
    expect((await loginAnswer(username, password)).status).toBe(429);
    await endWindow('address', '127.0.0.1');
    expect((await loginAnswer(username, password)).status).toBe(200);
  });
});

describe('V6.3.8 no user enumeration by answer or by timing', () => {
  it('V6.3.8 a wrong password of a known name and any password of an unknown name answer alike', async () => {
    const { username } = await newAccount();
    const known = await loginAnswer(username, 'not-the-password');
    const unknown = await loginAnswer(unique('nobody'), 'not-the-password');
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
  });

  it('V6.3.8 asking for a password reset code answers a known and an unknown name alike', async () => {
    const { username } = await newAccount();
    const known = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } });
    const unknown = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username: unique('nobody') } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
  });

  it('V6.3.8 the median time of 50 wrong logins differs by under 10 ms between a known and an unknown name', async () => {
    const { username } = await newAccount();
    const times = { known: [] as number[], unknown: [] as number[] };
    const tryOnce = async (name: string) => {
      const { securityId, publicKey } = await securityKey();
      const body = { securityId, account: await encrypt(publicKey, name), password: await encrypt(publicKey, 'not-the-password-at-all') };
      const answer = await call('POST', '/v1/systems/login', { body });
      expect(answer.status).toBe(401);
      // The account limit would answer 429 early: each try starts from a fresh window.
      await throttles().delete(counterKey('account', name.toLowerCase())).go();
      return answer.ms;
    };
    addressBefore = (await counter('address', '127.0.0.1')) ?? undefined;
    // Warm up both paths, then interleave so that load on the machine falls on both alike.
    await tryOnce(username);
    await tryOnce(unique('nobody'));
    for (let i = 0; i < 50; i++) {
      times.known.push(await tryOnce(username));
      times.unknown.push(await tryOnce(unique('nobody')));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    expect(Math.abs(median(times.known) - median(times.unknown))).toBeLessThan(10);
  }, 300_000);
});

describe('V6.2 password rules', () => {
  const changePassword = async (user: { token: string; key: string }, oldPassword: string, newPassword: string) =>
    call<{ issues: { path: string }[] }>('PATCH', '/v1/systems/reset', {
      token: user.token,
      body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword, newPassword })) },
    });

  it('V6.2.9 / V6.2.8 a 64-character password is kept whole: neither a prefix nor another case logs in', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    const long = `Aa1-${'x'.repeat(59)}Z`;
    expect(long).toHaveLength(64);
    expect((await changePassword(user, password, long)).body.code).toBe(201);
    expect((await loginAnswer(username, long.slice(0, 63))).status).toBe(401);
    expect((await loginAnswer(username, long.toLowerCase())).status).toBe(401);
    expect((await loginAnswer(username, long)).status).toBe(200);
  });

  it('V6.2.4 the most common passwords are refused at password change and at registration, naming the field', async () => {
    const list = commonPasswords().filter((p) => p.length >= 8 && p.length <= 64);
    const samples = [list[0]!, list[Math.floor(list.length / 2)]!, list.at(-1)!];
    const { username, password } = await newAccount();
    const user = await login(username, password);
    for (const common of samples) {
      const answer = await changePassword(user, password, common.toUpperCase());
      expect(answer.status, common).toBe(422);
      expect(answer.body.data.issues[0]!.path).toBe('newPassword');
    }
    const email = `${unique('reg')}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const { securityId, publicKey } = await securityKey();
    const registered = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', {
      body: {
        securityId,
        companyName: 'Common Co',
        username: unique('reg'),
        email,
        password: await encrypt(publicKey, samples[1]!),
        code: await latestCode(email),
        agree: true,
      },
    });
    expect(registered.status).toBe(422);
    expect(registered.body.data.issues.map((i) => i.path)).toContain('password');
  });

  it('V6.2.5 no composition rules: lower-case words only, digits only and one script only are all accepted', async () => {
    const { username, password } = await newAccount();
    let current = password;
    for (const chosen of ['correct horse battery staple', '73019284651', 'пароль-для-входа', '通行证密码很长的一句话']) {
      const user = await login(username, current);
      const answer = await changePassword(user, current, chosen);
      expect(answer.body.code, `${chosen}: ${answer.body.message}`).toBe(201);
      current = chosen;
    }
    expect((await loginAnswer(username, current)).status).toBe(200);
  }, 120_000);
});
