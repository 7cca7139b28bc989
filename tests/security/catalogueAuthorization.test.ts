import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { routes, routeKey, type RouteEntry } from '@passcloud/functions/routes';
import { declaredHandlers } from '@passcloud/functions/openapi';
import { dynamo } from '@passcloud/functions/lib/aws';
import { totpCode } from '@passcloud/functions/lib/totp';
import { createAccount } from '@passcloud/functions/data/identity';
import { MAIN_TABLE, EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { call, encrypt, login, newCompany, unique } from '../support/api.ts';
import { bodies, fixtureTenant, pathFor, paramsOf, queries, send, type Tenant } from '../support/routeFixtures.ts';
import { owned, partition, type Item } from '../support/tenantItems.ts';

/**
 * The security catalogue, authorization (OWASP ASVS 5.0 V8) and the AWS SaaS Lens: the tenant
 * comes from the token only.
 *
 * V8.2.2 / V8.4.1, every route with another tenant's ids answers 404 and changes nothing: held
 * route by route, both ways, by tests/security/sweep.test.ts (with the same fixtures). What it
 * does not cover is here: a tenant id sent in the body, the query or a header; fields a client
 * may not set (mass assignment); hashes and secrets in answers.
 */

const withoutSessions = (items: Item[]): Item[] => items.filter((item) => !String(item.sk).startsWith('session#'));
async function snapshot(tenantId: string): Promise<string> {
  return JSON.stringify([withoutSessions(await partition(MAIN_TABLE, tenantId)), withoutSessions(await owned(EVENTS_TABLE, tenantId))]);
}

let attacker: Tenant;
let victim: Tenant;

beforeAll(async () => {
  const [a, b] = await Promise.all([newCompany(), newCompany()]);
  attacker = await fixtureTenant('the attacker', a.username, a.password);
  victim = await fixtureTenant('the victim', b.username, b.password);
}, 240_000);

const sessionRoutes = routes.filter((r) => r.access === 'session') as RouteEntry[];
/** Routes whose call ends the caller's session or needs the password again; they are held elsewhere. */
const leaves = new Set(['POST /v1/systems/logout', 'PATCH /v1/systems/reset']);
/** Every session route that names no record: one per list, create, export and setting of every resource. */
const unkeyed = sessionRoutes.filter((r) => paramsOf(r).length === 0 && !leaves.has(routeKey(r)));

function expectNothingOf(victimTenant: Tenant, text: string, where: string): void {
  expect(text, where).not.toContain(victimTenant.tenantId);
  expect(text, where).not.toContain(victimTenant.userCode);
  for (const value of Object.values(victimTenant.keys)) expect(text, where).not.toContain(value);
}

describe('SaaS Lens (tenant from the token only): another tenant’s id in the body, the query or a header is ignored', () => {
  const injected = (t: Tenant) => ({ 'x-tenant-id': t.tenantId, 'x-tenant': t.tenantId, tenant: t.tenantId, 'x-amz-tenant-id': t.tenantId });
  const withQuery = (path: string, t: Tenant) => `${path}${path.includes('?') ? '&' : '?'}tenantId=${t.tenantId}&tenant=${t.tenantId}`;

  it.each(unkeyed.map((r) => [routeKey(r), r] as const))('%s: the victim’s id in the query and headers reaches nothing of it', async (key, route) => {
    const before = await snapshot(victim.tenantId);
    const body = bodies[key]?.(attacker) ?? (route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
    const answer = await call(route.method, withQuery(pathFor(route, attacker.keys) + (queries[key] ?? ''), victim), {
      token: attacker.token,
      headers: injected(victim),
      ...(body !== undefined ? { body } : {}),
      ...(route.reauth ? { confirm: true } : {}),
    });
    expect(answer.status).toBeLessThan(500);
    expectNothingOf(victim, JSON.stringify(answer.body), key);
    expect(await snapshot(victim.tenantId)).toBe(before);
  });

  const writes = unkeyed.filter((r) => r.method !== 'GET' && r.method !== 'DELETE' && !r.binary);
  it.each(writes.map((r) => [routeKey(r), r] as const))('%s: the victim’s id as tenantId in the body is refused or ignored', async (key, route) => {
    const before = await snapshot(victim.tenantId);
    const body = { ...((bodies[key]?.(attacker) as object | undefined) ?? {}), tenantId: victim.tenantId };
    const answer = await call(route.method, pathFor(route, attacker.keys) + (queries[key] ?? ''), {
      token: attacker.token,
      body,
      ...(route.reauth ? { confirm: true } : {}),
    });
    expect(answer.status).toBeLessThan(500);
    expectNothingOf(victim, JSON.stringify(answer.body), key);
    expect(await snapshot(victim.tenantId)).toBe(before);
  });
});

describe('V8.2.3 field-level access: tenantId, owner, authCodes and version cannot be mass-assigned', () => {
  it('V8.2.3 every request body schema refuses or drops fields it does not declare (none passes them through)', async () => {
    const handlers = await declaredHandlers();
    const passing: string[] = [];
    const declaring: string[] = [];
    for (const route of routes) {
      const schema = handlers[routeKey(route)]?.body;
      if (!schema) continue;
      const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
        type?: string;
        properties?: object;
        additionalProperties?: unknown;
        anyOf?: unknown[];
        allOf?: unknown[];
      };
      const objects = [json, ...((json.anyOf ?? json.allOf ?? []) as (typeof json)[])].filter((s) => s.type === 'object');
      if (objects.some((o) => o.additionalProperties !== undefined && o.additionalProperties !== false)) passing.push(routeKey(route));
      // Only these are fields a client sets; tenantId and owner never are.
      for (const o of objects) if (o.properties && ('tenantId' in o.properties || 'owner' in o.properties)) declaring.push(routeKey(route));
      // And the parsed body drops or refuses them: zod strips unknown keys unless the schema is strict.
      const parsed = schema.safeParse({ tenantId: 'x', owner: true });
      if (parsed.success && parsed.data && typeof parsed.data === 'object') expect(parsed.data, routeKey(route)).not.toHaveProperty('tenantId');
    }
    expect(passing).toEqual([]);
    expect(declaring).toEqual([]);
  });

  it('V8.2.3 a create with tenantId, owner, authCodes and version set is refused and creates nothing', async () => {
    const beforeOwn = await snapshot(attacker.tenantId);
    const beforeVictim = await snapshot(victim.tenantId);
    const extra = { tenantId: victim.tenantId, owner: true, version: 99, authCodes: ['settings:account'] };
    for (const key of ['POST /v1/groups', 'POST /v1/departments', 'POST /v1/employees', 'POST /v1/visitors', 'POST /v1/attendance/holidays']) {
      const [method, path] = key.split(' ') as [string, string];
      const answer = await call(method, path, { token: attacker.token, body: { ...(bodies[key]!(attacker) as object), ...extra } });
      expect(answer.status, key).toBe(422);
    }
    const account = await call('POST', '/v1/accounts', { token: attacker.token, body: { ...(bodies['POST /v1/accounts']!(attacker) as object), owner: true } });
    expect(account.status).toBe(422);
    expect(await snapshot(attacker.tenantId)).toBe(beforeOwn);
    expect(await snapshot(victim.tenantId)).toBe(beforeVictim);
  });

  it('V8.2.3 an edit cannot make an account the owner nor move it, and version only ever moves by one', async () => {
    const accountKey = attacker.keys.accountKey!;
    const read = async () =>
      (await call<{ version: number; owner?: boolean; nickname: string }>('GET', `/v1/accounts/${accountKey}`, { token: attacker.token })).body.data;
    const start = await read();
    for (const extra of [{ owner: true }, { tenantId: victim.tenantId }]) {
      const refused = await call('PATCH', `/v1/accounts/${accountKey}`, {
        token: attacker.token,
        body: { nickname: 'Promoted', version: start.version, ...extra },
      });
      expect(refused.status).toBe(422);
    }
    // A version from the future is a conflict, not a new version.
    expect((await call('PATCH', `/v1/accounts/${accountKey}`, { token: attacker.token, body: { nickname: 'Jump', version: start.version + 50 } })).status).toBe(
      409,
    );
    const done = await call('PATCH', `/v1/accounts/${accountKey}`, { token: attacker.token, body: { nickname: 'Renamed', version: start.version } });
    expect(done.body.code).toBe(201);
    const after = await read();
    expect(after.version).toBe(start.version + 1);
    expect(after.nickname).toBe('Renamed');
    expect(after.owner ?? false).toBe(false);
  });

  it('V8.2.3 a route whose body drops unknown fields stores none of them', async () => {
    // The attendance edits drop what they do not declare rather than refusing it.
    const shiftKey = attacker.keys.shiftKey!;
    const current = (await call<{ version: number }>('GET', `/v1/attendance/shifts/${shiftKey}`, { token: attacker.token })).body.data;
    const body = {
      ...(bodies['PATCH /v1/attendance/shifts/{shiftKey}']!(attacker) as object),
      version: current.version,
      tenantId: victim.tenantId,
      owner: true,
      authCodes: ['settings:account'],
    };
    const answer = await call('PATCH', `/v1/attendance/shifts/${shiftKey}`, { token: attacker.token, body });
    expect([201, 422]).toContain(answer.body.code);
    const stored = (await partition(MAIN_TABLE, attacker.tenantId)).find((item) => item.sk === `attendanceShift#${shiftKey}`);
    expect(stored).toBeDefined();
    expect(stored!.tenantId).toBe(attacker.tenantId);
    expect(stored).not.toHaveProperty('owner');
    expect(stored).not.toHaveProperty('authCodes');
    if (answer.body.code === 201) expect(stored!.version).toBe(current.version + 1);
  });
});

/** Attribute names that hold a hash, a key, a sealed value or a secret. */
const SECRET_NAME = /hash|secret|privatekey|sealed|recoverycodes|^password$/i;

/** Every secret value the tenant's items hold (passwords' and tokens' hashes, keys, sealed SMTP passwords, TOTP secrets, recovery code hashes). */
function secretValues(items: Item[]): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, name: string) => {
    if (SECRET_NAME.test(name)) {
      const add = (v: unknown) => {
        if (typeof v === 'string' && v.length >= 16) found.add(v);
      };
      if (value instanceof Set || Array.isArray(value)) for (const v of value) add(v);
      else add(value);
      return;
    }
    if (value && typeof value === 'object' && !(value instanceof Set)) for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  for (const item of items) visit(item, '');
  return [...found];
}

function secretNamesIn(value: unknown, path = ''): string[] {
  if (!value || typeof value !== 'object') return [];
  // A count or a flag about a secret (recoveryCodesLeft, passwordSet) tells nothing of it.
  const holdsText = (v: unknown) => typeof v === 'string' || (Array.isArray(v) && v.some((x) => typeof x === 'string'));
  return Object.entries(value).flatMap(([k, v]) => [...(SECRET_NAME.test(k) && holdsText(v) ? [`${path}${k}`] : []), ...secretNamesIn(v, `${path}${k}.`)]);
}

/** Every presigned link in an answer. */
function signedUrls(value: unknown): string[] {
  const text = JSON.stringify(value);
  return [...text.matchAll(/https?:\/\/[^"\s]+X-Amz-Signature[^"\s]*/g)].map((m) => m[0]);
}

/** Each presigned link of an answer names an object under the caller's tenant id (`/<bucket>/<tenantId>/…`). */
function expectOwnPrefix(value: unknown, where: string): void {
  for (const url of signedUrls(value)) {
    const path = decodeURIComponent(new URL(url.replace(/\\u0026/g, '&')).pathname);
    expect(path.split('/')[2], `${where}: ${path}`).toBe(attacker.tenantId);
  }
}

describe('no hash or secret in any answer', () => {
  let enrolled: { token: string };

  beforeAll(async () => {
    // An administrator with two-factor login on (a sealed TOTP secret and recovery code hashes
    // stored), and email settings with an SMTP password (sealed).
    const username = unique('tfasecret');
    await createAccount(attacker.tenantId, { username, password: 'enrolled-pass-1', authCodes: ['settings:account'] as never });
    const user = await login(username, 'enrolled-pass-1');
    const started = await call<{ secret: string }>('POST', '/v1/systems/twoFactor/enrolment', { token: user.token });
    const confirmed = await call('POST', '/v1/systems/twoFactor', {
      token: user.token,
      body: { password: await encrypt(user.key, 'enrolled-pass-1'), code: await totpCode(started.body.data.secret) },
    });
    expect(confirmed.body.code, confirmed.body.message).toBe(201);
    enrolled = { token: user.token };
    const current = (await call<{ version: number }>('GET', '/v1/settings/email', { token: attacker.token })).body.data;
    const saved = await call('PUT', '/v1/settings/email', {
      token: attacker.token,
      confirm: true,
      body: {
        senderAddress: 'alerts@company.test',
        senderName: 'Catalogue',
        host: '127.0.0.1',
        port: 2525,
        tlsMode: 'starttls',
        username: 'mailer',
        password: 'smtp-Secret-42!',
        recipients: ['guard@company.test'],
        feverAlert: true,
        version: current.version,
      },
    });
    expect(saved.body.code, saved.body.message).toBe(201);
    const stored = (await dynamo().send(new GetCommand({ TableName: tableName(MAIN_TABLE), Key: { pk: attacker.tenantId, sk: 'settings#email' } }))).Item;
    expect(stored?.passwordSealed).toBeTruthy();
  });

  const reads = sessionRoutes.filter((r) => r.method === 'GET');
  it.each(reads.map((r) => [routeKey(r), r] as const))('%s answers no hash, key or secret of the tenant', async (key, route) => {
    const secrets = secretValues(await partition(MAIN_TABLE, attacker.tenantId));
    expect(secrets.length).toBeGreaterThan(5);
    const answer = await send(route, attacker.token, attacker, { confirm: !!route.reauth });
    expect(answer.status, answer.body.message).toBeLessThan(500);
    const text = JSON.stringify(answer.body);
    for (const secret of secrets) expect(text, key).not.toContain(secret);
    expect(secretNamesIn(answer.body.data), key).toEqual([]);
    expect(text, key).not.toContain('smtp-Secret-42!');
    expectOwnPrefix(answer.body, key);
  });

  it('V8.2.2 a presigned URL is only ever for the caller’s prefix: upload links and every link a read answers', async () => {
    const presign = await call<{ upload: { url: string } }>('POST', '/v1/files/uploads/presign', {
      token: attacker.token,
      body: bodies['POST /v1/files/uploads/presign']!(attacker),
    });
    expect(presign.body.code).toBe(201);
    const pkg = await call<{ upload: { url: string } }>('POST', '/v1/settings/system/packages', {
      token: attacker.token,
      body: bodies['POST /v1/settings/system/packages']!(attacker),
    });
    expect(pkg.body.code).toBe(201);
    expect(signedUrls(presign.body).length + signedUrls(pkg.body).length).toBe(2);
    expectOwnPrefix(presign.body, 'presign');
    expectOwnPrefix(pkg.body, 'packages');
  });

  it('login, two-factor state, account writes and the email settings answer no hash, key or secret either', async () => {
    const secrets = secretValues(await partition(MAIN_TABLE, attacker.tenantId));
    const answers = [
      await call('GET', '/v1/systems/twoFactor', { token: enrolled.token }),
      await call('GET', '/v1/systems/me', { token: enrolled.token }),
      await call('POST', '/v1/accounts', { token: attacker.token, body: bodies['POST /v1/accounts']!(attacker) }),
      await call('GET', '/v1/settings/email', { token: attacker.token }),
    ];
    const owner = await login(attacker.username, attacker.password);
    attacker.token = owner.token;
    for (const answer of answers) {
      const text = JSON.stringify(answer.body);
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(secretNamesIn(answer.body.data)).toEqual([]);
      expect(text).not.toContain('smtp-Secret-42!');
    }
    // The login answers the session's public key, never its private half.
    expect(JSON.stringify(owner)).not.toMatch(/PRIVATE KEY/);
    for (const secret of secretValues(await partition(MAIN_TABLE, attacker.tenantId))) expect(JSON.stringify(owner)).not.toContain(secret);
  });
});
