import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { portrait } from '@passcloud/device-shadow/portraits';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { pass } from '@passcloud/device-shadow/traffic';
import { BOTH_LISTS_NAMES_MAX, type AuthorityItem, type CapacityCheck } from '@passcloud/functions/contract/authorities';
import type { PassRecordItem, PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { createAccount } from '@passcloud/functions/data/identity';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * The blacklist wins: a person on a device's blacklist is refused there even when they also hold
 * pass authority. The simulated terminal decides so and keeps both faces through a restart; the
 * cloud files the pass as a refused blacklist record and mails the alert; a terminal that lets
 * such a person through anyway is recorded as it reported, marked; the check before a grant names
 * everyone the grant would put on both lists of a device.
 */

interface MailRecord {
  group: string;
  to: string;
  title: string;
}

let token: string;
let tenantId: string;
let userCode: string;
let groupKey: string;
const agents: DeviceAgent[] = [];
const stateDir = mkdtempSync(join(tmpdir(), 'blacklistwins-'));


function terminal(serial: string): DeviceAgent {
  const device = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(serial, 1), heartbeatMs: 60_000, credentialsFile: join(stateDir, `${serial}.json`) });
  agents.push(device);
  return device;
}

async function photoKey(name: string): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(portrait(name))]), 'face.jpg');
  return (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
}

async function employee(name: string, options: { photo?: boolean; group?: string } = {}): Promise<string> {
  const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('W'), name, role: 'Staff', gender: 'female', groupKey: options.group ?? groupKey, ...(options.photo ? { avatar: await photoKey(name) } : {}) },
  });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data.employeeKey;
}

async function grant(setType: 0 | 1, selection: Record<string, string[]>): Promise<void> {
  const answer = await call('POST', '/v1/authorities', { token, body: { setType, validity: { permanent: true }, ...selection } });
  expect(answer.body.code, answer.body.message).toBe(201);
}

async function check(setType: 0 | 1, selection: Record<string, string[]>, as = token): Promise<CapacityCheck> {
  const answer = await call<CapacityCheck>('POST', '/v1/authorities/check', { token: as, body: { setType, ...selection } });
  expect(answer.body.code, answer.body.message).toBe(200);
  return answer.body.data;
}

const sync = async (query: string) => (await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities/sync?${query}`, { token })).body.data.items;
const records = async (path: string) => (await call<PassRecordPage>('GET', `${path}?pageSize=100`, { token })).body.data.items;
const mails = async (group: string) => (await call<{ items: MailRecord[] }>('GET', `/v1/mailRecords?group=${group}&pageSize=100`, { token })).body.data.items;

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 5);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Both lists '), type: 'employee' } })).body.data.groupKey;
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('the check before a grant', () => {
  let device: DeviceAgent;
  let ada: string;
  let ben: string;
  let cleo: string;
  beforeAll(async () => {
    device = terminal(unique('BWC').toUpperCase());
    await device.start();
    ada = await employee('Ada Both');
    ben = await employee('Ben Passonly');
    cleo = await employee('Cleo Nowhere');
  });

  const on = (answer: CapacityCheck) => answer.devices.find((d) => d.deviceKey === device.deviceKey)!.bothLists;

  it('names nobody while no one selected is on the other list', async () => {
    expect(on(await check(0, { personKeys: [ada, ben, cleo], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 0, people: [] });
    expect(on(await check(1, { personKeys: [ada, ben, cleo], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 0, people: [] });
  });

  it('names, for a blacklist grant, the selected people holding pass authority on the device', async () => {
    await grant(0, { personKeys: [ada, ben], deviceKeys: [device.deviceKey!] });
    expect(on(await check(1, { personKeys: [ada, cleo], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 1, people: [{ personKey: ada, name: 'Ada Both' }] });
    expect(on(await check(1, { personKeys: [cleo], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 0, people: [] });
    // A pass authority grant puts no one on both lists: nobody is on the blacklist yet.
    expect(on(await check(0, { personKeys: [ada, ben], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 0, people: [] });
  });

  it('names, for a pass authority grant, the selected people on the device’s blacklist', async () => {
    await grant(1, { personKeys: [ada], deviceKeys: [device.deviceKey!] });
    expect(on(await check(0, { personKeys: [ada, ben, cleo], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 1, people: [{ personKey: ada, name: 'Ada Both' }] });
    expect(on(await check(0, { personKeys: [ben, cleo], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 0, people: [] });
  });

  it('tells who is on the other list only to an account that may see that list', async () => {
    const username = unique('passonly');
    await createAccount(tenantId, { username, password: 'pass-only-1', authCodes: ['pass:authority'] });
    const limited = (await login(username, 'pass-only-1')).token;
    const answer = await check(0, { personKeys: [ada], deviceKeys: [device.deviceKey!] }, limited);
    expect(answer.devices[0]).toMatchObject({ deviceKey: device.deviceKey, bothLists: null });
  });

  it('counts everyone and names the first of them by name', async () => {
    const crowd = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Crowd '), type: 'employee' } })).body.data.groupKey;
    const names = Array.from({ length: BOTH_LISTS_NAMES_MAX + 3 }, (_, i) => `Crowd ${String(i).padStart(2, '0')}`);
    const keys: Record<string, string> = {};
    for (const name of [...names].reverse()) keys[name] = await employee(name, { group: crowd });
    await grant(1, { personGroupKeys: [crowd], deviceKeys: [device.deviceKey!] });
    const found = on(await check(0, { personGroupKeys: [crowd], personKeys: [ben], deviceKeys: [device.deviceKey!] }))!;
    expect(found.count).toBe(names.length);
    expect(found.people).toEqual(names.slice(0, BOTH_LISTS_NAMES_MAX).map((name) => ({ personKey: keys[name], name })));
  });

  it('names no one whose blacklist entry was revoked', async () => {
    const entry = (await sync(`personKey=${ada}&deviceKey=${device.deviceKey}&setType=1`))[0]!;
    expect((await call('DELETE', `/v1/authorities/${entry.authorityKey}?version=${entry.version}`, { token })).body.code).toBe(204);
    expect(on(await check(0, { personKeys: [ada], deviceKeys: [device.deviceKey!] }))).toEqual({ count: 0, people: [] });
  });
});

describe('a person on both lists of a terminal', () => {
  const NAME = 'Wanda Watched';
  let serial: string;
  let device: DeviceAgent;
  let watched: string;
  beforeAll(async () => {
    serial = unique('BWT').toUpperCase();
    device = terminal(serial);
    await device.start();
    watched = await employee(NAME, { photo: true });
    await grant(0, { personKeys: [watched], deviceKeys: [device.deviceKey!] });
    await grant(1, { personKeys: [watched], deviceKeys: [device.deviceKey!] });
    await until(
      () => sync(`personKey=${watched}&deviceKey=${device.deviceKey}`),
      (items) => items.length === 2 && items.every((i) => i.syncState === 'synced'),
    );
    const current = await call<{ version: number }>('GET', '/v1/settings/email', { token });
    const saved = await call('PUT', '/v1/settings/email', { confirm: true, token, body: { recipients: ['guard@example.test'], version: current.body.data.version, blacklistAlert: true } });
    expect(saved.body.code, saved.body.message).toBe(201);
  });

  it('is held on both lists by the terminal, and still after a restart from flash', async () => {
    expect(device.faces.find('pass', watched)).toMatchObject({ list: 'pass', name: NAME });
    expect(device.faces.find('blacklist', watched)).toMatchObject({ list: 'blacklist', name: NAME });
    expect(device.faces.watches(watched)).toBe(true);
    expect(device.faces.admits(watched)).toBe(false);
    await device.stop();
    device = terminal(serial);
    expect(device.faces.find('pass', watched)).toBeDefined();
    expect(device.faces.find('blacklist', watched)).toBeDefined();
    await device.start();
  });

  it('is refused by the terminal, stored as a refused blacklist record, and mailed as a blacklist alert', async () => {
    // Someone known walks past: the only face on the pass list is the watched person's.
    const walked = pass(device, { blacklist: 0, strangers: 0, fevers: 0 }, () => 0.5);
    expect(walked).toMatchObject({ personKey: watched, passState: 'refused' });
    const seen = device.see({ personKey: watched, temperature: 36.5 });
    expect(seen).toMatchObject({ personKey: watched, name: NAME, passState: 'refused' });

    const hits = await until(() => records('/v1/blacklistRecords'), (items) => items.length === 2);
    for (const hit of hits) expect(hit).toMatchObject({ personKey: watched, type: 'blacklist', passState: 'refused', violation: false });
    expect(new Set(hits.map((h) => h.recordKey.split('.')[1]))).toEqual(new Set([walked.recordId, seen.recordId]));
    expect((await records('/v1/passRecords')).filter((r: PassRecordItem) => r.type !== 'blacklist')).toEqual([]);
    const sent = await until(() => mails('blacklistAlert'), (items) => items.length === 1);
    expect(sent[0]).toMatchObject({ to: 'guard@example.test', title: expect.stringContaining(`Blacklist alert: ${NAME}`) });
  });

  it('keeps a pass the terminal let through anyway as reported, marked as a violation', async () => {
    const through = newPassRecord({ personKey: watched, name: NAME, passState: 'passed' });
    device.records.add(through);
    const hits = await until(() => records('/v1/blacklistRecords'), (items) => items.length === 3);
    const hit = hits.find((h) => h.recordKey === `${device.deviceKey}.${through.recordId}`);
    expect(hit).toMatchObject({ personKey: watched, type: 'blacklist', passState: 'passed', violation: true });
  });
});
