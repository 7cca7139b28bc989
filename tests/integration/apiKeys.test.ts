import '../support/localEnv.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { API_KEY_LIMIT, KEY_CODES, type ApiKeyJson, type ApiKeySecret } from '@passcloud/functions/contract/apiKeys';
import { createAccount } from '@passcloud/functions/data/identity';
import { MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { dynamo } from '@passcloud/functions/lib/aws';
import { pool } from '@passcloud/functions/lib/pool';
import { keyMayUse, routeKey, routes, type RouteEntry } from '@passcloud/functions/routes';
import ExcelJS from 'exceljs';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { partition } from '../support/tenantItems.ts';

/**
 * API keys through the HTTP API: made, listed, given a new secret and revoked by people (each
 * with the password confirmed), used by machines as `Authorization: Bearer <key>` on the routes
 * their codes open, refused on the routes for people only, limited per key, and audited under
 * the key's name. The sweep (tests/security/sweep.test.ts) walks every route with keys as well.
 */

type Issues = { issues: { path: string; message: string }[] };
type KeyList = { items: ApiKeyJson[]; limit: number; rate: { requests: number; perSeconds: number } };

let owner: Awaited<ReturnType<typeof newCompany>>;
let token: string;
let tenantId: string;

/** The key of `body` (every code a key may hold unless told), made by `as` with the password confirmed. */
async function makeKey(body: Record<string, unknown> = {}, as = token, confirm = true) {
  return call<ApiKeySecret & Issues>('POST', '/v1/apiKeys', { token: as, body: { name: unique('key'), authCodes: KEY_CODES, ...body }, confirm });
}
async function madeKey(body: Record<string, unknown> = {}, as = token): Promise<ApiKeySecret> {
  const answer = await makeKey(body, as);
  if (answer.body.code !== 201) throw new Error(`making a key answered ${answer.status}: ${answer.body.message}`);
  return answer.body.data;
}
const listKeys = () => call<KeyList>('GET', '/v1/apiKeys', { token });
const keyItems = async () => (await partition(MAIN_TABLE, tenantId)).filter((item) => String(item.sk).startsWith('apiKey'));

beforeAll(async () => {
  owner = await newCompany();
  token = owner.session.token;
  tenantId = owner.tenantId;
});

describe('API keys', () => {
  it('are made with a secret shown once and stored only as a hash, and listed without it', async () => {
    const expireTime = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const made = await madeKey({ name: 'HR sync', authCodes: ['pass:visitor', 'pass:employee'], expireTime });
    expect(made.key).toMatch(new RegExp(`^pck_${tenantId}_${made.apiKey.apiKeyKey}_[A-Za-z0-9_-]{43}$`));
    expect(made.apiKey).toMatchObject({ name: 'HR sync', authCodes: ['pass:employee', 'pass:visitor'], createdBy: owner.username, expireTime, expired: false, lastUsedTime: null, version: 1 });
    expect(made.apiKey.prefix).toBe(`pck_${tenantId}_${made.apiKey.apiKeyKey}`);

    const list = await listKeys();
    expect(list.body.data.limit).toBe(API_KEY_LIMIT);
    expect(list.body.data.rate).toEqual({ requests: 300, perSeconds: 60 });
    const listed = list.body.data.items.find((k) => k.apiKeyKey === made.apiKey.apiKeyKey)!;
    expect(listed).toMatchObject({ name: 'HR sync', prefix: made.apiKey.prefix });
    expect(JSON.stringify(list.body)).not.toContain(made.key.slice(made.apiKey.prefix.length + 1));
    // The store holds the hash of the key, never the key.
    expect(JSON.stringify(await keyItems())).not.toContain(made.key.slice(made.apiKey.prefix.length + 1));

    const used = await call('GET', '/v1/employees', { token: made.key });
    expect(used.body.code).toBe(200);
    const after = (await listKeys()).body.data.items.find((k) => k.apiKeyKey === made.apiKey.apiKeyKey)!;
    expect(after.lastUsedTime).not.toBeNull();
  });

  it('refuse, naming the field, a key without codes, with codes its maker lacks or a key may never hold, or already expired; nothing is made', async () => {
    const before = JSON.stringify(await keyItems());
    const none = await makeKey({ authCodes: [] });
    expect(none.body.code).toBe(422);
    expect(none.body.data.issues[0]!.path).toBe('authCodes');
    const forbidden = await makeKey({ authCodes: ['settings:account'] });
    expect(forbidden.body.code).toBe(422);
    expect(forbidden.body.data.issues[0]!.path).toMatch(/^authCodes/);
    const past = await makeKey({ expireTime: new Date(Date.now() - 60_000).toISOString() });
    expect(past.body.code).toBe(422);
    expect(past.body.data.issues[0]!.path).toBe('expireTime');

    // An account holding only the keys' section and the visitors may give a key no more than visitors.
    const username = unique('keymaker');
    await createAccount(tenantId, { username, password: 'keymaker-pass-1', authCodes: ['settings:apikeys', 'pass:visitor'] });
    const maker = (await login(username, 'keymaker-pass-1')).token;
    const more = await makeKey({ authCodes: ['pass:visitor', 'pass:employee'] }, maker);
    expect(more.body.code).toBe(422);
    expect(more.body.data.issues[0]).toMatchObject({ path: 'authCodes' });
    expect(more.body.message).toContain('pass:employee');
    expect(JSON.stringify(await keyItems())).toBe(before);
    expect((await makeKey({ authCodes: ['pass:visitor'] }, maker)).body.code).toBe(201);
  });

  it('are made, rotated and revoked only with the password confirmed', async () => {
    const fresh = (await login(owner.username, owner.password)).token;
    token = fresh;
    const before = JSON.stringify(await keyItems());
    const unconfirmed = await call<{ reauth: string }>('POST', '/v1/apiKeys', { token: fresh, body: { name: 'x', authCodes: ['pass:visitor'] } });
    expect(unconfirmed.status).toBe(401);
    expect(unconfirmed.body.data.reauth).toBe('required');
    expect(JSON.stringify(await keyItems())).toBe(before);
  });

  it('reach the routes their codes open, and answer 401 on the others', async () => {
    const { key } = await madeKey({ authCodes: ['pass:visitor'] });
    expect((await call('GET', '/v1/visitors', { token: key })).body.code).toBe(200);
    const employees = await call('GET', '/v1/employees', { token: key });
    expect(employees.status).toBe(401);
    expect(employees.body.code).toBe(401);
  });

  it('never reach a route for people only, whatever codes they hold, and change nothing there', async () => {
    const { key } = await madeKey();
    const peopleOnly = (routes as readonly RouteEntry[]).filter((r) => r.access === 'session' && !keyMayUse(r));
    expect(peopleOnly.map(routeKey)).toEqual(
      expect.arrayContaining(['GET /v1/accounts', 'POST /v1/apiKeys', 'PUT /v1/settings/twoFactor', 'POST /v1/webhooks/{webhookKey}/secret', 'PATCH /v1/systems/reset', 'GET /v1/systems/me']),
    );
    const before = JSON.stringify(await partition(MAIN_TABLE, tenantId));
    for (const route of peopleOnly) {
      const path = route.path.replace(/\{(\w+)\}/g, 'abcdefghij234567');
      const answer = await call(route.method, path, { token: key, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
      expect(answer.status, routeKey(route)).toBe(401);
      expect(answer.body.message, routeKey(route)).toMatch(/API key/);
    }
    expect(JSON.stringify(await partition(MAIN_TABLE, tenantId))).toBe(before);
  });

  it('end no session, and a login ends no key', async () => {
    const { key } = await madeKey({ authCodes: ['pass:employee'] });
    const session = (await login(owner.username, owner.password)).token;
    token = session;
    expect((await call('GET', '/v1/employees', { token: key })).body.code).toBe(200);
    expect((await call('GET', '/v1/systems/me', { token: session })).body.code).toBe(200);
    const again = (await login(owner.username, owner.password)).token;
    token = again;
    expect((await call('GET', '/v1/employees', { token: key })).body.code).toBe(200);
  });

  it('given a new secret stop working with the old one at once; a stale version answers 409 and changes nothing', async () => {
    const made = await madeKey({ authCodes: ['pass:employee'] });
    const rotated = await call<ApiKeySecret>('POST', `/v1/apiKeys/${made.apiKey.apiKeyKey}/secret`, { token, body: { version: 1 }, confirm: true });
    expect(rotated.body.code).toBe(201);
    expect(rotated.body.data.apiKey.version).toBe(2);
    expect(rotated.body.data.apiKey.secretRotateTime).not.toBeNull();
    expect(rotated.body.data.key).not.toBe(made.key);
    expect((await call('GET', '/v1/employees', { token: made.key })).status).toBe(403);
    expect((await call('GET', '/v1/employees', { token: rotated.body.data.key })).body.code).toBe(200);

    const before = JSON.stringify(await keyItems());
    const stale = await call('POST', `/v1/apiKeys/${made.apiKey.apiKeyKey}/secret`, { token, body: { version: 1 }, confirm: true });
    expect(stale.body.code).toBe(409);
    expect((await call('DELETE', `/v1/apiKeys/${made.apiKey.apiKeyKey}?version=1`, { token, confirm: true })).body.code).toBe(409);
    expect(JSON.stringify(await keyItems()).replace(/"lastUsedAt":"[^"]+"/g, '')).toBe(before.replace(/"lastUsedAt":"[^"]+"/g, ''));
  });

  it('revoked answer as a logged-out session; expired as one that timed out', async () => {
    const revoked = await madeKey({ authCodes: ['pass:employee'] });
    expect((await call('DELETE', `/v1/apiKeys/${revoked.apiKey.apiKeyKey}?version=1`, { token, confirm: true })).body.code).toBe(204);
    const gone = await call('GET', '/v1/employees', { token: revoked.key });
    expect(gone.status).toBe(403);
    expect(gone.body.code).toBe(403);
    expect((await listKeys()).body.data.items.map((k) => k.apiKeyKey)).not.toContain(revoked.apiKey.apiKeyKey);

    const expiring = await madeKey({ authCodes: ['pass:employee'], expireTime: new Date(Date.now() + 3_600_000).toISOString() });
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(MAIN_TABLE),
        Key: { pk: tenantId, sk: `apiKey#${expiring.apiKey.apiKeyKey}` },
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const expired = await call('GET', '/v1/employees', { token: expiring.key });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe(666);
    expect((await listKeys()).body.data.items.find((k) => k.apiKeyKey === expiring.apiKey.apiKeyKey)!.expired).toBe(true);

    // A key of another form, company or secret is no key.
    const forged = `${revoked.key.slice(0, -4)}AAAA`;
    expect((await call('GET', '/v1/employees', { token: forged })).status).toBe(403);
  });

  it('leave every change they make in the audit log under the key’s name', async () => {
    const { key, apiKey } = await madeKey({ name: 'Visitor desk', authCodes: ['pass:visitor'] });
    const group = await call<{ items: { groupKey: string; type: string }[] }>('GET', '/v1/groups?type=visitor', { token: key });
    expect(group.body.code).toBe(200);
    const visitor = await call<{ visitorKey: string }>('POST', '/v1/visitors', {
      token: key,
      body: { personId: unique('V'), name: 'Keyed Visitor', role: 'Guest', gender: 'male', groupKey: group.body.data.items[0]!.groupKey },
    });
    expect(visitor.body.code, visitor.body.message).toBe(201);
    const auditor = await madeKey({ name: 'SIEM', authCodes: ['settings:audit'] });
    const entries = await call<{ items: { username: string; apiKey: string | null; action: string }[] }>('GET', '/v1/audit?kind=change', { token: auditor.key });
    const entry = entries.body.data.items.find((e) => e.action === 'POST /v1/visitors');
    expect(entry).toMatchObject({ username: 'Visitor desk', apiKey: apiKey.apiKeyKey });
    // The workbook marks the key's entries too, as a key's name could be any account's.
    const file = await fetch(`${baseUrl()}/v1/audit/export?kind=change`, { headers: { authorization: `Bearer ${auditor.key}` } });
    expect(file.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(await file.arrayBuffer());
    const cells = book.worksheets[0]!.getColumn(3).values.map(String);
    expect(cells).toContain('Visitor desk (API key)');
  });

  it('are limited per key: parallel requests past the rate answer 429 with Retry-After, and another key is not held up', async () => {
    const { key } = await madeKey({ authCodes: ['pass:employee'] });
    const other = await madeKey({ authCodes: ['pass:employee'] });
    const limit = (await listKeys()).body.data.rate.requests;
    const answers = await pool(Array.from({ length: limit + 20 }, (_, i) => i), 24, () => call<{ retryAfterSeconds: number }>('GET', '/v1/groups?type=employee', { token: key }));
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200 && a.body.code === 200).length).toBe(limit);
    expect(refused.length).toBe(20);
    const wait = Number(refused[0]!.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(refused[0]!.body.data.retryAfterSeconds).toBe(wait);
    expect((await call('GET', '/v1/groups?type=employee', { token: other.key })).status).toBe(200);
  });

  it(`are at most ${API_KEY_LIMIT} a company, under parallel requests`, async () => {
    const company = await newCompany();
    // The first key confirms the password, which covers the session's next requests for five minutes.
    expect((await makeKey({ authCodes: ['pass:visitor'] }, company.session.token)).body.code).toBe(201);
    const answers = await pool(Array.from({ length: API_KEY_LIMIT + 4 }, (_, i) => i), 24, (i) =>
      makeKey({ name: `Key ${i}`, authCodes: ['pass:visitor'] }, company.session.token, false),
    );
    expect(answers.filter((a) => a.body.code === 201).length).toBe(API_KEY_LIMIT - 1);
    const refused = answers.filter((a) => a.body.code !== 201);
    expect(refused.length).toBe(5);
    for (const answer of refused) expect(answer.body.data.issues[0]!.path).toBe('name');
    const list = await call<KeyList>('GET', '/v1/apiKeys', { token: company.session.token });
    expect(list.body.data.items.length).toBe(API_KEY_LIMIT);
    // A revoked key gives its place back.
    const first = list.body.data.items[0]!;
    expect((await call('DELETE', `/v1/apiKeys/${first.apiKeyKey}?version=${first.version}`, { token: company.session.token, confirm: true })).body.code).toBe(204);
    expect((await makeKey({ authCodes: ['pass:visitor'] }, company.session.token)).body.code).toBe(201);
  });

  it('of one company never reach another’s', async () => {
    const other = await newCompany();
    const { key, apiKey } = await madeKey({ authCodes: ['pass:employee'] });
    const theirs = await call<{ items: { employeeKey: string }[] }>('GET', '/v1/employees', { token: key });
    expect(JSON.stringify(theirs.body)).not.toContain(other.tenantId);
    // The company in a key is checked against the key's own item: another company's name with this key's secret is no key.
    const moved = key.replace(`pck_${tenantId}_`, `pck_${other.tenantId}_`);
    expect((await call('GET', '/v1/employees', { token: moved })).status).toBe(403);
    // Nor can another company's owner see or revoke it.
    expect((await call<KeyList>('GET', '/v1/apiKeys', { token: other.session.token })).body.data.items).toEqual([]);
    expect((await call('DELETE', `/v1/apiKeys/${apiKey.apiKeyKey}?version=1`, { token: other.session.token, confirm: true })).body.code).toBe(404);
    expect((await call('GET', '/v1/employees', { token: key })).body.code).toBe(200);
  });
});
