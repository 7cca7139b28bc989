import { beforeAll, describe, expect, it, inject } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { routes, routeKey, type RouteEntry } from '@passcloud/functions/routes';
import { dynamo } from '@passcloud/functions/lib/aws';
import { MAIN_TABLE, EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { createAccount } from '@passcloud/functions/data/identity';
import { call, login, registerTenant, unique } from '../support/api.ts';

/**
 * Walks every route of the route table:
 * - with no token, a session route answers 403;
 * - with one tenant's token, aimed at the other tenant's records, nothing of the other tenant
 *   changes and nothing of it comes back (both ways: the demo tenant and a newly registered one);
 * - with an account of the first tenant that lacks the route's authCode, it answers 401 and
 *   nothing changes.
 * A route with a path parameter needs a fixture below that creates a record in a tenant and
 * answers its key; a new route without one fails this test until it gets one.
 */

interface Ctx {
  tenantId: string;
  token: string;
}

/** Path parameter name -> a new record of the given tenant, answering its key. */
const fixtures: Record<string, (ctx: Ctx) => Promise<string>> = {};

/** Optional request bodies that would succeed for the owner, so a refusal is about access, not validation. */
const bodies: Record<string, (ctx: Ctx) => unknown> = {};

/** Routes that end the caller's session; the sweep logs in again after them. */
const endsSession = new Set(['POST /v1/systems/logout']);

async function partition(table: typeof MAIN_TABLE, pk: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({ TableName: tableName(table), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  // Sessions record when they were last used; that is not a change to the tenant's data.
  return items.filter((item) => !String(item.sk).startsWith('session#')).map((item) => ({ ...item }));
}

async function snapshot(tenantId: string): Promise<string> {
  return JSON.stringify([await partition(MAIN_TABLE, tenantId), await partition(EVENTS_TABLE, tenantId)]);
}

function pathFor(route: RouteEntry, keys: Record<string, string>): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(keys[name] ?? 'missing'));
}

const paramsOf = (route: RouteEntry): string[] => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

interface Tenant extends Ctx {
  name: string;
  username: string;
  password: string;
  userCode: string;
  /** Keys of this tenant's fixture records, by path parameter name. */
  keys: Record<string, string>;
}

const tenants: Tenant[] = [];
let limited: { username: string; password: string; token: string };

async function tenant(name: string, username: string, password: string): Promise<Tenant> {
  const user = await login(username, password);
  const t: Tenant = { name, username, password, tenantId: user.token.split('.')[0]!, userCode: user.userCode, token: user.token, keys: {} };
  for (const param of new Set(routes.flatMap(paramsOf))) {
    const make = fixtures[param];
    if (make) t.keys[param] = await make(t);
  }
  return t;
}

beforeAll(async () => {
  const demo = inject('demo');
  const registered = await registerTenant();
  tenants.push(await tenant('the demo tenant', demo.username, demo.password), await tenant('a registered tenant', registered.username, registered.password));
  const username = unique('nocodes');
  await createAccount(tenants[0]!.tenantId, { username, password: 'limited-pass-1', authCodes: [] });
  limited = { username, password: 'limited-pass-1', token: (await login(username, 'limited-pass-1')).token };
});

async function send(route: RouteEntry, token: string | undefined, target: Tenant) {
  const key = routeKey(route);
  const body = bodies[key]?.(target) ?? (route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
  return call(route.method, pathFor(route, target.keys), { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}) });
}

describe('route table sweep', () => {
  it('has a fixture for every path parameter', () => {
    const missing = [...new Set(routes.flatMap(paramsOf))].filter((name) => !fixtures[name]);
    expect(missing, `add a fixture for: ${missing.join(', ')}`).toEqual([]);
  });

  it('mounts every route on the local host', async () => {
    for (const route of routes) {
      const answer = await send(route, undefined, tenants[0]!);
      expect(answer.body.message, routeKey(route)).not.toMatch(/No such API path/);
    }
  });

  const sessionRoutes = routes.filter((r) => (r as RouteEntry).access === 'session') as RouteEntry[];

  it.each(sessionRoutes.map((r) => [routeKey(r), r] as const))('%s answers 403 without a session', async (_key, route) => {
    const victim = tenants[0]!;
    const before = await snapshot(victim.tenantId);
    const answer = await send(route, undefined, victim);
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe(403);
    expect(await snapshot(victim.tenantId)).toBe(before);
  });

  const crossings = sessionRoutes.flatMap((r) => [
    [routeKey(r), 1, 0, r],
    [routeKey(r), 0, 1, r],
  ] as const);
  it.each(crossings)('%s: tenant %i never reaches tenant %i', async (key, attackerIndex, victimIndex, route) => {
    const attacker = tenants[attackerIndex]!;
    const victim = tenants[victimIndex]!;
    const before = await snapshot(victim.tenantId);
    const answer = await send(route, attacker.token, victim);
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(victim.tenantId);
    expect(text).not.toContain(victim.userCode);
    for (const value of Object.values(victim.keys)) expect(text).not.toContain(value);
    if (paramsOf(route).length > 0) expect([404, 422]).toContain(answer.status);
    expect(await snapshot(victim.tenantId)).toBe(before);
    if (endsSession.has(key)) attacker.token = (await login(attacker.username, attacker.password)).token;
  });

  const coded = sessionRoutes.filter((r) => r.authCode);
  it('covers every route that carries an authCode', () => {
    expect(coded.length).toBe(routes.filter((r) => 'authCode' in r && r.authCode).length);
  });

  it.each(coded.map((r) => [routeKey(r), r] as const))('%s answers 401 to an account without its authCode', async (key, route) => {
    const own = tenants[0]!;
    const before = await snapshot(own.tenantId);
    const answer = await send(route, limited.token, own);
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe(401);
    expect(await snapshot(own.tenantId)).toBe(before);
    if (endsSession.has(key)) limited.token = (await login(limited.username, limited.password)).token;
  });
});
