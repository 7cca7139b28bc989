import '../support/localEnv.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { captureJpeg, newPassRecord } from '@passcloud/device-shadow/records';
import type { AuthorityItem } from '@passcloud/functions/contract/authorities';
import type { ErasureReceipt } from '@passcloud/functions/contract/erasures';
import type { PassRecordItem } from '@passcloud/functions/contract/passRecords';
import type { WebhookCreated, WebhookDeliveryPage } from '@passcloud/functions/contract/webhooks';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { createAccount } from '@passcloud/functions/data/identity';
import { dynamo } from '@passcloud/functions/lib/aws';
import { listObjects, type BucketName } from '@passcloud/functions/lib/storage';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.ts';
import { until } from '../support/wait.ts';
import { startTestSmtp } from '../support/smtp.ts';
import { storeRecords } from '@passcloud/functions/data/passRecords';
import type { RecordsAckMessage } from '@passcloud/functions/contract/protocol';

/**
 * The biometric data lifecycle through the HTTP API and MQTT: deleting a person removes their
 * photo and their face from the terminals; erasing one removes them, every photo, the captures of
 * their passes (the records stay, without the person), their answers and attendance, the webhook
 * deliveries of events that named them, and answers a receipt that a second request answers again.
 */

let token: string;
let tenantId: string;
let userCode: string;
let otherToken: string;
let employeeGroup: string;
let visitorGroup: string;
let device: DeviceAgent;

async function photo(): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(800, 600))]), 'face.png');
  const upload = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
  expect(upload.body.code).toBe(201);
  return upload.body.data.fileKey;
}

interface Person {
  key: string;
  version: number;
  avatar: string;
}
async function person(kind: 'employee' | 'visitor', name: string): Promise<Person> {
  const avatar = await photo();
  const groupKey = kind === 'employee' ? employeeGroup : visitorGroup;
  const answer = await call<Record<string, unknown>>('POST', `/v1/${kind}s`, {
    token,
    body: { personId: unique('E'), name, role: 'Staff', gender: 'female', groupKey, avatar },
  });
  expect(answer.body.code).toBe(201);
  return { key: String(answer.body.data[`${kind}Key`]), version: Number(answer.body.data.version), avatar };
}

const held = () => device.faces.all().map((f) => `${f.list}:${f.personKey}`);

async function grant(setType: number, personKey: string): Promise<void> {
  const answer = await call('POST', '/v1/authorities', {
    token,
    body: { setType, personKeys: [personKey], deviceKeys: [device.deviceKey], validity: { permanent: true } },
  });
  expect(answer.body.code).toBe(201);
  await until(
    () => call<{ items: AuthorityItem[] }>('GET', `/v1/authorities/sync?personKey=${personKey}`, { token }),
    (page) => page.body.data.items.length > 0 && page.body.data.items.every((i) => i.syncState === 'synced'),
  );
}

/** Every object of the tenant in a bucket that holds something, by key without the tenant (not the placeholders of closed capture keys). */
async function objects(bucket: BucketName): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of listObjects(bucket, `${tenantId}/`)) keys.push(...page.filter((o) => o.size > 0).map((o) => o.key.slice(tenantId.length + 1)));
  return keys.sort();
}

async function records(): Promise<PassRecordItem[]> {
  const answer = await call<{ items: PassRecordItem[] }>('GET', `/v1/passRecords?deviceKey=${device.deviceKey}&pageSize=100`, { token });
  expect(answer.body.code).toBe(200);
  return answer.body.data.items;
}

/**
 * Passes of `personKey` on the device, the first `withCapture` of them with a capture, and the next
 * `lostCaptures` announcing one that never arrives (the terminal lost it, or it expired since);
 * answers their record ids once stored.
 */
async function passes(personKey: string, name: string, count: number, withCapture: number, lostCaptures = 0): Promise<string[]> {
  const sent = Array.from({ length: count }, (_, i) => newPassRecord({ personKey, name, temperature: 36.5, verifyTime: Date.now() - i * 1000 }));
  sent.forEach((record, i) => {
    if (i < withCapture) device.records.add(record, captureJpeg(64, 48));
    else device.records.add(i < withCapture + lostCaptures ? { ...record, capture: { contentType: 'image/jpeg', size: 2048 } } : record);
  });
  await until(
    () => device.records.pending,
    (n) => n === 0,
    20_000,
  );
  await device.records.settled();
  return sent.map((r) => r.recordId);
}

/** A questionnaire answer and an attendance day of the person, as the terminals and the attendance job store them. */
async function answerAndDay(personKey: string): Promise<void> {
  const now = new Date().toISOString();
  const table = tableName(EVENTS_TABLE);
  await dynamo().send(
    new PutCommand({
      TableName: table,
      Item: { pk: tenantId, sk: `qresult#q1#${now}#${unique('r')}`, kind: 'questionnaireResult', personKey, answeredAt: now, ttl: 4e9 },
    }),
  );
  await dynamo().send(new PutCommand({ TableName: table, Item: { pk: tenantId, sk: `attDay#2099-01-01#${personKey}`, personKey, date: '2099-01-01' } }));
}

const erase = (kind: 'employee' | 'visitor', key: string, as = token) => call<ErasureReceipt>('POST', `/v1/${kind}s/${key}/erase`, { token: as });

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 20);
  const other = await newCompany();
  otherToken = (await login(other.username, other.password)).token;
  employeeGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Staff '), type: 'employee' } })).body.data.groupKey;
  visitorGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Guests '), type: 'visitor' } })).body.data.groupKey;
  device = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('ER').toUpperCase(), 1), heartbeatMs: 60_000 });
  await device.start();
});

afterAll(async () => {
  await device?.stop();
});

describe('deleting a person', () => {
  it('removes the photo object and tells the terminal to delete the face; the pass records and their captures stay', async () => {
    const gone = await person('employee', 'Dora Delete');
    await grant(0, gone.key);
    expect(held()).toContain(`pass:${gone.key}`);
    const [recordId] = await passes(gone.key, 'Dora Delete', 1, 1);
    expect(await objects('photos')).toContain(gone.avatar);
    const capturesBefore = await objects('captures');

    const deleted = await call('DELETE', `/v1/employees/${gone.key}?version=${gone.version}`, { token });
    expect(deleted.body.code).toBe(204);
    expect(await objects('photos')).not.toContain(gone.avatar);
    // Over MQTT and the face changes: the terminal deletes the face and confirms it.
    await until(held, (faces) => !faces.includes(`pass:${gone.key}`));
    await until(
      () => call<{ items: AuthorityItem[] }>('GET', `/v1/authorities/sync?personKey=${gone.key}`, { token }),
      (page) => page.body.data.items.length === 0,
    );
    // The company's access history keeps the pass with its capture until the retention periods end it.
    expect(await objects('captures')).toEqual(capturesBefore);
    const kept = (await records()).find((r) => r.recordKey.endsWith(recordId!));
    expect(kept).toMatchObject({ name: 'Dora Delete' });
    expect(kept?.capture).toBeTruthy();
  });
});

describe('erasing a person', () => {
  let ada: Person;
  let vera: Person;
  let adaRecords: string[];
  let veraRecords: string[];
  let receipt: ErasureReceipt;
  let receiver: WebhookReceiver;
  let webhookKey: string;
  /** The record keys of the events in the webhook's delivery log. */
  const logged = async (): Promise<string[]> => {
    const page = await call<WebhookDeliveryPage>('GET', `/v1/webhooks/${webhookKey}/deliveries?pageSize=100`, { token });
    expect(page.body.code).toBe(200);
    const bodies = new Map(receiver.received.map((r) => [String(r.headers['passcloud-event-id']), JSON.parse(r.body) as { data: { recordKey: string } }]));
    return page.body.data.items.map((d) => bodies.get(d.eventId)?.data.recordKey ?? d.eventId).sort();
  };

  afterAll(async () => {
    await receiver?.stop();
  });

  beforeAll(async () => {
    // Every pass is a webhook event too, delivered to a receiver on loopback (the test stack's local switch).
    receiver = await startWebhookReceiver();
    const made = await call<WebhookCreated>('POST', '/v1/webhooks', { token, confirm: true, body: { url: receiver.url('/erasure'), events: ['pass.record'] } });
    expect(made.body.code, made.body.message).toBe(201);
    webhookKey = made.body.data.webhook.webhookKey;
    ada = await person('employee', 'Ada Erase');
    vera = await person('visitor', 'Vera Erase');
    await grant(0, ada.key);
    await grant(1, vera.key);
    expect(held()).toEqual(expect.arrayContaining([`pass:${ada.key}`, `blacklist:${vera.key}`]));
    adaRecords = await passes(ada.key, 'Ada Erase', 3, 2);
    // Vera's second pass announced a capture that never arrived: erasing her finds no object there.
    veraRecords = await passes(vera.key, 'Vera Erase', 2, 1, 1);
    await answerAndDay(ada.key);
    await until(() => receiver.received.length, (n) => n === 5);
  });

  it('is refused to another company (404) and to an account without the code (401), changing nothing', async () => {
    expect((await erase('employee', ada.key, otherToken)).status).toBe(404);
    expect((await call('GET', `/v1/employees/${ada.key}/erasure`, { token: otherToken })).status).toBe(404);
    const username = unique('visitoronly');
    await createAccount(tenantId, { username, password: 'visitors-only-1', authCodes: ['pass:visitor'] });
    const limited = (await login(username, 'visitors-only-1')).token;
    expect((await erase('employee', ada.key, limited)).status).toBe(401);
    expect((await call('GET', `/v1/employees/${ada.key}`, { token })).body.code).toBe(200);
    expect(await objects('photos')).toContain(ada.avatar);
    expect((await objects('captures')).length).toBeGreaterThanOrEqual(3);
    expect(held()).toContain(`pass:${ada.key}`);
    expect((await call('GET', `/v1/employees/${ada.key}/erasure`, { token })).status).toBe(404);
    expect((await erase('employee', 'nosuchperson0001')).status).toBe(404);
    // Through the other kind's route, which a visitors-only account may call: an employee is not found there.
    expect((await erase('visitor', ada.key, limited)).status).toBe(404);
    expect((await call('GET', `/v1/visitors/${ada.key}/erasure`, { token })).status).toBe(404);
    expect((await call('GET', `/v1/employees/${ada.key}`, { token })).body.code).toBe(200);
    expect(held()).toContain(`pass:${ada.key}`);
    expect((await records()).filter((r) => r.name === 'Ada Erase')).toHaveLength(adaRecords.length);
    // Every delivery of the webhook's log is still there.
    expect(await logged()).toEqual([...adaRecords, ...veraRecords].map((id) => `${device.deviceKey}.${id}`).sort());
  });

  it('does not let the other kind’s route erase a deleted person’s passes', async () => {
    const gone = await person('employee', 'Gil Gone');
    const recordIds = await passes(gone.key, 'Gil Gone', 1, 1);
    expect((await call('DELETE', `/v1/employees/${gone.key}?version=${gone.version}`, { token })).body.code).toBe(204);
    expect((await erase('visitor', gone.key)).status).toBe(404);
    expect((await records()).find((r) => r.recordKey.endsWith(recordIds[0]!))).toMatchObject({ name: 'Gil Gone' });
    // Through its own route the deleted employee's passes are erased.
    expect((await erase('employee', gone.key)).body.code).toBe(200);
    expect((await records()).find((r) => r.recordKey.endsWith(recordIds[0]!))?.name ?? null).toBeNull();
  });

  it('removes the person, their photo, captures, face, answers and attendance, and answers a receipt with exact counts', async () => {
    const capturesBefore = await objects('captures');
    const answer = await erase('employee', ada.key);
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(200);
    receipt = answer.body.data;
    expect(receipt).toMatchObject({ personKind: 'employee', personKey: ada.key, state: 'done', phase: 'done' });
    expect(receipt.counts).toEqual({
      personRecords: 1,
      photoObjects: 1,
      captureObjects: 2,
      uploadsClosed: 0,
      passRecordsChanged: 3,
      punchesRemoved: 3,
      authorizationsRevoked: 1,
      blacklistEntries: 0,
      terminalsTold: 1,
      questionnaireAnswers: 1,
      attendanceItems: 1,
      webhookDeliveries: 3,
      mailRecords: 0,
      exportsWithdrawn: 0,
    });
    expect(JSON.stringify(receipt)).not.toContain('Ada');
    // The delivery log keeps each event's body for replays: Ada's are gone from it, Vera's stay.
    expect(await logged()).toEqual(veraRecords.map((id) => `${device.deviceKey}.${id}`).sort());

    expect((await call('GET', `/v1/employees/${ada.key}`, { token })).status).toBe(404);
    expect(await objects('photos')).not.toContain(ada.avatar);
    expect((await objects('captures')).length).toBe(capturesBefore.length - 2);
    await until(held, (faces) => !faces.includes(`pass:${ada.key}`));
    // The records stay as access history, without who it was.
    const all = await records();
    for (const id of adaRecords) {
      const record = all.find((r) => r.recordKey.endsWith(id))!;
      expect(record).toMatchObject({ name: null, capture: null, avatar: null, temperature: null });
    }
    expect(all.filter((r) => r.name === 'Ada Erase')).toEqual([]);
    // The visitor's passes are untouched.
    expect(all.filter((r) => veraRecords.some((id) => r.recordKey.endsWith(id))).map((r) => r.name)).toEqual(['Vera Erase', 'Vera Erase']);
  });

  it('answers the same receipt again, and keeps it to be read later', async () => {
    const again = await erase('employee', ada.key);
    expect(again.body.code).toBe(200);
    expect(again.body.data).toEqual(receipt);
    const kept = await call<ErasureReceipt>('GET', `/v1/employees/${ada.key}/erasure`, { token });
    expect(kept.body.data).toEqual(receipt);
    // Kept 400 days (the TTL is whole seconds).
    expect(Math.round((Date.parse(receipt.keptUntil) - Date.parse(receipt.startedAt)) / 1000)).toBe(400 * 86_400);
  });

  it('erases a visitor on a blacklist, and parallel requests erase once', async () => {
    const capturesBefore = await objects('captures');
    const answers = await Promise.all([erase('visitor', vera.key), erase('visitor', vera.key), erase('visitor', vera.key)]);
    for (const a of answers) expect([200, 202]).toContain(a.status);
    const done = await until(
      () => call<ErasureReceipt>('GET', `/v1/visitors/${vera.key}/erasure`, { token }),
      (a) => a.body.data?.state === 'done',
    );
    expect(done.body.data.counts).toMatchObject({
      personRecords: 1,
      photoObjects: 1,
      captureObjects: 1,
      // Vera's lost capture: its key is closed, so the link the terminal was given is refused from now on.
      uploadsClosed: 1,
      passRecordsChanged: 2,
      punchesRemoved: 2,
      authorizationsRevoked: 1,
      blacklistEntries: 1,
      terminalsTold: 1,
      webhookDeliveries: 2,
    });
    expect(await logged()).toEqual([]);
    expect((await objects('captures')).length).toBe(capturesBefore.length - 1);
    await until(held, (faces) => !faces.includes(`blacklist:${vera.key}`));
    expect((await call('GET', `/v1/visitors/${vera.key}`, { token })).status).toBe(404);
  });
});

describe('after an erasure', () => {
  it('keeps nothing of the person: not a late pass, a late upload, an alert mail, an export in flight, nor a pass stored as it ended', async () => {
    const smtp = await startTestSmtp();
    try {
      const mail = await call<{ version: number }>('GET', '/v1/settings/email', { token });
      const saved = await call('PUT', '/v1/settings/email', {
        token,
        confirm: true,
        body: { senderAddress: 'alerts@company.test', host: '127.0.0.1', port: smtp.port, tlsMode: 'none', recipients: ['guard@company.test'], feverAlert: true, version: mail.body.data.version },
      });
      expect(saved.body.code, saved.body.message).toBe(201);
      // The upload links the terminal is given, as it hears them.
      const links = new Map<string, { url: string; headers: Record<string, string> }>();
      const heard = device.records.onAck.bind(device.records);
      device.records.onAck = (message: RecordsAckMessage) => {
        for (const entry of message.stored) if (entry.upload) links.set(entry.recordId, entry.upload);
        heard(message);
      };
      const fay = await person('employee', 'Fay Late');
      // A fever pass (an alert mail names her and her temperature), and a pass whose capture is announced but not uploaded yet.
      const fever = newPassRecord({ personKey: fay.key, name: 'Fay Late', temperature: 38.6 });
      const shot = captureJpeg(64, 48);
      const pending = newPassRecord({ personKey: fay.key, name: 'Fay Late', capture: { contentType: 'image/jpeg', size: shot.length } });
      device.records.add(fever);
      device.records.add(pending);
      await until(() => links.has(pending.recordId), (has) => has);
      const alerts = async () => (await call<{ items: { title: string; content: string; name: string | null; group: string }[] }>('GET', '/v1/mailRecords?group=feverAlert', { token })).body.data.items;
      await until(alerts, (items) => items.some((m) => m.name === 'Fay Late'));
      // An export under way or made before the erasure holds her.
      const started = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: {} });
      expect(started.body.code).toBe(202);
      const job = () => call<{ state: string; url: string | null; error: string | null }>('GET', `/v1/passRecords/exports/${started.body.data.jobKey}`, { token });
      await until(job, (answer) => answer.body.data.state === 'done');

      const erased = await erase('employee', fay.key);
      expect(erased.body.data).toMatchObject({ state: 'done', counts: { passRecordsChanged: 2, uploadsClosed: 1, mailRecords: 1, exportsWithdrawn: 1 } });

      // The link given before the erasure is refused by storage, and nothing lands.
      const link = links.get(pending.recordId)!;
      const late = await fetch(link.url, { method: 'PUT', headers: link.headers, body: new Uint8Array(shot) });
      expect(late.status).toBe(412);
      // The alert mail's record keeps when and to whom, not her.
      const scrubbed = (await alerts()).filter((m) => m.content === 'Removed: the person this mail was about was erased');
      expect(scrubbed).toHaveLength(1);
      expect(JSON.stringify(await alerts())).not.toMatch(/Fay Late|38\.6/);
      // The export is withdrawn with its file.
      expect((await job()).body.data).toMatchObject({ state: 'failed', url: null, error: 'Withdrawn: a person it may hold was erased. Export again' });

      // A terminal that was offline sends a pass of hers: stored without her, with no upload offered.
      const backlog = newPassRecord({ personKey: fay.key, name: 'Fay Late', temperature: 38.6, capture: { contentType: 'image/jpeg', size: 100 } });
      device.records.add(backlog);
      await until(records, (all) => all.some((r) => r.recordKey.endsWith(backlog.recordId)));
      expect(links.has(backlog.recordId)).toBe(false);
      const kept = (await records()).find((r) => r.recordKey.endsWith(backlog.recordId))!;
      expect(kept).toMatchObject({ name: null, temperature: null, capture: null, avatar: null });
      expect(JSON.stringify(await records())).not.toContain('Fay Late');
      expect((await call<ErasureReceipt>('GET', `/v1/employees/${fay.key}/erasure`, { token })).body.data.state).toBe('done');

      // A pass stored with her as the erasure ended (its ingest read her before it began): asking again erases it too.
      const straggler = newPassRecord({ personKey: fay.key, name: 'Fay Late' });
      const at = new Date();
      await storeRecords([
        {
          record: {
            tenantId,
            deviceKey: device.deviceKey!,
            recordId: straggler.recordId,
            time: at.toISOString(),
            verifyTime: at.toISOString(),
            day: at.toISOString().slice(0, 10),
            personKey: fay.key,
            personKind: 'employee',
            name: 'Fay Late',
            nameLower: 'fay late',
            type: 'employee',
            measured: false,
            fever: false,
            passState: 'passed',
            source: 'face',
            ttl: Math.floor(at.getTime() / 1000) + 86_400,
          },
          hour: at.getUTCHours(),
        },
      ]);
      const again = await erase('employee', fay.key);
      expect(again.body.data).toMatchObject({ state: 'done', counts: { passRecordsChanged: 3 } });
      expect(JSON.stringify(await records())).not.toContain('Fay Late');
    } finally {
      await smtp.stop();
    }
  });
});
