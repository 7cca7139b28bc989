import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { AuthorityItem, CapacityCheck } from '@passcloud/functions/contract/authorities';
import { deviceAuthorization, type FaceChangesPage } from '@passcloud/functions/contract/protocol';
import { createAccount } from '@passcloud/functions/data/identity';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { until } from '../support/wait.ts';

/**
 * Authorizations and face sync, end to end: grants through the API, simulated terminals that
 * pull their changes over HTTPS when told on MQTT, download each photo, enrol or refuse it and
 * report back; the sync state as the console reads it.
 */

type Issues = { issues: { path: string; message: string }[] };
interface SyncPage {
  items: AuthorityItem[];
  nextCursor: string | null;
  counts: Record<string, number>;
}

let token: string;
let userCode: string;
let tenantId: string;
let otherToken: string;
let groupKey: string;
/** A 640 × 480 photo stored before the company's first terminal bound: the terminals, which need 800 × 600, refuse it. */
let smallPhoto: string;
const agents: DeviceAgent[] = [];
const stateDir = mkdtempSync(join(tmpdir(), 'facesync-'));

function agent(options: { capacity?: number; flash?: boolean } = {}): DeviceAgent {
  const info = simulatedInfo(unique('FS').toUpperCase(), 1);
  const device = new DeviceAgent({
    apiUrl: baseUrl(),
    userCode,
    info,
    heartbeatMs: 60_000,
    ...(options.capacity ? { faceCapacity: options.capacity } : {}),
    ...(options.flash ? { credentialsFile: join(stateDir, `${info.serial}.json`) } : {}),
  });
  agents.push(device);
  return device;
}


async function photo(width: number, height: number): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(width, height))]), 'face.png');
  const upload = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
  expect(upload.body.code).toBe(201);
  return upload.body.data.fileKey;
}

interface Employee {
  employeeKey: string;
  version: number;
}
async function employee(name: string, avatar?: string): Promise<Employee> {
  const answer = await call<Employee>('POST', '/v1/employees', {
    token,
    body: { personId: unique('F'), name, role: 'Staff', gender: 'female', groupKey, ...(avatar ? { avatar } : {}) },
  });
  expect(answer.body.code).toBe(201);
  return answer.body.data;
}

const grant = (body: Record<string, unknown>, as = token) =>
  call<{ people: number; devices: number; authorities: number }>('POST', '/v1/authorities', { token: as, body: { setType: 0, validity: { permanent: true }, ...body } });

async function sync(query: string, as = token): Promise<SyncPage> {
  const answer = await call<SyncPage>('GET', `/v1/authorities/sync?${query}`, { token: as });
  expect(answer.body.code).toBe(200);
  return answer.body.data;
}
const pair = async (personKey: string, deviceKey: string, setType = 0) =>
  (await sync(`personKey=${personKey}&deviceKey=${deviceKey}&setType=${setType}`)).items[0];

const held = (device: DeviceAgent) => device.faces.all().map((f) => `${f.list}:${f.personKey}`).sort();

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  const user = await login(owner.username, owner.password);
  token = user.token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 20);
  const other = await newCompany();
  otherToken = (await login(other.username, other.password)).token;
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Sync staff '), type: 'employee' } })).body.data.groupKey;
  smallPhoto = await photo(640, 480);
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('authorization rules', () => {
  let device: DeviceAgent;
  let person: Employee;
  beforeAll(async () => {
    device = agent();
    await device.start();
    person = await employee('Rule Person', await photo(800, 600));
  });

  it('refuses unknown or another company’s people and devices with 404, granting nothing', async () => {
    const otherGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token: otherToken, body: { name: 'Theirs', type: 'employee' } })).body.data.groupKey;
    const theirs = await call<Employee>('POST', '/v1/employees', {
      token: otherToken,
      body: { personId: unique('O'), name: 'Not yours', role: 'Staff', gender: 'male', groupKey: otherGroup },
    });
    for (const body of [
      { personKeys: [person.employeeKey, theirs.body.data.employeeKey], deviceKeys: [device.deviceKey] },
      { personKeys: [person.employeeKey], deviceKeys: [device.deviceKey, 'nosuchdevice0001'] },
      { personKeys: [person.employeeKey], personGroupKeys: [otherGroup], deviceKeys: [device.deviceKey] },
    ]) {
      const answer = await grant(body);
      expect(answer.status).toBe(404);
    }
    expect((await sync(`deviceKey=${device.deviceKey}`)).items).toEqual([]);
  });

  it('needs at least one person and one device, and an end not before today', async () => {
    const emptyGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Empty '), type: 'employee' } })).body.data.groupKey;
    const none = await grant({ personGroupKeys: [emptyGroup], deviceKeys: [device.deviceKey] });
    expect(none.status).toBe(422);
    expect((none.body.data as unknown as Issues).issues).toEqual([{ path: 'personKeys', message: 'Choose at least one person' }]);
    const noDevice = await grant({ personKeys: [person.employeeKey] });
    expect((noDevice.body.data as unknown as Issues).issues.map((i) => i.path)).toEqual(['deviceKeys']);
    const past = await grant({ personKeys: [person.employeeKey], deviceKeys: [device.deviceKey], validity: { start: '2020-01-01', end: '2020-01-31' } });
    expect(past.status).toBe(422);
    expect((past.body.data as unknown as Issues).issues[0]!.path).toBe('validity.end');
    const reversed = await grant({ personKeys: [person.employeeKey], deviceKeys: [device.deviceKey], validity: { start: '2099-02-01', end: '2099-01-01' } });
    expect(reversed.status).toBe(422);
    expect((await sync(`deviceKey=${device.deviceKey}`)).items).toEqual([]);
  });

  it('asks for the code of the list: pass authority for setType 0, the blacklist for setType 1', async () => {
    const username = unique('passonly');
    await createAccount(tenantId, { username, password: 'pass-only-1', authCodes: ['pass:authority'] });
    const limited = (await login(username, 'pass-only-1')).token;
    const blacklist = await call('POST', '/v1/authorities', {
      token: limited,
      body: { setType: 1, personKeys: [person.employeeKey], deviceKeys: [device.deviceKey], validity: { permanent: true } },
    });
    expect(blacklist.status).toBe(401);
    expect((await call('GET', '/v1/authorities?setType=1', { token: limited })).status).toBe(401);
    expect((await sync(`deviceKey=${device.deviceKey}`)).items).toEqual([]);
    expect((await grant({ personKeys: [person.employeeKey], deviceKeys: [device.deviceKey] }, limited)).body.code).toBe(201);
  });

  it('lists by person, by device and by validity, edits the validity and revokes with the version', async () => {
    const second = await employee('Second Rule', await photo(800, 600));
    const start = new Date().toISOString().slice(0, 10);
    const answer = await grant({ personKeys: [second.employeeKey], deviceKeys: [device.deviceKey], validity: { start, end: '2099-12-31' } });
    expect(answer.body.data).toEqual({ people: 1, devices: 1, authorities: 1 });
    const list = await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?setType=0&deviceKey=${device.deviceKey}`, { token });
    expect(list.body.data.items.map((i) => i.name).sort()).toEqual(['Rule Person', 'Second Rule']);
    const byPerson = await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?personKey=${second.employeeKey}`, { token });
    const item = byPerson.body.data.items[0]!;
    expect(item).toMatchObject({ start, end: '2099-12-31', validityState: 'active', deviceKey: device.deviceKey, setType: 0 });
    expect((await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?validity=expired&deviceKey=${device.deviceKey}`, { token })).body.data.items).toEqual([]);
    const keyword = await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?keyword=second`, { token });
    expect(keyword.body.data.items.map((i) => i.name)).toEqual(['Second Rule']);

    const stale = await call('PATCH', `/v1/authorities/${item.authorityKey}`, { token, body: { validity: { permanent: true }, version: item.version + 5 } });
    expect(stale.status).toBe(409);
    const edited = await call<AuthorityItem>('PATCH', `/v1/authorities/${item.authorityKey}`, { token, body: { validity: { permanent: true }, version: item.version } });
    expect(edited.body.data).toMatchObject({ start: null, end: null, version: item.version + 1, syncState: 'pending' });
    await until(() => pair(second.employeeKey, device.deviceKey!), (p) => p?.syncState === 'synced' && p.version >= edited.body.data.version);

    const gone = await call('DELETE', `/v1/authorities/${item.authorityKey}?version=${edited.body.data.version}`, { token });
    expect(gone.body.code).toBe(204);
    expect((await call('DELETE', `/v1/authorities/${item.authorityKey}?version=${edited.body.data.version}`, { token })).status).toBe(404);
    await until(() => held(device), (faces) => !faces.includes(`pass:${second.employeeKey}`));
    // Once the device confirmed the removal, nothing is left of it.
    await until(() => pair(second.employeeKey, device.deviceKey!), (p) => p === undefined);
  });
});

describe('face sync with simulated terminals', () => {
  let front: DeviceAgent;
  let side: DeviceAgent;
  let ada: Employee;
  let small: Employee;
  let nophoto: Employee;

  beforeAll(async () => {
    front = agent({ flash: true });
    side = agent({ capacity: 2, flash: true });
    await Promise.all([front.start(), side.start()]);
    ada = await employee('Ada Sync', await photo(800, 600));
    small = await employee('Small Photo', smallPhoto);
    nophoto = await employee('No Photo');
  });

  it('syncs each person to each device and reports why a face could not be enrolled', async () => {
    const answer = await grant({ personKeys: [ada.employeeKey, small.employeeKey, nophoto.employeeKey], deviceKeys: [front.deviceKey, side.deviceKey] });
    expect(answer.body.data).toEqual({ people: 3, devices: 2, authorities: 6 });
    const settled = await until(
      () => sync(`deviceKey=${front.deviceKey}`),
      (page) => page.items.length === 3 && page.items.every((i) => i.syncState !== 'pending'),
    );
    const byName = Object.fromEntries(settled.items.map((i) => [i.name, [i.syncState, i.syncReason]]));
    expect(byName).toEqual({ 'Ada Sync': ['synced', null], 'Small Photo': ['failed', 'photoRejected'], 'No Photo': ['failed', 'noPhoto'] });
    expect(held(front)).toEqual([`pass:${ada.employeeKey}`]);
    expect(front.faces.admits(ada.employeeKey)).toBe(true);
    expect(front.faces.admits(small.employeeKey)).toBe(false);
    // Per person, across devices.
    const adaPairs = await sync(`personKey=${ada.employeeKey}`);
    expect(adaPairs.items.map((i) => i.syncState)).toEqual(['synced', 'synced']);
  });

  it('retries after a photo is added: the person’s change reaches every device holding them', async () => {
    const before = await pair(nophoto.employeeKey, front.deviceKey!);
    expect(before?.syncReason).toBe('noPhoto');
    // A retry alone changes nothing while the photo is missing.
    const retried = await call<{ resent: number }>('POST', '/v1/authorities/sync/retry', { token, body: { authorityKeys: [before!.authorityKey] } });
    expect(retried.body.data.resent).toBe(1);
    await until(() => pair(nophoto.employeeKey, front.deviceKey!), (p) => p?.syncState === 'failed' && p.version > before!.version);
    const patched = await call('PATCH', `/v1/employees/${nophoto.employeeKey}`, { token, body: { avatar: await photo(1024, 768), version: nophoto.version } });
    expect(patched.body.code).toBe(201);
    const after = await until(() => pair(nophoto.employeeKey, front.deviceKey!), (p) => p?.syncState === 'synced');
    expect(after?.syncReason).toBeNull();
    expect(held(front)).toContain(`pass:${nophoto.employeeKey}`);
  });

  it('reports a full device per face, and the check warns before a grant passes the capacity', async () => {
    // side holds 2 at most: Ada and the person who now has a photo fill it.
    await until(() => sync(`deviceKey=${side.deviceKey}`), (page) => page.items.every((i) => i.syncState !== 'pending'));
    expect(side.faces.size).toBe(2);
    const extra = await employee('One Too Many', await photo(800, 600));
    const check = await call<CapacityCheck>('POST', '/v1/authorities/check', { token, body: { setType: 0, personKeys: [extra.employeeKey], deviceKeys: [side.deviceKey, front.deviceKey] } });
    const sideCheck = check.body.data.devices.find((d) => d.deviceKey === side.deviceKey)!;
    expect(sideCheck).toMatchObject({ adding: 1, capacity: 2, exceeds: true });
    expect(check.body.data.devices.find((d) => d.deviceKey === front.deviceKey)).toMatchObject({ adding: 1, exceeds: false });
    await grant({ personKeys: [extra.employeeKey], deviceKeys: [side.deviceKey] });
    const full = await until(() => pair(extra.employeeKey, side.deviceKey!), (p) => p?.syncState === 'failed');
    expect(full?.syncReason).toBe('capacityFull');
  });

  it('a terminal that was offline catches up; one wiped by a factory reset pulls everything again', async () => {
    await front.stop();
    const late = await employee('Late Arrival', await photo(800, 600));
    await grant({ personKeys: [late.employeeKey], deviceKeys: [front.deviceKey] });
    const adaOnFront = await pair(ada.employeeKey, front.deviceKey!);
    expect((await call('DELETE', `/v1/authorities/${adaOnFront!.authorityKey}?version=${adaOnFront!.version}`, { token })).body.code).toBe(204);
    expect((await pair(late.employeeKey, front.deviceKey!))?.syncState).toBe('pending');
    await front.start();
    await until(() => held(front), (faces) => faces.includes(`pass:${late.employeeKey}`) && !faces.includes(`pass:${ada.employeeKey}`));
    await until(() => pair(late.employeeKey, front.deviceKey!), (p) => p?.syncState === 'synced');

    const before = held(front);
    front.faces.wipe();
    expect(front.faces.size).toBe(0);
    await front.faces.sync();
    expect(held(front)).toEqual(before);
  });

  it('removes the faces of a resigned or deleted person, and brings them back on re-entry', async () => {
    const current = (await call<Employee>('GET', `/v1/employees/${nophoto.employeeKey}`, { token })).body.data;
    const resigned = await call<Employee>('POST', `/v1/employees/${nophoto.employeeKey}/resign`, { token, body: { version: current.version } });
    expect(resigned.body.code).toBe(201);
    await until(() => held(front), (faces) => !faces.includes(`pass:${nophoto.employeeKey}`));
    const back = await call<Employee>('POST', `/v1/employees/${nophoto.employeeKey}/entry`, { token, body: { version: resigned.body.data.version } });
    expect(back.body.code).toBe(201);
    await until(() => held(front), (faces) => faces.includes(`pass:${nophoto.employeeKey}`));

    const deleted = await call('DELETE', `/v1/employees/${nophoto.employeeKey}?version=${back.body.data.version}`, { token });
    expect(deleted.body.code).toBe(204);
    await until(() => held(front), (faces) => !faces.includes(`pass:${nophoto.employeeKey}`));
    await until(() => sync(`personKey=${nophoto.employeeKey}`), (page) => page.items.length === 0);
  });

  it('drops a deleted device’s authorizations', async () => {
    const device = (await call<{ version: number }>('GET', `/v1/devices/${side.deviceKey}`, { token })).body.data;
    expect((await sync(`deviceKey=${side.deviceKey}`)).items.length).toBeGreaterThan(0);
    await side.stop();
    expect((await call('DELETE', `/v1/devices/${side.deviceKey}?version=${device.version}`, { token })).body.code).toBe(204);
    expect((await sync(`deviceKey=${side.deviceKey}`)).items).toEqual([]);
  });

  it('writes a large grant in the background, with its progress, and the terminals receive it', async () => {
    // The test host writes grants of more than 50 pairs in the background (GRANT_INLINE_PAIRS).
    const group = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Big group '), type: 'employee' } })).body.data.groupKey;
    const face = await photo(800, 600);
    for (let i = 0; i < 30; i++) {
      const answer = await call('POST', '/v1/employees', { token, body: { personId: unique('B'), name: `Crowd ${i}`, role: 'Staff', gender: 'male', groupKey: group, avatar: face } });
      expect(answer.body.code).toBe(201);
    }
    const extra = agent();
    await extra.start();
    const answer = await call<{ jobKey: string; authorities: number }>('POST', '/v1/authorities', {
      token,
      body: { setType: 0, personGroupKeys: [group], deviceKeys: [front.deviceKey, extra.deviceKey], validity: { permanent: true } },
    });
    expect(answer.body.code).toBe(202);
    expect(answer.body.data.authorities).toBe(60);
    const job = await until(
      async () => (await call<{ state: string; done: number; total: number }>('GET', `/v1/authorities/jobs/${answer.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done',
    );
    expect(job).toMatchObject({ done: 60, total: 60 });
    expect((await call('GET', `/v1/authorities/jobs/${answer.body.data.jobKey}`, { token: otherToken })).status).toBe(404);
    await until(() => Promise.resolve(extra.faces.size), (n) => n === 30);
  });

  it('answers a terminal only with its own credentials', async () => {
    const url = `${baseUrl()}/v1/deviceSync/faces?cursor=0`;
    const wrong = await fetch(url, { headers: { authorization: deviceAuthorization(front.binding!.thingName, 'not-the-password') } });
    expect(wrong.status).toBe(403);
    expect((await fetch(url)).status).toBe(403);
    const own = await fetch(url, { headers: { authorization: deviceAuthorization(front.binding!.thingName, front.binding!.mqtt.password) } });
    const page = ((await own.json()) as { data: FaceChangesPage }).data;
    expect(page.changes.length).toBeGreaterThan(0);
    expect(new Set(page.changes.map((c) => c.personKey)).has(ada.employeeKey)).toBe(false);
  });
});
