import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { AuthorityItem } from '@passcloud/functions/contract/authorities';
import { deviceAuthorization, deviceTopics, type FaceChangesPage, type RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import type { PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { findAuthority } from '@passcloud/functions/data/authorities';
import { listAuthorities } from '@passcloud/functions/data/authorityLists';
import { createGrantJob } from '@passcloud/functions/data/grantJobs';
import { jobLimit, releaseJobSlot, takeJobSlot } from '@passcloud/functions/data/jobSlots';
import { createExportJob } from '@passcloud/functions/data/exportJobs';
import { handler as jobFailures } from '@passcloud/functions/jobs/jobFailures';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { dynamo } from '@passcloud/functions/lib/aws';
import { addDays, dayOf } from '@passcloud/functions/domain/time';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { sleep, until } from '../support/wait.ts';

/**
 * Passage as a guard and an attacker try it: edited validities keep their bounds, grants that race
 * a person's deletion or resignation leave nothing live, limits on work a company can start, and
 * topic rules that file a message under the topic it came on whatever its payload says.
 */

type Issues = { issues: { path: string; message: string }[] };

let token: string;
let tenantId: string;
let userCode: string;
let staff: string;
let guests: string;
const agents: DeviceAgent[] = [];
const clients: MqttClient[] = [];

function agent(code = userCode): DeviceAgent {
  const device = new DeviceAgent({ apiUrl: baseUrl(), userCode: code, info: simulatedInfo(unique('PG').toUpperCase(), 1), heartbeatMs: 60_000 });
  agents.push(device);
  return device;
}

async function photo(): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(800, 600))]), 'face.png');
  const upload = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
  expect(upload.body.code).toBe(201);
  return upload.body.data.fileKey;
}

async function employee(name: string, extra: Record<string, unknown> = {}): Promise<{ employeeKey: string; version: number }> {
  const answer = await call<{ employeeKey: string; version: number }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('G'), name, role: 'Staff', gender: 'female', groupKey: staff, ...extra },
  });
  expect(answer.body.code).toBe(201);
  return answer.body.data;
}

const grant = (body: Record<string, unknown>) =>
  call<{ people: number; devices: number; authorities: number; jobKey?: string } & Issues>('POST', '/v1/authorities', {
    token,
    body: { setType: 0, validity: { permanent: true }, ...body },
  });

const byPerson = async (personKey: string) =>
  (await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?setType=0&personKey=${personKey}`, { token })).body.data.items;

async function faceChanges(device: DeviceAgent): Promise<FaceChangesPage> {
  const res = await fetch(`${baseUrl()}/v1/deviceSync/faces?cursor=0`, {
    headers: { authorization: deviceAuthorization(device.binding!.thingName, device.binding!.mqtt.password) },
  });
  return ((await res.json()) as { data: FaceChangesPage }).data;
}

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 30);
  staff = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Guard staff '), type: 'employee' } })).body.data.groupKey;
  guests = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Guard guests '), type: 'visitor' } })).body.data.groupKey;
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync()));
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('an edited validity', () => {
  it('keeps the new bounds, hands them to the terminal, and the terminal drops the face once they end', async () => {
    const device = agent();
    await device.start();
    const person = await employee('Week Visitor', { avatar: await photo() });
    expect((await grant({ personKeys: [person.employeeKey], deviceKeys: [device.deviceKey] })).body.code).toBe(201);
    const [granted] = await byPerson(person.employeeKey);
    expect(granted).toMatchObject({ start: null, end: null });

    const start = dayOf(new Date(), 'UTC');
    const end = addDays(start, 6);
    const edited = await call<AuthorityItem>('PATCH', `/v1/authorities/${granted!.authorityKey}`, {
      token,
      body: { validity: { start, end }, version: granted!.version },
    });
    expect(edited.body.code).toBe(201);
    expect(edited.body.data).toMatchObject({ start, end, validityState: 'active' });
    const [read] = await byPerson(person.employeeKey);
    expect(read).toMatchObject({ start, end, version: granted!.version + 1 });

    // The terminal's next pull carries the range, as moments in the company's time zone (UTC here).
    const change = (await faceChanges(device)).changes.find((c) => c.personKey === person.employeeKey);
    expect(change).toMatchObject({ validFrom: `${start}T00:00:00.000Z`, validTo: `${end}T23:59:59.999Z` });
    await until(
      () => device.faces.all().find((f) => f.personKey === person.employeeKey)?.validTo,
      (to) => to === `${end}T23:59:59.999Z`,
    );

    // A second edit to another range replaces the first, bound by bound.
    const later = addDays(start, 2);
    const again = await call<AuthorityItem>('PATCH', `/v1/authorities/${granted!.authorityKey}`, {
      token,
      body: { validity: { start: later, end }, version: read!.version },
    });
    expect(again.body.data).toMatchObject({ start: later, end });

    // Within the range the face stays; once it has ended, the terminal drops it.
    await until(
      () => device.faces.all().find((f) => f.personKey === person.employeeKey)?.validFrom,
      (from) => from === `${later}T00:00:00.000Z`,
    );
    expect(device.faces.prune(new Date(`${end}T12:00:00.000Z`))).toBe(0);
    expect(device.faces.prune(new Date(Date.parse(`${end}T23:59:59.999Z`) + 1000))).toBe(1);
    expect(device.faces.all().some((f) => f.personKey === person.employeeKey)).toBe(false);
  });
});

describe('a grant racing the person’s deletion or resignation', () => {
  let deviceKey: string;
  beforeAll(async () => {
    const device = agent();
    await device.bind();
    deviceKey = device.deviceKey!;
  });

  it('leaves no live authorization of a visitor deleted while they were granted', async () => {
    for (let round = 0; round < 12; round++) {
      const made = await call<{ visitorKey: string; version: number }>('POST', '/v1/visitors', {
        token,
        body: { personId: unique('RV'), name: `Racing Visitor ${round}`, role: 'Guest', gender: 'male', groupKey: guests },
      });
      const key = made.body.data.visitorKey;
      const [granted, removed] = await Promise.all([
        grant({ personKeys: [key], deviceKeys: [deviceKey] }),
        sleep(round % 4 === 0 ? 0 : round * 3).then(() => call('DELETE', `/v1/visitors/${key}?version=${made.body.data.version}`, { token })),
      ]);
      expect(removed.body.code).toBe(204);
      expect([201, 404]).toContain(granted.body.code);
      // Nothing live: no authorization in the lists, and the device's change for them is a removal.
      expect(await byPerson(key), `round ${round}`).toEqual([]);
      const stored = await findAuthority(tenantId, 0, key, deviceKey);
      if (stored) expect(stored, `round ${round}`).toMatchObject({ revoked: true, action: 'remove' });
    }
  });

  it('leaves no face on the terminals for an employee who resigned while they were granted', async () => {
    for (let round = 0; round < 8; round++) {
      const person = await employee(`Racing Employee ${round}`);
      const [granted, resigned] = await Promise.all([
        grant({ personKeys: [person.employeeKey], deviceKeys: [deviceKey] }),
        sleep(round * 4).then(() => call('POST', `/v1/employees/${person.employeeKey}/resign`, { token, body: { version: person.version } })),
      ]);
      expect(resigned.body.code).toBe(201);
      expect(granted.body.code).toBe(201);
      const stored = await findAuthority(tenantId, 0, person.employeeKey, deviceKey);
      expect(stored, `round ${round}`).toMatchObject({ personActive: false, action: 'remove' });
    }
  });
});

describe('limits on work a company can start', () => {
  const slots = async (kind: string) => [
    ...(((await dynamo().send(new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: `jobSlots#${kind}` }, ConsistentRead: true }))).Item
      ?.jobs as Set<string>) ?? []),
  ];

  it('takes at most the limit of job slots, however many start at once, and takes back one left by a dead worker', async () => {
    const tenant = `limit${Date.now().toString(36)}`;
    const limit = jobLimit('grant');
    const started = new Date().toISOString();
    for (const kind of ['grant', 'export', 'recompute'] as const) {
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => takeJobSlot(tenant, kind, `job${i}`, started)));
      expect(
        outcomes.filter((o) => o.status === 'fulfilled'),
        kind,
      ).toHaveLength(jobLimit(kind));
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused.every((o) => (o.reason as { code?: number }).code === 429)).toBe(true);
    }
    expect(jobLimit('recompute')).toBe(1);

    // A slot held past any run's length (its worker died) is taken back by the next start.
    const other = `stale${Date.now().toString(36)}`;
    const longAgo = new Date(Date.now() - 3600_000).toISOString();
    for (let i = 0; i < limit; i++) await takeJobSlot(other, 'export', `old${i}`, i === 0 ? longAgo : started);
    const exportLimit = jobLimit('export');
    for (let i = limit; i < exportLimit; i++) await takeJobSlot(other, 'export', `old${i}`, started);
    await takeJobSlot(other, 'export', 'fresh', started);
    await expect(takeJobSlot(other, 'export', 'one-more', started)).rejects.toMatchObject({ code: 429 });
  });

  it('answers 429 naming the running grant or export, and creates nothing', async () => {
    const device = agent();
    await device.bind();
    const group = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Limit group '), type: 'employee' } })).body.data
      .groupKey;
    for (let i = 0; i < 30; i++) await employee(`Limited ${i}`, { groupKey: group });
    const second = agent();
    await second.bind();
    const held: { jobKey: string; at: string }[] = [];
    const oldest = new Date(Date.now() - 60_000).toISOString();
    for (let i = 0; i < jobLimit('grant'); i++) {
      const slot = { jobKey: `held${i}${Date.now().toString(36)}`, at: i === 0 ? oldest : new Date().toISOString() };
      await takeJobSlot(tenantId, 'grant', slot.jobKey, slot.at);
      held.push(slot);
    }
    const body = { personGroupKeys: [group], deviceKeys: [device.deviceKey, second.deviceKey] };
    for (const locale of ['en_US', 'ja_JP']) {
      const refused = await call<{ jobKey: string; startTime: string; limit: number }>('POST', '/v1/authorities', {
        token,
        locale,
        body: { setType: 0, validity: { permanent: true }, ...body },
      });
      expect(refused.status).toBe(429);
      expect(refused.body.data).toMatchObject({ jobKey: held[0]!.jobKey, startTime: oldest, limit: jobLimit('grant') });
      expect(refused.body.message).toContain(held[0]!.jobKey);
    }
    expect((await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?setType=0&deviceKey=${device.deviceKey}`, { token })).body.data.items).toEqual([]);

    // Once a running grant ends, the next starts; and its own slot is given back when it is done.
    await releaseJobSlot(tenantId, 'grant', held[0]!.jobKey, held[0]!.at);
    const started = await grant(body);
    expect(started.body.code).toBe(202);
    await until(
      async () => (await call<{ state: string }>('GET', `/v1/authorities/jobs/${started.body.data.jobKey}`, { token })).body.data.state,
      (state) => state === 'done',
      30_000,
    );
    // The worker gives its slot back just after it marks the job done.
    expect(
      (
        await until(
          () => slots('grant'),
          (held) => !held.some((s) => s.endsWith(started.body.data.jobKey!)),
          10_000,
        )
      ).some((s) => s.endsWith(started.body.data.jobKey!)),
    ).toBe(false);
    for (const slot of held.slice(1)) await releaseJobSlot(tenantId, 'grant', slot.jobKey, slot.at);

    // Exports the same way.
    const exports: { jobKey: string; at: string }[] = [];
    for (let i = 0; i < jobLimit('export'); i++) {
      const slot = { jobKey: `export${i}${Date.now().toString(36)}`, at: new Date(Date.now() - (10 - i) * 1000).toISOString() };
      await takeJobSlot(tenantId, 'export', slot.jobKey, slot.at);
      exports.push(slot);
    }
    const refusedExport = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: {} });
    expect(refusedExport.status).toBe(429);
    expect(refusedExport.body.data.jobKey).toBe(exports[0]!.jobKey);
    for (const slot of exports) await releaseJobSlot(tenantId, 'export', slot.jobKey, slot.at);
    const exported = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: {} });
    expect(exported.body.code).toBe(202);
    await until(
      async () => (await call<{ state: string }>('GET', `/v1/passRecords/exports/${exported.body.data.jobKey}`, { token })).body.data.state,
      (state) => state === 'done',
      30_000,
    );
    expect(
      await until(
        () => slots('export'),
        (held) => held.length === 0,
        10_000,
      ),
    ).toEqual([]);
  });

  it('refuses a grant whose groups expand past the most pairs one grant may name, naming the limit, and writes nothing', async () => {
    // The test host allows 150 pairs a grant (GRANT_MAX_PAIRS).
    const group = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Large group '), type: 'employee' } })).body.data
      .groupKey;
    for (let i = 0; i < 30; i++) await employee(`Many ${i}`, { groupKey: group });
    const devices: string[] = [];
    for (let i = 0; i < 6; i++) {
      const device = agent();
      await device.bind();
      devices.push(device.deviceKey!);
    }
    const refused = await call<Issues>('POST', '/v1/authorities', {
      token,
      locale: 'zh_CN',
      body: { setType: 0, validity: { permanent: true }, personGroupKeys: [group], deviceKeys: devices },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues).toHaveLength(1);
    expect(refused.body.data.issues[0]).toMatchObject({ path: 'personKeys' });
    expect(refused.body.data.issues[0]!.message).toContain('180');
    expect(refused.body.data.issues[0]!.message).toContain('150');
    for (const deviceKey of devices) {
      expect((await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?setType=0&deviceKey=${deviceKey}`, { token })).body.data.items).toEqual([]);
    }
    // One device fewer is within the limit.
    const within = await grant({ personGroupKeys: [group], deviceKeys: devices.slice(0, 5) });
    expect(within.body.code).toBe(202);
  });

  it('reads a keyword list within a budget and answers a cursor to go on', async () => {
    const device = agent();
    await device.bind();
    const people: string[] = [];
    for (let i = 0; i < 24; i++) people.push((await employee(i === 3 ? 'Needle Rare' : `Hay ${i}`)).employeeKey);
    expect((await grant({ personKeys: people, deviceKeys: [device.deviceKey] })).body.code).toBe(201);
    const found: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listAuthorities(tenantId, { setType: 0, deviceKey: device.deviceKey!, keyword: 'needle' }, 20, cursor, 5);
      expect(page.items.length).toBeLessThanOrEqual(5);
      found.push(...page.items.map((i) => i.personName));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    expect(found).toEqual(['Needle Rare']);
    expect(pages).toBeGreaterThan(1);
    // Through the API, within the request's own budget: the item and no cursor.
    const listed = await call<{ items: AuthorityItem[]; nextCursor: string | null }>(
      'GET',
      `/v1/authorities?setType=0&deviceKey=${device.deviceKey}&keyword=needle`,
      { token },
    );
    expect(listed.body.data.items.map((i) => i.name)).toEqual(['Needle Rare']);
  });
});

describe('topic rules', () => {
  async function rawDevice(code: string) {
    const device = agent(code);
    await device.bind();
    const m = device.binding!.mqtt;
    const client = await mqtt.connectAsync(m.url, {
      clientId: m.clientId,
      username: m.username,
      password: m.password,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    clients.push(client);
    const acks: RecordsAckMessage[] = [];
    await client.subscribeAsync(deviceTopics(device.binding!.thingName).recordsAck, { qos: 1 });
    client.on('message', (_topic, payload) => acks.push(JSON.parse(payload.toString()) as RecordsAckMessage));
    return { device, client, acks, thing: device.binding!.thingName };
  }

  it('refuse a message whose payload names a topic, and never file it under another device', async () => {
    const other = await newCompany();
    const otherToken = (await login(other.username, other.password)).token;
    await grantSeats(otherToken, 5);
    const victim = await rawDevice(other.userCode);
    const spoofer = await rawDevice(userCode);

    const record = newPassRecord({ name: 'Spoofed Topic' });
    spoofer.client.publish(deviceTopics(spoofer.thing).records, JSON.stringify({ records: [record], topic: deviceTopics(victim.thing).records }), { qos: 1 });
    // Every message is strict: the unknown field refuses it, answered to the device that sent it.
    const refused = await until(
      () => spoofer.acks.flatMap((a) => a.refused),
      (list) => list.some((r) => r.recordId === record.recordId),
    );
    expect(refused.find((r) => r.recordId === record.recordId)!.reason).toBe('message: unknown field topic');
    const theirs = await call<PassRecordPage>('GET', '/v1/passRecords', { token: otherToken });
    expect(theirs.body.data.items).toEqual([]);
    expect(victim.acks).toEqual([]);

    // A heartbeat naming another topic is refused too, and changes neither device.
    spoofer.client.publish(
      deviceTopics(spoofer.thing).heartbeat,
      JSON.stringify({
        time: Date.now(),
        info: { ...spoofer.device.options.info, serial: undefined, appVersion: '9.9.9' },
        topic: deviceTopics(victim.thing).heartbeat,
      }),
      { qos: 1 },
    );
    await until(
      async () => (await call<{ items: { code: string }[] }>('GET', `/v1/devices/${spoofer.device.deviceKey}/logs?pageSize=50`, { token })).body.data.items,
      (items) => items.some((l) => l.code === 'messageRefused'),
    );
    expect((await call<{ appVersion: string }>('GET', `/v1/devices/${spoofer.device.deviceKey}`, { token })).body.data.appVersion).not.toBe('9.9.9');
    expect((await call<{ appVersion: string }>('GET', `/v1/devices/${victim.device.deviceKey}`, { token: otherToken })).body.data.appVersion).not.toBe('9.9.9');
  });
});

describe('background jobs', () => {
  const grantBody = (deviceKey: string) => ({
    setType: 0 as const,
    personKeys: [],
    personGroupKeys: [staff],
    departmentKeys: [],
    deviceKeys: [deviceKey],
    deviceGroupKeys: [],
    validity: { permanent: true as const },
  });

  it('whose worker never started or stopped say failed and why, in the caller’s language, and give their slot back', async () => {
    const device = agent();
    await device.bind();
    const longAgo = new Date(Date.now() - 20 * 60_000).toISOString();
    const grantKey = unique('lost');
    await takeJobSlot(tenantId, 'grant', grantKey, longAgo);
    await createGrantJob({ tenantId, jobKey: grantKey, body: grantBody(device.deviceKey!), bounds: {}, total: 10 }, longAgo);
    const job = await call<{ state: string; error: string | null }>('GET', `/v1/authorities/jobs/${grantKey}`, { token, locale: 'ja_JP' });
    expect(job.body.data.state).toBe('failed');
    expect(job.body.data.error).toMatch(/[ぁ-んァ-ン一-龯]/);
    const english = await call<{ state: string; error: string | null }>('GET', `/v1/authorities/jobs/${grantKey}`, { token });
    expect(english.body.data.error).toContain('never started');

    const exportKey = unique('lostexport');
    await takeJobSlot(tenantId, 'export', exportKey, longAgo);
    await createExportJob({ tenantId, jobKey: exportKey, list: 'pass', query: {}, locale: 'en_US' }, new Date(longAgo));
    const exported = await call<{ state: string; error: string | null }>('GET', `/v1/passRecords/exports/${exportKey}`, { token });
    expect(exported.body.data).toMatchObject({ state: 'failed' });
    expect(exported.body.data.error).toContain('never started');
    const slots = async (kind: string) => [
      ...(((await dynamo().send(new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: `jobSlots#${kind}` }, ConsistentRead: true })))
        .Item?.jobs as Set<string>) ?? []),
    ];
    expect((await slots('grant')).some((s) => s.endsWith(grantKey))).toBe(false);
    expect((await slots('export')).some((s) => s.endsWith(exportKey))).toBe(false);
  });

  it('are marked failed at once by the workers’ failure destination', async () => {
    const device = agent();
    await device.bind();
    const now = new Date().toISOString();
    const jobKey = unique('dest');
    await createGrantJob({ tenantId, jobKey, body: grantBody(device.deviceKey!), bounds: {}, total: 10 }, now);
    await jobFailures({
      requestContext: { condition: 'RetriesExhausted' },
      requestPayload: { tenantId, jobKey },
      responseContext: { functionError: 'Unhandled' },
    });
    const job = await call<{ state: string; error: string | null }>('GET', `/v1/authorities/jobs/${jobKey}`, { token });
    expect(job.body.data.state).toBe('failed');
    const exportKey = unique('destexport');
    await createExportJob({ tenantId, jobKey: exportKey, list: 'pass', query: {}, locale: 'zh_CN' });
    await jobFailures({ requestContext: { condition: 'EventAgeExceeded' }, requestPayload: { tenantId, jobKey: exportKey } });
    const exported = await call<{ state: string; error: string | null }>('GET', `/v1/passRecords/exports/${exportKey}`, { token });
    expect(exported.body.data.state).toBe('failed');
    expect(exported.body.data.error).toMatch(/[一-龯]/);
  });
});
