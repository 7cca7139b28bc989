import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { CaptureFeed, DashboardView } from '@passcloud/functions/contract/dashboard';
import type { PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { devices } from '@passcloud/functions/data/devices';
import { createAccount } from '@passcloud/functions/data/identity';
import { tenants } from '@passcloud/functions/data/tenants';
import { addDays, dayOf, startOfDay } from '@passcloud/functions/domain/time';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { until } from '../support/wait.ts';

/**
 * The dashboard's figures (GET /v1/dashboard) come from counters in the company's time zone: today,
 * this month and the last 10 days, the devices and the people; the capture feed is the newest passes.
 */

const ZONE = 'Asia/Tokyo';
let token: string;
let tenantId: string;
let device: DeviceAgent;
let employeeKey: string;
let visitorKey: string;

async function person(kind: 'employees' | 'visitors', name: string): Promise<string> {
  const group = await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: `${name} group`, type: kind === 'employees' ? 'employee' : 'visitor' } });
  const answer = await call<{ employeeKey?: string; visitorKey?: string }>('POST', `/v1/${kind}`, {
    token,
    body: { personId: unique('D'), name, role: 'Staff', gender: 'female', groupKey: group.body.data.groupKey },
  });
  expect(answer.body.code).toBe(201);
  return (answer.body.data.employeeKey ?? answer.body.data.visitorKey)!;
}

const dashboard = async (as = token) => call<DashboardView>('GET', '/v1/dashboard', { token: as });

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await tenants().patch({ tenantId }).set({ timezone: ZONE }).go();
  await grantSeats(token, 2);
  device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('DB').toUpperCase(), 1), heartbeatMs: 60_000 });
  await device.start();
  employeeKey = await person('employees', 'Dana Desk');
  visitorKey = await person('visitors', 'Vera Visit');
});

afterAll(async () => {
  await device?.stop();
});

describe('the dashboard', () => {
  it('starts at zero for a new company, with its devices and people, and ten empty days ending today in its zone', async () => {
    const answer = await dashboard();
    expect(answer.status).toBe(200);
    const today = dayOf(new Date(), ZONE);
    expect(answer.body.data).toMatchObject({
      timezone: ZONE,
      today,
      todayCounts: { total: 0, fever: 0, stranger: 0, blacklist: 0 },
      month: { total: 0, stranger: 0 },
      devices: { total: 1, online: 1, offline: 0 },
      users: { employees: 1, visitors: 1, total: 2 },
    });
    expect(answer.body.data.days.map((d) => d.day)).toEqual(Array.from({ length: 10 }, (_, i) => addDays(today, i - 9)));
    expect(answer.body.data.days.every((d) => d.total === 0)).toBe(true);
  });

  it('counts today, the month and each of the ten days by the company’s calendar, and feeds the newest captures', async () => {
    const now = Date.now();
    const today = dayOf(new Date(now), ZONE);
    // The first minute of today in Tokyo is still yesterday in UTC: it counts as today.
    const earlyToday = Math.min(now, startOfDay(today, ZONE).getTime() + 60_000);
    const threeDaysAgo = now - 3 * 86_400_000;
    const records = [
      newPassRecord({ personKey: employeeKey, name: 'Dana Desk', temperature: 36.6, verifyTime: earlyToday }),
      newPassRecord({ personKey: employeeKey, name: 'Dana Desk', temperature: 38.2, passState: 'refused', verifyTime: now - 2000 }),
      newPassRecord({ personKey: visitorKey, name: 'Vera Visit', temperature: 36.4, verifyTime: now - 1000 }),
      newPassRecord({ passState: 'refused', verifyTime: now }),
      newPassRecord({ personKey: employeeKey, name: 'Dana Desk', verifyTime: threeDaysAgo }),
    ];
    for (const record of records) device.records.add(record);
    await until(
      async () => (await call<PassRecordPage>('GET', `/v1/passRecords?pageSize=50&from=${addDays(today, -5)}&to=${today}`, { token })).body.data.items,
      (items) => items.length === records.length,
    );

    const view = (await dashboard()).body.data;
    expect(view.todayCounts).toEqual({ total: 4, passed: 2, refused: 2, normal: 2, fever: 1, employee: 2, visitor: 1, stranger: 1, blacklist: 0 });
    expect(view.days.at(-1)).toEqual({ day: today, total: 4, stranger: 1, fever: 1 });
    const before = dayOf(new Date(threeDaysAgo), ZONE);
    expect(view.days.find((d) => d.day === before)).toEqual({ day: before, total: 1, stranger: 0, fever: 0 });
    expect(view.days.reduce((sum, d) => sum + d.total, 0)).toBe(5);
    expect(view.month).toEqual({ total: before.slice(0, 7) === today.slice(0, 7) ? 5 : 4, stranger: 1 });

    const feed = await call<CaptureFeed>('GET', '/v1/dashboard/captures', { token });
    expect(feed.status).toBe(200);
    expect(feed.body.data.items.map((r) => r.verifyTime)).toEqual([...feed.body.data.items.map((r) => r.verifyTime)].sort().reverse());
    expect(feed.body.data.items[0]).toMatchObject({ type: 'stranger', deviceKey: device.deviceKey });
    expect(feed.body.data.items).toHaveLength(5);

    // The terminal delivers the same records again (its ack was lost): nothing counts twice.
    for (const record of records) device.records.add(record);
    await until(
      () => device.records.pending,
      (pending) => pending === 0,
    );
    const again = (await dashboard()).body.data;
    expect(again.todayCounts).toEqual(view.todayCounts);
    expect(again.days).toEqual(view.days);
    expect(again.month).toEqual(view.month);
    expect((await call<CaptureFeed>('GET', '/v1/dashboard/captures', { token })).body.data.items).toHaveLength(5);
  });

  it('tells the faces waiting for and refused by the terminals, per list, as the authority lists count them', async () => {
    const before = (await dashboard()).body.data;
    expect(before.sync).toEqual({ authority: { pending: 0, failed: 0 }, blacklist: { pending: 0, failed: 0 } });
    const group = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Synced '), type: 'employee' } })).body.data.groupKey;
    const photo = async (width: number, height: number) => {
      const form = new FormData();
      form.set('kind', 'avatar');
      form.set('file', new Blob([new Uint8Array(makePng(width, height))]), 'face.png');
      return (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
    };
    const hire = async (name: string, avatar: string) =>
      (await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('S'), name, role: 'Staff', gender: 'male', groupKey: group, avatar } })).body.data.employeeKey;
    // Smaller than the terminal's 640 × 480: refused there.
    const [fine, blurry, watched] = [await hire('Fine Face', await photo(800, 600)), await hire('Small Face', await photo(320, 240)), await hire('Watched Face', await photo(320, 240))];
    const grant = async (setType: 0 | 1, personKeys: string[]) =>
      expect((await call('POST', '/v1/authorities', { token, body: { setType, personKeys, deviceKeys: [device.deviceKey], validity: { permanent: true } } })).body.code).toBe(201);
    await grant(0, [fine, blurry]);
    await grant(1, [watched]);
    const settled = await until(
      async () => (await dashboard()).body.data.sync,
      (sync) => sync.authority.pending === 0 && sync.blacklist.pending === 0,
    );
    expect(settled).toEqual({ authority: { pending: 0, failed: 1 }, blacklist: { pending: 0, failed: 1 } });
    const listed = (await call<{ counts: Record<string, number> }>('GET', '/v1/authorities/sync?pageSize=1&setType=0', { token })).body.data.counts;
    expect(listed.failed).toBe(1);
  });

  it('counts a device that went away as offline, and lists it with since when once it has been gone an hour', async () => {
    await device.stop();
    await until(
      async () => (await dashboard()).body.data.devices,
      (devices) => devices.offline === 1,
    );
    const now = (await dashboard()).body.data;
    expect(now.devices).toEqual({ total: 1, online: 0, offline: 1 });
    // Gone a moment ago: not yet worth a line.
    expect(now.offline).toEqual({ count: 0, devices: [] });
    // The broker saw it leave 61 minutes ago.
    const left = Date.now() - 61 * 60_000;
    await devices().patch({ tenantId, deviceKey: device.deviceKey! }).set({ presenceAt: left }).go();
    expect((await dashboard()).body.data.offline).toEqual({ count: 1, devices: [{ deviceKey: device.deviceKey, name: expect.any(String), since: new Date(left).toISOString() }] });
  });

  it('is refused to an account without the dashboard permission, and to no session', async () => {
    const username = unique('nodash');
    await createAccount(tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:record'], nickname: 'Records only' });
    const other = (await login(username, 'Str0ng!Passw0rd')).token;
    // As everywhere in the console: 401 for a permission the account lacks, 403 without a session (SPEC.md §8).
    expect((await dashboard(other)).status).toBe(401);
    expect((await call('GET', '/v1/dashboard/captures', { token: other })).status).toBe(401);
    expect((await call('GET', '/v1/dashboard')).status).toBe(403);
  });
});

describe('the first steps of a company', () => {
  it('are each done or not from the company’s own data: a terminal, people, an authorization, a pass', async () => {
    const owner = await newCompany();
    const own = (await login(owner.username, owner.password)).token;
    const steps = async () => (await dashboard(own)).body.data.gettingStarted;
    expect(await steps()).toEqual({ terminal: false, people: false, authorized: false, pass: false });

    await grantSeats(own, 1);
    const terminal = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('GS').toUpperCase(), 1), heartbeatMs: 60_000 });
    await terminal.start();
    try {
      expect(await steps()).toEqual({ terminal: true, people: false, authorized: false, pass: false });

      const group = await call<{ groupKey: string }>('POST', '/v1/groups', { token: own, body: { name: 'First staff', type: 'employee' } });
      const hired = await call<{ employeeKey: string }>('POST', '/v1/employees', {
        token: own,
        body: { personId: unique('G'), name: 'Gil First', role: 'Staff', gender: 'male', groupKey: group.body.data.groupKey },
      });
      expect(await steps()).toEqual({ terminal: true, people: true, authorized: false, pass: false });

      const granted = await call('POST', '/v1/authorities', {
        token: own,
        body: { setType: 0, personKeys: [hired.body.data.employeeKey], deviceKeys: [terminal.deviceKey], validity: { permanent: true } },
      });
      expect(granted.body.code).toBe(201);
      expect(await steps()).toEqual({ terminal: true, people: true, authorized: true, pass: false });

      terminal.records.add(newPassRecord({ verifyTime: Date.now() }));
      expect(await until(steps, (s) => s.pass)).toEqual({ terminal: true, people: true, authorized: true, pass: true });
    } finally {
      await terminal.stop();
    }
  });
});

