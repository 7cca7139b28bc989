import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CALL_ATTEMPTS, DeviceAgent, DeviceCallError } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { BindResult } from '@passcloud/functions/contract/protocol';

/**
 * A terminal reads every HTTPS answer for what it is: the envelope with a success code is an
 * answer; API Gateway's own throttle and errors (no envelope), a 5xx and no answer at all are
 * tried again with back-off; a refusal is not. Nothing but a page of changes moves its cursor.
 */

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function api(replies: Reply[]): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const server = createServer((req, res) => {
    const reply = replies[Math.min(calls, replies.length - 1)]!;
    calls++;
    reply(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
};
const page = { changes: [], cursor: '42', more: false };

function agent(url: string): DeviceAgent {
  const device = new DeviceAgent({ apiUrl: url, userCode: 'ABCD2345', info: simulatedInfo('ANSWER', 1), retryBaseMs: 5 });
  device.binding = { deviceKey: 'dev0000000000001', thingName: 'tenant000000001_dev0000000000001', mqtt: { url: 'mqtt://127.0.0.1:1', clientId: 'c', username: 'u', password: 'p' } } as unknown as BindResult;
  return device;
}

describe('a terminal reading the cloud’s answers', () => {
  it('tries a throttle or a server failure without the envelope again, and takes the page that follows', async () => {
    const server = await api([json(429, { message: 'Too Many Requests' }), json(503, { message: 'Service Unavailable' }), json(200, { code: 200, message: 'OK', data: page })]);
    expect(await agent(server.url).call('GET', '/v1/deviceSync/faces?cursor=0')).toEqual(page);
    expect(server.calls()).toBe(3);
  });

  it('gives up after the last attempt with a retryable failure, so nothing is taken for a page', async () => {
    const server = await api([json(502, { message: 'Internal Server Error' })]);
    const failure = await agent(server.url).call('GET', '/v1/deviceSync/faces?cursor=0').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DeviceCallError);
    expect(failure).toMatchObject({ status: 502, retryable: true });
    expect(server.calls()).toBe(CALL_ATTEMPTS);
  });

  it('does not try a refusal again, whether or not it carries the envelope', async () => {
    const refused = await api([json(403, { code: 403, message: 'Log in again', data: null })]);
    await expect(agent(refused.url).call('GET', '/v1/deviceSync/faces?cursor=0')).rejects.toMatchObject({ status: 403, retryable: false });
    expect(refused.calls()).toBe(1);
    const html = await api([(_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>')]);
    await expect(agent(html.url).call('GET', '/v1/deviceSync/faces?cursor=0')).rejects.toMatchObject({ status: 404, retryable: false });
  });

  it('treats a 200 without the envelope as a failure, not as data', async () => {
    const server = await api([json(200, { changes: 'nonsense' })]);
    await expect(agent(server.url).call('GET', '/v1/deviceSync/faces?cursor=0')).rejects.toBeInstanceOf(DeviceCallError);
  });

  it('waits as long as Retry-After says', async () => {
    const server = await api([json(429, { message: 'Too Many Requests' }, { 'retry-after': '1' }), json(200, { code: 200, message: 'OK', data: page })]);
    const started = Date.now();
    await agent(server.url).call('GET', '/v1/deviceSync/faces?cursor=0');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('keeps its face cursor when the answer is not a page of changes', async () => {
    const server = await api([json(200, { code: 200, message: 'OK', data: { changes: [{ nonsense: true }], cursor: '900', more: false } })]);
    const device = agent(server.url);
    Object.defineProperty(device, 'connected', { get: () => true });
    const before = device.faces.position;
    await device.faces.sync();
    expect(device.faces.position).toBe(before);
    expect(device.faces.lastError).toBeTruthy();
  });
});
