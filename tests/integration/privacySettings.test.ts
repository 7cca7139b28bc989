import '../support/localEnv.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { findCommand } from '@passcloud/functions/data/deviceEvents';
import { privacySettings } from '@passcloud/functions/data/settings';
import { sweepRetention } from '@passcloud/functions/jobs/retention';
import { objectExists, putObject } from '@passcloud/functions/lib/storage';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

interface Privacy {
  saveTemperature: boolean;
  savePhotos: boolean;
  saveVisitorName: boolean;
  retentionDays: { passRecords: number; captures: number; recordings: number };
  version: number;
}
type Issues = { issues: { path: string; message: string }[] };

const DAY = 86_400;
let token: string;
let tenantId: string;
let userCode: string;
let otherTenantId: string;
const agents: DeviceAgent[] = [];

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  await grantSeats(token, 5);
  const other = await newCompany();
  const otherToken = (await login(other.username, other.password)).token;
  otherTenantId = otherToken.slice(0, otherToken.indexOf('.'));
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

const read = async () => (await call<Privacy>('GET', '/v1/settings/privacy', { token })).body.data;
const save = (body: unknown, locale?: string) => call<Privacy & Issues>('PUT', '/v1/settings/privacy', { token, body, confirm: true, ...(locale ? { locale } : {}) });

describe('privacy settings', () => {
  it('starts with the defaults, saves the whole set with its version, and refuses a stale version', async () => {
    const first = await read();
    expect(first).toEqual({
      saveTemperature: true,
      savePhotos: true,
      saveVisitorName: true,
      retentionDays: { passRecords: 180, captures: 90, recordings: 180 },
      version: 1,
    });
    const changed = { saveTemperature: false, savePhotos: true, saveVisitorName: false, retentionDays: { passRecords: 365, captures: 30, recordings: 60 } };
    const saved = await save({ ...changed, version: 1 });
    expect(saved.body.code).toBe(201);
    expect(saved.body.data).toEqual({ ...changed, version: 2 });
    expect(await read()).toEqual({ ...changed, version: 2 });
    // What other code reads at write time.
    expect(await privacySettings(tenantId)).toEqual(changed);

    const stale = await save({ ...changed, saveTemperature: true, version: 1 });
    expect(stale.body.code).toBe(409);
    expect((await read()).saveTemperature).toBe(false);
  });

  it('names each field out of bounds and changes nothing', async () => {
    const before = await read();
    const bad = await save({ ...before, retentionDays: { passRecords: 0, captures: 181, recordings: 366 } });
    expect(bad.body.code).toBe(422);
    const paths = bad.body.data.issues.map((i) => i.path).sort();
    expect(paths).toEqual(['retentionDays.captures', 'retentionDays.passRecords', 'retentionDays.recordings']);
    expect(bad.body.message).toContain('Capture photo retention (days)');
    const notBoolean = await save({ ...before, savePhotos: 'yes' });
    expect(notBoolean.body.code).toBe(422);
    expect(notBoolean.body.data.issues[0]).toMatchObject({ path: 'savePhotos' });
    expect(await read()).toEqual(before);
  });

  it('applies the capture retention at write time: a photo command written after a change expires with it', async () => {
    const device = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('P').toUpperCase(), 1), heartbeatMs: 60_000 });
    agents.push(device);
    await device.start();
    const deviceKey = device.deviceKey!;
    for (let i = 0; i < 100 && !(await call<{ online: boolean }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data.online; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const issue = async () => {
      const answer = await call<{ commandKey: string }>('POST', `/v1/devices/${deviceKey}/commands`, { token, body: { type: 'capturePhoto' } });
      expect(answer.body.code).toBe(202);
      const command = await findCommand(tenantId, deviceKey, answer.body.data.commandKey);
      return command!.ttl - Math.floor(Date.now() / 1000);
    };
    const current = await read();
    await save({ ...current, retentionDays: { ...current.retentionDays, captures: 2 } });
    expect(Math.abs((await issue()) - 2 * DAY)).toBeLessThan(120);
    const again = await read();
    await save({ ...again, retentionDays: { ...again.retentionDays, captures: 20 } });
    expect(Math.abs((await issue()) - 20 * DAY)).toBeLessThan(120);
  });

  it('the retention sweep deletes a company’s captures older than its own period, and no other company’s', async () => {
    const current = await read();
    await save({ ...current, retentionDays: { ...current.retentionDays, captures: 3 } });
    const mine = `capture/sweep/${unique('c')}.jpg`;
    const theirs = `capture/sweep/${unique('c')}.jpg`;
    await putObject('captures', tenantId, mine, Buffer.from('jpeg'), 'image/jpeg');
    await putObject('captures', otherTenantId, theirs, Buffer.from('jpeg'), 'image/jpeg');
    // Two days on: within both periods.
    await sweepRetention(Date.now() + 2 * DAY * 1000, [tenantId, otherTenantId]);
    expect(await objectExists('captures', tenantId, mine)).toBe(true);
    // Four days on: past this company's 3 days, within the other's default 90. A sweep of days to
    // come is kept to these two companies: other files' companies are in the host at the same time.
    await sweepRetention(Date.now() + 4 * DAY * 1000, [tenantId, otherTenantId]);
    expect(await objectExists('captures', tenantId, mine)).toBe(false);
    expect(await objectExists('captures', otherTenantId, theirs)).toBe(true);
  });

  it('the retention sweep deletes whole days past the period by their folder, and keeps later days without reading them', async () => {
    const current = await read();
    await save({ ...current, retentionDays: { ...current.retentionDays, captures: 3 } });
    const day = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10);
    const old = `capture/${day(30 * DAY * 1000)}/sweepdevice/${unique('o')}.jpg`;
    const fresh = `capture/${day(0)}/sweepdevice/${unique('f')}.jpg`;
    const theirs = `capture/${day(30 * DAY * 1000)}/sweepdevice/${unique('t')}.jpg`;
    await putObject('captures', tenantId, old, Buffer.from('jpeg'), 'image/jpeg');
    await putObject('captures', tenantId, fresh, Buffer.from('jpeg'), 'image/jpeg');
    await putObject('captures', otherTenantId, theirs, Buffer.from('jpeg'), 'image/jpeg');
    const [captures] = await sweepRetention();
    // The old day went by its folder's name (the object itself was written just now).
    expect(await objectExists('captures', tenantId, old)).toBe(false);
    expect(await objectExists('captures', tenantId, fresh)).toBe(true);
    // The other company keeps 90 days.
    expect(await objectExists('captures', otherTenantId, theirs)).toBe(true);
    expect(captures!.deleted).toBeGreaterThanOrEqual(1);
    // Four days on, today's folder is wholly past this company's 3 days.
    await sweepRetention(Date.now() + 4 * DAY * 1000, [tenantId, otherTenantId]);
    expect(await objectExists('captures', tenantId, fresh)).toBe(false);
  });
});
