import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { deviceTopics, RECORDS_PER_MESSAGE, type PassRecordUp, type RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import { recordPuts, type PassRecord } from '@passcloud/functions/data/passRecords';
import { dayCounters } from '@passcloud/functions/data/passCounters';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { dayOf } from '@passcloud/functions/domain/time';
import { dynamo, resetClients } from '@passcloud/functions/lib/aws';
import { pool } from '@passcloud/functions/lib/pool';
import { adminToken, fmt, percentile } from './api.ts';
import { dashboardLatency } from './dashboard.ts';
import type { OwnHost } from './host.ts';
import { figure } from './figures.ts';

/**
 * Pass records against one local host (on-disk DynamoDB Local, as `npm start` runs it):
 * - ingest through MQTT, every record delivered twice, as a ratio of the raw DynamoDB Local
 *   single-item write rate measured in the same run; none lost, none stored or counted twice;
 * - the list's first page over RECORDS_BENCH_TOTAL (default 1,000,000) records spread over ten
 *   days, seeded straight through the data layer: p95 for today and for ten days with a filter.
 * `npm run bench -- --records-only` runs these alone.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DEVICES = 8;
const RECORDS_PER_DEVICE = Number(process.env.RECORDS_BENCH_INGEST ?? 1500);
const TOTAL = Number(process.env.RECORDS_BENCH_TOTAL ?? 1_000_000);
const WIDTH = 16;

/** Single-item puts per second, `WIDTH` at a time, for about `ms`. */
async function rawWriteRate(tenantId: string, ms = 4000): Promise<number> {
  const end = Date.now() + ms;
  let writes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WIDTH }, async () => {
      while (Date.now() < end) {
        const id = randomBytes(8).toString('hex');
        await dynamo().send(
          new PutCommand({
            TableName: tableName(EVENTS_TABLE),
            Item: {
              pk: `${tenantId}#rawbench`,
              sk: `raw#${id}`,
              kind: 'bench',
              deviceKey: 'x'.repeat(18),
              recordId: id,
              verifyTime: new Date().toISOString(),
              passState: 'passed',
              source: 'face',
              ttl: 0,
            },
          }),
        );
        writes++;
      }
    }),
  );
  return writes / ((performance.now() - started) / 1000);
}

export interface Device {
  deviceKey: string;
  client: MqttClient;
  thing: string;
  acked: Set<string>;
  acks: number;
}

export async function bindDevices(url: string, userCode: string): Promise<{ devices: Device[]; agents: DeviceAgent[] }> {
  const agents: DeviceAgent[] = [];
  const devices = await pool(
    Array.from({ length: DEVICES }, (_, i) => i),
    4,
    async (i) => {
      const agent = new DeviceAgent({
        apiUrl: url,
        userCode,
        info: simulatedInfo(`RECBENCH${Date.now().toString(36).toUpperCase()}${i}`, i),
        heartbeatMs: 60_000,
      });
      agents.push(agent);
      await agent.bind();
      const m = agent.binding!.mqtt;
      const client = await mqtt.connectAsync(m.url, {
        clientId: m.clientId,
        username: m.username,
        password: m.password,
        reconnectPeriod: 0,
        connectTimeout: 10_000,
      });
      const thing = agent.binding!.thingName;
      const device: Device = { deviceKey: agent.deviceKey!, client, thing, acked: new Set(), acks: 0 };
      await client.subscribeAsync(deviceTopics(thing).recordsAck, { qos: 1 });
      client.on('message', (_t, payload) => {
        const ack = JSON.parse(payload.toString()) as RecordsAckMessage;
        device.acks++;
        for (const s of ack.stored) device.acked.add(s.recordId);
      });
      return device;
    },
  );
  return { devices, agents };
}

/** Every device sends its records in messages of RECORDS_PER_MESSAGE, each message twice, a few messages on the way at once. */
export async function ingest(devices: Device[], perDevice: number, twice: boolean): Promise<{ seconds: number; sent: number; records: PassRecordUp[][] }> {
  const records = devices.map(() => Array.from({ length: perDevice }, () => newPassRecord({ temperature: 36 + Math.random() * 2 })));
  const started = performance.now();
  let sent = 0;
  await Promise.all(
    devices.map(async (device, d) => {
      const mine = records[d]!;
      const copies = twice ? 2 : 1;
      const messages: PassRecordUp[][] = [];
      for (let i = 0; i < mine.length; i += RECORDS_PER_MESSAGE) messages.push(mine.slice(i, i + RECORDS_PER_MESSAGE));
      const ackBase = device.acks;
      let published = 0;
      for (const message of messages) {
        // At most 4 messages (each copy counts) waiting for their ack.
        while (published - (device.acks - ackBase) >= 4 * copies) await sleep(2);
        for (let c = 0; c < copies; c++) device.client.publish(deviceTopics(device.thing).records, JSON.stringify({ records: message }), { qos: 1 });
        published += copies;
        sent += copies * message.length;
      }
      while (device.acks - ackBase < published) await sleep(5);
    }),
  );
  return { seconds: (performance.now() - started) / 1000, sent, records };
}

async function seed(tenantId: string, deviceKeys: string[], total: number, prefix = 'seed'): Promise<number> {
  const now = Date.now();
  const span = 10 * 86_400_000;
  const names = ['Alice', 'Bob', 'Chen Wei', 'Dana', 'Emil', 'Fatima', 'Goro', 'Hana', 'Ivan', 'Julia'];
  const started = performance.now();
  const batches = Math.ceil(total / 25);
  let written = 0;
  await pool(
    Array.from({ length: batches }, (_, i) => i),
    24,
    async (b) => {
      const items: Record<string, unknown>[] = [];
      for (let i = b * 25; i < Math.min(total, (b + 1) * 25); i++) {
        const verifyTime = new Date(now - Math.floor((i / total) * span) - 1000).toISOString();
        const roll = (i * 7919) % 1000;
        const type = roll < 5 ? 'blacklist' : roll < 25 ? 'stranger' : roll % 3 === 0 ? 'visitor' : 'employee';
        const fever = roll % 97 === 0;
        const name = type === 'stranger' ? undefined : `${names[i % names.length]} ${i}`;
        const record: PassRecord = {
          tenantId,
          deviceKey: deviceKeys[i % deviceKeys.length]!,
          recordId: `${prefix}${i}`,
          time: verifyTime,
          verifyTime,
          day: dayOf(new Date(verifyTime), 'UTC'),
          type,
          ...(name ? { name, nameLower: name.toLowerCase() } : {}),
          temperature: fever ? 38.1 : 36.5,
          measured: true,
          fever,
          passState: roll % 31 === 0 || type === 'blacklist' ? 'refused' : 'passed',
          source: 'face',
          ttl: Math.floor(now / 1000) + 30 * 86_400,
        };
        items.push(...recordPuts(record));
      }
      for (let i = 0; i < items.length; i += 25) {
        let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
          [tableName(EVENTS_TABLE)]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
        };
        for (let attempt = 0; request && Object.keys(request).length > 0 && attempt < 20; attempt++) {
          const out = await dynamo().send(new BatchWriteCommand({ RequestItems: request }));
          request = out.UnprocessedItems as typeof request;
          if (request && Object.keys(request).length > 0) await sleep(20 * (attempt + 1));
        }
      }
      written += items.length;
    },
  );
  return (total / (performance.now() - started)) * 1000 + 0 * written;
}

/** Prints each figure as soon as it is measured (a long run shows its progress) and keeps it for the summary. */
function out(lines: string[], line: string): void {
  lines.push(line);
  console.log(`  ${line}`);
}

/** Ingest with dedup on, against a host of its own with DynamoDB Local on disk (as `npm start` runs it). */
export async function recordsIngestBench(host: OwnHost): Promise<string[]> {
  const { url } = host;
  const tenantId = host.env.DEMO_TENANT!;
  const token = await adminToken(url);
  const lines: string[] = [];
  const { devices, agents } = await bindDevices(url, host.env.DEMO_USER_CODE!);
  try {
    // Warm the host's handlers up.
    await ingest(devices.slice(0, 1), 100, false);
    const raw = await rawWriteRate(tenantId);
    figure({ area: 'records', name: 'raw single-item write rate', value: raw, unit: '/s', note: `DynamoDB Local on disk, ${WIDTH} at a time` });
    out(lines, `records: raw DynamoDB Local (on disk) single-item writes, ${WIDTH} at a time: ${raw.toFixed(0)} /s`);

    const today = dayOf(new Date(), 'UTC');
    const before = (await dayCounters(tenantId, today, today))[0]!.counts.total;
    const twice = await ingest(devices, RECORDS_PER_DEVICE, true);
    const unique = DEVICES * RECORDS_PER_DEVICE;
    const rate = unique / twice.seconds;
    figure({ area: 'records', name: 'ingest rate', value: rate, unit: '/s', note: 'through MQTT, dedup on, every record twice' });
    figure({ area: 'records', name: 'ingest / raw write rate', value: rate / raw, unit: 'x', goal: 1, kind: 'min', note: 'same run' });
    out(
      lines,
      `records: ingest through MQTT, ${DEVICES} devices x ${RECORDS_PER_DEVICE} records, every record delivered twice: ${rate.toFixed(0)} records/s stored (${(twice.sent / twice.seconds).toFixed(0)} deliveries/s) = ${(rate / raw).toFixed(2)} of the raw write rate (goal 1.0)`,
    );
    // Lost: a record missing from the list; duplicated: listed or counted twice.
    let listed = 0;
    const seen = new Set<string>();
    for (const device of devices) {
      let cursor: string | null = null;
      do {
        const res: Response = await fetch(
          `${url}/v1/passRecords?deviceKey=${device.deviceKey}&pageSize=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { headers: { authorization: `Bearer ${token}` } },
        );
        const page: { items: { recordKey: string }[]; nextCursor: string | null } = (
          (await res.json()) as { data: { items: { recordKey: string }[]; nextCursor: string | null } }
        ).data;
        listed += page.items.length;
        for (const item of page.items) seen.add(item.recordKey);
        cursor = page.nextCursor;
      } while (cursor);
    }
    const acked = devices.reduce((n, d) => n + d.acked.size, 0) - 100;
    const counted = (await dayCounters(tenantId, today, today))[0]!.counts.total - before;
    figure({ area: 'records', name: 'ingest records lost', value: unique + 100 - seen.size, unit: '', goal: 0, kind: 'max' });
    figure({
      area: 'records',
      name: 'ingest records duplicated',
      value: listed - seen.size + Math.max(0, counted - unique),
      unit: '',
      goal: 0,
      kind: 'max',
      note: 'listed or counted twice',
    });
    out(
      lines,
      `records: ${unique} records sent twice: ${acked} acknowledged, lost ${unique + 100 - seen.size}, listed twice ${listed - seen.size}, counted ${counted - unique} too many`,
    );
  } finally {
    await Promise.allSettled(devices.map((d) => d.client.endAsync(true)));
    await Promise.allSettled(agents.map((a) => a.stop()));
  }
  return lines;
}

/**
 * The list over TOTAL records of one company spread over ten days, seeded straight through the
 * data layer into the in-memory stack (an on-disk DynamoDB Local writes a million items in about
 * an hour), then the first page through the API: p95 for today and for ten days with filters.
 */
export async function recordsListBench(stack: { url: string; env: Record<string, string>; demo?: { tenantId: string } }): Promise<string[]> {
  Object.assign(process.env, stack.env);
  resetClients();
  const { url } = stack;
  const tenantId = stack.demo!.tenantId;
  const token = await adminToken(url);
  const lines: string[] = [];
  const deviceKeys = Array.from({ length: 10 }, (_, i) => `benchdevice${String(i).padStart(4, '0')}`);
  // The dashboard reads counters only: with a thousand records and with TOTAL it costs the same.
  await seed(tenantId, deviceKeys, 1000, 'small');
  const small = await dashboardLatency(url, token);
  const seeded = await seed(tenantId, deviceKeys, TOTAL);
  out(lines, `records: seeded ${TOTAL} records over ten days straight through the data layer at ${seeded.toFixed(0)} records/s`);
  const large = await dashboardLatency(url, token);
  figure({
    area: 'dashboard',
    name: 'GET /v1/dashboard p50, 1M records / 1k',
    value: large.p50 / small.p50,
    unit: 'x',
    goal: 1.1,
    kind: 'max',
    note: 'same run',
  });
  out(
    lines,
    `dashboard: GET /v1/dashboard with 1,000 records p50 ${fmt(small.p50)}, p95 ${fmt(small.p95)}; with ${(TOTAL + 1000).toLocaleString('en')} p50 ${fmt(large.p50)}, p95 ${fmt(large.p95)}; p50 ratio ${(large.p50 / small.p50).toFixed(2)} (goal at most 1.1)`,
  );
  const from = dayOf(new Date(Date.now() - 9 * 86_400_000), 'UTC');
  const probe = async (label: string, query: string) => {
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      const res = await fetch(`${url}/v1/passRecords?pageSize=20&${query}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { code: number; data: { items: unknown[] } };
      times.push(performance.now() - started);
      if (body.code !== 200) throw new Error(`${query}: ${body.code}`);
      items = body.data.items.length;
    }
    figure({
      area: 'records',
      name: `list first page p95, ${label}`,
      value: percentile(times, 95)!,
      unit: 'ms',
      goal: 100,
      kind: 'max',
      note: `${TOTAL.toLocaleString('en')} records`,
    });
    out(lines, `records: first page (20) of ${label}: p50 ${fmt(percentile(times, 50))}, p95 ${fmt(percentile(times, 95))} (budget 100 ms), ${items} items`);
  };
  await probe('today', '');
  await probe('ten days, one device', `from=${from}&deviceKey=${deviceKeys[3]}`);
  await probe('ten days, strangers', `from=${from}&type=stranger`);
  await probe('ten days, fever', `from=${from}&temperature=fever`);
  await probe('ten days, refused', `from=${from}&passState=refused`);
  await probe('ten days, passed visitors', `from=${from}&type=visitor&passState=passed`);
  await probe('ten days, keyword (read budget, cursor goes on)', `from=${from}&keyword=chen%20wei%2012`);
  return lines;
}
