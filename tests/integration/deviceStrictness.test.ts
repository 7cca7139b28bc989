import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { deviceTopics, type RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * One strictness for every device message: an unknown field anywhere, or a time in seconds
 * instead of milliseconds, refuses the message; each refusal is answered where the channel
 * allows (records on their ack) and recorded in the device's log with the reason.
 */

interface LogEntry {
  code: string;
  level: string;
  params?: { topic?: string; error?: string };
}

let token: string;
let userCode: string;
const agents: DeviceAgent[] = [];
const clients: MqttClient[] = [];

interface Raw {
  deviceKey: string;
  topics: ReturnType<typeof deviceTopics>;
  client: MqttClient;
  acks: RecordsAckMessage[];
  info: ReturnType<typeof simulatedInfo>;
}

async function rawDevice(): Promise<Raw> {
  const info = simulatedInfo(unique('ST').toUpperCase(), 1);
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info, heartbeatMs: 60_000 });
  agents.push(agent);
  await agent.bind();
  const m = agent.binding!.mqtt;
  const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  const topics = deviceTopics(agent.binding!.thingName);
  const acks: RecordsAckMessage[] = [];
  await client.subscribeAsync(topics.recordsAck, { qos: 1 });
  client.on('message', (_topic, payload) => acks.push(JSON.parse(payload.toString()) as RecordsAckMessage));
  return { deviceKey: agent.deviceKey!, topics, client, acks, info };
}

const logs = async (deviceKey: string) => (await call<{ items: LogEntry[] }>('GET', `/v1/devices/${deviceKey}/logs?pageSize=100`, { token })).body.data.items;
const refusals = async (deviceKey: string) => (await logs(deviceKey)).filter((l) => l.code === 'messageRefused');
const send = (device: Raw, topic: string, message: unknown) => device.client.publishAsync(topic, typeof message === 'string' ? message : JSON.stringify(message), { qos: 1 });
const heartbeatInfo = (device: Raw, ip: string) => {
  const { serial: _serial, ...info } = device.info;
  return { ...info, ip };
};

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 10);
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync()));
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('device messages', () => {
  it('refuse a heartbeat with an unknown field at any level, say why in the device log, and change nothing', async () => {
    const device = await rawDevice();
    await send(device, device.topics.heartbeat, { time: Date.now(), info: heartbeatInfo(device, '10.77.0.1'), battery: 80 });
    await send(device, device.topics.heartbeat, { time: Date.now(), info: { ...heartbeatInfo(device, '10.77.0.2'), firmwareBuild: 'x' } });
    const refused = await until(() => refusals(device.deviceKey), (list) => list.length === 2);
    expect(refused.map((r) => r.params?.topic)).toEqual([device.topics.heartbeat, device.topics.heartbeat]);
    expect(refused.map((r) => r.params?.error).sort()).toEqual(['info: unknown field firmwareBuild', 'message: unknown field battery']);
    expect(refused.every((r) => r.level === 'warn')).toBe(true);
    expect((await call<{ ip: string }>('GET', `/v1/devices/${device.deviceKey}`, { token })).body.data.ip).toBe(device.info.ip);

    // A well-formed one still counts.
    await send(device, device.topics.heartbeat, { time: Date.now(), info: heartbeatInfo(device, '10.77.0.3') });
    await until(async () => (await call<{ ip: string }>('GET', `/v1/devices/${device.deviceKey}`, { token })).body.data.ip, (ip) => ip === '10.77.0.3');
  });

  it('refuse times in seconds, naming the mistake', async () => {
    const device = await rawDevice();
    const seconds = Math.floor(Date.now() / 1000);
    await send(device, device.topics.heartbeat, { time: seconds, info: heartbeatInfo(device, '10.78.0.1') });
    await send(device, device.topics.logs, { entries: [{ time: seconds, level: 'info', code: 'connected' }] });
    const refused = await until(() => refusals(device.deviceKey), (list) => list.length === 2);
    for (const entry of refused) expect(entry.params?.error).toMatch(/time: must be milliseconds since 1970 \(this looks like seconds\)/);
    expect((await logs(device.deviceKey)).filter((l) => l.code === 'connected')).toEqual([]);

    // A record in seconds is refused on its ack; the others of the message are stored.
    const good = newPassRecord();
    const late = newPassRecord({ verifyTime: seconds });
    device.client.publish(device.topics.records, JSON.stringify({ records: [good, late] }), { qos: 1 });
    await until(() => device.acks.length, (n) => n === 1);
    expect(device.acks[0]!.stored.map((s) => s.recordId)).toEqual([good.recordId]);
    expect(device.acks[0]!.refused).toEqual([{ recordId: late.recordId, reason: expect.stringMatching(/verifyTime: must be milliseconds/) }]);
  });

  it('refuse a records message with a field beside records, answering each record refused', async () => {
    const device = await rawDevice();
    const records = [newPassRecord(), newPassRecord()];
    device.client.publish(device.topics.records, JSON.stringify({ records, topic: 'pc/someone-else/records' }), { qos: 1 });
    await until(() => device.acks.length, (n) => n === 1);
    expect(device.acks[0]!.stored).toEqual([]);
    expect(device.acks[0]!.refused.map((r) => r.recordId).sort()).toEqual(records.map((r) => r.recordId).sort());
    expect(device.acks[0]!.refused[0]!.reason).toBe('message: unknown field topic');
    const refused = await until(() => refusals(device.deviceKey), (list) => list.length === 1);
    expect(refused[0]!.params).toEqual({ topic: device.topics.records, error: 'message: unknown field topic' });
    const stored = (await call<{ items: unknown[] }>('GET', `/v1/passRecords?deviceKey=${device.deviceKey}&pageSize=20`, { token })).body.data.items;
    expect(stored).toEqual([]);
  });

  it('record a message that is not JSON, and a command result with an unknown field', async () => {
    const device = await rawDevice();
    await send(device, device.topics.heartbeat, 'not json at all');
    await send(device, device.topics.commandResult, { commandKey: 'a'.repeat(16), ok: true, extra: 1 });
    const refused = await until(() => refusals(device.deviceKey), (list) => list.length === 2);
    expect(refused.map((r) => r.params?.error).sort()).toEqual(['message: unknown field extra', 'not a JSON object']);
  });
});

describe('captures', () => {
  it('a record sent again whose capture arrived is told so, with no new upload link', async () => {
    const device = await rawDevice();
    const photo = Buffer.alloc(2048, 7);
    const record = newPassRecord({ capture: { contentType: 'image/jpeg', size: photo.length } });
    device.client.publish(device.topics.records, JSON.stringify({ records: [record] }), { qos: 1 });
    await until(() => device.acks.length, (n) => n === 1);
    const upload = device.acks[0]!.stored[0]!.upload!;
    expect(upload).toBeDefined();
    // Before the capture arrives, a resend gets a link again.
    device.client.publish(device.topics.records, JSON.stringify({ records: [record] }), { qos: 1 });
    await until(() => device.acks.length, (n) => n === 2);
    expect(device.acks[1]!.stored[0]).toMatchObject({ recordId: record.recordId, upload: { url: expect.any(String) } });
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: new Uint8Array(photo) });
    expect(put.status).toBe(200);
    device.client.publish(device.topics.records, JSON.stringify({ records: [record] }), { qos: 1 });
    await until(() => device.acks.length, (n) => n === 3);
    expect(device.acks[2]!.stored).toEqual([{ recordId: record.recordId, captureStored: true }]);
  });

  it('a capturePhoto picture over 1 MB fails the command and is removed', async () => {
    const device = await rawDevice();
    const commands: { commandKey: string; upload?: { url: string; contentType: string } }[] = [];
    await device.client.subscribeAsync(device.topics.commands, { qos: 1 });
    device.client.on('message', (topic, payload) => {
      if (topic === device.topics.commands) commands.push(JSON.parse(payload.toString()) as (typeof commands)[number]);
    });
    // The console sends commands to online devices only.
    await until(async () => (await call<{ online: boolean }>('GET', `/v1/devices/${device.deviceKey}`, { token })).body.data.online, (online) => online);
    const sent = await call<{ commandKey: string }>('POST', `/v1/devices/${device.deviceKey}/commands`, { token, body: { type: 'capturePhoto' } });
    expect(sent.body.code, sent.body.message).toBe(202);
    const [command] = await until(() => commands, (list) => list.length === 1);
    const put = await fetch(command!.upload!.url, { method: 'PUT', headers: { 'content-type': command!.upload!.contentType }, body: new Uint8Array(Buffer.alloc(1024 * 1024 + 1, 1)) });
    expect(put.status).toBe(200);
    await send(device, device.topics.commandResult, { commandKey: command!.commandKey, ok: true });
    const states = await until(
      async () => (await call<{ items: { commandKey: string; state: string; error?: string }[] }>('GET', `/v1/devices/${device.deviceKey}/commands`, { token })).body.data.items,
      (items) => items.some((c) => c.commandKey === command!.commandKey && c.state !== 'queued'),
    );
    expect(states.find((c) => c.commandKey === command!.commandKey)).toMatchObject({ state: 'failed', error: 'photo larger than 1 MB' });
    const photo = await call('GET', `/v1/devices/${device.deviceKey}/photo`, { token });
    expect(JSON.stringify(photo.body.data ?? null)).not.toMatch(/https?:\/\//);
  });
});
