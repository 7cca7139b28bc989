import { describe, expect, it, inject } from 'vitest';
import { countAttempt, createAccount, findAccountByUsername } from '@passcloud/functions/data/identity';
import { mailRecords } from '@passcloud/functions/data/mailRecords';
import { SYSTEM_SCOPE } from '@passcloud/functions/data/tables';
import { throttles } from '@passcloud/functions/data/throttles';
import { verificationCodes } from '@passcloud/functions/data/verificationCodes';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { CODE_MAX_ATTEMPTS } from '@passcloud/functions/domain/verification';
import { call, encrypt, latestCode, login, loginAnswer, mailsTo, securityKey, unique } from '../support/api.ts';

const demo = () => inject('demo');

async function newAccount(password = 'secret-pass-1') {
  const username = unique('race');
  const email = `${username}@example.test`;
  await createAccount(demo().tenantId, { username, password, authCodes: [...AUTH_CODES], email });
  return { username, password, email };
}

const otherCode = (code: string, n: number) => String((Number(code) + 1 + n) % 1_000_000).padStart(6, '0');
const statuses = (answers: { status: number }[]) => answers.map((a) => a.status).sort((a, b) => a - b);
const count = (list: number[], value: number) => list.filter((v) => v === value).length;

async function resetBody(username: string, code: string, newPassword: string) {
  const { securityId, publicKey } = await securityKey();
  return { securityId, username, code, newPassword: await encrypt(publicKey, newPassword) };
}

async function requestRecoveryCode(username: string, email: string): Promise<string> {
  const sent = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } });
  expect(sent.status).toBe(200);
  return latestCode(email);
}

/** Moves a stored code's creation a minute and more into the past, as if the resend wait were over. */
async function ageCode(purpose: 'register' | 'retrieve', subject: string) {
  await verificationCodes()
    .patch({ tenantId: SYSTEM_SCOPE, purpose, subject: subject.toLowerCase() })
    .set({ createdAt: Date.now() - 61_000 })
    .go();
}

describe('recovery codes under parallel guessing', () => {
  it('counts every guess before comparing: after 50 parallel wrong guesses the right code is refused and the password stays', async () => {
    const { username, password, email } = await newAccount();
    const session = await login(username, password);
    const code = await requestRecoveryCode(username, email);

    const guesses = await Promise.all(
      Array.from({ length: 50 }, (_, n) => call('POST', '/v1/systems/retrieve', { body: { username, code: otherCode(code, n) } })),
    );
    expect(guesses.every((g) => g.status === 422)).toBe(true);
    const stored = (await verificationCodes().get({ tenantId: SYSTEM_SCOPE, purpose: 'retrieve', subject: username.toLowerCase() }).go()).data;
    expect(stored?.attempts).toBe(CODE_MAX_ATTEMPTS);

    const right = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/retrieve', { body: { username, code } });
    expect(right.status).toBe(422);
    expect(right.body.data.issues[0]!.path).toBe('code');
    const set = await call('PATCH', '/v1/systems/retrieve', { body: await resetBody(username, code, 'taken-over-pass-1') });
    expect(set.status).toBe(422);
    // Nothing changed: the old password still logs in and the owner's session was not ended.
    expect((await call('GET', '/v1/systems/me', { token: session.token })).status).toBe(200);
    expect((await loginAnswer(username, password)).status).toBe(200);
  });

  it('lets the right code change the password only once when it is sent in parallel', async () => {
    const { username, email } = await newAccount();
    const code = await requestRecoveryCode(username, email);
    const bodies = await Promise.all(Array.from({ length: 4 }, (_, n) => resetBody(username, code, `parallel-pass-${n}x`)));
    const answers = await Promise.all(bodies.map((body) => call('PATCH', '/v1/systems/retrieve', { body })));
    expect(count(statuses(answers), 200)).toBe(1);
    expect(count(statuses(answers), 422)).toBe(3);
  });

  it('keeps a used-up code, so the resend wait still holds after the last wrong try', async () => {
    const { username, email } = await newAccount();
    const code = await requestRecoveryCode(username, email);
    for (let n = 0; n < CODE_MAX_ATTEMPTS; n++) await call('POST', '/v1/systems/retrieve', { body: { username, code: otherCode(code, n) } });
    const again = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } });
    expect(again.status).toBe(429);
    expect(await mailsTo(email)).toHaveLength(1);
  });

  it('caps the codes made for one account in a day', async () => {
    const { username, email } = await newAccount();
    for (let n = 0; n < 10; n++) {
      const sent = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } });
      expect(sent.status).toBe(200);
      await ageCode('retrieve', username);
    }
    const capped = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } });
    expect(capped.status).toBe(429);
    expect(capped.body.message).toMatch(/today/);
    expect(await mailsTo(email)).toHaveLength(10);
  });

  it('keeps codes masked in the mail records', async () => {
    const email = `${unique('mask')}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const code = await latestCode(email);
    const records = (await mailRecords().query.primary({ tenantId: SYSTEM_SCOPE }).go({ pages: 'all' })).data.filter((r) => r.to === email);
    expect(records).toHaveLength(1);
    expect(records[0]!.content).not.toContain(code);
    expect(records[0]!.content).toContain('******');
  });

  it('tells the user when the code mail could not be sent, and lets them ask again at once', async () => {
    const email = `${unique('bounce')}@mail.invalid`;
    const first = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    expect(first.status).toBe(503);
    expect(first.body.message).toMatch(/could not be sent/);
    const again = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    expect(again.status).toBe(503);
    const records = (await mailRecords().query.primary({ tenantId: SYSTEM_SCOPE }).go({ pages: 'all' })).data.filter((r) => r.to === email);
    expect(records.map((r) => r.status)).toEqual(['failed', 'failed']);
  });
});

describe('login under parallel guessing', () => {
  it('evaluates at most 5 of 30 parallel wrong passwords, then refuses the right one with 429', async () => {
    const { username, password } = await newAccount();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => loginAnswer(username, `wrong-password-${n}`)));
    const codes = statuses(answers);
    expect(count(codes, 401)).toBe(5);
    expect(count(codes, 429)).toBe(25);
    const right = await loginAnswer(username, password);
    expect(right.status).toBe(429);
  });

  it('spends a login key on its first use, even a failed one', async () => {
    const { username, password } = await newAccount();
    const { securityId, publicKey } = await securityKey();
    const wrong = await call('POST', '/v1/systems/login', {
      body: { securityId, account: await encrypt(publicKey, username), password: await encrypt(publicKey, 'not-the-password') },
    });
    expect(wrong.status).toBe(401);
    const reused = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/login', {
      body: { securityId, account: await encrypt(publicKey, username), password: await encrypt(publicKey, password) },
    });
    expect(reused.status).toBe(422);
    expect(reused.body.data.issues[0]!.path).toBe('securityId');
  });

  it('counts failures by the connection’s address, whatever CloudFront header the client sends', async () => {
    const failures = async (subject: string) =>
      (await throttles().get({ tenantId: SYSTEM_SCOPE, scope: 'address', subject }).go({ consistent: true })).data?.failures ?? 0;
    const before = await failures('127.0.0.1');
    const rotated = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
    for (const address of rotated) {
      const { securityId, publicKey } = await securityKey();
      const answer = await call('POST', '/v1/systems/login', {
        body: { securityId, account: await encrypt(publicKey, unique('nobody')), password: await encrypt(publicKey, 'not-the-password') },
        headers: { 'cloudfront-viewer-address': `${address}:443`, 'x-forwarded-for': address },
      });
      expect(answer.status).toBe(401);
    }
    expect(await failures('127.0.0.1')).toBe(before + rotated.length);
    for (const address of rotated) expect(await failures(address)).toBe(0);
  });
});

describe('attempt limits', () => {
  it('holds a limit under 40 parallel attempts: exactly the limit pass', async () => {
    const subject = unique('parallel');
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => countAttempt('codesPerDay', subject)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(30);
    expect(refused.every((r) => (r.reason as { code?: number }).code === 429)).toBe(true);
  });
});

describe('register', () => {
  it('checks the code before telling whether a username is taken', async () => {
    const email = `${unique('probe')}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const code = await latestCode(email);
    const body = async (username: string, withCode: string) => {
      const { securityId, publicKey } = await securityKey();
      return { securityId, companyName: 'Probe Inc', username, email, password: await encrypt(publicKey, 'correct-horse-9'), code: withCode, agree: true };
    };
    const probe = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', { body: await body('admin', otherCode(code, 0)) });
    expect(probe.status).toBe(422);
    expect(probe.body.data.issues.map((i) => i.path)).toEqual(['code']);
    const unknownProbe = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', { body: await body(unique('free'), otherCode(code, 1)) });
    expect(unknownProbe.body).toEqual(probe.body);
    // With the valid code the taken name is named.
    const taken = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', { body: await body('admin', code) });
    expect(taken.status).toBe(409);
    expect(taken.body.data.issues[0]!.path).toBe('username');
    expect((await findAccountByUsername('admin'))?.tenantId).toBe(demo().tenantId);
  });
});
