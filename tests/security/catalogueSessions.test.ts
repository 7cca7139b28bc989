import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@passcloud/functions/routes';
import { createAccount } from '@passcloud/functions/data/identity';
import { sessions } from '@passcloud/functions/data/sessions';
import { sha256 } from '@passcloud/functions/lib/crypto';
import { call, encrypt, login, loginAnswer, newCompany, unique } from '../support/api.ts';

/**
 * The security catalogue, sessions (OWASP ASVS 5.0 V7): a session ends on logout, when its
 * account is disabled, deleted, its permissions or its password change, after being idle and at
 * its absolute end; sensitive actions ask for the password again.
 */

let owner: { token: string };
let tenantId: string;

beforeAll(async () => {
  const made = await newCompany();
  owner = await login(made.username, made.password);
  tenantId = owner.token.split('.')[0]!;
});

/** An account of the company, logged in: its key, name, password and token. */
async function loggedIn(authCodes: string[] = ['pass:dashboard', 'pass:visitor']) {
  const username = unique('sess');
  const password = 'session-pass-1';
  const accountKey = await createAccount(tenantId, { username, password, authCodes: authCodes as never, email: `${username}@example.test` });
  const user = await login(username, password);
  return { accountKey, username, password, token: user.token, key: user.key };
}

const me = (token: string) => call('GET', '/v1/systems/me', { token });
const version = async (accountKey: string) => (await call<{ version: number }>('GET', `/v1/accounts/${accountKey}`, { token: owner.token })).body.data.version;
const sessionKey = (token: string) => ({ tenantId: token.split('.')[0]!, tokenHash: sha256(token) });

describe('V7.4 session termination', () => {
  it('V7.4.1 logout ends the session: the token answers 403 afterwards', async () => {
    const user = await loggedIn();
    expect((await me(user.token)).body.code).toBe(200);
    expect((await call('POST', '/v1/systems/logout', { token: user.token })).body.code).toBe(204);
    expect((await me(user.token)).status).toBe(403);
    expect((await sessions().get(sessionKey(user.token)).go()).data).toBeNull();
  });

  it('V7.4.2 disabling the account ends its session', async () => {
    const user = await loggedIn();
    await call('PATCH', `/v1/accounts/${user.accountKey}`, { token: owner.token, body: { disabled: true, version: await version(user.accountKey) } });
    expect((await me(user.token)).body.code).toBe(661);
    expect((await loginAnswer(user.username, user.password)).status).not.toBe(200);
  });

  it('V7.4.2 deleting the account ends its session', async () => {
    const user = await loggedIn();
    const deleted = await call('DELETE', `/v1/accounts/${user.accountKey}?version=${await version(user.accountKey)}`, { token: owner.token, confirm: true });
    expect(deleted.body.code).toBe(204);
    expect((await me(user.token)).body.code).toBe(661);
    expect((await loginAnswer(user.username, user.password)).status).toBe(401);
  });

  it('V8.3.2 a change of permissions ends the session at once', async () => {
    const user = await loggedIn();
    expect((await call('GET', '/v1/visitors', { token: user.token })).body.code).toBe(200);
    await call('PATCH', `/v1/accounts/${user.accountKey}`, {
      token: owner.token,
      body: { authCodes: ['pass:dashboard'], version: await version(user.accountKey) },
    });
    expect((await call('GET', '/v1/visitors', { token: user.token })).body.code).toBe(661);
  });

  it('V7.4.3 a password reset by an administrator ends the session', async () => {
    const user = await loggedIn();
    const reset = await call('POST', `/v1/accounts/${user.accountKey}/password`, { token: owner.token, body: { invite: true } });
    expect(reset.body.code, reset.body.message).toBe(201);
    expect([661, 403]).toContain((await me(user.token)).body.code);
  });

  it('V7.4.3 changing one’s own password ends every other session of the account, and a new login replaces an old one', async () => {
    const user = await loggedIn();
    const second = await login(user.username, user.password);
    // One live session per account: the newer login has replaced the older one (662).
    expect((await me(user.token)).body.code).toBe(662);
    const changed = await call('PATCH', '/v1/systems/reset', {
      token: second.token,
      body: { payload: await encrypt(second.key, JSON.stringify({ oldPassword: user.password, newPassword: 'a-new-session-pass-2' })) },
    });
    expect(changed.body.code).toBe(201);
    expect((await me(user.token)).status).not.toBe(200);
    expect((await loginAnswer(user.username, user.password)).status).toBe(401);
    expect((await loginAnswer(user.username, 'a-new-session-pass-2')).status).toBe(200);
  });
});

describe('V7.3 session timeout', () => {
  it('V7.3.1 a session unused for longer than SESSION_IDLE_MINUTES answers 666 and is removed', async () => {
    const user = await loggedIn();
    const idleMinutes = Number(process.env.SESSION_IDLE_MINUTES ?? 120);
    await sessions()
      .patch(sessionKey(user.token))
      .set({ lastSeenAt: Date.now() - idleMinutes * 60_000 - 1000 })
      .go();
    expect((await me(user.token)).body.code).toBe(666);
    expect((await sessions().get(sessionKey(user.token)).go()).data).toBeNull();
  });

  it('V7.3.1 a session used within the idle time lives on', async () => {
    const user = await loggedIn();
    const idleMinutes = Number(process.env.SESSION_IDLE_MINUTES ?? 120);
    await sessions()
      .patch(sessionKey(user.token))
      .set({ lastSeenAt: Date.now() - idleMinutes * 60_000 + 60_000 })
      .go();
    expect((await me(user.token)).body.code).toBe(200);
  });

  it('V7.3.2 a session older than SESSION_MAX_MINUTES answers 666 however recently it was used', async () => {
    const user = await loggedIn();
    const maxMinutes = Number(process.env.SESSION_MAX_MINUTES ?? 720);
    const created = Date.now() - maxMinutes * 60_000 - 1000;
    await sessions()
      .patch(sessionKey(user.token))
      .set({ createdAt: created, expiresAt: created + maxMinutes * 60_000, lastSeenAt: Date.now() })
      .go();
    expect((await me(user.token)).body.code).toBe(666);
  });

  it('V7.3.2 a login’s session ends SESSION_MAX_MINUTES after it began', async () => {
    const user = await loggedIn();
    const session = (await sessions().get(sessionKey(user.token)).go()).data!;
    expect(session.expiresAt - session.createdAt).toBe(Number(process.env.SESSION_MAX_MINUTES ?? 720) * 60_000);
  });
});

describe('V7.5 re-authentication before sensitive actions', () => {
  it('V7.5.1 / V7.5.3 the email settings, deleting an account and exporting people ask for the password', async () => {
    expect(routes.filter((r) => 'reauth' in r && r.reauth).map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['PUT /v1/settings/email', 'DELETE /v1/accounts/{accountKey}', 'POST /v1/employees/exports', 'POST /v1/visitors/exports', 'PUT /v1/settings/twoFactor']),
    );
    const fresh = await login((await newCompany()).username, 'correct-horse-9');
    const victim = await createAccount(fresh.token.split('.')[0]!, { username: unique('keep'), password: 'session-pass-1', authCodes: [] });
    const settings = (await call<{ version: number }>('GET', '/v1/settings/email', { token: fresh.token })).body.data;
    const asked = [
      await call('PUT', '/v1/settings/email', {
        token: fresh.token,
        body: { senderName: 'No', recipients: ['x@example.test'], feverAlert: true, version: settings.version },
      }),
      await call('DELETE', `/v1/accounts/${victim}?version=1`, { token: fresh.token }),
      await call('POST', '/v1/employees/exports', { token: fresh.token, body: {} }),
      await call('POST', '/v1/visitors/exports', { token: fresh.token, body: {} }),
    ];
    for (const answer of asked) {
      expect(answer.status).toBe(401);
      expect(answer.body.data).toMatchObject({ reauth: 'required' });
    }
    expect((await call('GET', `/v1/accounts/${victim}`, { token: fresh.token })).body.code).toBe(200);
    // With the password, each is done.
    expect((await call('POST', '/v1/employees/exports', { token: fresh.token, body: {}, confirm: true })).body.code).toBe(202);
    expect((await call('DELETE', `/v1/accounts/${victim}?version=1`, { token: fresh.token, confirm: true })).body.code).toBe(204);
  });
});
