import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { systems } from '@passcloud/functions/resources/systems';
import { ORIGIN_VERIFY_HEADER, clientAddress, errorResult } from '@passcloud/functions/lib/http';
import { sha256 } from '@passcloud/functions/lib/crypto';

const dynamo = mockClient(DynamoDBDocumentClient);
const TENANT = 'tenant0000000001';
const TOKEN = `${TENANT}.${'s'.repeat(43)}`;
const HASH = sha256(TOKEN);

function event(routeKey: string, headers: Record<string, string> = {}, body?: string): APIGatewayProxyEventV2 {
  const [method, path] = routeKey.split(' ') as [string, string];
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
    requestContext: { http: { method, path, sourceIp: '203.0.113.9' }, requestId: 'req-1' } as APIGatewayProxyEventV2['requestContext'],
    isBase64Encoded: false,
    ...(body ? { body } : {}),
  };
}

const now = Date.now();
const sessionItem = (over: Record<string, unknown> = {}) => ({
  pk: TENANT,
  sk: `session#${HASH}`,
  __edb_e__: 'session',
  __edb_v__: '1',
  tenantId: TENANT,
  tokenHash: HASH,
  accountId: 'acc1',
  authVersion: 1,
  publicKey: 'pk',
  privateKey: 'sk',
  createdAt: now,
  lastSeenAt: now,
  expiresAt: now + 3600_000,
  ttl: 1,
  ...over,
});
const accountItem = (over: Record<string, unknown> = {}) => ({
  pk: TENANT,
  sk: 'account#acc1',
  __edb_e__: 'account',
  __edb_v__: '1',
  tenantId: TENANT,
  accountId: 'acc1',
  username: 'alice',
  nickname: 'Alice',
  passwordHash: 'x',
  authCodes: ['pass:dashboard'],
  authVersion: 1,
  disabled: false,
  owner: false,
  activeSession: HASH,
  createdAt: new Date(now).toISOString(),
  version: 1,
  ...over,
});
const tenantItem = { pk: TENANT, sk: 'tenant', __edb_e__: 'tenant', __edb_v__: '1', tenantId: TENANT, companyName: 'Acme', userCode: 'ABCDEFGH', createdAt: 'x', version: 1 };

function store(session: unknown, account: unknown) {
  dynamo.on(GetCommand).callsFake((input: { Key: { sk: string } }) => {
    if (input.Key.sk.startsWith('session#')) return { Item: session };
    if (input.Key.sk.startsWith('account#')) return { Item: account };
    if (input.Key.sk === 'tenant') return { Item: tenantItem };
    return {};
  });
}

async function me(headers: Record<string, string> = {}) {
  const result = await systems.handler(event('GET /v1/systems/me', headers));
  return { status: result.statusCode, body: JSON.parse(result.body ?? '{}') as { code: number; message: string; data: Record<string, unknown> } };
}

beforeEach(() => {
  dynamo.reset();
  dynamo.on(UpdateCommand).resolves({});
  dynamo.on(DeleteCommand).resolves({});
});

describe('session checks in the handler', () => {
  it('answers the user info for a live session', async () => {
    store(sessionItem(), accountItem());
    const answer = await me();
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ code: 200, message: 'Success', data: { username: 'alice', userCode: 'ABCDEFGH', companyName: 'Acme', authCodes: ['pass:dashboard'] } });
    expect(dynamo).not.toHaveReceivedCommand(UpdateCommand);
  });

  it('answers 403 when the token is unknown', async () => {
    store(undefined, accountItem());
    expect((await me()).status).toBe(403);
  });

  it('answers 403 without a bearer token, before reading anything', async () => {
    store(sessionItem(), accountItem());
    const result = await systems.handler({ ...event('GET /v1/systems/me'), headers: {} });
    expect(result.statusCode).toBe(403);
    expect(dynamo).not.toHaveReceivedCommand(GetCommand);
  });

  it('answers 666 and deletes the session when it is past its absolute expiry', async () => {
    store(sessionItem({ expiresAt: now - 1 }), accountItem());
    const answer = await me();
    expect(answer).toMatchObject({ status: 401, body: { code: 666 } });
    expect(dynamo).toHaveReceivedCommandWith(DeleteCommand, { Key: { pk: TENANT, sk: `session#${HASH}` } });
  });

  it('answers 661 when permissions changed since login', async () => {
    store(sessionItem(), accountItem({ authVersion: 2 }));
    expect(await me()).toMatchObject({ status: 401, body: { code: 661 } });
  });

  it('answers 661 when the account is disabled', async () => {
    store(sessionItem(), accountItem({ disabled: true }));
    expect(await me()).toMatchObject({ status: 401, body: { code: 661 } });
  });

  it('answers 662 when a newer login replaced this session', async () => {
    store(sessionItem(), accountItem({ activeSession: 'another' }));
    expect(await me()).toMatchObject({ status: 401, body: { code: 662 } });
  });

  it('records the last use at most once a minute', async () => {
    store(sessionItem({ lastSeenAt: now - 120_000 }), accountItem());
    expect((await me()).status).toBe(200);
    expect(dynamo).toHaveReceivedCommandTimes(UpdateCommand, 1);
  });

  it('answers in the caller’s language', async () => {
    store(undefined, accountItem());
    const answer = await me({ 'accept-language': 'fr_FR' });
    expect(answer.body.message).not.toBe('Please log in again');
  });
});

describe('the error mapper', () => {
  it('turns an unexpected error into a 500 that leaks nothing', () => {
    const result = errorResult(new Error('ConnectionString=secret host=db.internal'), 'en_US', 'req-2');
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('secret');
    expect(JSON.parse(result.body!)).toEqual({ code: 500, message: 'The server is busy; please try again later', data: null });
  });

  it('answers an unknown route key with the 404 envelope', async () => {
    const result = await systems.handler(event('GET /v1/systems/nowhere'));
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body!).code).toBe(404);
  });
});

describe('the caller’s address behind CloudFront', () => {
  const secret = 'origin-secret-0123456789abcdef';
  const withSecret = async <T>(work: () => Promise<T>): Promise<T> => {
    process.env.ORIGIN_VERIFY_SECRET = secret;
    try {
      return await work();
    } finally {
      delete process.env.ORIGIN_VERIFY_SECRET;
    }
  };
  const viewer = { 'cloudfront-viewer-address': '198.51.100.7:53211' };

  it('ignores the viewer header when no origin secret is configured (the local host)', () => {
    expect(clientAddress(event('GET /v1/systems/terms', viewer), viewer)).toBe('203.0.113.9');
  });

  it('uses the viewer address only on requests that carry CloudFront’s secret header', async () => {
    const headers = { ...viewer, [ORIGIN_VERIFY_HEADER]: secret };
    expect(await withSecret(async () => clientAddress(event('GET /v1/systems/terms', headers), headers))).toBe('198.51.100.7');
    const ipv6 = { 'cloudfront-viewer-address': '2001:db8::7:443', [ORIGIN_VERIFY_HEADER]: secret };
    expect(await withSecret(async () => clientAddress(event('GET /v1/systems/terms', ipv6), ipv6))).toBe('2001:db8::7');
  });

  it('refuses a request that skipped CloudFront (no or a wrong secret header) before reading anything', async () => {
    for (const headers of [viewer, { ...viewer, [ORIGIN_VERIFY_HEADER]: 'guess' }]) {
      const result = await withSecret(() => systems.handler(event('GET /v1/systems/me', headers)));
      expect(result.statusCode).toBe(403);
    }
    expect(dynamo).not.toHaveReceivedCommand(GetCommand);
  });
});
