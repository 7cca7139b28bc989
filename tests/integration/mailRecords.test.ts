import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, newCompany, unique } from '../support/api.ts';
import { startTestSmtp } from '../support/smtp.ts';

interface MailRecord {
  mailKey: string;
  name: string | null;
  group: string;
  from: string;
  to: string;
  title: string;
  content: string;
  status: 'sent' | 'failed' | 'retrying';
  error: string | null;
  sendTime: string;
  attempts: number;
  lastAttemptTime: string | null;
  nextAttemptTime: string | null;
  remarks: string | null;
  resendable: boolean;
}
interface Page {
  items: MailRecord[];
  nextCursor: string | null;
}
type Issues = { issues: { path: string; message: string }[] };
interface TestAnswer {
  ok: boolean;
  error: string | null;
  to: string;
  mailKey: string;
}

let server: Awaited<ReturnType<typeof startTestSmtp>>;
let token: string;

const sendTest = async (to: string) => (await call<TestAnswer>('POST', '/v1/settings/email/test', { token, body: { to } })).body.data;
const record = async (mailKey: string) => (await call<MailRecord>('GET', `/v1/mailRecords/${mailKey}`, { token })).body.data;
const list = (query = '') => call<Page & Issues>('GET', `/v1/mailRecords${query}`, { token });
const resend = (mailKey: string) => call<{ mailKey: string; status: string; error: string | null } & Issues>('POST', `/v1/mailRecords/${mailKey}/resend`, { token });

async function settle(mailKey: string, timeoutMs = 15_000): Promise<MailRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const current = await record(mailKey);
    if (current.status !== 'retrying' || Date.now() > until) return current;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  server = await startTestSmtp();
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  const saved = await call('PUT', '/v1/settings/email', { confirm: true,
    token,
    body: { senderAddress: 'alerts@company.test', senderName: 'Acme Alerts', host: '127.0.0.1', port: server.port, tlsMode: 'none', version: 0 },
  });
  expect(saved.body.code).toBe(201);
});
afterAll(async () => {
  await server?.stop();
});

describe('mail records', () => {
  it('record a refused mail as failed with why (not the server’s words), then send it again by hand, once', async () => {
    const to = `${unique('perm')}@company.test`;
    server.refuse(to, { code: 550, text: 'No such mailbox here' });
    const test = await sendTest(to);
    expect(test.ok).toBe(false);

    const failed = await record(test.mailKey);
    expect(failed).toMatchObject({
      mailKey: test.mailKey,
      group: 'test',
      from: '"Acme Alerts" <alerts@company.test>',
      to,
      title: 'Pass Cloud test mail',
      status: 'failed',
      attempts: 1,
      nextAttemptTime: null,
      remarks: null,
      resendable: true,
    });
    expect(failed.error).toBe('The mail server refused the mail (reply code 550)');
    expect(JSON.stringify(failed)).not.toContain('No such mailbox here');
    expect(failed.content).toMatch(/can send mail/);

    server.accept(to);
    const again = await resend(test.mailKey);
    expect(again.body).toMatchObject({ code: 201, data: { status: 'sent', error: null } });
    expect(server.to(to)).toHaveLength(1);
    const original = await record(test.mailKey);
    expect(original).toMatchObject({ status: 'failed', resendable: false });
    expect(original.remarks).toBe(`Resent as ${again.body.data.mailKey}`);
    expect(await record(again.body.data.mailKey)).toMatchObject({ status: 'sent', to, group: 'test', remarks: `Resend of ${test.mailKey}` });

    // It was sent again once: another resend is refused, naming the resend.
    const twice = await resend(test.mailKey);
    expect(twice.status).toBe(422);
    expect(twice.body.data.issues).toEqual([{ path: 'mailKey', message: `This mail was already sent again, as ${again.body.data.mailKey}` }]);
    expect(server.to(to)).toHaveLength(1);

    // Only a failed mail is sent again.
    const notFailed = await resend(again.body.data.mailKey);
    expect(notFailed.status).toBe(422);
    expect(notFailed.body.data.issues).toEqual([{ path: 'mailKey', message: 'Only a failed mail can be sent again' }]);
  });

  it('try a mail again with back-off after a temporary failure, until it goes out', async () => {
    const to = `${unique('flaky')}@company.test`;
    server.refuse(to, { code: 421, text: 'Too busy, try later', times: 3 });
    // The test mail answers at once and is not tried again.
    const test = await sendTest(to);
    expect(test.ok).toBe(false);
    expect(test.error).toBe('The mail server refused the mail (reply code 421)');
    expect((await record(test.mailKey)).status).toBe('failed');

    const again = await resend(test.mailKey);
    expect(again.body.data.status).toBe('retrying');
    const waiting = await record(again.body.data.mailKey);
    expect(waiting).toMatchObject({ status: 'retrying', attempts: 1, resendable: false });
    expect(Date.parse(waiting.nextAttemptTime!)).toBeGreaterThan(Date.parse(waiting.lastAttemptTime!));

    const done = await settle(again.body.data.mailKey);
    expect(done).toMatchObject({ status: 'sent', attempts: 3, nextAttemptTime: null });
    expect(server.to(to)).toHaveLength(1);
  });

  it('give up after five attempts and keep the last error', async () => {
    const to = `${unique('down')}@company.test`;
    server.refuse(to, { code: 451, text: 'Local problem, still' });
    const test = await sendTest(to);
    const again = await resend(test.mailKey);
    expect(again.body.data.status).toBe('retrying');
    const done = await settle(again.body.data.mailKey, 30_000);
    expect(done).toMatchObject({ status: 'failed', attempts: 5, resendable: true, nextAttemptTime: null });
    expect(done.error).toBe('The mail server refused the mail (reply code 451)');
    expect(server.to(to)).toHaveLength(0);
  }, 60_000);

  it('resend a failed mail once however many ask at the same moment', async () => {
    const to = `${unique('race')}@company.test`;
    server.refuse(to, { code: 550, text: 'Not yet' });
    const test = await sendTest(to);
    expect(test.ok).toBe(false);
    server.accept(to);
    const answers = await Promise.all(Array.from({ length: 6 }, () => resend(test.mailKey)));
    const made = answers.filter((a) => a.body.code === 201);
    expect(made).toHaveLength(1);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(5);
    expect(server.to(to)).toHaveLength(1);
    const resends = (await list('?group=test&pageSize=200')).body.data.items.filter((m) => m.remarks === `Resend of ${test.mailKey}`);
    expect(resends.map((m) => m.mailKey)).toEqual([made[0]!.body.data.mailKey]);
    expect((await record(test.mailKey)).remarks).toBe(`Resent as ${made[0]!.body.data.mailKey}`);
  });

  it('refuse to send again a mail that held a code or password', async () => {
    const email = `${unique('invitee')}@company.test`;
    server.refuse(email, { code: 550, text: 'Gone' });
    const invited = await call('POST', '/v1/accounts', { token, body: { username: unique('inv'), email, authCodes: [], invite: true } });
    expect(invited.status).toBe(503);
    const page = await list('?group=invitation&status=failed');
    const mail = page.body.data.items.find((m) => m.to === email)!;
    expect(mail).toMatchObject({ status: 'failed', resendable: false });
    // The link's token is masked in the record.
    expect(mail.content).toMatch(/\/invitation\?token=\*{43}/);
    const refused = await resend(mail.mailKey);
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues[0]!.path).toBe('mailKey');
  });

  it('list newest first, filtered by time range, status and group, page by page', async () => {
    const all = (await list('?pageSize=200')).body.data.items;
    expect(all.length).toBeGreaterThanOrEqual(7);
    const times = all.map((m) => m.sendTime);
    expect([...times].sort().reverse()).toEqual(times);

    const sent = (await list('?status=sent')).body.data.items;
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((m) => m.status === 'sent')).toBe(true);
    const tests = (await list('?group=test&status=failed')).body.data.items;
    expect(tests.length).toBeGreaterThan(0);
    expect(tests.every((m) => m.group === 'test' && m.status === 'failed')).toBe(true);

    const middle = all[Math.floor(all.length / 2)]!;
    const before = (await list(`?to=${encodeURIComponent(middle.sendTime)}&pageSize=200`)).body.data.items;
    expect(before.every((m) => m.sendTime <= middle.sendTime)).toBe(true);
    expect(before.map((m) => m.mailKey)).toContain(middle.mailKey);
    const after = (await list(`?from=${encodeURIComponent(middle.sendTime)}&pageSize=200`)).body.data.items;
    expect(after.every((m) => m.sendTime >= middle.sendTime)).toBe(true);
    expect(new Set([...before, ...after].map((m) => m.mailKey)).size).toBe(all.length);
    expect((await list(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.data.items).toEqual([]);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (await list(`?pageSize=3${cursor ? `&cursor=${cursor}` : ''}`)).body.data;
      expect(page.items.length).toBeLessThanOrEqual(3);
      paged.push(...page.items.map((m) => m.mailKey));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all.map((m) => m.mailKey));
  });

  it('refuse bad filters, naming them', async () => {
    const cases: [string, string][] = [
      ['?status=lost', 'status'],
      ['?from=yesterday', 'from'],
      ['?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z', 'to'],
      ['?pageSize=0', 'pageSize'],
      ['?cursor=abc', 'cursor'],
    ];
    for (const [query, path] of cases) {
      const answer = await list(query);
      expect(answer.status, query).toBe(422);
      expect(answer.body.data.issues.map((i) => i.path), query).toEqual([path]);
    }
  });

  it('answer 404 for a mail the company never sent', async () => {
    expect((await call('GET', `/v1/mailRecords/${Date.now()}-0000000000000000`, { token })).status).toBe(404);
    expect((await call('GET', '/v1/mailRecords/nothing', { token })).status).toBe(422);
  });
});
