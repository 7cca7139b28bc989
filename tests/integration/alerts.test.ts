import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { portrait } from '@passcloud/device-shadow/portraits';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { AuthorityItem } from '@passcloud/functions/contract/authorities';
import type { PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { countAttempt } from '@passcloud/functions/data/identity';
import { throttles } from '@passcloud/functions/data/throttles';
import { baseUrl, call, login, newCompany, unique, hostIdle } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { startTestSmtp } from '../support/smtp.ts';
import { until } from '../support/wait.ts';

/**
 * Fever and blacklist alerts: a record at or above the device's alarm threshold mails the
 * recipients of the email settings (recorded in the mail records) with the capture, at most once
 * per person per device per 10 minutes however many records arrive together; a person on the
 * device's blacklist is a blacklist record and an alert of its own.
 */

interface MailRecord {
  mailKey: string;
  group: string;
  to: string;
  title: string;
  content: string;
  status: string;
  name: string | null;
}

let token: string;
let device: DeviceAgent;
let groupKey: string;
const agents: DeviceAgent[] = [];


async function mails(group: string): Promise<MailRecord[]> {
  const answer = await call<{ items: MailRecord[] }>('GET', `/v1/mailRecords?group=${group}&pageSize=100`, { token });
  expect(answer.body.code).toBe(200);
  return answer.body.data.items;
}

async function photoKey(name: string): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(portrait(name))]), 'face.jpg');
  return (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
}

async function person(kind: 'employees' | 'visitors', name: string, group: string): Promise<string> {
  const answer = await call<{ employeeKey?: string; visitorKey?: string }>('POST', `/v1/${kind}`, {
    token,
    body: { personId: unique('A'), name, role: 'Staff', gender: 'male', groupKey: group, avatar: await photoKey(name) },
  });
  expect(answer.body.code).toBe(201);
  return (answer.body.data.employeeKey ?? answer.body.data.visitorKey)!;
}

async function settings(body: Record<string, unknown>): Promise<void> {
  const current = await call<{ version: number }>('GET', '/v1/settings/email', { token });
  const saved = await call('PUT', '/v1/settings/email', { confirm: true, token, body: { recipients: ['guard@example.test', 'nurse@example.test'], version: current.body.data.version, ...body } });
  expect(saved.body.code).toBe(201);
}

const records = async (path: string, query = '') => (await call<PassRecordPage>('GET', `${path}?pageSize=100${query}`, { token })).body.data.items;

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('AL').toUpperCase(), 1), heartbeatMs: 60_000 });
  agents.push(device);
  await device.start();
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Alert staff', type: 'employee' } })).body.data.groupKey;
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('fever alerts', () => {
  let hot: string;
  let other: string;
  beforeAll(async () => {
    hot = await person('employees', 'Hot Person', groupKey);
    other = await person('employees', 'Other Person', groupKey);
  });

  it('sends nothing while the email settings do not ask for fever alerts', async () => {
    await settings({ feverAlert: false });
    device.records.add(newPassRecord({ personKey: hot, name: 'Hot Person', temperature: 38.4, passState: 'refused' }));
    await until(() => records('/v1/passRecords', '&temperature=fever'), (items) => items.length === 1);
    await hostIdle();
    expect(await mails('feverAlert')).toEqual([]);
  });

  it('mails each recipient once per person and device however many fevers arrive together, with the capture', async () => {
    await settings({ feverAlert: true });
    // Four fevers of one person at once, one of another, one normal temperature.
    const capture = portrait('Hot Person', 640, 480, 2);
    for (let i = 0; i < 4; i++) device.records.add(newPassRecord({ personKey: hot, name: 'Hot Person', temperature: 38 + i / 10, passState: 'refused' }), capture);
    device.records.add(newPassRecord({ personKey: other, name: 'Other Person', temperature: 37.8, passState: 'refused' }), capture);
    device.records.add(newPassRecord({ personKey: other, name: 'Other Person', temperature: 36.5 }));
    await until(() => records('/v1/passRecords', '&temperature=fever'), (items) => items.length === 6);
    const sent = await until(
      () => mails('feverAlert'),
      (items) => items.length >= 4,
    );
    await hostIdle();
    const all = await mails('feverAlert');
    expect(all.length).toBe(4);
    // The first fever of the person (mail off) took no slot: this round mailed them once.
    const byPerson = (name: string) => all.filter((m) => m.title.includes(name)).map((m) => m.to).sort();
    expect(byPerson('Hot Person')).toEqual(['guard@example.test', 'nurse@example.test']);
    expect(byPerson('Other Person')).toEqual(['guard@example.test', 'nurse@example.test']);
    const mail = sent.find((m) => m.title.includes('Other Person'))!;
    const name = (await call<{ name: string }>('GET', `/v1/devices/${device.deviceKey}`, { token })).body.data.name;
    expect(mail.title).toBe(`Fever alert: Other Person measured 37.8 °C at ${name}`);
    // The record is named after the person the alert is about, not the recipient.
    expect(mail.name).toBe('Other Person');
    expect(mail.content).toContain('Temperature: 37.8 °C');
    // The mail links the record's screen in the console, which opens it after a login.
    expect(mail.content).toMatch(new RegExp(`Record and capture: https?://\\S+/pass-platform/passage/record\\?record=${device.deviceKey}\\.\\w+`));
    await until(() => mails('feverAlert'), (items) => items.every((m) => m.status === 'sent'));
  });
});

describe('blacklist', () => {
  let watched: string;
  beforeAll(async () => {
    const visitors = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Alert visitors', type: 'visitor' } })).body.data.groupKey;
    watched = await person('visitors', 'Watched Visitor', visitors);
    const granted = await call('POST', '/v1/authorities', {
      token,
      body: { setType: 1, personKeys: [watched], deviceKeys: [device.deviceKey], validity: { permanent: true } },
    });
    expect(granted.body.code).toBe(201);
    await until(
      async () => (await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?setType=1&personKey=${watched}`, { token })).body.data.items,
      (items) => items[0]?.syncState === 'synced',
    );
    expect(device.faces.find('blacklist', watched)).toBeDefined();
  });

  it('a pass by a watched person is a blacklist record and, when asked for, a blacklist mail', async () => {
    await settings({ feverAlert: true, blacklistAlert: true });
    device.records.add(newPassRecord({ personKey: watched, name: 'Watched Visitor', temperature: 36.4, passState: 'refused' }), portrait('Watched Visitor', 640, 480, 1));
    const hits = await until(() => records('/v1/blacklistRecords'), (items) => items.length === 1);
    expect(hits[0]).toMatchObject({ personKey: watched, type: 'blacklist', passState: 'refused' });
    const sent = await until(() => mails('blacklistAlert'), (items) => items.length === 2);
    expect(sent.map((m) => m.title)).toEqual([expect.stringContaining('Blacklist alert: Watched Visitor'), expect.stringContaining('Blacklist alert: Watched Visitor')]);
    // The same person again within ten minutes: recorded, not mailed again.
    device.records.add(newPassRecord({ personKey: watched, name: 'Watched Visitor', passState: 'refused' }));
    await until(() => records('/v1/blacklistRecords'), (items) => items.length === 2);
    await hostIdle();
    expect((await mails('blacklistAlert')).length).toBe(2);
  });
});

describe('alert mails a terminal cannot multiply', () => {
  const fevers = async () => (await records('/v1/passRecords', '&temperature=fever')).length;

  it('counts a person key that names nobody as a stranger: made-up keys share the stranger’s slot', async () => {
    await settings({ feverAlert: true, blacklistAlert: false });
    const before = await fevers();
    for (const key of ['ghost0001', 'ghost0002', 'ghost0003']) {
      device.records.add(newPassRecord({ personKey: key, name: `Ghost ${key}`, temperature: 38.6, passState: 'refused' }));
    }
    await until(fevers, (count) => count === before + 3);
    await until(
      () => mails('feverAlert'),
      (items) => items.some((m) => m.title.includes('Ghost')),
    );
    await hostIdle();
    const ghosts = (await mails('feverAlert')).filter((m) => m.title.includes('Ghost'));
    // One alert, to each of the two recipients.
    expect(ghosts.map((m) => m.to).sort()).toEqual(['guard@example.test', 'nurse@example.test']);
  });

  it('sends at most 200 alert mails an hour per company; the rest are not sent', async () => {
    const names = ['Warm One', 'Warm Two', 'Warm Three'];
    const people = await Promise.all(names.map((name) => person('employees', name, groupKey)));
    await settings({ feverAlert: true });
    // The hour's count so far, brought to 197 of 200: three mails are left for six wanted.
    const tenantId = token.split('.')[0]!;
    const key = { tenantId, scope: 'alertMails' as const, subject: tenantId };
    const counted = (await throttles().get(key).go()).data?.failures ?? 0;
    for (let i = counted; i < 197; i++) await countAttempt('alertMails', tenantId, 'status.429', tenantId);
    const before = await fevers();
    people.forEach((personKey, i) => device.records.add(newPassRecord({ personKey, name: names[i], temperature: 38.2, passState: 'refused' })));
    await until(fevers, (count) => count === before + 3);
    await until(
      () => mails('feverAlert'),
      (items) => items.filter((m) => m.title.includes('Warm')).length >= 3,
    );
    await hostIdle();
    expect((await mails('feverAlert')).filter((m) => m.title.includes('Warm'))).toHaveLength(3);
    expect((await throttles().get(key).go()).data?.failures).toBe(200);
  });
});

describe('alert mails and a slow mail server', () => {
  it('are queued by the ingest and sent by the mail service: the terminal is answered at once, and every recipient gets the mail', async () => {
    const owner = await newCompany();
    const own = (await login(owner.username, owner.password)).token;
    await grantSeats(own, 2);
    const terminal = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('SL').toUpperCase(), 1), heartbeatMs: 60_000 });
    agents.push(terminal);
    await terminal.start();
    // A server that takes 6 s to take each mail: two recipients, 12 s and more in one attempt.
    const slow = await startTestSmtp({ delayMs: 6_000 });
    try {
      const current = await call<{ version: number }>('GET', '/v1/settings/email', { token: own });
      const saved = await call('PUT', '/v1/settings/email', { confirm: true,
        token: own,
        body: { senderAddress: 'alerts@company.test', host: '127.0.0.1', port: slow.port, tlsMode: 'none', recipients: ['desk@company.test', 'chief@company.test'], feverAlert: true, version: current.body.data.version },
      });
      expect(saved.body.code).toBe(201);
      const started = Date.now();
      terminal.records.add(newPassRecord({ name: 'Slow Mail Stranger', temperature: 39.1, passState: 'refused' }));
      // Acknowledged (the outbox empty) long before one mail could have gone through.
      await until(async () => terminal.records.pending, (n) => n === 0, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      const queued = async () => (await call<{ items: MailRecord[] }>('GET', '/v1/mailRecords?group=feverAlert&pageSize=100', { token: own })).body.data.items;
      expect((await until(queued, (items) => items.length === 2, 5_000)).map((m) => m.to).sort()).toEqual(['chief@company.test', 'desk@company.test']);
      // Both arrive, whatever the server's pace.
      await until(queued, (items) => items.length === 2 && items.every((m) => m.status === 'sent'), 40_000);
      expect(slow.received.flatMap((m) => m.to).sort()).toEqual(['chief@company.test', 'desk@company.test']);
    } finally {
      await slow.stop();
    }
  }, 90_000);
});
