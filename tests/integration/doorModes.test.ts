import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { portrait } from '@passcloud/device-shadow/portraits';
import type { DeviceDoorMode, DoorModeAnswer, ExemptionsAnswer } from '@passcloud/functions/contract/doorModes';
import type { AuthorityItem } from '@passcloud/functions/contract/authorities';
import { createAccount } from '@passcloud/functions/data/identity';
import { baseUrl, call, confirmHeader, login, mailsTo, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { avatarOf, employeeWith } from '../support/people.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.ts';
import { until } from '../support/wait.ts';

/**
 * Door modes over the real entry points: a lockdown set from the API reaches every simulated
 * terminal of its scope through the shadow, which then refuses everyone but the exempt with the
 * reason `lockdown`, and ends the same way; a terminal offline takes the mode when it connects;
 * another company's groups and terminals, an account without `pass:device` and a wrong password
 * change nothing; each mode set or ended leaves an audit entry, a webhook event and a mail.
 */

type Issues = { issues?: { path: string }[]; reauth?: string };

const RECIPIENT = `${unique('doors')}@example.test`;
const stateDir = mkdtempSync(join(tmpdir(), 'doormodes-'));
const agents: DeviceAgent[] = [];
let owner: Awaited<ReturnType<typeof newCompany>>;
let token: string;
let tenantId: string;
let groupKey: string;
let lobby: DeviceAgent;
let gate: DeviceAgent;
let annex: DeviceAgent;
let annexSerial: string;
let guard: string;
let worker: string;
let receiver: WebhookReceiver;
let webhookPath: string;

function terminal(serial: string): DeviceAgent {
  const agent = new DeviceAgent({
    apiUrl: baseUrl(),
    userCode: owner.userCode,
    info: simulatedInfo(serial, 1),
    heartbeatMs: 60_000,
    credentialsFile: join(stateDir, `${serial}.json`),
  });
  agents.push(agent);
  return agent;
}

const employee = async (name: string, employeeGroup: string): Promise<string> =>
  employeeWith(token, { personId: unique('D'), name, groupKey: employeeGroup, avatar: await avatarOf(token, portrait(name)) });

const setMode = (body: unknown, as = token) => call<{ mode: string; devices: number } & Issues>('PUT', '/v1/doorModes', { token: as, body, confirm: true });
const states = async () => (await call<DoorModeAnswer>('GET', '/v1/doorModes', { token })).body.data;
const doorModeOf = async (agent: DeviceAgent) =>
  (await call<{ doorMode: DeviceDoorMode }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.doorMode;
const modes = () => [lobby, gate, annex].map((a) => a.doorMode.mode);

beforeAll(async () => {
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 5);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Front doors '), type: 'device' } })).body.data.groupKey;
  const people = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Staff '), type: 'employee' } })).body.data.groupKey;
  lobby = terminal(unique('DML').toUpperCase());
  gate = terminal(unique('DMG').toUpperCase());
  annexSerial = unique('DMA').toUpperCase();
  annex = terminal(annexSerial);
  await Promise.all([lobby.start(), gate.start(), annex.start()]);
  for (const agent of [lobby, gate]) {
    const device = (await call<{ version: number }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data;
    expect((await call('PATCH', `/v1/devices/${agent.deviceKey}`, { token, body: { groupKey, version: device.version } })).body.code).toBe(201);
  }
  guard = await employee('Gina Guard', people);
  worker = await employee('Walt Worker', people);
  const deviceKeys = [lobby, gate, annex].map((a) => a.deviceKey!);
  expect(
    (await call('POST', '/v1/authorities', { token, body: { setType: 0, validity: { permanent: true }, personKeys: [guard, worker], deviceKeys } })).body.code,
  ).toBe(201);
  await until(
    async () => (await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities/sync?pageSize=100`, { token })).body.data.items,
    (items) => items.length === 6 && items.every((i) => i.syncState === 'synced'),
    30_000,
  );
  const mail = await call<{ version: number }>('GET', '/v1/settings/email', { token });
  expect(
    (await call('PUT', '/v1/settings/email', { confirm: true, token, body: { recipients: [RECIPIENT], version: mail.body.data.version } })).body.code,
  ).toBe(201);
  receiver = await startWebhookReceiver();
  webhookPath = `/${unique('doors')}`;
  const hook = await call('POST', '/v1/webhooks', { token, confirm: true, body: { url: receiver.url(webhookPath), events: ['door.mode'] } });
  expect(hook.body.code, hook.body.message).toBe(201);
}, 90_000);

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
  await receiver?.stop();
});

describe('a lockdown', () => {
  it('keeps a bounded list of people it lets pass, of the company’s own', async () => {
    const tooMany = Array.from({ length: 201 }, (_, i) => `p${String(i).padStart(9, '0')}`);
    const refused = await call<Issues>('PUT', '/v1/doorModes/exemptions', { token, confirm: true, body: { personKeys: tooMany, version: 0 } });
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues?.map((i) => i.path)).toContain('personKeys');
    const unknown = await call<Issues>('PUT', '/v1/doorModes/exemptions', { token, confirm: true, body: { personKeys: ['nobody000000'], version: 0 } });
    expect(unknown.status).toBe(422);
    expect((await call<ExemptionsAnswer>('GET', '/v1/doorModes/exemptions', { token })).body.data).toEqual({ people: [], version: 0 });
    const saved = await call<ExemptionsAnswer>('PUT', '/v1/doorModes/exemptions', { token, confirm: true, body: { personKeys: [guard], version: 0 } });
    expect(saved.body.code, saved.body.message).toBe(201);
    expect(saved.body.data).toEqual({ people: [{ personKey: guard, name: 'Gina Guard' }], version: 1 });
  });

  it('refuses everyone but the exempt on every terminal of its scope, and ends the same way', async () => {
    const set = await setMode({ mode: 'lockdown', scope: { groupKeys: [groupKey] }, reason: 'Intruder in the car park' });
    expect(set.body).toMatchObject({ code: 201, data: { mode: 'lockdown', devices: 2 } });
    await until(
      () => modes(),
      (m) => m.join() === 'lockdown,lockdown,normal',
    );
    await until(() => [lobby, gate].every((a) => a.doorMode.exempt.has(guard)), Boolean);
    for (const agent of [lobby, gate]) {
      expect(agent.see({ personKey: worker, temperature: 36.4 })).toMatchObject({ personKey: worker, passState: 'refused', refusedFor: 'lockdown' });
      expect(agent.see({ personKey: guard, temperature: 36.4 })).toMatchObject({ personKey: guard, passState: 'passed' });
      expect(agent.see({ temperature: 36.4 })).toMatchObject({ passState: 'refused', refusedFor: 'lockdown' });
    }
    // Outside the scope nothing changed.
    expect(annex.see({ personKey: worker, temperature: 36.4 })).toMatchObject({ passState: 'passed' });

    // The console sees what each terminal applied, and the mode in force with who set it.
    await until(
      () => doorModeOf(lobby),
      (m) => m.applied === 'lockdown',
    );
    expect(await doorModeOf(lobby)).toMatchObject({ desired: 'lockdown', applied: 'lockdown' });
    // Every terminal reports the mode it applies from its first connection on.
    expect(await doorModeOf(annex)).toEqual({ desired: 'normal', applied: 'normal', since: null });
    const current = await until(states, (s) => s.pending.length === 0);
    expect(current.items).toHaveLength(1);
    expect(current.items[0]).toMatchObject({ mode: 'lockdown', scope: { groupKeys: [groupKey] }, reason: 'Intruder in the car park', setBy: owner.username });
    expect(current.items[0]!.devices.map((d) => d.deviceKey).sort()).toEqual([lobby.deviceKey, gate.deviceKey].sort());

    // Every account reads the banner; only pass:device reads which terminals, and which lag.
    const reader = unique('reader');
    await createAccount(tenantId, { username: reader, password: 'records-only-1', authCodes: ['pass:record'] });
    const readerToken = (await login(reader, 'records-only-1')).token;
    expect((await call('GET', '/v1/doorModes', { token: readerToken })).status).toBe(401);
    const banner = await call<{ items: unknown[] }>('GET', '/v1/doorModes/banner', { token: readerToken });
    expect(banner.body.data.items).toEqual([
      {
        mode: 'lockdown',
        scope: { groupKeys: [groupKey] },
        scopeNames: [expect.stringMatching(/^Front doors /)],
        reason: 'Intruder in the car park',
        setBy: owner.username,
        since: current.items[0]!.since,
        devices: 2,
      },
    ]);

    const ended = await setMode({ mode: 'normal', scope: { groupKeys: [groupKey] }, reason: 'All clear' });
    expect(ended.body).toMatchObject({ code: 201, data: { mode: 'normal', devices: 2 } });
    await until(
      () => modes(),
      (m) => m.join() === 'normal,normal,normal',
    );
    for (const agent of [lobby, gate]) expect(agent.see({ personKey: worker, temperature: 36.4 })).toMatchObject({ passState: 'passed' });
    const after = await until(states, (s) => s.pending.length === 0);
    expect(after.items).toEqual([]);
  });

  it('reaches a terminal that was offline when it connects again, and the console says which has not applied it', async () => {
    await annex.stop();
    await until(
      async () => (await call<{ online: boolean }>('GET', `/v1/devices/${annex.deviceKey}`, { token })).body.data.online,
      (online) => !online,
    );
    expect((await setMode({ mode: 'open', scope: { deviceKeys: [annex.deviceKey] }, reason: 'Fire drill' })).body.code).toBe(201);
    const waiting = await states();
    expect(waiting.items[0]).toMatchObject({ mode: 'open', scope: { deviceKeys: [annex.deviceKey] } });
    expect(waiting.pending).toEqual([expect.objectContaining({ deviceKey: annex.deviceKey, online: false, desired: 'open', applied: 'normal' })]);

    annex = terminal(annexSerial);
    await annex.start();
    await until(
      () => annex.doorMode.mode,
      (mode) => mode === 'open',
    );
    expect(annex.door).toBe('open');
    // Open holds the door and still recognises and records.
    expect(annex.see({ personKey: worker, temperature: 36.4 })).toMatchObject({ personKey: worker, passState: 'passed' });
    await until(states, (s) => s.pending.length === 0);

    expect((await setMode({ mode: 'normal', scope: { all: true }, reason: 'Drill over' })).body.data.devices).toBe(3);
    await until(
      () => annex.door,
      (door) => door === 'closed',
    );
  });

  it('leaves an audit entry, a webhook event and a mail to the alert recipients each time', async () => {
    const audit = (await call<{ items: { action: string | null }[] }>('GET', '/v1/audit?kind=change&pageSize=100', { token })).body.data.items;
    expect(audit.filter((e) => e.action === 'PUT /v1/doorModes').length).toBeGreaterThanOrEqual(4);
    expect(audit.filter((e) => e.action === 'PUT /v1/doorModes/exemptions')).toHaveLength(1);

    const events = await until(
      () =>
        receiver.received
          .filter((r) => r.path === webhookPath)
          .map((r) => JSON.parse(r.body) as { type: string; data: { mode: string; reason: string; setBy: string; devices: number } }),
      (list) => list.length >= 4,
      20_000,
    );
    expect(events.every((e) => e.type === 'door.mode')).toBe(true);
    expect(events.map((e) => e.data)).toContainEqual({
      mode: 'lockdown',
      scope: { groupKeys: [groupKey] },
      reason: 'Intruder in the car park',
      setBy: owner.username,
      devices: 2,
      time: expect.any(String),
    });

    const mails = await until(
      () => mailsTo(RECIPIENT),
      (list) => list.length >= 4,
      20_000,
    );
    expect(mails.map((m) => m.subject)).toContain('Door mode Lockdown set on 2 terminals');
    expect(mails.map((m) => m.subject)).toContain('Door mode ended on 2 terminals');
    expect(mails.find((m) => m.subject.includes('Lockdown'))!.text).toContain('Reason: Intruder in the car park');
  });
});

describe('setting a door mode', () => {
  let otherGroup: string;
  let otherDevice: string;
  beforeAll(async () => {
    const other = await newCompany();
    const otherToken = (await login(other.username, other.password)).token;
    await grantSeats(otherToken, 1);
    otherGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token: otherToken, body: { name: unique('Theirs '), type: 'device' } })).body.data
      .groupKey;
    const serial = unique('DMO').toUpperCase();
    const { serial: _s, ...info } = simulatedInfo(serial, 1);
    const bound = await fetch(new URL('/v1/devices/bind', baseUrl()), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userCode: other.userCode, serial, info }),
    });
    otherDevice = ((await bound.json()) as { data: { deviceKey: string } }).data.deviceKey;
  });

  const unchanged = async () => {
    expect(modes()).toEqual(['normal', 'normal', 'normal']);
    expect((await states()).items).toEqual([]);
    expect(await doorModeOf(lobby)).toMatchObject({ desired: 'normal' });
  };

  it('answers 404 for another company’s group or terminal in the scope, and changes nothing', async () => {
    const group = await setMode({ mode: 'lockdown', scope: { groupKeys: [groupKey, otherGroup] }, reason: 'x' });
    expect(group.status).toBe(404);
    const device = await setMode({ mode: 'lockdown', scope: { deviceKeys: [lobby.deviceKey, otherDevice] }, reason: 'x' });
    expect(device.status).toBe(404);
    await unchanged();
  });

  it('is refused to an account without pass:device, and without the right password', async () => {
    const username = unique('records');
    await createAccount(tenantId, { username, password: 'records-only-1', authCodes: ['pass:record'] });
    const limited = (await login(username, 'records-only-1')).token;
    const forbidden = await setMode({ mode: 'lockdown', scope: { all: true }, reason: 'x' }, limited);
    expect(forbidden.status).toBe(401);
    const body = { mode: 'lockdown', scope: { all: true }, reason: 'Wrong password' };
    // A new login replaces the session, whose password was confirmed already.
    const fresh = (await login(owner.username, owner.password)).token;
    token = fresh;
    const wrong = await call<Issues>('PUT', '/v1/doorModes', { token: fresh, body, headers: await confirmHeader(fresh, 'not-the-password') });
    expect(wrong.status).toBe(401);
    expect(wrong.body.data.reauth).toBe('wrong');
    const missing = await call<Issues>('PUT', '/v1/doorModes', { token: fresh, body });
    expect(missing.body.data.reauth).toBe('required');
    await unchanged();
  });

  it('names each invalid field', async () => {
    const bad = await setMode({ mode: 'party', scope: { groupKeys: [] }, reason: ' ' });
    expect(bad.status).toBe(422);
    expect(bad.body.data.issues?.map((i) => i.path).sort()).toEqual(['mode', 'reason', 'scope.groupKeys']);
    await unchanged();
  });
});

describe('a terminal new to a scope', () => {
  const all = () => [lobby, gate, annex, ...late];
  const late: DeviceAgent[] = [];
  const patchGroup = async (agent: DeviceAgent, key: string | null) => {
    const device = (await call<{ version: number }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data;
    expect((await call('PATCH', `/v1/devices/${agent.deviceKey}`, { token, body: { groupKey: key, version: device.version } })).body.code).toBe(201);
  };

  it('takes the mode in force for all terminals when it binds, and for the group it moves into', async () => {
    expect((await setMode({ mode: 'lockdown', scope: { all: true }, reason: 'Bomb threat' })).body.data.devices).toBe(3);
    await until(modes, (m) => m.every((mode) => mode === 'lockdown'));
    const newcomer = terminal(unique('DMN').toUpperCase());
    late.push(newcomer);
    await newcomer.start();
    await until(
      () => newcomer.doorMode.mode,
      (mode) => mode === 'lockdown',
    );
    expect(newcomer.see({ personKey: worker, temperature: 36.4 })).toMatchObject({ passState: 'refused', refusedFor: 'lockdown' });
    // It joins the mode in force: one state, its terminals all four.
    const locked = await until(states, (s) => s.pending.length === 0);
    expect(locked.items).toHaveLength(1);
    expect(locked.items[0]).toMatchObject({ mode: 'lockdown', scope: { all: true }, reason: 'Bomb threat' });
    expect(locked.items[0]!.devices).toHaveLength(4);
    expect((await setMode({ mode: 'normal', scope: { all: true }, reason: 'Cleared' })).body.data.devices).toBe(4);
    await until(
      () => all().map((a) => a.doorMode.mode),
      (m) => m.every((mode) => mode === 'normal'),
    );

    expect((await setMode({ mode: 'lockdown', scope: { groupKeys: [groupKey] }, reason: 'Front doors only' })).body.data.devices).toBe(2);
    await patchGroup(annex, groupKey);
    await until(
      () => annex.doorMode.mode,
      (mode) => mode === 'lockdown',
    );
    expect(await doorModeOf(annex)).toMatchObject({ desired: 'lockdown' });
    // Out of the group again, it is out of the group's mode.
    await patchGroup(annex, null);
    await until(
      () => annex.doorMode.mode,
      (mode) => mode === 'normal',
    );
    expect(await doorModeOf(annex)).toMatchObject({ desired: 'normal' });
    expect(lobby.doorMode.mode).toBe('lockdown');
    expect((await setMode({ mode: 'normal', scope: { all: true }, reason: 'Cleared' })).body.code).toBe(201);
    await until(states, (s) => s.pending.length === 0 && s.items.length === 0);
  });

  it('ends the same in its store and on the terminal when two settings race', async () => {
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all([
        setMode({ mode: 'lockdown', scope: { all: true }, reason: `Race ${round}` }),
        setMode({ mode: 'normal', scope: { all: true }, reason: `Race ${round} over` }),
      ]);
      expect(answers.map((a) => a.body.code)).toEqual([201, 201]);
      // Whichever won, every terminal applies what its store holds, and the console waits on none.
      await until(states, (s) => s.pending.length === 0, 20_000);
      for (const agent of all()) expect(agent.doorMode.mode).toBe((await doorModeOf(agent)).desired);
    }
    expect((await setMode({ mode: 'normal', scope: { all: true }, reason: 'Cleared' })).body.code).toBe(201);
    await until(
      () => all().map((a) => a.doorMode.mode),
      (m) => m.every((mode) => mode === 'normal'),
    );
  });
});
