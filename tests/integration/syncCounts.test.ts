import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { AuthorityItem, SyncState } from '@passcloud/functions/contract/authorities';
import { createAccount } from '@passcloud/functions/data/identity';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { until } from '../support/wait.ts';

/**
 * The sync panel counts a device's or a person's pairs over all of them, not over the page it
 * shows, and the counts follow every change of state exactly, parallel ones included; "retry all
 * that failed" sends every failed pair again, not only those on screen.
 */

type Counts = Record<SyncState, number>;
interface SyncPage {
  items: AuthorityItem[];
  nextCursor: string | null;
  counts: Counts;
}

let token: string;
let tenantId: string;
let userCode: string;
let groupKey: string;
let good: string;
let small: string;
const agents: DeviceAgent[] = [];

async function photo(width: number, height: number): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(width, height))]), 'face.png');
  return (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
}

async function employees(count: number, avatar: string): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('C'), name: `Count ${i}`, role: 'Staff', gender: 'female', groupKey, avatar } });
    expect(answer.body.code).toBe(201);
    keys.push(answer.body.data.employeeKey);
  }
  return keys;
}

async function device(start = true): Promise<DeviceAgent> {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('SC').toUpperCase(), 1), heartbeatMs: 60_000 });
  agents.push(agent);
  await agent.start();
  if (!start) await agent.stop();
  return agent;
}

const sync = async (query: string, as = token): Promise<SyncPage> => {
  const answer = await call<SyncPage>('GET', `/v1/authorities/sync?${query}`, { token: as });
  expect(answer.body.code, answer.body.message).toBe(200);
  return answer.body.data;
};

/** The states of every pair, read page by page: what the counts must equal. */
async function recount(query: string): Promise<Counts> {
  const counts: Counts = { pending: 0, synced: 0, failed: 0 };
  let cursor: string | null = null;
  do {
    const page: SyncPage = await sync(`${query}&pageSize=200${cursor ? `&cursor=${cursor}` : ''}`);
    for (const item of page.items) counts[item.syncState]++;
    cursor = page.nextCursor;
  } while (cursor);
  return counts;
}

const grant = (personKeys: string[], deviceKeys: string[]) =>
  call<{ authorities: number }>('POST', '/v1/authorities', { token, body: { setType: 0, personKeys, deviceKeys, validity: { permanent: true } } });

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 20);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Counted '), type: 'employee' } })).body.data.groupKey;
  good = await photo(800, 600);
  // Smaller than the terminals' 640 × 480: refused on every device.
  small = await photo(320, 240);
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('sync counts', () => {
  it('count all of a device’s and a person’s pairs, whatever the page, as their states change', async () => {
    const front = await device();
    const side = await device();
    const fine = await employees(5, good);
    const refused = await employees(2, small);
    expect((await grant([...fine, ...refused], [front.deviceKey!])).body.data.authorities).toBe(7);
    const first = await sync(`deviceKey=${front.deviceKey}&pageSize=2`);
    expect(first.items).toHaveLength(2);
    expect(first.counts.pending + first.counts.synced + first.counts.failed).toBe(7);

    const settled = await until(
      () => sync(`deviceKey=${front.deviceKey}&pageSize=2`),
      (page) => page.counts.pending === 0,
    );
    expect(settled.counts).toEqual({ pending: 0, synced: 5, failed: 2 });
    expect(await recount(`deviceKey=${front.deviceKey}`)).toEqual(settled.counts);

    // A person's counts cover every device holding them.
    await grant([fine[0]!], [side.deviceKey!]);
    const person = await until(() => sync(`personKey=${fine[0]}&pageSize=1`), (page) => page.counts.synced === 2);
    expect(person.items).toHaveLength(1);
    expect(person.counts).toEqual({ pending: 0, synced: 2, failed: 0 });

    // A revoked pair leaves the counts at once, as it leaves the list.
    const pair = (await sync(`personKey=${fine[1]}&deviceKey=${front.deviceKey}`)).items[0]!;
    expect((await call('DELETE', `/v1/authorities/${pair.authorityKey}?version=${pair.version}`, { token })).body.code).toBe(204);
    expect((await sync(`deviceKey=${front.deviceKey}&pageSize=1`)).counts).toEqual({ pending: 0, synced: 4, failed: 2 });

    // The whole company: both devices.
    expect((await sync('pageSize=1')).counts).toEqual({ pending: 0, synced: 5, failed: 2 });
  });

  it('retry all that failed sends every failed pair of the device again, beyond the page', async () => {
    const door = await device();
    const refused = await employees(3, small);
    await grant(refused, [door.deviceKey!]);
    const failed = await until(() => sync(`deviceKey=${door.deviceKey}&pageSize=1`), (page) => page.counts.failed === 3);
    const before = (await recount(`deviceKey=${door.deviceKey}`)).failed;
    expect(before).toBe(3);
    expect(failed.items).toHaveLength(1);
    const versions = new Map((await sync(`deviceKey=${door.deviceKey}&pageSize=200`)).items.map((i) => [i.authorityKey, i.version]));

    const retried = await call<{ resent: number; more: boolean }>('POST', '/v1/authorities/sync/retry', { token, body: { failedOf: { deviceKey: door.deviceKey } } });
    expect(retried.body.code).toBe(201);
    expect(retried.body.data).toEqual({ resent: 3, more: false });
    // Each was sent again (a new version), and the terminal refused each again.
    const again = await until(
      () => sync(`deviceKey=${door.deviceKey}&pageSize=200`),
      (page) => page.counts.failed === 3 && page.items.every((i) => i.version > versions.get(i.authorityKey)!),
    );
    expect(again.counts).toEqual({ pending: 0, synced: 0, failed: 3 });
  });

  it('stay exact under parallel grants of the same pairs and the terminal’s results', async () => {
    const gate = await device(false);
    const people = await employees(24, good);
    // Four grants at once, overlapping: 24 distinct pairs on one device.
    const parts = [people.slice(0, 12), people.slice(6, 18), people.slice(12, 24), people.slice(0, 24)];
    const answers = await Promise.all(parts.map((part) => grant(part, [gate.deviceKey!])));
    for (const answer of answers) expect(answer.body.code, answer.body.message).toBe(201);
    const pending = await sync(`deviceKey=${gate.deviceKey}&pageSize=5`);
    expect(pending.counts).toEqual({ pending: 24, synced: 0, failed: 0 });
    expect(await recount(`deviceKey=${gate.deviceKey}`)).toEqual(pending.counts);
    // The terminal comes online and reports while another grant of the same people lands.
    await Promise.all([gate.start(), grant(people.slice(0, 8), [gate.deviceKey!])]);
    const done = await until(() => sync(`deviceKey=${gate.deviceKey}&pageSize=5`), (page) => page.counts.synced === 24);
    expect(done.counts).toEqual({ pending: 0, synced: 24, failed: 0 });
    expect(await recount(`deviceKey=${gate.deviceKey}`)).toEqual(done.counts);
  });

  it('refuses a retry naming neither or both, and one list’s permission cannot retry the other', async () => {
    const before = await sync('pageSize=1');
    const neither = await call<{ issues: { path: string }[] }>('POST', '/v1/authorities/sync/retry', { token, body: {} });
    expect(neither.status).toBe(422);
    expect(neither.body.data.issues.map((i) => i.path)).toEqual(['authorityKeys']);
    const nobody = await call<{ issues: { path: string }[] }>('POST', '/v1/authorities/sync/retry', { token, body: { failedOf: {} } });
    expect(nobody.status).toBe(422);
    expect(nobody.body.data.issues.map((i) => i.path)).toEqual(['failedOf']);
    const both = await call('POST', '/v1/authorities/sync/retry', { token, body: { authorityKeys: [`0.${'a'.repeat(16)}.${'b'.repeat(16)}`], failedOf: { deviceKey: 'a'.repeat(16) } } });
    expect(both.status).toBe(422);

    const username = unique('blk');
    await createAccount(tenantId, { username, password: 'blacklist-pass-1', authCodes: ['pass:blacklist'] });
    const watcher = (await login(username, 'blacklist-pass-1')).token;
    const refused = await call('POST', '/v1/authorities/sync/retry', { token: watcher, body: { failedOf: { deviceKey: agents[0]!.deviceKey, setType: 0 } } });
    expect(refused.status).toBe(401);
    // Its own list has nothing failed; nothing of the pass list was sent again.
    const own = await call<{ resent: number }>('POST', '/v1/authorities/sync/retry', { token: watcher, body: { failedOf: { deviceKey: agents[0]!.deviceKey } } });
    expect(own.body.data.resent).toBe(0);
    expect((await sync('pageSize=1')).counts).toEqual(before.counts);
  });
});
