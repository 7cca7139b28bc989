import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { freePort } from '@passcloud/infra/local/standins';
import { call, login, mailsTo, registerTenant, unique } from '../support/api.ts';
import { startTestSmtp } from '../support/smtp.ts';

interface Settings {
  senderAddress: string | null;
  senderName: string | null;
  host: string | null;
  port: number | null;
  tlsMode: string;
  username: string | null;
  passwordSet: boolean;
  recipients: string[];
  feverAlert: boolean;
  attendanceSummary: boolean;
  attendanceSummaryTime: string;
  version: number;
  updateTime: string | null;
}
type Issues = { issues: { path: string; message: string }[] };
interface TestAnswer {
  ok: boolean;
  error: string | null;
  to: string;
  mailKey: string;
}

const PASSWORD = 'smtp-Secret-42!';
const sinkPort = () => Number(inject('localEnv').SMTP_PORT);

async function company() {
  const owner = await registerTenant();
  const token = (await login(owner.username, owner.password)).token;
  return { token, tenantId: token.split('.')[0]!, email: owner.email };
}

const read = async (token: string) => (await call<Settings>('GET', '/v1/settings/email', { token })).body.data;
const save = (token: string, body: Record<string, unknown>) => call<Settings & Issues>('PUT', '/v1/settings/email', { token, body });
const sendTest = (token: string, body: Record<string, unknown> = {}) => call<TestAnswer & Issues>('POST', '/v1/settings/email/test', { token, body });

/** The stored item itself, as DynamoDB holds it. */
async function storedItem(tenantId: string): Promise<Record<string, unknown>> {
  return (await dynamo().send(new GetCommand({ TableName: tableName(MAIN_TABLE), Key: { pk: tenantId, sk: 'settings#email' } }))).Item ?? {};
}

function smtpBody(port: number, over: Record<string, unknown> = {}) {
  return {
    senderAddress: 'alerts@company.test',
    senderName: 'Acme Alerts',
    host: '127.0.0.1',
    port,
    tlsMode: 'none',
    username: 'mailer',
    password: PASSWORD,
    recipients: ['guard@company.test', 'hr@company.test'],
    feverAlert: true,
    attendanceSummary: true,
    attendanceSummaryTime: '17:30',
    ...over,
  };
}

describe('email settings', () => {
  let tenant: Awaited<ReturnType<typeof company>>;
  beforeAll(async () => {
    tenant = await company();
  });

  it('start empty: mail goes through the service’s own sender', async () => {
    expect(await read(tenant.token)).toEqual({
      senderAddress: null,
      senderName: null,
      host: null,
      port: null,
      tlsMode: 'starttls',
      username: null,
      passwordSet: false,
      recipients: [],
      feverAlert: false,
      blacklistAlert: false,
      attendanceSummary: false,
      attendanceSummaryTime: '18:00',
      version: 0,
      updateTime: null,
    });
  });

  it('keep the password sealed and never answer it', async () => {
    const saved = await save(tenant.token, { ...smtpBody(sinkPort()), version: 0 });
    expect(saved.body.code).toBe(201);
    expect(saved.body.data).toMatchObject({ host: '127.0.0.1', port: sinkPort(), username: 'mailer', passwordSet: true, version: 1 });
    expect(JSON.stringify(saved.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(await read(tenant.token))).not.toContain(PASSWORD);
    const item = await storedItem(tenant.tenantId);
    expect(item.passwordSealed).toMatch(/^gcm:/);
    const raw = JSON.stringify(item);
    expect(raw).not.toContain(PASSWORD);
    expect(raw).not.toContain(Buffer.from(PASSWORD).toString('base64'));
    expect(raw).not.toContain(Buffer.from(PASSWORD).toString('hex'));
  });

  it('keep the stored password when a change leaves it out, and clear it on null', async () => {
    const sealed = (await storedItem(tenant.tenantId)).passwordSealed;
    const { password: _password, ...withoutPassword } = smtpBody(sinkPort(), { senderName: 'Acme Security' });
    const kept = await save(tenant.token, { ...withoutPassword, version: 1 });
    expect(kept.body.data).toMatchObject({ senderName: 'Acme Security', passwordSet: true, version: 2 });
    expect((await storedItem(tenant.tenantId)).passwordSealed).toBe(sealed);

    const cleared = await save(tenant.token, { ...withoutPassword, username: null, password: null, version: 2 });
    expect(cleared.body.data).toMatchObject({ username: null, passwordSet: false, version: 3 });
    expect((await storedItem(tenant.tenantId)).passwordSealed).toBeUndefined();
    // Put back for the tests below.
    const again = await save(tenant.token, { ...smtpBody(sinkPort()), version: 3 });
    expect(again.body.data.version).toBe(4);
  });

  it('send the test mail through the company’s SMTP server with its sender (the local sink)', async () => {
    const to = `${unique('test')}@example.test`;
    const answer = await sendTest(tenant.token, { to });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ ok: true, error: null, to });
    const [mail] = await mailsTo(to);
    expect(mail).toMatchObject({ subject: 'Pass Cloud test mail' });
    expect((mail as unknown as { from: string }).from).toBe('alerts@company.test');
  });

  it('send the test mail to the first recipient when no address is given', async () => {
    const answer = await sendTest(tenant.token);
    expect(answer.body.data).toMatchObject({ ok: true, to: 'guard@company.test' });
  });

  it('answer the refusing server’s own text, and keep the settings', async () => {
    const server = await startTestSmtp();
    try {
      server.refuse('nobody@company.test', { code: 550, text: 'Mailbox nobody is not known here' });
      const current = await read(tenant.token);
      const saved = await save(tenant.token, { ...smtpBody(server.port), version: current.version });
      expect(saved.body.code).toBe(201);
      const refused = await sendTest(tenant.token, { to: 'nobody@company.test' });
      expect(refused.status).toBe(200);
      expect(refused.body.data.ok).toBe(false);
      expect(refused.body.data.error).toContain('550 Mailbox nobody is not known here');
      const accepted = await sendTest(tenant.token, { to: 'somebody@company.test' });
      expect(accepted.body.data.ok).toBe(true);
      expect(server.to('somebody@company.test')).toHaveLength(1);
      expect(await read(tenant.token)).toMatchObject({ port: server.port, version: saved.body.data.version });
    } finally {
      await server.stop();
    }
  });

  it('save the settings of an unreachable server; the test mail tells why it failed', async () => {
    const nowhere = await freePort();
    const current = await read(tenant.token);
    const saved = await save(tenant.token, { ...smtpBody(nowhere), version: current.version });
    expect(saved.body.code).toBe(201);
    const answer = await sendTest(tenant.token, { to: 'guard@company.test' });
    expect(answer.body.data.ok).toBe(false);
    expect(answer.body.data.error).toMatch(/ECONNREFUSED/);
    expect((await read(tenant.token)).port).toBe(nowhere);
  });

  it('go back to the service’s sender without a server', async () => {
    const current = await read(tenant.token);
    const saved = await save(tenant.token, { senderName: 'Acme', password: null, recipients: [], version: current.version });
    expect(saved.body.data).toMatchObject({ host: null, port: null, passwordSet: false, senderName: 'Acme' });
    const to = `${unique('own')}@example.test`;
    expect((await sendTest(tenant.token, { to })).body.data.ok).toBe(true);
    expect(await mailsTo(to)).toHaveLength(1);
  });
});

describe('email settings refuse bad input, naming the field and changing nothing', () => {
  let tenant: Awaited<ReturnType<typeof company>>;
  let before: Settings;
  beforeAll(async () => {
    tenant = await company();
    await save(tenant.token, { ...smtpBody(sinkPort()), version: 0 });
    before = await read(tenant.token);
  });
  afterAll(async () => {
    expect(await read(tenant.token)).toEqual(before);
  });

  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['a port above 65535', { port: 70000 }, 'port', /Port must be at most 65535/],
    ['a port of 0', { port: 0 }, 'port', /Port must be at least 1/],
    ['a malformed sender', { senderAddress: 'alerts-at-company' }, 'senderAddress', /Sender email is not a valid email address/],
    ['a malformed recipient', { recipients: ['guard@company.test', 'not an address'] }, 'recipients.1', /Recipient email is not a valid email address/],
    ['a server without a port', { port: null }, 'port', /Port is required/],
    ['a server without a sender', { senderAddress: null }, 'senderAddress', /Sender email is required/],
    ['a malformed server', { host: 'smtp server.example' }, 'host', /SMTP server is not in the expected format/],
    ['an unknown TLS mode', { tlsMode: 'ssl' }, 'tlsMode', /Encryption must be/],
    ['alerts without recipients', { recipients: [] }, 'recipients', /Recipient email is required/],
    ['a password without a username', { username: null }, 'username', /Username is required/],
    ['a summary time that is no time', { attendanceSummaryTime: '25:00' }, 'attendanceSummaryTime', /Attendance summary time/],
    ['no version', { version: undefined }, 'version', /Version is required/],
  ];

  it.each(cases)('%s', async (_name, change, path, message) => {
    const answer = await save(tenant.token, { ...smtpBody(sinkPort()), version: before.version, ...change });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path)).toContain(path);
    expect(answer.body.message).toMatch(message);
  });

  it('a username without any password stored or given', async () => {
    const tenant2 = await company();
    const { password: _p, ...body } = smtpBody(sinkPort());
    const answer = await save(tenant2.token, { ...body, version: 0 });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues).toEqual([{ path: 'password', message: 'Password is required' }]);
    expect((await read(tenant2.token)).version).toBe(0);
  });

  it('a stale version answers 409', async () => {
    const answer = await save(tenant.token, { ...smtpBody(sinkPort()), version: before.version - 1 });
    expect(answer.status).toBe(409);
  });

  it('names fields in the caller’s language', async () => {
    const answer = await call<Issues>('PUT', '/v1/settings/email', { token: tenant.token, locale: 'de_DE', body: { ...smtpBody(sinkPort()), port: 70000, version: before.version } });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.message).toMatch(/^SMTP-Port darf höchstens 65535 sein/);
  });

  it('a test mail to a malformed address', async () => {
    const answer = await sendTest(tenant.token, { to: 'nobody' });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path)).toEqual(['to']);
  });
});
