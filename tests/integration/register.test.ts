import { describe, expect, it, inject } from 'vitest';
import { createAccount, findAccountByUsername } from '@passcloud/functions/data/identity';
import { mailRecords } from '@passcloud/functions/data/mailRecords';
import { SYSTEM_SCOPE } from '@passcloud/functions/data/tables';
import { call, encrypt, latestCode, login, loginAnswer, mailsTo, registerTenant, securityKey, unique } from '../support/api.ts';

async function registerBody(username: string, email: string, code: string, password = 'correct-horse-9') {
  const { securityId, publicKey } = await securityKey();
  return { securityId, companyName: 'Acme Gates', username, email, password: await encrypt(publicKey, password), code, agree: true };
}

describe('register', () => {
  it('creates a company whose owner holds every authCode and a unique device binding code', async () => {
    const tenant = await registerTenant({ companyName: 'Acme Gates' });
    const owner = await login(tenant.username, tenant.password);
    expect(owner.companyName).toBe('Acme Gates');
    expect(owner.userCode).toMatch(/^[A-Z2-9]{8}$/);
    expect(owner.userCode).not.toBe(inject('demo').userCode);
    const routes = await call<{ path: string }[]>('GET', '/v1/systems/routes', { token: owner.token });
    expect(routes.body.data.map((r) => r.path)).toEqual(['/pass-platform', '/intercom-platform', '/settings']);
  });

  it('records the code mail under the system scope', async () => {
    const email = `${unique('rec')}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const records = await mailRecords().query.primary({ tenantId: SYSTEM_SCOPE }).go({ pages: 'all' });
    const mine = records.data.filter((r) => r.to === email);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: 'sent', kind: 'verification', title: 'Your Pass Cloud verification code' });
  });

  it('mails the code in the caller’s language', async () => {
    const email = `${unique('ko')}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email }, locale: 'ko_KR' });
    const [mail] = await mailsTo(email);
    expect(mail!.subject).toMatch(/[\uac00-\ud7af]/);
  });

  it('refuses a second code request within a minute', async () => {
    const email = `${unique('wait')}@example.test`;
    expect((await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } })).status).toBe(200);
    const again = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    expect(again.status).toBe(429);
    expect(await mailsTo(email)).toHaveLength(1);
  });

  it('refuses a wrong code and creates nothing', async () => {
    const username = unique('wrong');
    const email = `${username}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const code = await latestCode(email);
    const bad = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const answer = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', { body: await registerBody(username, email, bad) });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('code');
    expect(await findAccountByUsername(username)).toBeUndefined();
    // The right code still works after one wrong try.
    const ok = await call('POST', '/v1/systems/register', { body: await registerBody(username, email, code) });
    expect(ok.body.code).toBe(201);
  });

  it('answers 409 naming username when it is taken, and keeps the code usable', async () => {
    const email = `${unique('dup')}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const code = await latestCode(email);
    const taken = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', { body: await registerBody('admin', email, code) });
    expect(taken.status).toBe(409);
    expect(taken.body.data.issues[0]!.path).toBe('username');
    const fresh = unique('fresh');
    expect((await call('POST', '/v1/systems/register', { body: await registerBody(fresh, email, code) })).body.code).toBe(201);
  });

  it('requires agreement, a company name and a valid email', async () => {
    const answer = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', {
      body: { securityId: 'x', companyName: '', username: 'ab', email: 'nope', password: 'x', code: '12', agree: false },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path).sort()).toEqual(['agree', 'code', 'companyName', 'email', 'username']);
  });

  it('refuses a password shorter than 8 characters', async () => {
    const username = unique('shortpw');
    const email = `${username}@example.test`;
    await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
    const answer = await call<{ issues: { path: string }[] }>('POST', '/v1/systems/register', {
      body: await registerBody(username, email, await latestCode(email), 'short'),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('password');
    expect(await findAccountByUsername(username)).toBeUndefined();
  });
});

describe('password recovery', () => {
  it('mails a code to the registered address, checks it, sets the new password and ends the session', async () => {
    const tenant = await registerTenant();
    const session = await login(tenant.username, tenant.password);
    expect((await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username: tenant.username } })).status).toBe(200);
    const code = await latestCode(tenant.email);

    const wrong = await call('POST', '/v1/systems/retrieve', { body: { username: tenant.username, code: code === '000000' ? '111111' : '000000' } });
    expect(wrong.status).toBe(422);
    const check = await call('POST', '/v1/systems/retrieve', { body: { username: tenant.username, code } });
    expect(check.body).toMatchObject({ code: 200, data: { valid: true } });

    const { securityId, publicKey } = await securityKey();
    const set = await call('PATCH', '/v1/systems/retrieve', {
      body: { securityId, username: tenant.username, code, newPassword: await encrypt(publicKey, 'recovered-pass-7') },
    });
    expect(set.body.code).toBe(201);
    expect((await call('GET', '/v1/systems/me', { token: session.token })).status).toBe(403);
    expect((await loginAnswer(tenant.username, tenant.password)).status).toBe(401);
    expect((await loginAnswer(tenant.username, 'recovered-pass-7')).status).toBe(200);

    // The code is used up.
    const { securityId: s2, publicKey: k2 } = await securityKey();
    const reuse = await call('PATCH', '/v1/systems/retrieve', { body: { securityId: s2, username: tenant.username, code, newPassword: await encrypt(k2, 'another-pass-8') } });
    expect(reuse.status).toBe(422);
  });

  it('answers an unknown username exactly as a known one, and mails nothing', async () => {
    const tenant = await registerTenant();
    const before = (await call<unknown[]>('GET', '/_local/mails')).body.data.length;
    const known = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username: tenant.username } });
    const unknown = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username: unique('nobody') } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    expect(Math.abs(known.ms - unknown.ms)).toBeLessThan(400);
    const after = (await call<unknown[]>('GET', '/_local/mails')).body.data.length;
    expect(after - before).toBe(1);
  });

  it('answers a known username whose mail cannot be sent exactly as an unknown one, and keeps the resend wait', async () => {
    const tenant = await registerTenant();
    const session = await login(tenant.username, tenant.password);
    const username = unique('bounced');
    await createAccount(session.token.split('.')[0]!, { username, password: 'bounced-pass-1', authCodes: [], email: `${username}@mail.invalid` });
    const nobody = unique('nobody');
    const known = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } });
    const unknown = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username: nobody } });
    expect(known.status).toBe(200);
    expect(known.body).toEqual(unknown.body);
    const [knownAgain, unknownAgain] = await Promise.all([
      call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username } }),
      call('POST', '/v1/systems/validateCodes', { body: { purpose: 'retrieve', username: nobody } }),
    ]);
    expect(knownAgain.status).toBe(429);
    expect(knownAgain.status).toBe(unknownAgain.status);
  });
});

describe('local mails', () => {
  it('is answered only on the local host path and refuses other methods', async () => {
    expect((await call('POST', '/_local/mails')).status).toBe(404);
  });
});
