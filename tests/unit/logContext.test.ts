import { afterEach, describe, expect, it, vi } from 'vitest';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { addLogContext, log, logged, withLogContext } from '@passcloud/functions/lib/log';
import { systems } from '@passcloud/functions/resources/systems';

/** The JSON lines written while `work` runs, from both streams. */
async function linesOf(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const keep = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  const level = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = 'info';
  try {
    await work();
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.env.LOG_LEVEL = level;
  }
  return lines.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => {
  delete process.env.ORIGIN_VERIFY_SECRET;
});

/**
 * Every log line of one request or event carries its id, route and company, set once where the
 * work starts (functions/lib/log.ts), also while other work runs in the same process.
 */
describe('log lines follow their work', () => {
  it('carry the fields of their own work, never another’s running beside it', async () => {
    const lines = await linesOf(() =>
      Promise.all(
        ['a', 'b'].map((id) =>
          withLogContext({ requestId: id }, async () => {
            await new Promise((r) => setTimeout(r, id === 'a' ? 20 : 1));
            addLogContext({ tenantId: `tenant-${id}` });
            await new Promise((r) => setTimeout(r, 5));
            log('info', 'step', { id });
          }),
        ),
      ),
    );
    expect(lines.map((l) => [l.id, l.requestId, l.tenantId]).sort()).toEqual([
      ['a', 'a', 'tenant-a'],
      ['b', 'b', 'tenant-b'],
    ]);
  });

  it('name a worker’s work, company and job', async () => {
    const run = logged('grants', async (_task: { tenantId: string; jobKey: string }) => log('warn', 'piece failed'));
    const [line] = await linesOf(() => run({ tenantId: 't1', jobKey: 'j1' }));
    expect(line).toMatchObject({ msg: 'piece failed', work: 'grants', tenantId: 't1', jobKey: 'j1' });
  });

  it('of a request: a line written inside it and the request line carry its id and route', async () => {
    process.env.ORIGIN_VERIFY_SECRET = 'origin-secret';
    const event = {
      version: '2.0',
      routeKey: 'GET /v1/systems/terms',
      rawPath: '/v1/systems/terms',
      rawQueryString: '',
      headers: {},
      requestContext: { http: { method: 'GET', path: '/v1/systems/terms', sourceIp: '203.0.113.9' }, requestId: 'req-42' },
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const lines = await linesOf(() => systems.handler(event));
    const refused = lines.find((l) => String(l.msg).includes('CloudFront origin header'));
    const request = lines.find((l) => l.msg === 'request');
    expect(refused).toMatchObject({ requestId: 'req-42', route: 'GET /v1/systems/terms' });
    expect(request).toMatchObject({ requestId: 'req-42', route: 'GET /v1/systems/terms', status: 403 });
  });
});
