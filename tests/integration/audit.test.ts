import { beforeAll, describe, expect, it } from 'vitest';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { readAuditForExport } from '@passcloud/functions/data/auditLog';
import { createAccount } from '@passcloud/functions/data/identity';
import { AUDIT_TABLE, tableName } from '@passcloud/functions/data/tables';
import { dynamo } from '@passcloud/functions/lib/aws';
import { routes } from '@passcloud/functions/routes';
import type { AuditEntryJson } from '@passcloud/functions/contract/audit';
import { baseUrl, call, login, loginAnswer, newCompany, unique } from '../support/api.ts';
import { startTestSmtp } from '../support/smtp.ts';

/** The audit log through its real entry points: what the API records, and who may read it. */

interface Page {
  items: AuditEntryJson[];
  nextCursor: string | null;
}
type Issues = { issues: { path: string; message: string }[] };

let owner: { username: string; password: string };
let token: string;
let tenantId: string;

const entries = async (query = '', as = token) => call<Page>('GET', `/v1/audit${query}`, { token: as });

/** Every item of the company's audit partition, as DynamoDB holds it. */
async function stored(): Promise<Record<string, unknown>[]> {
  const answer = await dynamo().send(
    new QueryCommand({ TableName: tableName(AUDIT_TABLE), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${tenantId}#audit` } }),
  );
  return answer.Items ?? [];
}

beforeAll(async () => {
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
});

describe('audit log', () => {
  it('records a login and a failed login with the address and browser, newest first', async () => {
    const wrong = await loginAnswer(owner.username, 'not-the-password');
    expect(wrong.status).toBe(401);
    const page = await entries();
    expect(page.status).toBe(200);
    const [failed] = page.body.data.items.filter((e) => e.kind === 'loginFailed');
    expect(failed).toMatchObject({ username: owner.username, reason: 'badCredentials', code: 401, action: null });
    expect(failed!.sourceIp).toMatch(/\d/);
    const logins = page.body.data.items.filter((e) => e.kind === 'login');
    expect(logins.length).toBeGreaterThanOrEqual(1);
    expect(logins[0]).toMatchObject({ username: owner.username, code: 200, reason: null });
    const times = page.body.data.items.map((e) => e.time);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('records a change with its route, item and the names of the fields sent, never their values', async () => {
    const name = unique('Dept-secret-value-');
    const made = await call<{ departmentKey: string; version: number }>('POST', '/v1/departments', { token, body: { name } });
    expect(made.body.code).toBe(201);
    const key = made.body.data.departmentKey;
    const renamed = await call('PATCH', `/v1/departments/${key}`, { token, body: { name: `${name}-2`, version: made.body.data.version } });
    expect(renamed.body.code).toBe(201);

    const changes = (await entries('?kind=change')).body.data.items;
    expect(changes[0]).toMatchObject({
      kind: 'change',
      username: owner.username,
      action: 'PATCH /v1/departments/{departmentKey}',
      target: { departmentKey: key },
      fields: ['name', 'version'],
    });
    expect(changes[1]).toMatchObject({ action: 'POST /v1/departments', target: {}, fields: ['name'] });
    // The department is named as it was before the change; the new name the request sent is nowhere.
    expect(changes[0]!.item).toMatchObject({ param: 'departmentKey', key, name });
    expect(JSON.stringify(await stored())).not.toContain(`${name}-2`);
  });

  it('records nothing for a read, or for a change that was refused', async () => {
    const before = (await stored()).length;
    expect((await call('GET', '/v1/departments', { token })).status).toBe(200);
    const refused = await call<Issues>('POST', '/v1/departments', { token, body: { name: '' } });
    expect(refused.status).toBe(422);
    expect((await stored()).length).toBe(before);
  });

  it('records an export of people with its filters, and the audit log’s own export', async () => {
    const started = await call('POST', '/v1/employees/exports', { token, body: { keyword: 'abc' }, confirm: true });
    expect(started.body.code).toBe(202);
    const exported = (await entries('?kind=export')).body.data.items;
    expect(exported[0]).toMatchObject({ action: 'POST /v1/employees/exports', fields: ['keyword'] });

    const file = await fetch(`${baseUrl()}/v1/audit/export?kind=change`, { headers: { authorization: `Bearer ${token}`, 'accept-language': 'ja_JP' } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('spreadsheetml');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect((await entries('?kind=export')).body.data.items[0]).toMatchObject({ action: 'GET /v1/audit/export', fields: ['kind'] });
  });

  it('filters by kind, account and time, and pages with a cursor without gaps or repeats', async () => {
    const all = (await entries('?pageSize=200')).body.data.items;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (await entries(`?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`)).body.data;
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((e) => e.auditKey));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.auditKey));

    expect((await entries(`?username=${owner.username.toUpperCase()}&pageSize=200`)).body.data.items.length).toBe(all.length);
    expect((await entries('?username=nobody-here')).body.data.items).toEqual([]);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await entries(`?from=${encodeURIComponent(later)}`)).body.data.items).toEqual([]);
    const reversed = await call<Issues>('GET', `/v1/audit?from=${encodeURIComponent(later)}&to=${encodeURIComponent(new Date(0).toISOString())}`, { token });
    expect(reversed.status).toBe(422);
    expect(reversed.body.data.issues[0]!.path).toBe('to');
    const badKind = await call<Issues>('GET', '/v1/audit?kind=everything', { token });
    expect(badKind.status).toBe(422);
    expect(badKind.body.data.issues[0]!.path).toBe('kind');
  });

  it('is read only with settings:audit, and only within the company', async () => {
    const username = unique('auditless');
    await createAccount(tenantId, { username, password: 'audit-pass-12', authCodes: ['settings:mail'] });
    const other = (await login(username, 'audit-pass-12')).token;
    // SPEC.md §8: a route the account holds no code for answers 401 with status.401.
    expect((await entries('', other)).status).toBe(401);
    expect((await fetch(`${baseUrl()}/v1/audit/export`, { headers: { authorization: `Bearer ${other}` } })).status).toBe(401);

    const stranger = await newCompany();
    const theirs = (await login(stranger.username, stranger.password)).token;
    const page = (await entries('?pageSize=200', theirs)).body.data.items;
    expect(page.every((e) => e.username === stranger.username)).toBe(true);
  });

  it('records a failed login under a name no company knows where no company reads it', async () => {
    const before = (await entries('?kind=loginFailed&pageSize=200')).body.data.items.length;
    expect((await loginAnswer(unique('nobody'), 'whatever-pass')).status).toBe(401);
    expect((await entries('?kind=loginFailed&pageSize=200')).body.data.items.length).toBe(before);
  });

  it('has no route that changes or removes an entry', () => {
    const auditRoutes = routes.filter((route) => route.path.startsWith('/v1/audit'));
    expect(auditRoutes.map((route) => route.method)).toEqual(['GET', 'GET']);
  });
});

describe('a change answered with an error', () => {
  it('is in the log with the code it answered, or was taken back and left nothing', async () => {
    const server = await startTestSmtp();
    try {
      const company = await newCompany();
      const own = (await login(company.username, company.password)).token;
      const settings = await call('PUT', '/v1/settings/email', {
        token: own,
        confirm: true,
        body: { senderAddress: 'alerts@company.test', senderName: 'Acme', host: '127.0.0.1', port: server.port, tlsMode: 'none', version: 0 },
      });
      expect(settings.body.code).toBe(201);
      const changes = async () => (await entries('?kind=change&pageSize=200', own)).body.data.items;

      // A password reset by invitation whose mail the server refuses: the password was changed and the session ended.
      const email = `${unique('victim')}@company.test`;
      server.refuse(email, { code: 550, text: 'No such mailbox' });
      const victim = await createAccount(company.tenantId, { username: unique('victim'), password: 'victim-pass-1', authCodes: [], email });
      const reset = await call('POST', `/v1/accounts/${victim}/password`, { token: own, body: { invite: true } });
      expect(reset.status).toBe(503);
      expect((await changes()).find((e) => e.action === 'POST /v1/accounts/{accountKey}/password')).toMatchObject({ code: 503, target: { accountKey: victim }, fields: ['invite'] });

      // An invited account whose invitation never left is taken back: nothing with its name exists, and its name is free.
      const invitee = `${unique('invitee')}@company.test`;
      server.refuse(invitee, { code: 550, text: 'No such mailbox' });
      const username = unique('inv');
      const invited = await call('POST', '/v1/accounts', { token: own, body: { username, email: invitee, authCodes: ['settings:account'], invite: true } });
      expect(invited.status).toBe(503);
      expect((await call<{ total: number }>('GET', `/v1/accounts?keyword=${username}`, { token: own })).body.data.total).toBe(0);
      expect((await changes()).find((e) => e.action === 'POST /v1/accounts')).toMatchObject({ code: 503 });
      server.accept(invitee);
      expect((await call('POST', '/v1/accounts', { token: own, body: { username, email: invitee, authCodes: ['settings:account'], invite: true } })).body.code).toBe(201);
    } finally {
      await server.stop();
    }
  });
});

describe('audit export', () => {
  it('searches a range at most EXPORT_PAGE_BUDGET pages deep for filters that match few entries, then asks for a narrower range', async () => {
    const company = unique('auditwide');
    const start = Date.parse('2026-01-01T00:00:00Z');
    const items = Array.from({ length: 2100 }, (_, i) => {
      const at = new Date(start + i * 1000).toISOString();
      return { pk: `${company}#audit`, sk: `audit#${at}#${String(i).padStart(16, '0')}`, at, auditId: String(i).padStart(16, '0'), kind: 'change', username: 'someone', action: 'POST /v1/groups', target: {}, fields: [], code: 201, sourceIp: '198.51.100.1' };
    });
    for (let i = 0; i < items.length; i += 25) {
      await dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName(AUDIT_TABLE)]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
    // One page reads 2,000 entries at most: the one playback in 2,100 is out of reach, and the answer says so.
    expect(await readAuditForExport(company, { kind: 'playback' }, 10_000, 1)).toEqual({ refused: 'tooWide' });
    expect(await readAuditForExport(company, { kind: 'playback' }, 10_000)).toEqual({ entries: [] });
    expect(await readAuditForExport(company, { kind: 'change' }, 2000)).toEqual({ refused: 'tooMany' });
    const all = await readAuditForExport(company, { kind: 'change' }, 10_000);
    expect('entries' in all && all.entries.length).toBe(2100);
  });
});
