import { describe, expect, it } from 'vitest';
import { routeKey, routes, type RouteEntry } from '@passcloud/functions/routes';

/**
 * An account whose password someone else chose (an administrator, a reset) must choose its own
 * before anything else: only the routes the route table flags `beforePasswordChange` answer it,
 * every other session route answers 401 (tests/integration/passwordChange.test.ts).
 */
describe('routes an account may use before it changes its password', () => {
  const table: readonly RouteEntry[] = routes;

  it('are exactly changing the password, reading itself and its menu, and logging out', () => {
    const flagged = table.filter((r) => r.beforePasswordChange).map(routeKey);
    expect(flagged.sort()).toEqual(['GET /v1/systems/me', 'GET /v1/systems/routes', 'PATCH /v1/systems/reset', 'POST /v1/systems/logout']);
  });

  it('are session routes without a permission code: nothing a permission guards comes before the password', () => {
    for (const route of table.filter((r) => r.beforePasswordChange)) {
      expect(route.access, routeKey(route)).toBe('session');
      expect(route.authCode, routeKey(route)).toBeUndefined();
    }
  });
});
