import '../support/localEnv.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { translate } from '@passcloud/functions/lib/i18n';
import type { HttpResult } from '@passcloud/functions/lib/http';
import { employees } from '@passcloud/functions/resources/employees';
import { mailSettings } from '@passcloud/functions/resources/mailSettings';
import { settings } from '@passcloud/functions/resources/settings';
import { startHost, type Host } from '@passcloud/infra/local/host';
import { call, login, newCompany } from '../support/api.ts';

/**
 * The HTTP API routes by path prefix (functions/apiRoutes.ts): every request under a prefix goes
 * to the function of the resource that owns it, with the prefix's route key and API Gateway's
 * path parameters for it, and the function picks the entry of the route table by method and
 * path. A path under the prefix that the resource does not have, or a method its path does not
 * have, answers what it always answered: 404, "No such API path".
 */

const notFound = (path: string) => ({ code: 404, message: translate('en_US', 'error.routeNotFound', { path }), data: null });

let token: string;
beforeAll(async () => {
  const made = await newCompany();
  token = (await login(made.username, made.password)).token;
});

describe('a request the route table has no entry for, through the local host', () => {
  it.each([
    ['GET', '/v1/employees/zzzzzzzzzzzzzzzz/nothing'],
    ['POST', '/v1/employees/imports/nothing/more'],
    ['GET', '/v1/settings/email/nothing'],
    ['GET', '/v1/deviceSync/nothing'],
    ['GET', '/v1/systems'],
    ['GET', '/v1/openapi.json/nothing'],
    ['GET', '/v1/nothing'],
  ])('%s %s, a path no entry has, answers 404 as before', async (method, path) => {
    for (const as of [token, undefined]) {
      const answer = await call(method, path, { locale: 'en_US', ...(as ? { token: as } : {}) });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual(notFound(path));
    }
  });

  it.each([
    ['PUT', '/v1/employees'],
    ['POST', '/v1/employees/zzzzzzzzzzzzzzzz'],
    ['DELETE', '/v1/deviceSync/faces'],
    ['GET', '/v1/settings/email/test'],
    ['PATCH', '/v1/systems/login'],
  ])('%s %s, a method its path does not have, answers 404 as before, with or without a session', async (method, path) => {
    for (const as of [token, undefined]) {
      const answer = await call(method, path, { locale: 'en_US', ...(as ? { token: as } : {}), ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual(notFound(path));
    }
  });

  it('still answers the entries: a fixed segment before a parameter in its place, and the parameter from the path', async () => {
    expect((await call('GET', '/v1/employees/exports/zzzzzzzzzzzzzzzz', { token, locale: 'en_US' })).body.message).not.toMatch(/No such API path/);
    const unknown = await call('GET', '/v1/employees/zzzzzzzzzzzzzzzz', { token, locale: 'en_US' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).not.toMatch(/No such API path/);
    expect((await call('GET', '/v1/settings/email', { token })).status).toBe(200);
  });
});

describe('the events the functions get from the local host', () => {
  let host: Host;
  const seen: { resource: string; event: APIGatewayProxyEventV2; result: HttpResult }[] = [];
  const recorded =
    (resource: string, handler: (event: APIGatewayProxyEventV2) => Promise<HttpResult>) =>
    async (event: APIGatewayProxyEventV2): Promise<HttpResult> => {
      const result = await handler(event);
      seen.push({ resource, event, result });
      return result;
    };

  beforeAll(async () => {
    host = await startHost({
      port: 0,
      webRoot: mkdtempSync(join(tmpdir(), 'api-routes-web-')),
      handlers: { employees: recorded('employees', employees.handler), settings: recorded('settings', settings.handler), mailSettings: recorded('mailSettings', mailSettings.handler) },
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  const send = async (method: string, path: string) => {
    seen.length = 0;
    const res = await fetch(`${host.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'accept-language': 'en_US' } });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it('carry the prefix’s route and API Gateway’s path parameters for it, as on AWS', async () => {
    const answer = await send('GET', '/v1/employees/zzzzzzzzzzzzzzzz/erasure');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.resource).toBe('employees');
    expect(seen[0]!.event).toMatchObject({
      routeKey: 'ANY /v1/employees/{proxy+}',
      rawPath: '/v1/employees/zzzzzzzzzzzzzzzz/erasure',
      pathParameters: { proxy: 'zzzzzzzzzzzzzzzz/erasure' },
      requestContext: { routeKey: 'ANY /v1/employees/{proxy+}', http: { method: 'GET', path: '/v1/employees/zzzzzzzzzzzzzzzz/erasure' } },
    });
    // The employees function found its entry and read the key from the path: the person is unknown, the path is not.
    expect(answer.status).toBe(404);
    expect(JSON.stringify(answer.body)).not.toMatch(/No such API path/);

    await send('GET', '/v1/employees');
    expect(seen[0]!.event.routeKey).toBe('ANY /v1/employees');
    expect(seen[0]!.event.pathParameters).toBeUndefined();
  });

  it('reach the resource that owns the longer of two prefixes', async () => {
    expect((await send('GET', '/v1/settings/email')).status).toBe(200);
    expect(seen.map((s) => [s.resource, s.event.routeKey])).toEqual([['mailSettings', 'ANY /v1/settings/email']]);
    await send('GET', '/v1/settings/privacy');
    expect(seen.map((s) => [s.resource, s.event.routeKey])).toEqual([['settings', 'ANY /v1/settings/{proxy+}']]);
  });

  it('reach the function for a path or method its resource does not have, which answers 404', async () => {
    for (const [method, path] of [
      ['GET', '/v1/employees/zzzzzzzzzzzzzzzz/nothing'],
      ['PUT', '/v1/employees'],
      ['GET', '/v1/settings/email/test'],
    ] as const) {
      const answer = await send(method, path);
      expect(seen.map((s) => s.resource), `${method} ${path}`).toHaveLength(1);
      expect(answer).toEqual({ status: 404, body: notFound(path) });
    }
  });
});
