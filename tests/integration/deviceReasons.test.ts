import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent, DeviceReplacedError } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { DEVICE_REASONS, deviceAuthorization, type BindResult } from '@passcloud/functions/contract/protocol';
import { baseUrl, call, login, registerTenant, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { sleep } from '../support/wait.ts';
import mqtt from 'mqtt';

/**
 * Every refused HTTPS answer a terminal gets says why in `data.reason`, a stable code it acts
 * on; the reference agent waits while its replacement awaits approval and stops once another
 * unit replaced it, instead of binding again and undoing the approval.
 */

interface Envelope {
  code: number;
  message: string;
  data: ({ reason?: string; retryAfterSeconds?: number; issues?: { path: string }[] } & Partial<BindResult>) | null;
}

const flash = mkdtempSync(join(tmpdir(), 'device-reasons-'));
const agents: DeviceAgent[] = [];
let token: string;
let userCode: string;

async function bind(serial: string, code = userCode): Promise<{ status: number; body: Envelope }> {
  const { serial: _s, ...info } = simulatedInfo(serial, 1);
  const res = await fetch(new URL('/v1/devices/bind', baseUrl()), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userCode: code, serial, info }) });
  return { status: res.status, body: (await res.json()) as Envelope };
}

async function pull(binding: BindResult): Promise<{ status: number; body: Envelope }> {
  const res = await fetch(new URL('/v1/deviceSync/faces?limit=1', baseUrl()), { headers: { authorization: deviceAuthorization(binding.thingName, binding.mqtt.password) } });
  return { status: res.status, body: (await res.json()) as Envelope };
}

function terminal(serial: string, file: string): DeviceAgent {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(serial, 1), heartbeatMs: 60_000, credentialsFile: join(flash, file), approvalRetryMs: 300 });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  const owner = await registerTenant();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('reasons on refused device answers', () => {
  it('name an unknown binding code, a missing licence and a full licence', async () => {
    const unknown = await bind(unique('RU').toUpperCase(), 'ZZZZ0000');
    expect(unknown.status).toBe(422);
    expect(unknown.body.data).toMatchObject({ reason: 'unknownBindingCode', issues: [{ path: 'userCode' }] });

    const noLicence = await bind(unique('RN').toUpperCase());
    expect(noLicence.status).toBe(409);
    expect(noLicence.body.data?.reason).toBe('noLicence');

    const count = async () => (await call<{ items: unknown[] }>('GET', '/v1/devices?pageSize=200', { token })).body.data.items.length;
    expect(await count()).toBe(0);
    await grantSeats(token, 1);
    expect((await bind(unique('RA').toUpperCase())).body.code).toBe(201);
    const full = await bind(unique('RF').toUpperCase());
    expect(full.status).toBe(409);
    expect(full.body.data?.reason).toBe('noFreeSeat');
    // Refused binds made no device.
    expect(await count()).toBe(1);
    await grantSeats(token, 10);

    const invalid = await fetch(new URL('/v1/devices/bind', baseUrl()), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"userCode":1}' });
    expect(((await invalid.json()) as Envelope).data?.reason).toBe('invalid');
    for (const answer of [unknown, noLicence, full]) expect(DEVICE_REASONS).toContain(answer.body.data?.reason);
  });

  it('tell a replacement waiting for approval, a replaced unit and a deleted device apart', async () => {
    const serial = unique('RR').toUpperCase();
    const old = await bind(serial);
    expect(old.body.code).toBe(201);
    const replacement = await bind(serial);
    expect(replacement.body.code).toBe(202);
    expect(await pull(replacement.body.data as BindResult)).toMatchObject({ status: 403, body: { data: { reason: 'pendingApproval' } } });
    expect((await pull(old.body.data as BindResult)).status).toBe(200);

    const deviceKey = old.body.data!.deviceKey!;
    const pending = (await call<{ version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    expect((await call('POST', `/v1/devices/${deviceKey}/replacement`, { token, body: { version: pending.version } })).body.code).toBe(201);
    expect(await pull(old.body.data as BindResult)).toMatchObject({ status: 403, body: { data: { reason: 'replaced' } } });
    expect((await pull(replacement.body.data as BindResult)).status).toBe(200);

    const wrong = { ...(replacement.body.data as BindResult), mqtt: { ...(replacement.body.data as BindResult).mqtt, password: 'not-the-secret' } };
    expect(await pull(wrong)).toMatchObject({ status: 403, body: { data: { reason: 'unauthorized' } } });

    const device = (await call<{ version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    expect((await call('DELETE', `/v1/devices/${deviceKey}?version=${device.version}`, { token })).body.code).toBe(204);
    expect(await pull(replacement.body.data as BindResult)).toMatchObject({ status: 403, body: { data: { reason: 'deleted' } } });
  });
});

describe('a deleted device', () => {
  it('is disconnected within seconds', async () => {
    const serial = unique('RD').toUpperCase();
    const bound = await bind(serial);
    const m = (bound.body.data as BindResult).mqtt;
    const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
    let closedAt = 0;
    client.on('close', () => (closedAt ||= Date.now()));
    const deviceKey = bound.body.data!.deviceKey!;
    const device = (await call<{ version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    const deletedAt = Date.now();
    expect((await call('DELETE', `/v1/devices/${deviceKey}?version=${device.version}`, { token })).body.code).toBe(204);
    await expect.poll(() => closedAt, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(closedAt - deletedAt).toBeLessThan(5_000);
    // And it cannot come back on its old credentials.
    await expect(mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 })).rejects.toThrow();
  });
});

describe('the reference agent', () => {
  it('waits while its replacement awaits approval, and connects once approved, without binding again', async () => {
    const serial = unique('RW').toUpperCase();
    const original = terminal(serial, 'original.json');
    await original.start();
    const deviceKey = original.deviceKey!;
    // A second unit under the same serial: its request waits for an administrator.
    const spare = terminal(serial, 'spare.json');
    await spare.start();
    expect(spare.awaitingApproval).toBe(true);
    const requested = (await call<{ replacement: { requestTime: string } | null; version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    expect(requested.replacement).not.toBeNull();
    // Restarted while it waits (its CONNECT is refused), it asks why and keeps waiting: the request is not made again.
    await spare.stop();
    await spare.start();
    await sleep(1500);
    const still = (await call<{ replacement: { requestTime: string } | null; version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    expect(still.replacement?.requestTime).toBe(requested.replacement!.requestTime);
    expect(still.version).toBe(requested.version);

    expect(original.connected).toBe(true);
    expect((await call('POST', `/v1/devices/${deviceKey}/replacement`, { token, body: { version: still.version } })).body.code).toBe(201);
    // The unit it supersedes is disconnected at once, not at the broker's next credentials check.
    await expect.poll(() => original.connected, { timeout: 5_000 }).toBe(false);
    await expect.poll(() => spare.connected, { timeout: 10_000 }).toBe(true);
    expect(spare.deviceKey).toBe(deviceKey);

    // The unit it replaced comes back: it is told it was replaced, stops, and takes nothing back.
    await original.stop();
    await expect(original.start()).rejects.toBeInstanceOf(DeviceReplacedError);
    const after = (await call<{ replacement: unknown; version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    expect(after.replacement).toBeNull();
    expect(after.version).toBe(still.version + 1);
    expect(spare.connected).toBe(true);
  });
});
