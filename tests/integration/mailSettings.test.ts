import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, inject } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { emailSettingsBody } from '@passcloud/functions/contract/mail';
import { readEmailSettings, saveEmailSettings } from '@passcloud/functions/data/mailSettings';
import { ValidationError } from '@passcloud/functions/lib/errors';
import { deliver } from '@passcloud/functions/lib/mail';
import { freePort } from '@passcloud/infra/local/standins';
import { call, login, mailsTo, newCompany, unique } from '../support/api.ts';
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
interface MailRecord {
  status: string;
  error: string | null;
  group: string;
}

const PASSWORD = 'smtp-Secret-42!';
const LOGIN = { username: 'mailer', password: PASSWORD };
const sinkPort = () => Number(inject('localEnv').SMTP_PORT);

async function company() {
  const owner = await newCompany();
  const token = (await login(owner.username, owner.password)).token;
  return { token, tenantId: token.split('.')[0]!, email: owner.email };
}

const read = async (token: string) => (await call<Settings>('GET', '/v1/settings/email', { token })).body.data;
const save = (token: string, body: Record<string, unknown>) => call<Settings & Issues>('PUT', '/v1/settings/email', { confirm: true, token, body });
const sendTest = (token: string, body: Record<string, unknown> = {}, locale?: string) =>
  call<TestAnswer & Issues>('POST', '/v1/settings/email/test', { token, body, ...(locale ? { locale } : {}) });
const mailRecord = async (token: string, mailKey: string, locale?: string) =>
  (await call<MailRecord>('GET', `/v1/mailRecords/${mailKey}`, { token, ...(locale ? { locale } : {}) })).body.data;

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
    tlsMode: 'starttls',
    username: LOGIN.username,
    password: PASSWORD,
    recipients: ['guard@company.test', 'hr@company.test'],
    feverAlert: true,
    attendanceSummary: true,
    attendanceSummaryTime: '17:30',
    ...over,
  };
}

/** Saves over whatever version is stored now. */
async function resave(token: string, body: Record<string, unknown>) {
  return save(token, { ...body, version: (await read(token)).version });
}

describe('email settings', () => {
  let tenant: Awaited<ReturnType<typeof company>>;
  let server: Awaited<ReturnType<typeof startTestSmtp>>;
  beforeAll(async () => {
    tenant = await company();
    server = await startTestSmtp({ tls: 'starttls', login: LOGIN });
  });
  afterAll(async () => {
    await server?.stop();
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
      questionnaireAlert: false,
      attendanceSummary: false,
      attendanceSummaryTime: '18:00',
      version: 0,
      updateTime: null,
    });
  });

  it('keep the password sealed and never answer it', async () => {
    const saved = await save(tenant.token, { ...smtpBody(server.port), version: 0 });
    expect(saved.body.code).toBe(201);
    expect(saved.body.data).toMatchObject({ host: '127.0.0.1', port: server.port, username: 'mailer', passwordSet: true, version: 1 });
    expect(JSON.stringify(saved.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(await read(tenant.token))).not.toContain(PASSWORD);
    const item = await storedItem(tenant.tenantId);
    expect(item.passwordSealed).toMatch(/^gcm:/);
    const raw = JSON.stringify(item);
    expect(raw).not.toContain(PASSWORD);
    expect(raw).not.toContain(Buffer.from(PASSWORD).toString('base64'));
    expect(raw).not.toContain(Buffer.from(PASSWORD).toString('hex'));
  });

  it('keep the stored password while the server stays the same, and clear it on null', async () => {
    const sealed = (await storedItem(tenant.tenantId)).passwordSealed;
    const { password: _password, ...withoutPassword } = smtpBody(server.port, { senderName: 'Acme Security', recipients: ['guard@company.test'] });
    const kept = await save(tenant.token, { ...withoutPassword, host: '127.0.0.1', version: 1 });
    expect(kept.body.data).toMatchObject({ senderName: 'Acme Security', passwordSet: true, version: 2 });
    expect((await storedItem(tenant.tenantId)).passwordSealed).toBe(sealed);

    const cleared = await save(tenant.token, { ...withoutPassword, username: null, password: null, version: 2 });
    expect(cleared.body.data).toMatchObject({ username: null, passwordSet: false, version: 3 });
    expect((await storedItem(tenant.tenantId)).passwordSealed).toBeUndefined();
    // Put back for the tests below.
    const again = await save(tenant.token, { ...smtpBody(server.port), version: 3 });
    expect(again.body.data.version).toBe(4);
  });

  it('send the test mail over STARTTLS with the company’s login and sender', async () => {
    const to = `${unique('test')}@company.test`;
    const answer = await sendTest(tenant.token, { to });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ ok: true, error: null, to });
    expect(server.to(to)).toHaveLength(1);
    expect(server.to(to)[0]!.from).toBe('alerts@company.test');
    expect(server.logins.at(-1)).toEqual(LOGIN);
  });

  it('send the test mail to the first recipient when no address is given', async () => {
    const answer = await sendTest(tenant.token);
    expect(answer.body.data).toMatchObject({ ok: true, to: 'guard@company.test' });
  });

  it('drop the password when the server changes without one: the new server is offered no login', async () => {
    const other = await startTestSmtp({ tls: 'implicit', login: LOGIN });
    try {
      const { password: _password, ...withoutPassword } = smtpBody(other.port, { tlsMode: 'tls' });
      const moved = await resave(tenant.token, withoutPassword);
      expect(moved.body.code).toBe(201);
      expect(moved.body.data).toMatchObject({ port: other.port, tlsMode: 'tls', username: 'mailer', passwordSet: false });
      expect((await storedItem(tenant.tenantId)).passwordSealed).toBeUndefined();
      const to = `${unique('moved')}@company.test`;
      const answer = await sendTest(tenant.token, { to });
      expect(answer.body.data).toMatchObject({ ok: true, error: null });
      expect(other.to(to)).toHaveLength(1);
      expect(other.logins).toEqual([]);
    } finally {
      await other.stop();
    }
  });

  it('drop the password on any change of host, port, TLS mode or username', async () => {
    const { password: _password, ...base } = smtpBody(server.port);
    const changes: Record<string, unknown>[] = [{ host: 'localhost' }, { port: sinkPort() }, { tlsMode: 'tls' }, { username: 'someone-else' }];
    for (const change of changes) {
      expect((await resave(tenant.token, smtpBody(server.port))).body.data.passwordSet).toBe(true);
      const changed = await resave(tenant.token, { ...base, ...change });
      expect(changed.body.code, JSON.stringify(change)).toBe(201);
      expect(changed.body.data.passwordSet, JSON.stringify(change)).toBe(false);
    }
    // A new password with the change keeps that one.
    const given = await resave(tenant.token, smtpBody(server.port, { username: 'mailer' }));
    expect(given.body.data.passwordSet).toBe(true);
  });

  it('answer a refusal as a category in the caller’s language, never in the server’s words', async () => {
    server.refuse('nobody@company.test', { code: 550, text: 'Mailbox nobody is not known here' });
    const refused = await sendTest(tenant.token, { to: 'nobody@company.test' });
    expect(refused.status).toBe(200);
    expect(refused.body.data).toMatchObject({ ok: false, error: 'The mail server refused the mail (reply code 550)' });
    const inJapanese = await sendTest(tenant.token, { to: 'nobody@company.test' }, 'ja_JP');
    expect(inJapanese.body.data.error).toBe('メールサーバーがメールを拒否しました（応答コード 550）');
    for (const answer of [refused, inJapanese]) expect(JSON.stringify(answer.body)).not.toMatch(/not known here|Mailbox nobody/);
    // The mail record tells the same, in the reader's language.
    expect(await mailRecord(tenant.token, refused.body.data.mailKey)).toMatchObject({ status: 'failed', error: 'The mail server refused the mail (reply code 550)' });
    expect((await mailRecord(tenant.token, refused.body.data.mailKey, 'ja_JP')).error).toBe('メールサーバーがメールを拒否しました（応答コード 550）');
    expect(await read(tenant.token)).toMatchObject({ port: server.port, passwordSet: true });
  });

  it('tell a refused login, a failed TLS and an unreachable server apart', async () => {
    // A company of its own: test mails are limited per company and hour.
    const own = await company();
    const plain = await startTestSmtp();
    try {
      const nowhere = await freePort();
      const cases: [string, Record<string, unknown>, string, string][] = [
        ['a wrong password', smtpBody(server.port, { password: 'not-the-password' }), 'The SMTP server did not accept the username and password', 'SMTP サーバーがユーザー名とパスワードを受け付けませんでした'],
        ['TLS from the start to a plain server', smtpBody(plain.port, { tlsMode: 'tls', password: null, username: null }), 'The encrypted connection (TLS) to the SMTP server failed', 'SMTP サーバーとの暗号化接続（TLS）に失敗しました'],
        ['STARTTLS with a server that does not offer it', smtpBody(plain.port, { password: null, username: null }), 'The encrypted connection (TLS) to the SMTP server failed', 'SMTP サーバーとの暗号化接続（TLS）に失敗しました'],
        ['a port where nothing listens', smtpBody(nowhere, { password: null, username: null }), 'Could not connect to the SMTP server', 'SMTP サーバーに接続できませんでした'],
        ['an address where nothing answers', smtpBody(587, { host: '192.0.2.1', password: null, username: null }), 'Could not connect to the SMTP server', 'SMTP サーバーに接続できませんでした'],
      ];
      for (const [name, body, english, japanese] of cases) {
        const saved = await resave(own.token, body);
        expect(saved.body.code, name).toBe(201);
        const answer = await sendTest(own.token, { to: 'guard@company.test' });
        expect(answer.body.data, name).toMatchObject({ ok: false, error: english });
        const record = await mailRecord(own.token, answer.body.data.mailKey, 'ja_JP');
        expect(record, name).toMatchObject({ status: 'failed', error: japanese });
      }
      expect(plain.received).toEqual([]);
    } finally {
      await plain.stop();
    }
  }, 90_000);

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
    ['a password over a plain connection', { tlsMode: 'none' }, 'password', /Password: A password is sent only over an encrypted connection/],
    ['a summary time that is no time', { attendanceSummaryTime: '25:00' }, 'attendanceSummaryTime', /Attendance summary time/],
    ['no version', { version: undefined }, 'version', /Version is required/],
  ];

  it.each(cases)('%s', async (_name, change, path, message) => {
    const answer = await save(tenant.token, { ...smtpBody(sinkPort()), version: before.version, ...change });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path)).toContain(path);
    expect(answer.body.message).toMatch(message);
  });

  it('a username without a password is saved, and mail goes without a login', async () => {
    const tenant2 = await company();
    const { password: _p, ...body } = smtpBody(sinkPort(), { tlsMode: 'none' });
    const answer = await save(tenant2.token, { ...body, version: 0 });
    expect(answer.body.code).toBe(201);
    expect(answer.body.data).toMatchObject({ username: 'mailer', passwordSet: false });
    expect((await sendTest(tenant2.token, { to: `${unique('nologin')}@example.test` })).body.data).toMatchObject({ ok: true, error: null });
  });

  it('a password kept from before over a plain connection names the TLS mode, and is never offered there', async () => {
    const tenant2 = await company();
    const plain = await startTestSmtp();
    try {
      expect((await save(tenant2.token, { ...smtpBody(plain.port), version: 0 })).body.code).toBe(201);
      // Settings stored before passwords needed TLS.
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(MAIN_TABLE),
          Key: { pk: tenant2.tenantId, sk: 'settings#email' },
          UpdateExpression: 'SET tlsMode = :none',
          ExpressionAttributeValues: { ':none': 'none' },
        }),
      );
      const legacy = await read(tenant2.token);
      expect(legacy).toMatchObject({ tlsMode: 'none', passwordSet: true });
      const { password: _p, ...body } = smtpBody(plain.port, { tlsMode: 'none' });
      const answer = await save(tenant2.token, { ...body, version: legacy.version });
      expect(answer.status).toBe(422);
      expect(answer.body.data.issues).toEqual([{ path: 'tlsMode', message: expect.stringMatching(/encrypted connection/) }]);
      expect(await read(tenant2.token)).toEqual(legacy);
      const to = `${unique('legacy')}@company.test`;
      expect((await sendTest(tenant2.token, { to })).body.data.ok).toBe(true);
      expect(plain.to(to)).toHaveLength(1);
      expect(plain.logins).toEqual([]);
    } finally {
      await plain.stop();
    }
  });

  it('a stale version answers 409', async () => {
    const answer = await save(tenant.token, { ...smtpBody(sinkPort()), version: before.version - 1 });
    expect(answer.status).toBe(409);
  });

  it('names fields in the caller’s language', async () => {
    const answer = await call<Issues>('PUT', '/v1/settings/email', { confirm: true, token: tenant.token, locale: 'de_DE', body: { ...smtpBody(sinkPort()), port: 70000, version: before.version } });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.message).toMatch(/^SMTP-Port darf höchstens 65535 sein/);
  });

  it('a test mail to a malformed address', async () => {
    const answer = await sendTest(tenant.token, { to: 'nobody' });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path)).toEqual(['to']);
  });
});

/**
 * The test stack runs with SMTP_ALLOW_PRIVATE=1 (its SMTP servers listen on 127.0.0.1); this test
 * process has it off, as a deployment does, and calls the same data layer and mail service.
 */
describe('without SMTP_ALLOW_PRIVATE, servers in the service’s own network', () => {
  let tenant: Awaited<ReturnType<typeof company>>;
  let switched: string | undefined;
  beforeAll(async () => {
    tenant = await company();
  });
  beforeEach(() => {
    switched = process.env.SMTP_ALLOW_PRIVATE;
    delete process.env.SMTP_ALLOW_PRIVATE;
  });
  afterEach(() => {
    if (switched !== undefined) process.env.SMTP_ALLOW_PRIVATE = switched;
  });

  const body = (over: Record<string, unknown>) => emailSettingsBody.parse({ ...smtpBody(587, { username: null, password: null }), version: 0, ...over });
  async function refusal(over: Record<string, unknown>): Promise<ValidationError> {
    const error = await saveEmailSettings(tenant.tenantId, body({ ...over, version: (await readEmailSettings(tenant.tenantId)).version })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, JSON.stringify(over)).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }

  const private_ = ['127.0.0.1', '127.1', 'localhost', '10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', 'fd00::1', 'fe80::1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::'];
  it.each(private_)('refuse %s at save, naming the host, and change nothing', async (host) => {
    const before = await readEmailSettings(tenant.tenantId);
    const error = await refusal({ host });
    expect(error.issues).toEqual([expect.objectContaining({ path: 'host', message: 'mail.hostNotPublic' })]);
    expect(await readEmailSettings(tenant.tenantId)).toEqual(before);
  });

  it('refuse a port that is not a mail port, naming it; the mail ports and a public address are saved', async () => {
    const error = await refusal({ host: '192.0.2.1', port: 8025 });
    expect(error.issues).toEqual([expect.objectContaining({ path: 'port', message: 'mail.portNotAllowed', params: { ports: '25, 465, 587, 2525' } })]);
    for (const port of [25, 465, 587, 2525]) {
      const saved = await saveEmailSettings(tenant.tenantId, body({ host: '192.0.2.1', port, version: (await readEmailSettings(tenant.tenantId)).version }));
      expect(saved).toMatchObject({ host: '192.0.2.1', port });
    }
  });

  it('send nothing to a name that resolves into the service’s network now, and record the mail as failed', async () => {
    const server = await startTestSmtp();
    try {
      // Saved while it was allowed (the stack has the switch on); sent with the switch off.
      const saved = await save(tenant.token, { ...smtpBody(server.port, { host: 'localhost', tlsMode: 'none', username: null, password: null }), version: (await read(tenant.token)).version });
      expect(saved.body.code).toBe(201);
      const outcome = await deliver(tenant.tenantId, { to: 'guard@company.test', subject: 'Blocked', text: 'Never sent', kind: 'test' }, { retry: false });
      expect(outcome).toMatchObject({ status: 'failed', error: 'blocked' });
      expect(server.received).toEqual([]);
      expect(await mailRecord(tenant.token, outcome.mailKey)).toMatchObject({
        status: 'failed',
        group: 'test',
        error: 'The SMTP server\'s address or port is not one the service connects to',
      });
    } finally {
      await server.stop();
    }
  });
});

describe('test mails', () => {
  it('are limited to 10 an hour per company, however many are asked for at once', async () => {
    const tenant = await company();
    const answers = await Promise.all(Array.from({ length: 13 }, () => sendTest(tenant.token, { to: `${unique('burst')}@example.test` })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.body.message).toMatch(/^At most 10 test mails can be sent in an hour; try again in \d+ minutes$/);
    const recorded = await call<{ items: unknown[] }>('GET', '/v1/mailRecords?group=test&pageSize=100', { token: tenant.token });
    expect(recorded.body.data.items).toHaveLength(10);
    const inJapanese = await sendTest(tenant.token, {}, 'ja_JP');
    expect(inJapanese.status).toBe(429);
    expect(inJapanese.body.message).toMatch(/^テストメールは 1 時間に 10 通までです/);
  });
});
