import { describe, expect, inject, it } from 'vitest';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { createAccount } from '@passcloud/functions/data/identity';
import { routeKey, routes, type RouteEntry } from '@passcloud/functions/routes';
import { call, encrypt, login, unique, type UserInfo } from '../support/api.ts';

/**
 * An account whose password someone else chose may use only the routes the route table flags
 * `beforePasswordChange` until it chooses its own: every other session route answers 401
 * (auth.mustChangePassword), whatever its permissions.
 */

const demo = () => inject('demo');
const table: readonly RouteEntry[] = routes;
const sessionRoutes = table.filter((r) => r.access === 'session');
const flagged = sessionRoutes.filter((r) => r.beforePasswordChange);
const others = sessionRoutes.filter((r) => !r.beforePasswordChange);

/** A new account of the demo company with every permission, whose password an administrator chose. */
async function accountWithPasswordSet(): Promise<{ username: string; password: string }> {
  const username = unique('fresh');
  const password = 'given-pass-1';
  await createAccount(demo().tenantId, { username, password, authCodes: [...AUTH_CODES], email: `${username}@example.test`, mustChangePassword: true });
  return { username, password };
}

/** The route's path with made-up keys for its parameters: the session is judged before anything else. */
const pathOf = (route: RouteEntry) => route.path.replace(/\{\w+\}/g, 'k0000000000000001');

describe('before the password is changed', () => {
  it('answers 401 on every session route the table does not flag, and 200 on the flagged reads', async () => {
    const { username, password } = await accountWithPasswordSet();
    const user = await login(username, password);
    expect(user.mustChangePassword).toBe(true);

    expect(others.some((r) => routeKey(r) === 'GET /v1/employees')).toBe(true);
    for (const route of others) {
      const answer = await call(route.method, pathOf(route), { token: user.token });
      expect(answer.status, routeKey(route)).toBe(401);
      expect(answer.body.code, routeKey(route)).toBe(401);
      expect(answer.body.message, routeKey(route)).toMatch(/new password/);
    }
    // The systems session routes are the flagged ones, the live channel's address and two-factor login (set up after the password; refused above like the rest).
    expect(others.filter((r) => r.resource === 'systems').map(routeKey)).toEqual([
      'GET /v1/systems/live',
      'GET /v1/systems/twoFactor',
      'POST /v1/systems/twoFactor/enrolment',
      'POST /v1/systems/twoFactor',
      'POST /v1/systems/twoFactor/recoveryCodes',
      'POST /v1/systems/twoFactor/disable',
    ]);

    const me = await call<UserInfo>('GET', '/v1/systems/me', { token: user.token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ username, mustChangePassword: true });
    const menu = await call<{ path: string }[]>('GET', '/v1/systems/routes', { token: user.token });
    expect(menu.status).toBe(200);
    expect(menu.body.data.length).toBeGreaterThan(0);
    const logout = await call('POST', '/v1/systems/logout', { token: user.token });
    expect(logout.status).toBe(200);
    expect(logout.body.code).toBe(204);
    expect(flagged.map(routeKey).sort()).toEqual(['GET /v1/systems/me', 'GET /v1/systems/routes', 'PATCH /v1/systems/reset', 'POST /v1/systems/logout']);
  });

  it('lets the account change its password, after which the other routes answer', async () => {
    const { username, password } = await accountWithPasswordSet();
    const user = await login(username, password);
    expect((await call('GET', '/v1/employees', { token: user.token })).status).toBe(401);
    const payload = await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: 'own-pass-22' }));
    const reset = await call('PATCH', '/v1/systems/reset', { token: user.token, body: { payload } });
    expect(reset.status).toBe(200);
    expect(reset.body.code).toBe(201);

    const employees = await call('GET', '/v1/employees', { token: user.token });
    expect(employees.status).toBe(200);
    expect(employees.body.code).toBe(200);
    expect((await call<UserInfo>('GET', '/v1/systems/me', { token: user.token })).body.data.mustChangePassword).toBe(false);
  });
});
