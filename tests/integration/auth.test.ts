import { describe, expect, it, inject } from 'vitest';
import { accounts } from '@passcloud/functions/data/accounts';
import { sessions } from '@passcloud/functions/data/sessions';
import { createAccount, findAccountByUsername } from '@passcloud/functions/data/identity';
import { sha256 } from '@passcloud/functions/lib/crypto';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { call, encrypt, login, loginAnswer, securityKey, unique, type UserInfo } from '../support/api.ts';

const demo = () => inject('demo');

async function newAccount(password = 'secret-pass-1', authCodes: string[] = [...AUTH_CODES]) {
  const username = unique('user');
  await createAccount(demo().tenantId, { username, password, authCodes: authCodes as never, email: `${username}@example.test` });
  return { username, password };
}

describe('login', () => {
  it('logs the demo admin in over RSA-OAEP and answers me and routes with the token', async () => {
    const user = await login(demo().username, demo().password);
    expect(user.token).toMatch(/^[a-z0-9]+\.[A-Za-z0-9_-]+$/);
    expect(user.userCode).toBe(demo().userCode);
    expect(user.companyName).toBe('Demo Company');
    expect(user.authCodes).toEqual([...AUTH_CODES]);

    const me = await call<UserInfo>('GET', '/v1/systems/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ code: 200, data: { username: 'admin', userCode: demo().userCode, key: user.key } });
    expect(me.body.data).not.toHaveProperty('token');

    const routes = await call<{ path: string }[]>('GET', '/v1/systems/routes', { token: user.token });
    expect(routes.status).toBe(200);
    expect(routes.body.data.map((r) => r.path)).toEqual(['/pass-platform', '/intercom-platform', '/settings']);
  });

  it('gives a wrong password and an unknown user the same 401 answer', async () => {
    const { username } = await newAccount();
    const wrong = await loginAnswer(username, 'not-the-password');
    const unknown = await loginAnswer(unique('nobody'), 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    // Both paths run the same scrypt verification, so their durations are of one size.
    expect(Math.abs(wrong.ms - unknown.ms)).toBeLessThan(Math.max(wrong.ms, unknown.ms) * 0.75 + 100);
  });

  it('throttles an account name after 5 failures, even for the right password, and unknown names alike', async () => {
    const { username, password } = await newAccount();
    const nobody = unique('ghost');
    for (let i = 0; i < 5; i++) {
      expect((await loginAnswer(username, `wrong-${i}-password`)).status).toBe(401);
      expect((await loginAnswer(nobody, `wrong-${i}-password`)).status).toBe(401);
    }
    const blocked = await loginAnswer(username, password);
    const blockedUnknown = await loginAnswer(nobody, password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/15 minutes/);
    expect(blockedUnknown.body).toEqual(blocked.body);
  });

  it('refuses a login key that was already used or never issued', async () => {
    const { securityId, publicKey } = await securityKey();
    const body = { securityId, account: await encrypt(publicKey, demo().username), password: await encrypt(publicKey, demo().password) };
    expect((await call('POST', '/v1/systems/login', { body })).status).toBe(200);
    const again = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/login', { body });
    expect(again.status).toBe(422);
    expect(again.body.data.issues.map((i) => i.path)).toEqual(['securityId']);
  });

  it('names each invalid field with 422', async () => {
    const answer = await call<{ issues: { path: string; message: string }[] }>('POST', '/v1/systems/login', { body: { securityId: 5 } });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path).sort()).toEqual(['account', 'password', 'securityId']);
    expect(answer.body.message).toBe('Some fields are not valid: Login key must be text; Username is required; Password is required');
  });

  it('translates validation messages into the caller’s language', async () => {
    const answer = await call<{ issues: { path: string; message: string }[] }>('POST', '/v1/systems/validateCodes', {
      body: { purpose: 'register', email: 'not-an-email' },
      locale: 'ja_JP',
    });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('email');
    expect(answer.body.data.issues[0]!.message).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  });

  it('answers a body that is not JSON with 422 naming the body', async () => {
    const answer = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/login', { body: '{nope' });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('body');
  });
});

describe('sessions', () => {
  it('turns the older token into 662 when the account logs in again, and logout into 403', async () => {
    const { username, password } = await newAccount();
    const first = await login(username, password);
    const second = await login(username, password);
    const replaced = await call('GET', '/v1/systems/me', { token: first.token });
    expect(replaced.status).toBe(401);
    expect(replaced.body.code).toBe(662);
    expect((await call('GET', '/v1/systems/me', { token: second.token })).status).toBe(200);

    const out = await call('POST', '/v1/systems/logout', { token: second.token });
    expect(out.body.code).toBe(204);
    const after = await call('GET', '/v1/systems/me', { token: second.token });
    expect(after.status).toBe(403);
    expect(after.body.code).toBe(403);
  });

  it('answers 666 once the session has been idle too long', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    const tokenHash = sha256(user.token);
    await sessions().patch({ tenantId: demo().tenantId, tokenHash }).set({ lastSeenAt: Date.now() - 3 * 3600_000 }).go();
    const answer = await call('GET', '/v1/systems/me', { token: user.token });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe(666);
    // The timed-out session is gone: the token is now simply unknown.
    expect((await call('GET', '/v1/systems/me', { token: user.token })).status).toBe(403);
  });

  it('answers 661 when the account is disabled or its permissions change', async () => {
    const a = await newAccount();
    const userA = await login(a.username, a.password);
    const accountA = (await findAccountByUsername(a.username))!;
    await accounts().patch({ tenantId: accountA.tenantId, accountId: accountA.accountId }).set({ disabled: true }).add({ authVersion: 1 }).go();
    const disabled = await call('GET', '/v1/systems/me', { token: userA.token });
    expect(disabled.status).toBe(401);
    expect(disabled.body.code).toBe(661);
    expect((await loginAnswer(a.username, a.password)).body.code).toBe(661);

    const b = await newAccount();
    const userB = await login(b.username, b.password);
    const accountB = (await findAccountByUsername(b.username))!;
    await accounts().patch({ tenantId: accountB.tenantId, accountId: accountB.accountId }).set({ authCodes: ['pass:dashboard'] }).add({ authVersion: 1 }).go();
    const changed = await call('GET', '/v1/systems/routes', { token: userB.token });
    expect(changed.body.code).toBe(661);
  });

  it('answers 403 to a missing, malformed or forged token', async () => {
    for (const token of [undefined, 'garbage', `${demo().tenantId}.${'A'.repeat(43)}`, `othertenant.${'B'.repeat(43)}`]) {
      const answer = await call('GET', '/v1/systems/me', token ? { token } : {});
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe(403);
    }
  });
});

describe('routes', () => {
  it('filters the menu by authCodes and drops groups left empty', async () => {
    const { username, password } = await newAccount('secret-pass-1', ['pass:employee', 'settings:mail']);
    const user = await login(username, password);
    const answer = await call<{ path: string; children?: { path: string; children?: { path: string }[] }[] }[]>('GET', '/v1/systems/routes', { token: user.token });
    const tree = answer.body.data;
    expect(tree.map((r) => r.path)).toEqual(['/pass-platform', '/settings']);
    const pass = tree[0]!;
    expect(pass.children!.map((c) => c.path)).toEqual(['/pass-platform/enterprise']);
    expect(pass.children![0]!.children!.map((c) => c.path)).toEqual(['/pass-platform/enterprise/employee']);
    expect(tree[1]!.children!.map((c) => c.path)).toEqual(['/settings/mail']);
  });
});

describe('change password', () => {
  it('changes the password with the session key and checks the original', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    const wrong = await call<{ issues: { path: string }[] }>('PATCH', '/v1/systems/reset', {
      token: user.token,
      body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword: 'not-it-at-all', newPassword: 'brand-new-pass' })) },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.data.issues[0]!.path).toBe('oldPassword');

    const short = await call<{ issues: { path: string }[] }>('PATCH', '/v1/systems/reset', {
      token: user.token,
      body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: 'short' })) },
    });
    expect(short.status).toBe(422);
    expect(short.body.data.issues[0]!.path).toBe('newPassword');
    expect((await loginAnswer(username, 'short')).status).toBe(401);

    const longest = '密'.repeat(64);
    const done = await call('PATCH', '/v1/systems/reset', {
      token: user.token,
      body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: longest })) },
    });
    expect(done.body.code).toBe(201);
    expect((await loginAnswer(username, password)).status).toBe(401);
    expect((await loginAnswer(username, longest)).status).toBe(200);
    // Accepted whole: a 63-character prefix is not the password.
    expect((await loginAnswer(username, longest.slice(0, 63))).status).toBe(401);
  });

  it('refuses a new password over 64 characters and leaves the old one working', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    const answer = await call<{ issues: { path: string }[] }>('PATCH', '/v1/systems/reset', {
      token: user.token,
      body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: 'x'.repeat(65) })) },
    });
    expect(answer.status).toBe(422);
    expect((await loginAnswer(username, password)).status).toBe(200);
  });
});

describe('password rules (ASVS V6.2)', () => {
  it('refuses one of the 3,000 most common passwords, in any case, naming the field, and leaves the old one working', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    for (const common of ['password1', 'QWERTY123', 'iloveyou']) {
      const answer = await call<{ issues: { path: string; message: string }[] }>('PATCH', '/v1/systems/reset', {
        token: user.token,
        locale: 'en_US',
        body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: common })) },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.data.issues).toEqual([{ path: 'newPassword', message: 'This is one of the most common passwords; choose another' }]);
      expect((await loginAnswer(username, common)).status).toBe(401);
    }
    expect((await loginAnswer(username, password)).status).toBe(200);
  });

  it('asks for no mix of character kinds: a long passphrase of lower-case words is accepted', async () => {
    const { username, password } = await newAccount();
    const user = await login(username, password);
    const passphrase = 'purple elephants dance quietly';
    const done = await call('PATCH', '/v1/systems/reset', {
      token: user.token,
      body: { payload: await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: passphrase })) },
    });
    expect(done.body.code).toBe(201);
    expect((await loginAnswer(username, passphrase)).status).toBe(200);
  });
});

describe('errors', () => {
  it('answers an unknown path with the 404 envelope', async () => {
    const answer = await call('GET', '/v1/nothing/here');
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 404, data: null });
    expect(answer.body.message).toContain('/v1/nothing/here');
  });

  it('serves the terms in each language', async () => {
    const en = await call<{ title: string; content: string }>('GET', '/v1/systems/terms?locale=en_US');
    const zh = await call<{ title: string; content: string }>('GET', '/v1/systems/terms?locale=zh_CN');
    const byHeader = await call<{ title: string }>('GET', '/v1/systems/terms', { locale: 'de-DE,de;q=0.9' });
    expect(en.body.data.title).toBe('Pass Cloud service terms');
    expect(zh.body.data.content).toMatch(/[\u4e00-\u9fff]/);
    expect(byHeader.body.data.title).not.toBe(en.body.data.title);
    expect((await call('GET', '/v1/systems/terms?locale=xx_XX')).status).toBe(422);
  });
});
