import { beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@passcloud/functions/data/identity';
import { routes } from '@passcloud/functions/routes';
import { call, confirmHeader, exportThroughJob, login, loginAnswer, newCompany, unique } from '../support/api.ts';

/**
 * ASVS V6 (re-authentication): changing the email settings, deleting an account and exporting
 * people need the caller's password again, sealed with the session's key; without it, or with a
 * wrong one, nothing is done.
 */

type Reauth = { reauth?: 'required' | 'wrong' };
interface Settings {
  recipients: string[];
  feverAlert: boolean;
  version: number;
}

let owner: { username: string; password: string };
let token: string;
let tenantId: string;

beforeAll(async () => {
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
});

const settings = async () => (await call<Settings>('GET', '/v1/settings/email', { token })).body.data;
/** A new session of the owner, in which no password was confirmed yet. */
async function freshSession(): Promise<void> {
  token = (await login(owner.username, owner.password)).token;
}

describe('re-authentication', () => {
  it('is asked by exactly the routes that change email settings, set door modes or their exemptions, delete accounts, reset another account’s two-factor login or the company’s requirement of it, change privacy settings, export people, make, readdress or rekey a webhook, and make, rekey or revoke an API key', () => {
    expect(routes.filter((route) => 'reauth' in route && route.reauth).map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /v1/employees/exports',
      'POST /v1/visitors/exports',
      // tests/integration/doorModes.test.ts holds these: a lockdown or open doors for every terminal, and who a lockdown lets pass.
      'PUT /v1/doorModes',
      'PUT /v1/doorModes/exemptions',
      'DELETE /v1/accounts/{accountKey}',
      // tests/integration/twoFactor.test.ts holds it.
      'DELETE /v1/accounts/{accountKey}/twoFactor',
      'PUT /v1/settings/privacy',
      'PUT /v1/settings/twoFactor',
      'PUT /v1/settings/email',
      // tests/integration/webhooks.test.ts holds these: a webhook's address receives people's passes, and its secret is shown.
      'POST /v1/webhooks',
      'PATCH /v1/webhooks/{webhookKey}',
      'POST /v1/webhooks/{webhookKey}/secret',
      // tests/integration/apiKeys.test.ts holds these: a key reaches the company's data, and its secret is shown.
      'POST /v1/apiKeys',
      'POST /v1/apiKeys/{apiKeyKey}/secret',
      'DELETE /v1/apiKeys/{apiKeyKey}',
    ]);
  });

  it('keeps the email settings unchanged without the password or with a wrong one, and saves them with the right one', async () => {
    await freshSession();
    const before = await settings();
    const body = { recipients: ['guard@example.test'], feverAlert: true, version: before.version };
    const missing = await call<Reauth>('PUT', '/v1/settings/email', { token, body, locale: 'en_US' });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: 401, message: 'Confirm your password to do this', data: { reauth: 'required' } });
    const wrong = await call<Reauth>('PUT', '/v1/settings/email', { token, body, headers: await confirmHeader(token, 'not-my-password') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.data.reauth).toBe('wrong');
    const garbage = await call<Reauth>('PUT', '/v1/settings/email', { token, body, headers: { 'x-confirm-password': 'x'.repeat(5000) } });
    expect(garbage.body.data.reauth).toBe('wrong');
    expect(await settings()).toEqual(before);

    const saved = await call('PUT', '/v1/settings/email', { token, body, confirm: true });
    expect(saved.body.code).toBe(201);
    expect(await settings()).toMatchObject({ recipients: ['guard@example.test'], feverAlert: true, version: before.version + 1 });

    // For the next five minutes the confirmed password covers this session's sensitive actions, not another session's.
    const again = await call('PUT', '/v1/settings/email', { token, body: { ...body, feverAlert: false, version: before.version + 1 } });
    expect(again.body.code).toBe(201);
    await freshSession();
    const elsewhere = await call<Reauth>('PUT', '/v1/settings/email', { token, body: { ...body, version: before.version + 2 } });
    expect(elsewhere.body.data.reauth).toBe('required');
  });

  it('checks the fields before asking for the password', async () => {
    const refused = await call<{ issues: { path: string }[] }>('PUT', '/v1/settings/email', { token, body: { recipients: ['not-an-address'], version: 0 } });
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues[0]!.path).toBe('recipients.0');
  });

  it('deletes an account only with the password, and throttles wrong ones in parallel like failed logins', async () => {
    await freshSession();
    const username = unique('doomed');
    await createAccount(tenantId, { username, password: 'doomed-pass-1', authCodes: ['settings:mail'] });
    const list = (await call<{ items: { accountKey: string; username: string; version: number }[] }>('GET', '/v1/accounts', { token })).body.data.items;
    const target = list.find((a) => a.username === username)!;
    const path = `/v1/accounts/${target.accountKey}?version=${target.version}`;
    expect((await call<Reauth>('DELETE', path, { token })).body.data.reauth).toBe('required');

    // An administrator signed in elsewhere, guessing: every guess counts against its own name, five at most are judged.
    const admin = unique('admin');
    await createAccount(tenantId, { username: admin, password: 'admin-pass-12', authCodes: ['settings:account'] });
    const adminToken = (await login(admin, 'admin-pass-12')).token;
    const guesses = await Promise.all(
      Array.from({ length: 12 }, async () => call<Reauth>('DELETE', path, { token: adminToken, headers: await confirmHeader(adminToken, 'guess-pass-1') })),
    );
    expect(guesses.filter((g) => g.status === 401)).toHaveLength(5);
    expect(guesses.filter((g) => g.status === 429)).toHaveLength(7);
    const right = await call('DELETE', path, { token: adminToken, confirm: true });
    expect(right.status).toBe(429);
    expect((await loginAnswer(username, 'doomed-pass-1')).status).toBe(200);

    const deleted = await call('DELETE', path, { token, confirm: true });
    expect(deleted.body.code).toBe(204);
    expect((await loginAnswer(username, 'doomed-pass-1')).status).toBe(401);
  });

  it('exports people only with the password', async () => {
    for (const kind of ['employees', 'visitors']) {
      await freshSession();
      const missing = await call<Reauth>('POST', `/v1/${kind}/exports`, { token, body: {} });
      expect(missing.status).toBe(401);
      expect(missing.body.data.reauth).toBe('required');
      const { job, bytes } = await exportThroughJob(token, `/v1/${kind}`, {});
      expect(job.state).toBe('done');
      // A workbook: a zip.
      expect(bytes.subarray(0, 2).toString()).toBe('PK');
    }
  });
});
