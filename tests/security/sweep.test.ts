import { beforeAll, describe, expect, it } from 'vitest';
import { keyMayUse, routes, routeKey, type RouteEntry } from '@passcloud/functions/routes';
import { KEY_CODES } from '@passcloud/functions/contract/apiKeys';
import { call, login, newCompany, unique } from '../support/api.ts';
import { fixtureTenant, fixtures, paramsOf, send, withoutUse, type Tenant } from '../support/routeFixtures.ts';
import { MAIN_TABLE, EVENTS_TABLE } from '@passcloud/functions/data/tables';
import { createAccount } from '@passcloud/functions/data/identity';
import { owned, partition, type Item } from '../support/tenantItems.ts';

/**
 * Walks every route of the route table:
 * - with no token, a session route answers 403;
 * - with one tenant's token, aimed at the other tenant's records, nothing of the other tenant
 *   changes and nothing of it comes back (both ways, between two companies made for this file);
 * - with an account of the first tenant that lacks the route's authCode, it answers 401 and
 *   nothing changes;
 * - a route that weakens the company's security asks for the password again, and without it
 *   answers 401 and changes nothing;
 * - with an API key: a route for people only answers 401 to a key holding every code a key may
 *   hold, a coded route answers 401 to a key without its code, and a key of one tenant aimed at
 *   the other's records changes nothing of it and tells nothing of it; none changes anything.
 * A route with a path parameter needs a fixture in tests/support/routeFixtures.ts that creates a
 * record in a tenant and answers its key; a new route without one fails this test until it gets one.
 */

/** Routes that end the caller's session; the sweep logs in again after them. */
const endsSession = new Set(['POST /v1/systems/logout']);

/** Sessions record when they were last used; that is not a change to the tenant's data. */
const withoutSessions = (items: Item[]): Item[] => items.filter((item) => !String(item.sk).startsWith('session#'));

async function snapshot(tenantId: string): Promise<string> {
  return withoutUse([withoutSessions(await partition(MAIN_TABLE, tenantId)), withoutSessions(await owned(EVENTS_TABLE, tenantId))]);
}

/** A new API key of the tenant holding `authCodes`, made by its owner. */
async function keyOf(tenant: Tenant, authCodes: readonly string[]): Promise<string> {
  // Earlier tests log in again as the owner, which ends the session the tenant was made with.
  tenant.token = (await login(tenant.username, tenant.password)).token;
  const answer = await call<{ key: string }>('POST', '/v1/apiKeys', { token: tenant.token, body: { name: unique('sweep'), authCodes }, confirm: true });
  if (answer.body.code !== 201) throw new Error(`making a sweep key answered ${answer.status}: ${answer.body.message}`);
  return answer.body.data.key;
}

const tenants: Tenant[] = [];
let limited: { username: string; password: string; token: string };

beforeAll(async () => {
  // Two companies of this file's own: other files write into the demo company while this one runs.
  const [first, second] = await Promise.all([newCompany(), newCompany()]);
  tenants.push(await fixtureTenant('one company', first.username, first.password), await fixtureTenant('another company', second.username, second.password));
  const username = unique('nocodes');
  await createAccount(tenants[0]!.tenantId, { username, password: 'limited-pass-1', authCodes: [] });
  limited = { username, password: 'limited-pass-1', token: (await login(username, 'limited-pass-1')).token };
});

describe('route table sweep', () => {
  it('has a fixture for every path parameter', () => {
    const missing = [...new Set(routes.flatMap(paramsOf))].filter((name) => !fixtures[name]);
    expect(missing, `add a fixture for: ${missing.join(', ')}`).toEqual([]);
  });

  it('mounts every route on the local host', async () => {
    for (const route of routes) {
      const answer = await send(route, undefined, tenants[0]!);
      // The whole answer: GET /v1/openapi.json answers the document itself, not the envelope.
      expect(JSON.stringify(answer.body), routeKey(route)).not.toMatch(/No such API path/);
    }
  });

  const sessionRoutes = routes.filter((r) => (r as RouteEntry).access === 'session') as RouteEntry[];
  const publicRoutes = routes.filter((r) => (r as RouteEntry).access === 'public') as RouteEntry[];

  it.each(publicRoutes.map((r) => [routeKey(r), r] as const))('%s, called by anyone, changes no company’s data and tells none of it', async (_key, route) => {
    const before = await Promise.all(tenants.map((t) => snapshot(t.tenantId)));
    const answer = await send(route, undefined, tenants[0]!);
    expect(answer.status).toBeLessThan(500);
    const text = JSON.stringify(answer.body);
    for (const t of tenants) expect(text).not.toContain(t.tenantId);
    expect(await Promise.all(tenants.map((t) => snapshot(t.tenantId)))).toEqual(before);
  });

  it.each(sessionRoutes.map((r) => [routeKey(r), r] as const))('%s answers 403 without a session', async (_key, route) => {
    const victim = tenants[0]!;
    const before = await snapshot(victim.tenantId);
    const answer = await send(route, undefined, victim);
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe(403);
    expect(await snapshot(victim.tenantId)).toBe(before);
  });

  const crossings = sessionRoutes.flatMap(
    (r) =>
      [
        [routeKey(r), 1, 0, r],
        [routeKey(r), 0, 1, r],
      ] as const,
  );
  it.each(crossings)('%s: tenant %i never reaches tenant %i', async (key, attackerIndex, victimIndex, route) => {
    const attacker = tenants[attackerIndex]!;
    const victim = tenants[victimIndex]!;
    const before = await snapshot(victim.tenantId);
    // A route that asks for the password again gets it, so that what answers is the route itself.
    const answer = await send(route, attacker.token, victim, { confirm: !!route.reauth });
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(victim.tenantId);
    expect(text).not.toContain(victim.userCode);
    for (const value of Object.values(victim.keys)) expect(text).not.toContain(value);
    if (paramsOf(route).length > 0) expect([404, 422]).toContain(answer.status);
    expect(await snapshot(victim.tenantId)).toBe(before);
    if (endsSession.has(key)) attacker.token = (await login(attacker.username, attacker.password)).token;
  });

  const coded = sessionRoutes.filter((r) => r.authCode || r.authCodes?.length);
  it('covers every route that carries an authCode or authCodes', () => {
    expect(coded.length).toBe(routes.filter((r) => ('authCode' in r && r.authCode) || ('authCodes' in r && r.authCodes.length)).length);
  });

  // Authorizations need pass:authority or pass:blacklist by their setType; the handler checks it.
  const checkedInHandler = sessionRoutes.filter((r) => r.resource === 'authorities');
  it.each(checkedInHandler.map((r) => [routeKey(r), r] as const))('%s answers 401 to an account without the codes of either list', async (_key, route) => {
    const own = tenants[0]!;
    const before = await snapshot(own.tenantId);
    const answer = await send(route, limited.token, own);
    expect(answer.status).toBe(401);
    expect(await snapshot(own.tenantId)).toBe(before);
  });

  /**
   * What weakens a company's security: its two-factor policy, what its records keep (privacy), and
   * where the service sends its data (mail server, webhook addresses and secrets). Session lengths
   * are the deployment's (SESSION_IDLE_MINUTES, SESSION_MAX_MINUTES), not a tenant's setting.
   */
  const weakening = new Set([
    'PUT /v1/settings/twoFactor',
    'PUT /v1/settings/privacy',
    'PUT /v1/settings/email',
    'POST /v1/webhooks',
    'PATCH /v1/webhooks/{webhookKey}',
    'POST /v1/webhooks/{webhookKey}/secret',
  ]);
  it('asks for the password again on every route that weakens the company’s security', () => {
    const missing = sessionRoutes.filter((r) => weakening.has(routeKey(r)) && !r.reauth).map(routeKey);
    expect(missing).toEqual([]);
    expect(sessionRoutes.filter((r) => weakening.has(routeKey(r))).length).toBe(weakening.size);
  });

  const confirmed = sessionRoutes.filter((r) => r.reauth);
  it.each(confirmed.map((r) => [routeKey(r), r] as const))('%s without the password again answers 401 and changes nothing', async (_key, route) => {
    const own = tenants[0]!;
    // A new session, in which no password was confirmed yet.
    const fresh = (await login(own.username, own.password)).token;
    const before = await snapshot(own.tenantId);
    const answer = await send(route, fresh, own);
    expect(answer.status).toBe(401);
    expect(answer.body.data).toMatchObject({ reauth: 'required' });
    expect(await snapshot(own.tenantId)).toBe(before);
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

  describe('with API keys', () => {
    const keys: { every?: string; dashboard?: string; attacker?: string } = {};
    beforeAll(async () => {
      keys.every = await keyOf(tenants[0]!, KEY_CODES);
      keys.dashboard = await keyOf(tenants[0]!, ['pass:dashboard']);
      keys.attacker = await keyOf(tenants[1]!, KEY_CODES);
    });

    const peopleOnly = sessionRoutes.filter((r) => !keyMayUse(r));
    it.each(peopleOnly.map((r) => [routeKey(r), r] as const))('%s answers 401 to a key holding every code a key may hold', async (_key, route) => {
      const own = tenants[0]!;
      const before = await snapshot(own.tenantId);
      const answer = await send(route, keys.every, own);
      expect(answer.status).toBe(401);
      expect(await snapshot(own.tenantId)).toBe(before);
    });

    const keyed = sessionRoutes.filter(keyMayUse);
    const closed = keyed.filter((r) => (r.authCode && r.authCode !== 'pass:dashboard') || (r.authCodes?.length && !r.authCodes.includes('pass:dashboard')));
    it.each(closed.map((r) => [routeKey(r), r] as const))('%s answers 401 to a key without its code', async (_key, route) => {
      const own = tenants[0]!;
      const before = await snapshot(own.tenantId);
      const answer = await send(route, keys.dashboard, own);
      expect(answer.status).toBe(401);
      expect(await snapshot(own.tenantId)).toBe(before);
    });

    it.each(keyed.map((r) => [routeKey(r), r] as const))('%s: a key of one tenant never reaches the other', async (_key, route) => {
      const victim = tenants[0]!;
      const before = await snapshot(victim.tenantId);
      const answer = await send(route, keys.attacker, victim);
      const text = JSON.stringify(answer.body);
      expect(answer.status).not.toBe(429);
      expect(text).not.toContain(victim.tenantId);
      expect(text).not.toContain(victim.userCode);
      for (const value of Object.values(victim.keys)) expect(text).not.toContain(value);
      if (paramsOf(route).length > 0) expect([404, 422]).toContain(answer.status);
      expect(await snapshot(victim.tenantId)).toBe(before);
    });
  });
});
