import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { deviceTopics, type PassRecordUp, type RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import type { PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * One person's passes (`personKey` on the record lists), as a person's page shows their recent
 * passes and links to the list: read from the person's own partition newest first, with the
 * other filters, the read budget and the cursor of every record list.
 */

type Issues = { issues: { path: string; message: string }[] };

let token: string;
let ada: string;
let bob: string;
const agents: DeviceAgent[] = [];
const clients: MqttClient[] = [];
const devices: { deviceKey: string; send(records: PassRecordUp[]): Promise<void> }[] = [];

/** A bound terminal spoken for by hand: its records go up on MQTT and are stored once acknowledged. */
async function terminal(userCode: string) {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('PP').toUpperCase(), 1), heartbeatMs: 60_000 });
  agents.push(agent);
  await agent.bind();
  const m = agent.binding!.mqtt;
  const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  const topics = deviceTopics(agent.binding!.thingName);
  const stored = new Set<string>();
  await client.subscribeAsync(topics.recordsAck, { qos: 1 });
  client.on('message', (_topic, payload) => {
    for (const s of (JSON.parse(payload.toString()) as RecordsAckMessage).stored) stored.add(s.recordId);
  });
  return {
    deviceKey: agent.deviceKey!,
    async send(records: PassRecordUp[]) {
      await client.publishAsync(topics.records, JSON.stringify({ records }), { qos: 1 });
      await until(
        () => records.every((r) => stored.has(r.recordId)),
        (all) => all,
      );
    },
  };
}

/** Days around now, whatever the hour: the passes of the last hour may be on yesterday's date. */
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const RANGE = `from=${day(-2)}&to=${day(1)}`;
const list = (query: string, as = token) =>
  call<PassRecordPage & Issues>('GET', `/v1/passRecords?${query.includes('from=') ? '' : `${RANGE}&`}${query}`, { token: as });

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 3);
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Passers '), type: 'employee' } })).body.data.groupKey;
  const hire = async (name: string) =>
    (await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('PP'), name, role: 'Staff', gender: 'female', groupKey } }))
      .body.data.employeeKey;
  ada = await hire('Ada Passer');
  bob = await hire('Bob Passer');
  devices.push(await terminal(owner.userCode), await terminal(owner.userCode));
  const start = Date.now() - 60 * 60_000;
  // Ada: 24 passes at the first terminal, one refused and one with a fever among them; 2 at the second. Bob: 3.
  const adaFirst = Array.from({ length: 24 }, (_, i) =>
    newPassRecord({
      personKey: ada,
      name: 'Ada Passer',
      verifyTime: start + i * 60_000,
      temperature: i === 5 ? 38.6 : 36.5,
      ...(i === 7 ? { passState: 'refused' } : {}),
    }),
  );
  await devices[0]!.send(adaFirst);
  await devices[1]!.send([0, 1].map((i) => newPassRecord({ personKey: ada, name: 'Ada Passer', verifyTime: start + (30 + i) * 60_000 })));
  await devices[0]!.send([0, 1, 2].map((i) => newPassRecord({ personKey: bob, name: 'Bob Passer', verifyTime: start + (40 + i) * 60_000 })));
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync()));
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('one person’s passes', () => {
  it('lists only that person’s passes, newest first, page by page', async () => {
    const first = await list(`personKey=${ada}&pageSize=20`);
    expect(first.body.code).toBe(200);
    expect(first.body.data.items).toHaveLength(20);
    expect(first.body.data.items.every((r) => r.personKey === ada && r.name === 'Ada Passer')).toBe(true);
    const times = first.body.data.items.map((r) => r.verifyTime);
    expect(times).toEqual([...times].sort().reverse());
    // The newest two are at the second terminal.
    expect(first.body.data.items.slice(0, 2).map((r) => r.deviceKey)).toEqual([devices[1]!.deviceKey, devices[1]!.deviceKey]);
    expect(first.body.data.nextCursor).not.toBeNull();
    const second = await list(`personKey=${ada}&pageSize=20&cursor=${first.body.data.nextCursor}`);
    expect(second.body.data.items).toHaveLength(6);
    expect(second.body.data.nextCursor).toBeNull();
    const keys = new Set([...first.body.data.items, ...second.body.data.items].map((r) => r.recordKey));
    expect(keys.size).toBe(26);
    expect((await list(`personKey=${bob}&pageSize=20`)).body.data.items.map((r) => r.name)).toEqual(['Bob Passer', 'Bob Passer', 'Bob Passer']);
  });

  it('takes the other filters with it', async () => {
    const at = await list(`personKey=${ada}&deviceKey=${devices[1]!.deviceKey}&pageSize=20`);
    expect(at.body.data.items).toHaveLength(2);
    expect((await list(`personKey=${ada}&passState=refused&pageSize=20`)).body.data.items).toHaveLength(1);
    const fever = await list(`personKey=${ada}&temperature=fever&pageSize=20`);
    expect(fever.body.data.items.map((r) => r.temperature)).toEqual([38.6]);
    expect((await list(`personKey=${ada}&type=visitor&pageSize=20`)).body.data.items).toHaveLength(0);
    expect((await list(`personKey=${ada}&keyword=bob&pageSize=20`)).body.data.items).toHaveLength(0);
    // Days before the passes: none.
    expect((await list(`personKey=${ada}&from=${day(-5)}&to=${day(-3)}&pageSize=20`)).body.data.items).toHaveLength(0);
  });

  it('refuses a malformed key naming it, and shows another company nothing', async () => {
    const bad = await list('personKey=NOT-A-KEY');
    expect(bad.status).toBe(422);
    expect(bad.body.data.issues.map((i) => i.path)).toEqual(['personKey']);
    const other = await newCompany();
    const otherToken = (await login(other.username, other.password)).token;
    const theirs = await list(`personKey=${ada}&pageSize=20`, otherToken);
    expect(theirs.body.code).toBe(200);
    expect(theirs.body.data.items).toHaveLength(0);
  });

  it('exports the same filter', async () => {
    const started = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: { personKey: ada, from: day(-2), to: day(1) } });
    expect(started.body.code).toBe(202);
    const job = await until(
      async () => (await call<{ state: string; done: number }>('GET', `/v1/passRecords/exports/${started.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
      30_000,
    );
    expect(job).toMatchObject({ state: 'done', done: 26 });
  });
});
