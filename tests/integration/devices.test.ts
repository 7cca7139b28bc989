import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { deviceTopics, shadowTopics } from '@passcloud/functions/contract/protocol';
import { appendLogs } from '@passcloud/functions/data/deviceEvents';
import { baseUrl, call, login, newCompany, unique, hostIdle } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

interface Device {
  deviceKey: string;
  thingName: string;
  name: string;
  groupKey: string | null;
  online: boolean;
  ip: string;
  mac: string;
  serial: string;
  companyName: string;
  settings: Record<string, unknown>;
  reported: Record<string, unknown>;
  pending: string[];
  replacement: Record<string, string> | null;
  version: number;
}
interface DevicePage {
  items: Device[];
  nextCursor: string | null;
  total: number;
  online: number;
  offline: number;
}
interface Command {
  commandKey: string;
  type: string;
  state: string;
}
type Issues = { issues: { path: string; message: string }[] };

let token: string;
let userCode: string;
let otherToken: string;
let otherUserCode: string;
const agents: DeviceAgent[] = [];

function agent(serialPrefix = unique('T').toUpperCase(), code = userCode): DeviceAgent {
  const device = new DeviceAgent({ apiUrl: baseUrl(), userCode: code, info: simulatedInfo(serialPrefix, 1), heartbeatMs: 60_000, rebootMs: 300 });
  agents.push(device);
  return device;
}

const read = async (deviceKey: string, as = token) => (await call<Device>('GET', `/v1/devices/${deviceKey}`, { token: as })).body.data;
/** Waits until `check` holds, or fails after `ms` with what it last saw. */
async function until<T>(get: () => Promise<T>, check: (value: T) => boolean, ms = 5000): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  let value = await get();
  while (!check(value)) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms; last: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
    value = await get();
  }
  return { value, ms: Date.now() - started };
}

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 100);
  const other = await newCompany();
  otherUserCode = other.userCode;
  otherToken = (await login(other.username, other.password)).token;
  await grantSeats(otherToken, 10);
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('binding', () => {
  it('refuses an unknown device binding code and binds nothing', async () => {
    const before = (await call<DevicePage>('GET', '/v1/devices', { token })).body.data.total;
    const info = simulatedInfo('BAD', 1);
    const { serial, ...rest } = info;
    const answer = await call<Issues>('POST', '/v1/devices/bind', { body: { userCode: 'NOPE2345', serial, info: rest } });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('userCode');
    expect((await call<DevicePage>('GET', '/v1/devices', { token })).body.data.total).toBe(before);
  });

  it('names the bad field of a malformed binding', async () => {
    const { serial, ...rest } = simulatedInfo('MAL', 1);
    const answer = await call<Issues>('POST', '/v1/devices/bind', { body: { userCode, serial, info: { ...rest, mac: 'not-a-mac' } } });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path)).toContain('info.mac');
  });

  it('binds with the device binding code, comes online within 2 s, and goes offline within 2 s', async () => {
    const device = agent();
    const binding = await device.bind();
    expect(binding.mqtt.password.length).toBeGreaterThanOrEqual(32);
    const bound = await read(binding.deviceKey);
    expect(bound).toMatchObject({ online: false, serial: device.options.info.serial, mac: device.options.info.mac, settings: { volume: 60 } });
    expect(bound.companyName).toMatch(/^Company /);

    const connectedAt = Date.now();
    await device.start();
    const online = await until(
      () => read(binding.deviceKey),
      (d) => d.online,
      2000,
    );
    expect(Date.now() - connectedAt).toBeLessThan(2000);
    expect(online.ms).toBeLessThan(2000);
    // On connecting, the device reads its shadow and reports the settings it applied.
    await until(
      () => read(binding.deviceKey),
      (d) => d.pending.length === 0 && d.reported.volume === 60,
    );

    await device.stop();
    const offline = await until(
      () => read(binding.deviceKey),
      (d) => !d.online,
      2000,
    );
    expect(offline.ms).toBeLessThan(2000);
  });

  type Bound = { state: string; deviceKey: string; thingName: string; mqtt: { url: string; clientId: string; username: string; password: string } };
  const bindAs = async (serialPrefix: string, code: string, change: Record<string, string> = {}) => {
    const { serial, ...info } = simulatedInfo(serialPrefix, 1);
    return call<Bound>('POST', '/v1/devices/bind', { body: { userCode: code, serial, info: { ...info, ...change } } });
  };
  const connects = async (m: Bound['mqtt']) => {
    try {
      const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
      await client.endAsync(true);
      return true;
    } catch {
      return false;
    }
  };

  it('never re-keys a known serial: a second binding waits for approval with its new facts, and only then works', async () => {
    const prefix = unique('R').toUpperCase();
    const first = await bindAs(prefix, userCode);
    expect(first.body).toMatchObject({ code: 201, data: { state: 'bound' } });
    const { deviceKey } = first.body.data;

    const second = await bindAs(prefix, userCode, { mac: '02:AA:BB:CC:DD:EE', firmware: 'FT7-9.9.9' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ code: 202, data: { state: 'pendingApproval', deviceKey } });
    // Until approved, the old credentials still work and the new ones do not.
    expect(await connects(first.body.data.mqtt)).toBe(true);
    expect(await connects(second.body.data.mqtt)).toBe(false);
    const pending = await read(deviceKey);
    expect(pending.mac).toBe(simulatedInfo(prefix, 1).mac);
    expect(pending).toMatchObject({ replacement: { mac: '02:AA:BB:CC:DD:EE', firmware: 'FT7-9.9.9' } });
    expect(JSON.stringify(pending)).not.toContain('secretHash');

    // An approval of a version that is no longer shown changes nothing.
    expect((await call('POST', `/v1/devices/${deviceKey}/replacement`, { token, body: { version: pending.version - 1 } })).status).toBe(409);
    const approved = await call<Device>('POST', `/v1/devices/${deviceKey}/replacement`, { token, body: { version: pending.version } });
    expect(approved.body).toMatchObject({ code: 201, data: { deviceKey, mac: '02:AA:BB:CC:DD:EE', replacement: null } });
    expect(await connects(second.body.data.mqtt)).toBe(true);
    expect(await connects(first.body.data.mqtt)).toBe(false);
  });

  it('a rejected replacement leaves the device as it was', async () => {
    const prefix = unique('J').toUpperCase();
    const first = await bindAs(prefix, userCode);
    const { deviceKey } = first.body.data;
    const second = await bindAs(prefix, userCode, { ip: '10.9.9.9' });
    expect(second.body.code).toBe(202);
    const pending = await read(deviceKey);
    const rejected = await call<Device>('DELETE', `/v1/devices/${deviceKey}/replacement?version=${pending.version}`, { token });
    expect(rejected.body).toMatchObject({ code: 201, data: { replacement: null, ip: simulatedInfo(prefix, 1).ip } });
    expect(await connects(first.body.data.mqtt)).toBe(true);
    expect(await connects(second.body.data.mqtt)).toBe(false);
  });

  it('a terminal keeps its binding across restarts, and a replacement connects once approved', async () => {
    const prefix = unique('K').toUpperCase();
    const credentialsFile = join(mkdtempSync(join(tmpdir(), 'passcloud-device-')), 'binding.json');
    const options = { apiUrl: baseUrl(), userCode, info: simulatedInfo(prefix, 1), heartbeatMs: 60_000, approvalRetryMs: 200 };
    const first = new DeviceAgent({ ...options, credentialsFile });
    agents.push(first);
    await first.start();
    const { deviceKey } = first;
    await first.stop();
    // Restarted from its stored binding: the same device, online, and nothing waits for approval.
    const restarted = new DeviceAgent({ ...options, credentialsFile });
    agents.push(restarted);
    await restarted.start();
    expect(restarted.deviceKey).toBe(deviceKey);
    await until(() => read(deviceKey!), (d) => d.online && d.replacement === null);
    await restarted.stop();

    // A unit without the stored binding (a factory reset) binds again and waits.
    const reset = new DeviceAgent({ ...options, info: { ...options.info, mac: '02:00:00:00:00:42' } });
    agents.push(reset);
    await reset.start();
    expect(reset.awaitingApproval).toBe(true);
    const waiting = await until(() => read(deviceKey!), (d) => d.replacement?.mac === '02:00:00:00:00:42');
    expect(waiting.value.online).toBe(false);
    await call('POST', `/v1/devices/${deviceKey}/replacement`, { token, body: { version: waiting.value.version } });
    await until(async () => reset.awaitingApproval, (pending) => !pending);
    await until(() => read(deviceKey!), (d) => d.online && d.mac === '02:00:00:00:00:42');
  });

  it('binding tells nothing about other companies: the same serial elsewhere is a device of its own, and neither changes the other', async () => {
    const prefix = unique('S').toUpperCase();
    const mine = await bindAs(prefix, userCode);
    const theirs = await bindAs(prefix, otherUserCode);
    expect(theirs.body).toMatchObject({ code: 201, data: { state: 'bound' } });
    expect(theirs.body.data.deviceKey).not.toBe(mine.body.data.deviceKey);
    expect(await connects(mine.body.data.mqtt)).toBe(true);
    expect((await read(mine.body.data.deviceKey)).replacement).toBeNull();
    expect((await call<DevicePage>('GET', '/v1/devices?pageSize=200', { token: otherToken })).body.data.items.map((d) => d.deviceKey)).not.toContain(
      mine.body.data.deviceKey,
    );
  });
});

describe('settings through the shadow', () => {
  let device: DeviceAgent;
  let deviceKey: string;

  beforeAll(async () => {
    device = agent();
    await device.start();
    deviceKey = device.deviceKey!;
    await until(
      () => read(deviceKey),
      (d) => d.online,
    );
  });

  it('a console change is pending until the device applies and reports it', async () => {
    const before = await read(deviceKey);
    const patched = await call<Device>('PATCH', `/v1/devices/${deviceKey}`, {
      token,
      body: { settings: { volume: 35, temperatureThreshold: 37.8 }, version: before.version },
    });
    expect(patched.body.code).toBe(201);
    expect(patched.body.data.settings).toMatchObject({ volume: 35, temperatureThreshold: 37.8 });
    expect(patched.body.data.pending).toEqual(expect.arrayContaining(['volume', 'temperatureThreshold']));
    const confirmed = await until(
      () => read(deviceKey),
      (d) => d.pending.length === 0,
      3000,
    );
    expect(confirmed.value.reported).toMatchObject({ volume: 35, temperatureThreshold: 37.8 });
    expect(device.settings.volume).toBe(35);
    expect(device.settings.temperatureThreshold).toBe(37.8);
  });

  it('a device that was offline picks up the change when it comes back', async () => {
    await device.stop();
    await until(
      () => read(deviceKey),
      (d) => !d.online,
    );
    const current = await read(deviceKey);
    await call('PATCH', `/v1/devices/${deviceKey}`, {
      token,
      body: { settings: { relayDelay: 9, doorOpeningMode: 'noRecognition' }, version: current.version },
    });
    expect((await read(deviceKey)).pending).toEqual(expect.arrayContaining(['relayDelay', 'doorOpeningMode']));
    await device.start();
    await until(
      () => read(deviceKey),
      (d) => d.pending.length === 0,
    );
    expect(device.settings).toMatchObject({ relayDelay: 9, doorOpeningMode: 'noRecognition' });
  });

  it('refuses out-of-range and contradictory settings, naming the field, and changes nothing', async () => {
    const before = await read(deviceKey);
    const range = await call<Issues>('PATCH', `/v1/devices/${deviceKey}`, { token, body: { settings: { volume: 101 }, version: before.version } });
    expect(range.status).toBe(422);
    expect(range.body.data.issues[0]!.path).toBe('settings.volume');
    const both = await call<Issues>('PATCH', `/v1/devices/${deviceKey}`, {
      token,
      body: { settings: { minPassTemperature: 36.9, temperatureThreshold: 36.5 }, version: before.version },
    });
    expect(both.status).toBe(422);
    expect(both.body.data.issues[0]!.path).toBe('settings.minPassTemperature');
    const clock = await call<Issues>('PATCH', `/v1/devices/${deviceKey}`, { token, body: { settings: { startupTime: '25:00' }, version: before.version } });
    expect(clock.body.data.issues[0]!.path).toBe('settings.startupTime');
    const unknown = await call<Issues>('PATCH', `/v1/devices/${deviceKey}`, { token, body: { settings: { warpDrive: true }, version: before.version } });
    expect(unknown.status).toBe(422);
    const stale = await call('PATCH', `/v1/devices/${deviceKey}`, { token, body: { name: 'Lobby', version: before.version - 1 } });
    expect(stale.status).toBe(409);
    const after = await read(deviceKey);
    expect(after.version).toBe(before.version);
    expect(after.settings).toEqual(before.settings);
    expect(after.name).toBe(before.name);
  });

  it('renames, groups and filters devices', async () => {
    const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Lobby gates', type: 'device' } })).body.data.groupKey;
    const before = await read(deviceKey);
    const renamed = await call<Device>('PATCH', `/v1/devices/${deviceKey}`, { token, body: { name: 'North gate', groupKey, version: before.version } });
    expect(renamed.body.data).toMatchObject({ name: 'North gate', groupKey });
    const inGroup = (await call<DevicePage>('GET', `/v1/devices?groupKey=${groupKey}`, { token })).body.data;
    expect(inGroup.items.map((d) => d.deviceKey)).toEqual([deviceKey]);
    expect(inGroup).toMatchObject({ total: 1, online: 1, offline: 0 });
    const byKeyword = (await call<DevicePage>('GET', `/v1/devices?keyword=north`, { token })).body.data;
    expect(byKeyword.items.map((d) => d.deviceKey)).toEqual([deviceKey]);
    const offline = (await call<DevicePage>('GET', `/v1/devices?online=false&groupKey=${groupKey}`, { token })).body.data;
    expect(offline.total).toBe(0);
    const inUse = await call('DELETE', `/v1/groups/${groupKey}?version=1`, { token });
    expect(inUse.status).toBe(409);
    const personGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Staff', type: 'employee' } })).body.data.groupKey;
    const wrongKind = await call<Issues>('PATCH', `/v1/devices/${deviceKey}`, { token, body: { groupKey: personGroup, version: renamed.body.data.version } });
    expect(wrongKind.status).toBe(422);
    expect(wrongKind.body.data.issues[0]!.path).toBe('groupKey');
  });

  it('lists devices by name, then serial number with numbers in order, and keeps that order across pages', async () => {
    const fresh = await newCompany();
    const freshToken = (await login(fresh.username, fresh.password)).token;
    await grantSeats(freshToken, 10);
    const prefix = unique('ORD').toUpperCase();
    // Bound out of order: 0001, 0003, 0010, 0002.
    for (const n of [1, 3, 10, 2]) {
      const { serial, ...info } = simulatedInfo(prefix, n);
      expect((await call('POST', '/v1/devices/bind', { body: { userCode: fresh.userCode, serial, info: { ...info, model: 'Gate' } } })).body.code).toBe(201);
    }
    const first = (await call<DevicePage>('GET', '/v1/devices?pageSize=3', { token: freshToken })).body.data;
    const second = (await call<DevicePage>('GET', `/v1/devices?pageSize=3&cursor=${first.nextCursor}`, { token: freshToken })).body.data;
    expect([...first.items, ...second.items].map((d) => d.serial.slice(-4))).toEqual(['0001', '0002', '0003', '0010']);
    expect(second.nextCursor).toBeNull();
    expect((await call('GET', '/v1/devices?cursor=not%20a%20cursor', { token: freshToken })).status).toBe(422);
  });

  it('applies one settings patch to many devices', async () => {
    const second = agent();
    await second.start();
    await until(
      () => read(second.deviceKey!),
      (d) => d.online,
    );
    const answer = await call<{ updated: number }>('POST', '/v1/devices/batchSettings', {
      token,
      body: { deviceKeys: [deviceKey, second.deviceKey], settings: { maskDetection: true, screensaverBrightness: 10 } },
    });
    expect(answer.body).toMatchObject({ code: 201, data: { updated: 2 } });
    for (const key of [deviceKey, second.deviceKey!]) {
      await until(
        () => read(key),
        (d) => d.pending.length === 0 && d.reported.maskDetection === true,
      );
    }
    expect(second.settings).toMatchObject({ maskDetection: true, screensaverBrightness: 10 });
    const missing = await call<Issues>('POST', '/v1/devices/batchSettings', {
      token,
      body: { deviceKeys: [deviceKey, '0000000000zzzzzzzz'], settings: { volume: 5 } },
    });
    expect(missing.status).toBe(422);
    expect((await read(deviceKey)).settings.volume).not.toBe(5);
  });
});

describe('commands', () => {
  let device: DeviceAgent;
  let deviceKey: string;

  beforeAll(async () => {
    device = agent();
    await device.start();
    deviceKey = device.deviceKey!;
    await until(
      () => read(deviceKey),
      (d) => d.online,
    );
  });

  const commands = async () => (await call<{ items: Command[] }>('GET', `/v1/devices/${deviceKey}/commands`, { token })).body.data.items;

  it('opens and closes the door, and the outcome is visible', async () => {
    const open = await call<Command>('POST', `/v1/devices/${deviceKey}/commands`, { token, body: { type: 'openDoor' } });
    expect(open.body).toMatchObject({ code: 202, data: { type: 'openDoor', state: 'queued' } });
    await until(commands, (items) => items.find((c) => c.commandKey === open.body.data.commandKey)?.state === 'succeeded');
    expect(device.door).toBe('open');
    const close = await call<Command>('POST', `/v1/devices/${deviceKey}/commands`, { token, body: { type: 'closeDoor' } });
    await until(commands, (items) => items.find((c) => c.commandKey === close.body.data.commandKey)?.state === 'succeeded');
    expect(device.door).toBe('closed');
  });

  it('captures a photo: pending first, then a readable JPEG', async () => {
    const answer = await call<Command>('POST', `/v1/devices/${deviceKey}/commands`, { token, body: { type: 'capturePhoto' } });
    expect(answer.body.code).toBe(202);
    const photo = await until(
      async () => (await call<{ state: string; url?: string; message: string }>('GET', `/v1/devices/${deviceKey}/photo`, { token })).body.data,
      (p) => p.state !== 'pending',
    );
    expect(photo.value.state).toBe('ready');
    const image = Buffer.from(await (await fetch(photo.value.url!)).arrayBuffer());
    expect(image.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('reboots: the device goes offline and comes back', async () => {
    await call('POST', `/v1/devices/${deviceKey}/commands`, { token, body: { type: 'reboot' } });
    await until(
      () => read(deviceKey),
      (d) => !d.online,
    );
    await until(
      () => read(deviceKey),
      (d) => d.online,
    );
  });

  it('writes what happened to the device log', async () => {
    type Entry = { code: string; level: string; params: Record<string, unknown>; message: string | null };
    const logs = await until(
      async () => (await call<{ items: Entry[] }>('GET', `/v1/devices/${deviceKey}/logs?pageSize=50`, { token })).body.data.items,
      (items) => items.some((l) => l.code === 'doorOpened'),
    );
    expect(logs.value.some((l) => l.code === 'photoCaptured')).toBe(true);
    // Entries are codes with parameters for the console to translate, not English text.
    const applied = logs.value.find((l) => l.code === 'settingsApplied');
    expect(applied?.params.settings).toEqual(expect.arrayContaining(['volume']));
    expect(applied?.message).toBeNull();
    const page = (await call<{ items: unknown[]; nextCursor: string | null }>('GET', `/v1/devices/${deviceKey}/logs?pageSize=2`, { token })).body.data;
    expect(page.items).toHaveLength(2);
    const next = (await call<{ items: { message: string }[] }>('GET', `/v1/devices/${deviceKey}/logs?pageSize=2&cursor=${page.nextCursor}`, { token })).body
      .data;
    expect(next.items).toHaveLength(2);
    expect(next.items).not.toEqual(page.items);
  });

  it('keeps every log cursor inside the device’s own log', async () => {
    const tenantId = token.split('.')[0]!;
    // Logs of neighbours whose keys sort just below and just above this device's.
    await appendLogs(tenantId, '0000000000000000', [{ time: Date.now(), level: 'info', code: 'other', message: 'neighbour below' }]);
    await appendLogs(tenantId, 'zzzzzzzzzzzzzzzz', [{ time: Date.now(), level: 'info', code: 'other', message: 'neighbour above' }]);
    const logs = async (cursor: string) =>
      (await call<{ items: { message: string | null }[] }>('GET', `/v1/devices/${deviceKey}/logs?pageSize=50&cursor=${cursor}`, { token })).body.data.items;
    expect(await logs('0'.repeat(22))).toEqual([]);
    const fromTop = await logs('z'.repeat(22));
    expect(fromTop.length).toBeGreaterThan(0);
    expect(fromTop.map((l) => l.message)).not.toContain('neighbour below');
    expect(fromTop.map((l) => l.message)).not.toContain('neighbour above');
  });

  it('refuses a command to an offline device', async () => {
    await device.stop();
    await until(
      () => read(deviceKey),
      (d) => !d.online,
    );
    const before = await commands();
    const answer = await call('POST', `/v1/devices/${deviceKey}/commands`, { token, body: { type: 'openDoor' } });
    expect(answer.status).toBe(409);
    expect(await commands()).toEqual(before);
  });
});

describe('broker security', () => {
  let a: DeviceAgent;
  let b: DeviceAgent;

  beforeAll(async () => {
    a = agent();
    b = agent();
    await a.bind();
    await b.bind();
  });

  const connect = (options: { clientId: string; username: string; password: string }) =>
    mqtt.connectAsync(a.binding!.mqtt.url, { ...options, reconnectPeriod: 0, connectTimeout: 5000 });

  it('refuses a wrong password and a client id that is not the thing', async () => {
    const m = a.binding!.mqtt;
    await expect(connect({ clientId: m.clientId, username: m.username, password: 'wrong' })).rejects.toThrow(/authori[sz]ed/i);
    await expect(connect({ clientId: b.binding!.thingName, username: m.username, password: m.password })).rejects.toThrow(/authori[sz]ed/i);
  });

  it("refuses a device on another device's topics", async () => {
    const before = await read(b.deviceKey!);
    const client = await connect(a.binding!.mqtt);
    await expect(client.subscribeAsync(deviceTopics(b.binding!.thingName).commands, { qos: 1 })).rejects.toThrow(/Subscribe error/);
    await expect(client.subscribeAsync(shadowTopics(b.binding!.thingName).updateDelta, { qos: 1 })).rejects.toThrow(/Subscribe error/);
    // Nor any wildcard that would take in another device's topics: its face changes, commands or shadow.
    for (const filter of ['#', 'pc/#', 'pc/+/faces/notify', 'pc/+/commands', '$aws/things/+/shadow/#', `pc/${b.binding!.thingName}/#`]) {
      await expect(client.subscribeAsync(filter, { qos: 1 }), filter).rejects.toThrow(/Subscribe error/);
    }
    // Its own topics are fine.
    expect((await client.subscribeAsync(deviceTopics(a.binding!.thingName).commands, { qos: 1 }))[0]!.qos).toBe(1);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish(deviceTopics(b.binding!.thingName).heartbeat, JSON.stringify({ time: Date.now(), info: { ...b.options.info, ip: '6.6.6.6' } }), { qos: 1 });
    client.publish(shadowTopics(b.binding!.thingName).update, JSON.stringify({ state: { reported: { volume: 1 } } }), { qos: 1 });
    await closed;
    await hostIdle();
    const after = await read(b.deviceKey!);
    expect(after.ip).toBe(before.ip);
    expect(after.reported).toEqual(before.reported);
    await client.endAsync(true);
  });

  it("keeps one company's devices from another", async () => {
    expect((await call('GET', `/v1/devices/${a.deviceKey}`, { token: otherToken })).status).toBe(404);
    expect((await call('PATCH', `/v1/devices/${a.deviceKey}`, { token: otherToken, body: { name: 'Mine', version: 1 } })).status).toBe(404);
    expect((await call('POST', `/v1/devices/${a.deviceKey}/commands`, { token: otherToken, body: { type: 'openDoor' } })).status).toBe(404);
    const list = (await call<DevicePage>('GET', '/v1/devices?pageSize=200', { token: otherToken })).body.data;
    expect(list.items.map((d) => d.deviceKey)).not.toContain(a.deviceKey);
    expect((await read(a.deviceKey!)).name).not.toBe('Mine');
  });

  it('unbinding removes the device and its credentials stop working', async () => {
    const device = await read(a.deviceKey!);
    expect((await call('DELETE', `/v1/devices/${a.deviceKey}?version=${device.version}`, { token })).body.code).toBe(204);
    expect((await call('GET', `/v1/devices/${a.deviceKey}`, { token })).status).toBe(404);
    await expect(connect(a.binding!.mqtt)).rejects.toThrow(/authori[sz]ed/i);
  });
});
