import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { AuthorityItem } from '@passcloud/functions/contract/authorities';
import { SYNC_DETAIL_MAX, deviceAuthorization, type FaceChangesPage, type FaceResult } from '@passcloud/functions/contract/protocol';
import { translate } from '@passcloud/functions/lib/i18n';
import { baseUrl, call, login, newCompany, unique, type Envelope } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { until } from '../support/wait.ts';

/**
 * A terminal that refuses a photo says why in `detail`; the sync state keeps those words until a
 * newer result replaces them, and the authorization lists answer them as `syncDetail`.
 */

let token: string;
let device: DeviceAgent;
let employeeKey: string;
let version: number;

async function photo(width: number, height: number): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(width, height))]), 'face.png');
  const upload = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
  expect(upload.body.code).toBe(201);
  return upload.body.data.fileKey;
}


const item = async (): Promise<AuthorityItem | undefined> =>
  (await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities/sync?personKey=${employeeKey}&deviceKey=${device.deviceKey}`, { token })).body.data.items[0];

/** Calls a device route with the terminal's own credentials. */
async function asDevice<T>(method: string, path: string, body?: unknown, locale?: string): Promise<{ status: number; body: Envelope<T> }> {
  const binding = device.binding!;
  const headers: Record<string, string> = { authorization: deviceAuthorization(binding.thingName, binding.mqtt.password) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (locale) headers['accept-language'] = locale;
  const res = await fetch(baseUrl() + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as Envelope<T> };
}

/** The change of the person now current on the device (a device that pulls from 0 gets every current change). */
async function currentChange() {
  const page = (await asDevice<FaceChangesPage>('GET', '/v1/deviceSync/faces?cursor=0&limit=200')).body.data;
  return page.changes.find((c) => c.personKey === employeeKey)!;
}

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 2);
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Detail staff '), type: 'employee' } })).body.data
    .groupKey;
  const made = await call<{ employeeKey: string; version: number }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('D'), name: 'Small Photo', role: 'Staff', gender: 'female', groupKey, avatar: await photo(640, 480) },
  });
  expect(made.body.code).toBe(201);
  ({ employeeKey, version } = made.body.data);
  device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('SD').toUpperCase(), 1), heartbeatMs: 60_000 });
  await device.start();
});

afterAll(async () => {
  await device?.stop();
});

describe('why a terminal refused a photo', () => {
  it('keeps the terminal’s words with the failure and answers them on the lists', async () => {
    const granted = await call('POST', '/v1/authorities', {
      token,
      body: { setType: 0, personKeys: [employeeKey], deviceKeys: [device.deviceKey], validity: { permanent: true } },
    });
    expect(granted.body.code).toBe(201);
    const failed = await until(item, (i) => i?.syncState === 'failed');
    expect(failed).toMatchObject({ syncReason: 'photoRejected', syncDetail: 'photo is 640×480; this terminal needs at least 800×600' });
    const list = await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities?setType=0&personKey=${employeeKey}`, { token });
    expect(list.body.data.items[0]).toMatchObject({ syncReason: 'photoRejected', syncDetail: 'photo is 640×480; this terminal needs at least 800×600' });
  });

  it('drops the words when a newer result has none, and never keeps them with a success', async () => {
    const change = await currentChange();
    const base: FaceResult = { list: 'pass', personKey: employeeKey, seq: change.seq, state: 'failed', reason: 'photoRejected' };
    const report = (result: Record<string, unknown>) => asDevice('POST', '/v1/deviceSync/results', { results: [result] });

    expect((await report({ ...base, detail: '  no face found  ' })).body.code).toBe(201);
    expect(await item()).toMatchObject({ syncState: 'failed', syncDetail: 'no face found' });
    expect((await report(base)).body.code).toBe(201);
    expect(await item()).toMatchObject({ syncState: 'failed', syncReason: 'photoRejected', syncDetail: null });

    expect((await report({ ...base, detail: '2 faces found; the photo must show one' })).body.code).toBe(201);
    const { reason: _, ...synced } = base;
    expect((await report({ ...synced, state: 'synced', detail: 'ignored' })).body.code).toBe(201);
    expect(await item()).toMatchObject({ syncState: 'synced', syncReason: null, syncDetail: null });
  });

  it('refuses words longer than 200 characters, naming the field in the terminal’s language', async () => {
    const change = await currentChange();
    const result = { list: 'pass', personKey: employeeKey, seq: change.seq, state: 'failed', reason: 'photoRejected', detail: 'x'.repeat(SYNC_DETAIL_MAX + 1) };
    const refused = await asDevice<{ issues: { path: string }[] }>('POST', '/v1/deviceSync/results', { results: [result] }, 'ja_JP');
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues.map((i) => i.path)).toEqual(['results.0.detail']);
    expect(refused.body.message).toContain(translate('ja_JP', 'field.detail'));
    expect((await asDevice('POST', '/v1/deviceSync/results', { results: [{ ...result, detail: 'x'.repeat(SYNC_DETAIL_MAX) }] })).body.code).toBe(201);
  });

  it('clears the words once a better photo syncs', async () => {
    await call('PATCH', `/v1/employees/${employeeKey}`, { token, body: { avatar: await photo(1024, 768), version } });
    const synced = await until(item, (i) => i?.syncState === 'synced');
    expect(synced).toMatchObject({ syncReason: null, syncDetail: null });
  });
});
