import '../support/localEnv.ts';
import { mkdtempSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { captureJpeg, newPassRecord } from '@passcloud/device-shadow/records';
import { CAPTURE_MAX_BYTES, deviceTopics, type PassRecordUp, type RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import type { PassRecordItem, PassRecordPage, RecordExportJob } from '@passcloud/functions/contract/passRecords';
import { dayCounters } from '@passcloud/functions/data/passCounters';
import { addDays, dayOf } from '@passcloud/functions/domain/time';
import { readFirstSheet } from '@passcloud/functions/lib/xlsx';
import { baseUrl, call, login, newCompany, unique, hostIdle } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

type Issues = { issues: { path: string; message: string }[] };

let token: string;
let tenantId: string;
let userCode: string;
let otherToken: string;
let employeeKey: string;
let visitorKey: string;
let blacklistedKey: string;
const agents: DeviceAgent[] = [];
const clients: MqttClient[] = [];
const dirs: string[] = [];

const today = () => dayOf(new Date(), 'UTC');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: () => Promise<T> | T, ok: (value: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await what();
    if (ok(value) || Date.now() > end) return value;
    await sleep(50);
  }
}

function agent(extra: Partial<ConstructorParameters<typeof DeviceAgent>[0]> = {}): DeviceAgent {
  const a = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('R').toUpperCase(), 1), heartbeatMs: 60_000, ...extra });
  agents.push(a);
  return a;
}

/** A bound device spoken for by hand: a raw MQTT client on its credentials that collects the acks. */
interface RawDevice {
  deviceKey: string;
  thing: string;
  client: MqttClient;
  acks: RecordsAckMessage[];
  send(records: unknown[]): void;
}
async function rawDevice(): Promise<RawDevice> {
  const a = agent();
  await a.bind();
  const m = a.binding!.mqtt;
  const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  const thing = a.binding!.thingName;
  const acks: RecordsAckMessage[] = [];
  await client.subscribeAsync(deviceTopics(thing).recordsAck, { qos: 1 });
  client.on('message', (_topic, payload) => acks.push(JSON.parse(payload.toString()) as RecordsAckMessage));
  return {
    deviceKey: a.deviceKey!,
    thing,
    client,
    acks,
    send: (records) => client.publish(deviceTopics(thing).records, JSON.stringify({ records }), { qos: 1 }),
  };
}
const storedIds = (acks: RecordsAckMessage[]) => new Set(acks.flatMap((a) => a.stored.map((s) => s.recordId)));
const refusedIds = (acks: RecordsAckMessage[]) => new Set(acks.flatMap((a) => a.refused.map((s) => s.recordId)));

async function list(query: string, as = token, path = '/v1/passRecords') {
  return call<PassRecordPage & Issues>('GET', `${path}?${query}`, { token: as });
}
async function all(query: string, path = '/v1/passRecords'): Promise<PassRecordItem[]> {
  const items: PassRecordItem[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof list>> = await list(`${query}&pageSize=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token, path);
    expect(page.body.code, page.body.message).toBe(200);
    items.push(...page.body.data.items);
    cursor = page.body.data.nextCursor;
  } while (cursor);
  return items;
}
const ofDevice = async (deviceKey: string, extra = '') => all(`deviceKey=${deviceKey}${extra}`);

async function setPrivacy(changes: Record<string, unknown>) {
  const current = (await call<Record<string, unknown>>('GET', '/v1/settings/privacy', { token })).body.data;
  const saved = await call('PUT', '/v1/settings/privacy', { token, body: { ...current, ...changes }, confirm: true });
  expect(saved.body.code).toBe(201);
}

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  await grantSeats(token, 20);
  const other = await newCompany();
  otherToken = (await login(other.username, other.password)).token;
  const made = async (path: string, body: unknown, key: string) => {
    const answer = await call<Record<string, string>>('POST', path, { token, body });
    expect(answer.body.code, answer.body.message).toBe(201);
    return answer.body.data[key]!;
  };
  const staff = await made('/v1/groups', { name: 'Records staff', type: 'employee' }, 'groupKey');
  const guests = await made('/v1/groups', { name: 'Records guests', type: 'visitor' }, 'groupKey');
  employeeKey = await made('/v1/employees', { personId: unique('E'), name: 'Alice Records', role: 'Staff', gender: 'female', groupKey: staff }, 'employeeKey');
  visitorKey = await made('/v1/visitors', { personId: unique('V'), name: 'Victor Guest', role: 'Guest', gender: 'male', groupKey: guests }, 'visitorKey');
  blacklistedKey = await made(
    '/v1/employees',
    { personId: unique('E'), name: 'Mallory Watched', role: 'Staff', gender: 'male', groupKey: staff },
    'employeeKey',
  );
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await Promise.allSettled(agents.map((a) => a.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('ingest', () => {
  it('stores each record once and counts it once, delivered 1 to 3 times, at once and out of order', async () => {
    const device = await rawDevice();
    const before = (await dayCounters(tenantId, today(), today()))[0]!.counts;
    const records = Array.from({ length: 40 }, (_, i) =>
      newPassRecord({
        recordId: `dedup-${i}`,
        passState: i % 4 === 0 ? 'refused' : 'passed',
        verifyTime: Date.now() - i * 1000,
        ...(i % 5 === 0 ? { temperature: 38.2 } : { temperature: 36.5 }),
      }),
    );
    const copies = records.flatMap((r, i) => Array.from({ length: 1 + (i % 3) }, () => r));
    for (let i = copies.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [copies[i], copies[j]] = [copies[j]!, copies[i]!];
    }
    const messages: PassRecordUp[][] = [];
    for (let i = 0; i < copies.length; i += 7) messages.push(copies.slice(i, i + 7));
    // A message may carry the same record twice, too.
    messages.push([records[1]!, records[1]!, records[2]!]);
    for (const message of messages) device.send(message);
    await until(
      () => device.acks.length,
      (n) => n >= messages.length,
    );
    expect(device.acks.length).toBe(messages.length);
    expect(storedIds(device.acks)).toEqual(new Set(records.map((r) => r.recordId)));
    expect(refusedIds(device.acks).size).toBe(0);

    const stored = await ofDevice(device.deviceKey);
    expect(stored.length).toBe(40);
    expect(new Set(stored.map((s) => s.recordKey)).size).toBe(40);
    const after = (await dayCounters(tenantId, today(), today()))[0]!.counts;
    expect(after.total - before.total).toBe(40);
    expect(after.refused - before.refused).toBe(10);
    expect(after.passed - before.passed).toBe(30);
    expect(after.fever - before.fever).toBe(8);
    expect(after.normal - before.normal).toBe(32);
    expect(after.stranger - before.stranger).toBe(40);
    // Newest first.
    const times = stored.map((s) => s.verifyTime);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('tells employees, visitors, strangers and watched people apart', async () => {
    const device = await rawDevice();
    // The device watches for this person (blacklist monitoring, setType 1).
    const watch = await call('POST', '/v1/authorities', {
      token,
      body: { setType: 1, personKeys: [blacklistedKey], deviceKeys: [device.deviceKey], validity: { permanent: true } },
    });
    expect(watch.body.code, watch.body.message).toBe(201);
    const records = [
      newPassRecord({ personKey: employeeKey, name: 'Alice Records', temperature: 36.4 }),
      newPassRecord({ personKey: visitorKey, name: 'Victor Guest' }),
      newPassRecord({ personKey: 'unknownperson0001' }),
      newPassRecord({}),
      newPassRecord({ personKey: blacklistedKey, name: 'Mallory Watched', passState: 'refused' }),
    ];
    device.send(records);
    await until(
      () => storedIds(device.acks).size,
      (n) => n === 5,
    );
    const byId = new Map((await ofDevice(device.deviceKey)).map((r) => [r.recordKey.split('.')[1], r]));
    expect(byId.get(records[0]!.recordId)).toMatchObject({
      type: 'employee',
      name: 'Alice Records',
      groupName: 'Records staff',
      temperature: 36.4,
      fever: false,
    });
    expect(byId.get(records[1]!.recordId)).toMatchObject({ type: 'visitor', name: 'Victor Guest', groupName: 'Records guests' });
    expect(byId.get(records[2]!.recordId)).toMatchObject({ type: 'stranger', groupName: null, temperature: null });
    expect(byId.get(records[3]!.recordId)).toMatchObject({ type: 'stranger', personKey: null });
    expect(byId.get(records[4]!.recordId)).toMatchObject({ type: 'blacklist', passState: 'refused' });
    // The blacklist's own list holds only the watched.
    const watched = await all(`deviceKey=${device.deviceKey}`, '/v1/blacklistRecords');
    expect(watched.map((r) => r.recordKey)).toEqual([`${device.deviceKey}.${records[4]!.recordId}`]);
    expect((await list('type=employee', token, '/v1/blacklistRecords')).body.code).toBe(422);
  });

  it('refuses a malformed record with its reason and stores the rest', async () => {
    const device = await rawDevice();
    const good = [newPassRecord(), newPassRecord()];
    device.send([
      good[0],
      { recordId: 'bad-state', passState: 'maybe', source: 'face', verifyTime: Date.now() },
      { nothing: true },
      good[1],
      newPassRecord({ recordId: 'future', verifyTime: Date.now() + 3 * 86_400_000 }),
    ]);
    await until(
      () => device.acks.length,
      (n) => n === 1,
    );
    const [ack] = device.acks;
    expect(new Set(ack!.stored.map((s) => s.recordId))).toEqual(new Set(good.map((g) => g.recordId)));
    expect(ack!.refused.map((r) => r.recordId).sort()).toEqual(['', 'bad-state', 'future']);
    expect(ack!.refused.find((r) => r.recordId === 'bad-state')!.reason).toMatch(/passState/);
    expect((await ofDevice(device.deviceKey)).length).toBe(2);
  });

  it('applies the privacy switches before storing', async () => {
    const device = await rawDevice();
    await setPrivacy({ saveTemperature: false, savePhotos: false, saveVisitorName: false });
    try {
      const visitor = newPassRecord({ personKey: visitorKey, name: 'Victor Guest', temperature: 38.6, capture: { contentType: 'image/jpeg', size: 2000 } });
      const employee = newPassRecord({ personKey: employeeKey, name: 'Alice Records', temperature: 36.1 });
      device.send([visitor, employee]);
      await until(
        () => storedIds(device.acks).size,
        (n) => n === 2,
      );
      // No upload is offered while photos are not kept.
      expect(device.acks.flatMap((a) => a.stored).every((s) => !s.upload)).toBe(true);
      const byId = new Map((await ofDevice(device.deviceKey)).map((r) => [r.recordKey.split('.')[1], r]));
      expect(byId.get(visitor.recordId)).toMatchObject({
        type: 'visitor',
        name: null,
        groupName: 'Records guests',
        temperature: null,
        fever: true,
        capture: null,
        avatar: null,
      });
      // An employee's name stays; temperatures go for everyone.
      expect(byId.get(employee.recordId)).toMatchObject({ name: 'Alice Records', temperature: null, fever: false });
      expect((await ofDevice(device.deviceKey, '&temperature=fever')).map((r) => r.recordKey)).toEqual([`${device.deviceKey}.${visitor.recordId}`]);
      expect((await ofDevice(device.deviceKey, '&temperature=normal')).map((r) => r.recordKey)).toEqual([`${device.deviceKey}.${employee.recordId}`]);
    } finally {
      await setPrivacy({ saveTemperature: true, savePhotos: true, saveVisitorName: true });
    }
  });

  it('offers a bounded upload for an announced capture, and none for one too large or of another type', async () => {
    const device = await rawDevice();
    const fine = newPassRecord({ capture: { contentType: 'image/jpeg', size: 1234 } });
    const big = newPassRecord({ capture: { contentType: 'image/jpeg', size: CAPTURE_MAX_BYTES + 1 } });
    const gif = newPassRecord({ capture: { contentType: 'image/gif', size: 1000 } as never });
    device.send([fine, big, gif]);
    await until(
      () => storedIds(device.acks).size,
      (n) => n === 3,
    );
    const stored = new Map(device.acks.flatMap((a) => a.stored).map((s) => [s.recordId, s]));
    expect(stored.get(big.recordId)!.upload).toBeUndefined();
    expect(stored.get(gif.recordId)!.upload).toBeUndefined();
    const upload = stored.get(fine.recordId)!.upload!;
    expect(upload.headers).toEqual({ 'content-type': 'image/jpeg', 'content-length': '1234', 'if-none-match': '*' });
    // The link is signed over the size and the type: S3 refuses any other body.
    const signed = new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')!.split(';');
    expect(signed).toEqual(expect.arrayContaining(['content-length', 'content-type', 'host', 'if-none-match']));
    expect(Number(new URL(upload.url).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(900);
    const send = (body: Buffer, type: string, headers: Record<string, string> = { 'if-none-match': '*' }) =>
      fetch(upload.url, { method: 'PUT', headers: { 'content-type': type, ...headers }, body: new Uint8Array(body) });
    expect((await send(Buffer.alloc(CAPTURE_MAX_BYTES + 1, 1), 'image/jpeg')).status).toBe(403);
    expect((await send(Buffer.alloc(1234, 1), 'image/png')).status).toBe(403);
    // Without the condition the link does not hold.
    expect((await send(Buffer.alloc(1234, 1), 'image/jpeg', {})).status).toBe(403);
    expect((await send(Buffer.alloc(1234, 1), 'image/jpeg')).status).toBe(200);
    // Once it arrived, it is never overwritten.
    expect((await send(Buffer.alloc(1234, 2), 'image/jpeg')).status).toBe(412);
    expect((await ofDevice(device.deviceKey)).length).toBe(3);

    // Sent again (the ack was lost): the capture arrived, so the ack says so and offers no upload; nothing is stored twice.
    device.send([fine]);
    await until(
      () => device.acks.length,
      (n) => n === 2,
    );
    expect(device.acks[1]!.stored[0]).toEqual({ recordId: fine.recordId, captureStored: true });
    expect((await ofDevice(device.deviceKey)).length).toBe(3);
  });

  it("refuses a device on another device's records topic", async () => {
    const a = await rawDevice();
    const b = await rawDevice();
    const closed = new Promise<void>((resolve) => a.client.once('close', () => resolve()));
    a.client.publish(deviceTopics(b.thing).records, JSON.stringify({ records: [newPassRecord()] }), { qos: 1 });
    await closed;
    await hostIdle();
    expect(await ofDevice(b.deviceKey)).toEqual([]);
    expect(await ofDevice(a.deviceKey)).toEqual([]);
  });
});

describe('the terminal', () => {
  it('sends, is acknowledged and uploads its captures; the list links them', async () => {
    const device = agent();
    await device.start();
    const photo = captureJpeg();
    const records = [newPassRecord({ personKey: employeeKey, name: 'Alice Records', temperature: 37.9 }), newPassRecord()];
    device.records.add(records[0]!, photo);
    device.records.add(records[1]!);
    await until(
      () => device.records.pending,
      (n) => n === 0,
    );
    await device.records.settled();
    expect(device.records.uploadCounts).toEqual({ ok: 1, failed: 0 });
    const items = await ofDevice(device.deviceKey!);
    const withPhoto = items.find((r) => r.recordKey.endsWith(records[0]!.recordId))!;
    expect(withPhoto).toMatchObject({ fever: true, temperature: 37.9 });
    expect(withPhoto.capture).toBeTruthy();
    const got = await fetch(withPhoto.capture!);
    expect(Buffer.from(await got.arrayBuffer()).equals(photo)).toBe(true);
    expect(items.find((r) => r.recordKey.endsWith(records[1]!.recordId))!.capture).toBeNull();
  });

  it('keeps unacknowledged records in its flash across a restart and sends them when back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passcloud-outbox-'));
    dirs.push(dir);
    const credentialsFile = join(dir, 'credentials.json');
    const info = simulatedInfo(unique('F').toUpperCase(), 1);
    const first = agent({ credentialsFile, info });
    await first.bind();
    // Not connected: the records wait.
    const records = Array.from({ length: 120 }, () => newPassRecord());
    for (const r of records) first.records.add(r, r === records[0] ? captureJpeg(64, 48) : undefined);
    expect(first.records.pending).toBe(120);
    expect(existsSync(`${credentialsFile}.records.json`)).toBe(true);
    expect((JSON.parse(readFileSync(`${credentialsFile}.records.json`, 'utf8')) as unknown[]).length).toBe(120);
    await first.stop();

    const second = agent({ credentialsFile, info });
    expect(second.records.pending).toBe(120);
    await second.start();
    await until(
      () => second.records.pending,
      (n) => n === 0,
    );
    await second.records.settled();
    expect(second.records.uploadCounts.ok).toBe(1);
    expect((await ofDevice(second.deviceKey!)).length).toBe(120);
    expect((JSON.parse(readFileSync(`${credentialsFile}.records.json`, 'utf8')) as unknown[]).length).toBe(0);
  });
});

describe('lists', () => {
  let device: RawDevice;
  const old = newPassRecord({ verifyTime: Date.now() - 3 * 86_400_000, name: 'Old Timer' });

  beforeAll(async () => {
    device = await rawDevice();
    device.send([
      old,
      newPassRecord({ name: 'Keyword Kate', personKey: employeeKey }),
      newPassRecord({ passState: 'refused', temperature: 39 }),
      ...Array.from({ length: 12 }, (_, i) => newPassRecord({ verifyTime: Date.now() - i * 10 })),
    ]);
    await until(
      () => storedIds(device.acks).size,
      (n) => n === 15,
    );
  });

  it("lists today's records by default, and a range when asked", async () => {
    const todays = await ofDevice(device.deviceKey);
    expect(todays.length).toBe(14);
    expect(todays.map((r) => r.recordKey)).not.toContain(`${device.deviceKey}.${old.recordId}`);
    const ranged = await all(`deviceKey=${device.deviceKey}&from=${addDays(today(), -5)}&to=${today()}`);
    expect(ranged.length).toBe(15);
    expect(ranged.at(-1)!.recordKey).toBe(`${device.deviceKey}.${old.recordId}`);
    const that = await all(`from=${addDays(today(), -3)}&to=${addDays(today(), -3)}`);
    expect(that.map((r) => r.recordKey)).toContain(`${device.deviceKey}.${old.recordId}`);
  });

  it('filters by type, temperature, state and keyword, and pages without gaps or repeats', async () => {
    const refused = await ofDevice(device.deviceKey, '&passState=refused');
    expect(refused.length).toBe(1);
    expect(refused[0]).toMatchObject({ passState: 'refused', temperature: 39, fever: true });
    expect((await ofDevice(device.deviceKey, '&temperature=fever&passState=refused')).length).toBe(1);
    expect((await ofDevice(device.deviceKey, '&type=employee')).map((r) => r.name)).toEqual(['Keyword Kate']);
    expect((await ofDevice(device.deviceKey, '&type=stranger')).length).toBe(13);
    expect((await all('keyword=kEYword')).map((r) => r.name)).toEqual(['Keyword Kate']);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof list>> = await list(
        `deviceKey=${device.deviceKey}&pageSize=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.body.data.items.length).toBeLessThanOrEqual(20);
      seen.push(...page.body.data.items.map((r) => r.recordKey));
      cursor = page.body.data.nextCursor;
    } while (cursor);
    expect(seen.length).toBe(14);
    expect(new Set(seen).size).toBe(14);
  });

  it('names the field of a bad filter', async () => {
    const reversed = await list(`from=${today()}&to=${addDays(today(), -1)}`);
    expect(reversed.body.code).toBe(422);
    expect(reversed.body.data.issues[0]!.path).toBe('to');
    const long = await list(`from=${addDays(today(), -100)}&to=${today()}`);
    expect(long.body.code).toBe(422);
    expect(long.body.data.issues[0]!.path).toBe('to');
    const badDay = await list('from=2024-13-01');
    expect(badDay.body.code).toBe(422);
    expect(badDay.body.data.issues[0]!.path).toBe('from');
    const badType = await list('type=robot');
    expect(badType.body.data.issues[0]!.path).toBe('type');
    expect((await list('cursor=bm9wZQ')).body.data.issues[0]!.path).toBe('cursor');
  });

  it("keeps one company's records from another", async () => {
    const theirs = await list(`deviceKey=${device.deviceKey}&from=${addDays(today(), -5)}`, otherToken);
    expect(theirs.body.code).toBe(200);
    expect(theirs.body.data.items).toEqual([]);
    const everything = await list('pageSize=100', otherToken);
    expect(JSON.stringify(everything.body)).not.toContain(tenantId);
  });

  it('exports the filtered range in the caller’s language, with progress', async () => {
    const started = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', {
      token,
      locale: 'zh_CN',
      body: { deviceKey: device.deviceKey, from: addDays(today(), -5) },
    });
    expect(started.body.code).toBe(202);
    const { jobKey } = started.body.data;
    const job = await until(
      async () => (await call<RecordExportJob>('GET', `/v1/passRecords/exports/${jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
    );
    expect(job).toMatchObject({ state: 'done', done: 15, truncated: false });
    const rows = await readFirstSheet(Buffer.from(await (await fetch(job.url!)).arrayBuffer()));
    expect(rows[0]).toContain('验证时间');
    expect(rows.length).toBe(16);
    expect(rows.flat()).toContain('陌生人');
    // A counted range knows its total.
    const counted = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: { type: 'stranger' } });
    const countedJob = await until(
      async () => (await call<RecordExportJob>('GET', `/v1/passRecords/exports/${counted.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done',
    );
    expect(countedJob.total).toBe(countedJob.done);
    // Another company's job, and a pass export asked for as a blacklist one, are unknown.
    expect((await call('GET', `/v1/passRecords/exports/${jobKey}`, { token: otherToken })).status).toBe(404);
    expect((await call('GET', `/v1/blacklistRecords/exports/${jobKey}`, { token })).status).toBe(404);
    expect((await call<Issues>('POST', '/v1/passRecords/exports', { token, body: { from: addDays(today(), -200) } })).body.code).toBe(422);
  });
});
