import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent, type StopReason } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { DEVICE_REASONS, deviceAuthorization, type BindResult } from '@passcloud/functions/contract/protocol';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
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

function terminal(serial: string, file: string, code = userCode): DeviceAgent {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode: code, info: simulatedInfo(serial, 1), heartbeatMs: 60_000, credentialsFile: join(flash, file), approvalRetryMs: 300 });
  agents.push(agent);
  return agent;
}

/** Resolves with the reason the agent stops for good. */
const stopsFor = (agent: DeviceAgent) => new Promise<StopReason>((resolve) => agent.on((event) => event.type === 'stopped' && resolve(event.reason)));

beforeAll(async () => {
  const owner = await newCompany();
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
    await expect(original.start()).rejects.toMatchObject({ name: 'DeviceStoppedError', reason: 'replaced' });
    expect(original.stoppedFor).toBe('replaced');
    const after = (await call<{ replacement: unknown; version: number }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data;
    expect(after.replacement).toBeNull();
    expect(after.version).toBe(still.version + 1);
    expect(spare.connected).toBe(true);
  });
});

describe('a refused HTTPS request', () => {
  it('is answered with its reason and written in the device log, for a vendor to see in the console', async () => {
    const bound = (await bind(unique('RH').toUpperCase())).body.data as BindResult;
    const authorization = deviceAuthorization(bound.thingName, bound.mqtt.password);
    const results = await fetch(new URL('/v1/deviceSync/results', baseUrl()), {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ results: [{ seq: 1, ok: true }], firmwareNote: 'x' }),
    });
    expect(results.status).toBe(422);
    expect(((await results.json()) as Envelope).data?.reason).toBe('invalid');
    const faces = await fetch(new URL('/v1/deviceSync/faces?limit=100000', baseUrl()), { headers: { authorization } });
    expect(faces.status).toBe(422);
    // Without credentials that prove a device, the refusal is answered and logged nowhere.
    const anonymous = await fetch(new URL('/v1/deviceSync/faces?limit=100000', baseUrl()));
    expect(anonymous.status).toBe(422);

    type Log = { code: string; params: { topic?: string; error?: string } };
    const logs = async () => (await call<{ items: Log[] }>('GET', `/v1/devices/${bound.deviceKey}/logs`, { token })).body.data.items.filter((l) => l.code === 'messageRefused');
    const refused = await logs();
    expect(refused.map((l) => l.params.topic).sort()).toEqual(['GET /v1/deviceSync/faces', 'POST /v1/deviceSync/results']);
    expect(refused.find((l) => l.params.topic === 'POST /v1/deviceSync/results')?.params.error).toMatch(/firmwareNote/);
    expect(refused.find((l) => l.params.topic === 'GET /v1/deviceSync/faces')?.params.error).toMatch(/^limit: /);
  });
});

describe('a deleted serial number', () => {
  let owner: string;
  let code: string;
  beforeAll(async () => {
    const tenant = await newCompany();
    code = tenant.userCode;
    owner = (await login(tenant.username, tenant.password)).token;
    await grantSeats(owner, 2);
  });

  interface Request {
    requestKey: string;
    serial: string;
    mac: string;
    requestTime: string;
    deleteTime: string;
    version: number;
  }
  const seatsUsed = async () => (await call<{ used: number }>('GET', '/v1/licences', { token: owner })).body.data.used;
  const deviceKeys = async () => (await call<{ items: { deviceKey: string }[] }>('GET', '/v1/devices?pageSize=200', { token: owner })).body.data.items.map((d) => d.deviceKey).sort();
  const requests = async () => (await call<{ items: Request[] }>('GET', '/v1/devices/requests', { token: owner })).body.data.items;
  async function removeDevice(deviceKey: string): Promise<void> {
    const device = (await call<{ version: number }>('GET', `/v1/devices/${deviceKey}`, { token: owner })).body.data;
    expect((await call('DELETE', `/v1/devices/${deviceKey}?version=${device.version}`, { token: owner })).body.code).toBe(204);
  }

  it('stops the running terminal, and binding again waits for an administrator without taking a seat', async () => {
    const prefix = unique('DS').toUpperCase();
    const serial = simulatedInfo(prefix, 1).serial;
    const unit = terminal(prefix, `${prefix}-a.json`, code);
    await unit.start();
    const oldKey = unit.deviceKey!;
    expect(await seatsUsed()).toBe(1);
    const stopped = stopsFor(unit);
    await removeDevice(oldKey);
    // Disconnected at once; on its reconnect it asks why, is told `deleted`, and stops instead of binding again.
    await expect.poll(() => unit.connected, { timeout: 5_000 }).toBe(false);
    expect(await stopped).toBe('deleted');
    expect(unit.stoppedFor).toBe('deleted');
    expect(await seatsUsed()).toBe(0);

    // The installer binds it again: a request, no device, no seat.
    const first = await bind(serial, code);
    expect(first.body).toMatchObject({ code: 202, data: { state: 'pendingApproval', resetCursor: true } });
    const again = terminal(prefix, `${prefix}-b.json`, code);
    await again.start();
    expect(again.awaitingApproval).toBe(true);
    // Binding again while a request waits renews that one request.
    expect(again.deviceKey).toBe(first.body.data!.deviceKey);
    expect(again.deviceKey).not.toBe(oldKey);
    expect(await deviceKeys()).toEqual([]);
    expect(await seatsUsed()).toBe(0);
    const [request, ...others] = await requests();
    expect(others).toEqual([]);
    expect(request).toMatchObject({ requestKey: again.deviceKey, serial, mac: simulatedInfo(prefix, 1).mac });
    expect(Date.parse(request!.deleteTime)).toBeLessThanOrEqual(Date.parse(request!.requestTime));
    expect(await pull(first.body.data as BindResult)).toMatchObject({ status: 403, body: { data: { reason: 'deleted' } } });

    // Approved: the device is created under the request's key and the waiting terminal connects.
    const approved = await call<{ deviceKey: string; serial: string }>('POST', `/v1/devices/requests/${request!.requestKey}`, { token: owner, body: { version: request!.version } });
    expect(approved.body).toMatchObject({ code: 201, data: { deviceKey: request!.requestKey, serial } });
    await expect.poll(() => again.connected, { timeout: 10_000 }).toBe(true);
    expect(await seatsUsed()).toBe(1);
    expect(await requests()).toEqual([]);
    expect(await deviceKeys()).toEqual([request!.requestKey]);
    await removeDevice(request!.requestKey);
  });

  it('rejected, leaves nothing behind and the waiting terminal stops', async () => {
    const prefix = unique('DR').toUpperCase();
    const bound = await bind(simulatedInfo(prefix, 1).serial, code);
    await removeDevice(bound.body.data!.deviceKey!);
    const waiting = terminal(prefix, `${prefix}.json`, code);
    await waiting.start();
    expect(waiting.awaitingApproval).toBe(true);
    const stopped = stopsFor(waiting);
    const [request] = await requests();
    // A stale version is refused and changes nothing.
    expect((await call('DELETE', `/v1/devices/requests/${request!.requestKey}?version=${request!.version + 1}`, { token: owner })).status).toBe(409);
    expect(await requests()).toHaveLength(1);
    expect((await call('DELETE', `/v1/devices/requests/${request!.requestKey}?version=${request!.version}`, { token: owner })).body.code).toBe(204);
    expect(await stopped).toBe('rejected');
    expect(await requests()).toEqual([]);
    expect(await deviceKeys()).toEqual([]);
    expect(await seatsUsed()).toBe(0);
    expect((await call('POST', `/v1/devices/requests/${request!.requestKey}`, { token: owner, body: { version: request!.version } })).status).toBe(404);
  });

  it('is approved once under parallel approvals, and not at all without a free seat', async () => {
    const serial = unique('DP').toUpperCase();
    await removeDevice((await bind(serial, code)).body.data!.deviceKey!);
    const asked = await bind(serial, code);
    expect(asked.body.code).toBe(202);
    const fillers = [await bind(unique('DF').toUpperCase(), code), await bind(unique('DF').toUpperCase(), code)];
    for (const filler of fillers) expect(filler.body.code).toBe(201);
    const [request] = await requests();
    const full = await call<{ reason?: string }>('POST', `/v1/devices/requests/${request!.requestKey}`, { token: owner, body: { version: request!.version } });
    expect(full.status).toBe(409);
    expect(full.body.message).toMatch(/seat/i);
    expect(await requests()).toHaveLength(1);
    expect(await deviceKeys()).toHaveLength(2);

    await removeDevice(fillers[0]!.body.data!.deviceKey!);
    const answers = await Promise.all(Array.from({ length: 6 }, () => call('POST', `/v1/devices/requests/${request!.requestKey}`, { token: owner, body: { version: request!.version } })));
    expect(answers.filter((a) => a.body.code === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.body.code !== 201).every((a) => a.status === 409 || a.status === 404)).toBe(true);
    expect(await deviceKeys()).toEqual([request!.requestKey, fillers[1]!.body.data!.deviceKey!].sort());
    expect(await seatsUsed()).toBe(2);
    expect(await requests()).toEqual([]);
    expect((await pull(asked.body.data as BindResult)).status).toBe(200);
  });

  it('is asked about only by this company', async () => {
    const other = await newCompany();
    const otherToken = (await login(other.username, other.password)).token;
    await grantSeats(owner, 5);
    const serial = unique('DT').toUpperCase();
    await removeDevice((await bind(serial, code)).body.data!.deviceKey!);
    await bind(serial, code);
    const [request] = await requests();
    expect((await call<{ items: unknown[] }>('GET', '/v1/devices/requests', { token: otherToken })).body.data.items).toEqual([]);
    expect((await call('POST', `/v1/devices/requests/${request!.requestKey}`, { token: otherToken, body: { version: request!.version } })).status).toBe(404);
    expect((await call('DELETE', `/v1/devices/requests/${request!.requestKey}?version=${request!.version}`, { token: otherToken })).status).toBe(404);
    expect(await requests()).toHaveLength(1);
    // The same serial number is a new device in another company.
    expect((await bind(serial, other.userCode)).body.data?.reason).toBe('noLicence');
  });
});
