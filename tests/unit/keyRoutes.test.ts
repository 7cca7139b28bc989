import { describe, expect, it } from 'vitest';
import { KEY_CODES, SESSION_ONLY_CODES } from '@passcloud/functions/contract/apiKeys';
import { handlers } from '@passcloud/functions/resources/index';
import { keyMayUse, routeKey, routes, type RouteEntry } from '@passcloud/functions/routes';

/**
 * Which routes an API key may call (routes.ts `keyMayUse`), as the route table says it: the
 * HTTP API refuses a key elsewhere before any handler runs (tests/integration/apiKeys.test.ts and
 * the sweep prove it over HTTP). These tests hold the rule itself.
 */
describe('routes an API key may use', () => {
  const table: readonly RouteEntry[] = routes;

  it('never manage accounts, two-factor login, keys, webhooks’ secrets or the company’s security settings', () => {
    const open = new Set(table.filter(keyMayUse).map(routeKey));
    for (const key of [
      'GET /v1/accounts',
      'POST /v1/accounts',
      'DELETE /v1/accounts/{accountKey}/twoFactor',
      'POST /v1/systems/twoFactor/enrolment',
      'POST /v1/systems/twoFactor/disable',
      'PATCH /v1/systems/reset',
      'GET /v1/systems/me',
      'GET /v1/systems/live',
      'GET /v1/apiKeys',
      'POST /v1/apiKeys',
      'POST /v1/webhooks',
      'POST /v1/webhooks/{webhookKey}/secret',
      'PUT /v1/settings/privacy',
      'PUT /v1/settings/twoFactor',
      'GET /v1/settings/twoFactor',
      'PUT /v1/settings/email',
    ]) {
      expect(open.has(key), key).toBe(false);
    }
  });

  it('reach what machines need: people, grants, records, uploads', () => {
    for (const key of ['GET /v1/employees', 'POST /v1/visitors', 'POST /v1/files/uploads/presign', 'POST /v1/authorities', 'GET /v1/passRecords', 'GET /v1/audit']) {
      const route = table.find((r) => routeKey(r) === key)!;
      expect(keyMayUse(route), key).toBe(true);
    }
  });

  it('are never public or device routes, nor any that asks for the password again', () => {
    for (const route of table.filter(keyMayUse)) {
      expect(route.access, routeKey(route)).toBe('session');
      expect(route.reauth, routeKey(route)).toBeUndefined();
    }
  });

  it('leave no code a key may hold without a route it opens, and give a key none of the codes for people only', () => {
    expect(KEY_CODES.some((code) => (SESSION_ONLY_CODES as readonly string[]).includes(code))).toBe(false);
    const opened = new Set(table.filter(keyMayUse).flatMap((r) => r.authCodes ?? (r.authCode ? [r.authCode] : [])));
    expect(KEY_CODES.filter((code) => !opened.has(code))).toEqual([]);
  });

  it('have no handler that takes only a person’s session', async () => {
    const { apiKeys } = await import('@passcloud/functions/resources/apiKeys');
    expect(Object.keys(handlers)).toContain(apiKeys.resource);
    const defs = await Promise.all(
      [...new Set(table.map((r) => r.resource))].map(async (resource) => {
        const mod = (await import(`@passcloud/functions/resources/${resource}`)) as Record<string, { handlers?: Record<string, { sessionOnly?: true }> }>;
        return Object.values(mod).find((v) => v && typeof v === 'object' && 'handlers' in v)!.handlers!;
      }),
    );
    const all = Object.assign({}, ...defs) as Record<string, { sessionOnly?: true }>;
    const wrong = table.filter((r) => keyMayUse(r) && all[routeKey(r)]?.sessionOnly).map(routeKey);
    expect(wrong).toEqual([]);
    // And the rule is not idle: the people-only handlers exist.
    expect(table.filter((r) => all[routeKey(r)]?.sessionOnly).length).toBeGreaterThan(10);
  });
});
