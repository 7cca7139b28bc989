/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { CapacityCheck } from '@passcloud/functions/contract/authorities';
import { launchBrowser } from '../support/browser.ts';
import { call, login, registerTenant, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, toastText } from './support.ts';

/**
 * Pass authority in the console: the three-step wizard against simulated terminals that pull
 * their face changes and report synced or failed; the sync state with its reason on the list,
 * on the person's detail and on the device's detail; retrying after a photo is added; cancel and
 * back in the wizard; the warning before a grant overfills a device.
 */

let browser: Browser;
let page: Page;
let owner: { username: string; password: string; userCode: string };
let token: string;
let groupKey: string;
const agents: DeviceAgent[] = [];
let front: DeviceAgent;
let small: DeviceAgent;
const people: Record<'ada' | 'ben', { employeeKey: string; version: number }> = {} as never;
const ADA = 'Ada Photo';
const BEN = 'Ben Nophoto';
const shots = join(shotDir, 'authorities');

/** Requests a test makes fail on purpose, as "<status> <path>"; the browser logs them as errors. */
const expectedFailures = new Set<string>();
const expectFailure = (failure: string) => expectedFailures.add(failure);

/** Console errors fail the test as page errors do, but for the failures the test provokes. */
function watch(target: Page): Page {
  target.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(message.text())?.[1];
    const url = message.location().url;
    if (status && url && expectedFailures.has(`${status} ${new URL(url).pathname}`)) return;
    pageErrors.push(`console: ${message.text()}`);
  });
  return target;
}

async function photo(): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(800, 600))]), 'face.png');
  const upload = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
  expect(upload.body.code, upload.body.message).toBe(201);
  return upload.body.data.fileKey;
}

async function employee(name: string, avatar?: string): Promise<{ employeeKey: string; version: number }> {
  const answer = await call<{ employeeKey: string; version: number }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('A'), name, role: 'Staff', gender: 'female', groupKey, ...(avatar ? { avatar } : {}) },
  });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data;
}

async function terminal(prefix: string, faceCapacity?: number): Promise<DeviceAgent> {
  const agent = new DeviceAgent({ apiUrl: base(), userCode: owner.userCode, info: simulatedInfo(unique(prefix).toUpperCase(), 1), heartbeatMs: 60_000, ...(faceCapacity ? { faceCapacity } : {}) });
  agents.push(agent);
  await agent.start();
  return agent;
}

const deviceName = async (agent: DeviceAgent) => (await call<{ name: string }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.name;

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  owner = await registerTenant();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Reception', type: 'employee' } })).body.data.groupKey;
  people.ada = await employee(ADA, await photo());
  people.ben = await employee(BEN);
  front = await terminal('AUF');
  small = await terminal('AUS', 1);
  // The small terminal has told the cloud it holds one face at most.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const check = await call<CapacityCheck>('POST', '/v1/authorities/check', { token, body: { setType: 0, personKeys: [people.ada.employeeKey], deviceKeys: [small.deviceKey] } });
    if (check.body.data.devices?.[0]?.capacity === 1) break;
    if (Date.now() > deadline) throw new Error(`the small terminal has not reported its capacity: ${JSON.stringify(check.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }

  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  watch(page);
  await loginInBrowser(page, owner.username, owner.password);
  // One session per account: the console's login ended the API one, so the tests go on with the console's.
  token = (await page.evaluate(() => localStorage.getItem('token')))!;
});
afterAll(async () => {
  await browser?.close();
  await Promise.allSettled(agents.map((a) => a.stop()));
});
afterEach(() => {
  expectedFailures.clear();
  expect(pageErrors.splice(0)).toEqual([]);
});

const LIST = '/pass-platform/passage/authority';
const rows = () => page.getByTestId('authority-row');
const row = (name: string, deviceKey: string) => rows().filter({ hasText: name }).and(page.locator(`[data-key$=".${deviceKey}"]`));

async function pickPeople(names: string[]): Promise<void> {
  for (const name of names) await page.getByTestId('wizard-person-row').filter({ hasText: name }).getByRole('checkbox').check();
}

describe('the authorization wizard', () => {
  it('grants two employees on a device; the one with a photo syncs, the other fails for want of one', async () => {
    await page.goto(LIST);
    await expect.poll(() => page.getByTestId('authority-empty').isVisible()).toBe(true);
    await page.screenshot({ path: `${shots}/list-empty-en.png` });
    await page.getByTestId('authority-add').click();
    await page.waitForURL(`**${LIST}/setting`);

    // Nothing chosen: Next is off, and says why.
    await expect.poll(() => page.getByTestId('wizard-person-row').count()).toBe(2);
    expect(await page.getByTestId('wizard-next').isDisabled()).toBe(true);
    expect(await page.getByTestId('wizard-blocked').innerText()).toBe('Choose at least one person, group or department');
    await pickPeople([ADA, BEN]);
    expect(await page.getByTestId('wizard-summary').innerText()).toMatch(/People: 2\b/);
    expect(await page.getByTestId('wizard-person-row').filter({ hasText: BEN }).innerText()).toContain('No face photo');
    await page.screenshot({ path: `${shots}/wizard-1-people-en.png` });
    await page.getByTestId('wizard-next').click();

    await expect.poll(() => page.getByTestId('wizard-device-row').count()).toBe(2);
    expect(await page.getByTestId('wizard-next').isDisabled()).toBe(true);
    const device = page.locator(`[data-testid=wizard-device-row][data-key="${front.deviceKey}"]`);
    expect(await device.getByTestId('online-badge').getAttribute('data-online')).toBe('true');
    await device.getByRole('checkbox').check();
    await page.screenshot({ path: `${shots}/wizard-2-devices-en.png` });
    await page.getByTestId('wizard-next').click();

    await expect.poll(() => page.getByTestId('wizard-validity').isVisible()).toBe(true);
    expect(await page.getByTestId('validity-permanent').isChecked()).toBe(true);
    await page.screenshot({ path: `${shots}/wizard-3-validity-en.png` });
    await page.getByTestId('wizard-submit').click();
    expect(await toastText(page)).toContain('Authorized: 2 authorizations are on their way to the devices');
    await page.waitForURL(`**${LIST}`);

    await expect.poll(() => rows().count()).toBe(2);
    // Pending rows are read again every few seconds until the device has answered.
    await expect.poll(() => row(ADA, front.deviceKey!).getAttribute('data-state'), { timeout: 20_000 }).toBe('synced');
    await expect.poll(() => row(BEN, front.deviceKey!).getAttribute('data-state'), { timeout: 20_000 }).toBe('failed');
    expect(await row(BEN, front.deviceKey!).getByTestId('sync-reason').innerText()).toBe('No face photo');
    expect(await row(ADA, front.deviceKey!).getByTestId('validity').innerText()).toMatch(/Permanent\s*In effect/i);
    expect(await row(ADA, front.deviceKey!).innerText()).toContain('Employee');
    await page.screenshot({ path: `${shots}/list-en.png` });

    // Filters: failed ones only.
    await page.getByTestId('authority-state').click();
    await page.getByRole('option', { name: 'Sync failed', exact: true }).click();
    await page.getByTestId('authority-search').click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().innerText()).toContain(BEN);
    await page.getByTestId('authority-reset').click();
    await expect.poll(() => rows().count()).toBe(2);
  });

  it('shows the failure with its reason on the person’s detail and syncs once a photo is added', async () => {
    await page.goto(`/pass-platform/enterprise/employee/${people.ben.employeeKey}`);
    const panel = page.getByTestId('sync-panel');
    const syncRow = panel.locator(`[data-testid=sync-row][data-key$=".${front.deviceKey}"]`);
    await expect.poll(() => syncRow.getAttribute('data-state')).toBe('failed');
    expect(await syncRow.getByTestId('sync-reason').innerText()).toBe('No face photo');
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/person-panel-failed-en.png`, fullPage: true });

    // A retry alone cannot help while the photo is missing: the device refuses again.
    await syncRow.getByTestId('sync-retry').click();
    await expect.poll(() => toastText(page)).toBe('Sent to the devices again');
    await expect.poll(() => syncRow.getAttribute('data-state'), { timeout: 20_000 }).toBe('failed');

    // The photo arrives (through the API, as an import would add it); the panel is refreshed and retried until synced.
    const patched = await call('PATCH', `/v1/employees/${people.ben.employeeKey}`, { token, body: { avatar: await photo(), version: people.ben.version } });
    expect(patched.body.code, patched.body.message).toBe(201);
    await expect
      .poll(
        async () => {
          if ((await syncRow.getAttribute('data-state')) === 'failed') await syncRow.getByTestId('sync-retry').click();
          else await panel.getByTestId('sync-refresh').click();
          return syncRow.getAttribute('data-state');
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toBe('synced');
    expect(await syncRow.getByTestId('sync-reason').count()).toBe(0);
    await page.screenshot({ path: `${shots}/person-panel-synced-en.png`, fullPage: true });

    // The device's detail lists both faces, synced.
    await page.goto(`/pass-platform/device/management/${front.deviceKey}`);
    const devicePanel = page.getByTestId('sync-panel');
    await expect.poll(() => devicePanel.getByTestId('sync-row').count()).toBe(2);
    await expect.poll(() => devicePanel.locator('[data-testid=sync-row][data-state=synced]').count()).toBe(2);
    expect(await devicePanel.innerText()).toContain(ADA);
    await devicePanel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/device-panel-en.png` });
  });

  it('goes back and cancels without granting, and warns before a grant overfills a device', async () => {
    await page.goto(`${LIST}/setting`);
    await expect.poll(() => page.getByTestId('wizard-person-row').count()).toBe(2);
    await pickPeople([ADA]);
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-back').click();
    // The choice survives going back.
    await expect.poll(() => page.getByTestId('wizard-person-row').filter({ hasText: ADA }).getByRole('checkbox').isChecked()).toBe(true);
    expect(await page.getByTestId('wizard-summary').innerText()).toMatch(/People: 1\b/);
    await page.getByTestId('wizard-cancel').click();
    await page.waitForURL(`**${LIST}`);
    await expect.poll(() => rows().count()).toBe(2);

    // Two people on a terminal that holds one face.
    await page.getByTestId('authority-add').click();
    await expect.poll(() => page.getByTestId('wizard-person-row').count()).toBe(2);
    await pickPeople([ADA, BEN]);
    await page.getByTestId('wizard-next').click();
    await page.locator(`[data-testid=wizard-device-row][data-key="${small.deviceKey}"]`).getByRole('checkbox').check();
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-submit').click();
    const modal = page.getByRole('dialog');
    await expect.poll(() => page.getByTestId('capacity-row').count()).toBe(1);
    const smallName = await deviceName(small);
    expect(await page.getByTestId('capacity-row').innerText()).toMatch(new RegExp(`${smallName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+0\\s+2\\s+1`));
    await page.screenshot({ path: `${shots}/wizard-capacity-en.png` });

    // Back to the devices; nothing was granted.
    await page.getByTestId('capacity-back').click();
    await expect.poll(() => page.getByTestId('wizard-devices').isVisible()).toBe(true);
    await expect.poll(() => modal.count()).toBe(0);
    expect((await call<{ items: unknown[] }>('GET', `/v1/authorities?deviceKey=${small.deviceKey}`, { token })).body.data.items).toEqual([]);

    // Going on grants anyway; the face beyond the capacity fails with its reason.
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-submit').click();
    await page.getByTestId('capacity-continue').click();
    await page.waitForURL(`**${LIST}`);
    await expect.poll(() => rows().count()).toBe(4);
    await expect
      .poll(
        async () =>
          (await Promise.all([ADA, BEN].map((name) => row(name, small.deviceKey!).getAttribute('data-state')))).sort().join(),
        { timeout: 20_000 },
      )
      .toBe('failed,synced');
    const full = page.locator(`[data-testid=authority-row][data-key$=".${small.deviceKey}"][data-state=failed]`);
    expect(await full.getByTestId('sync-reason').innerText()).toBe("The device's face library is full");

    // Removing one asks first, then frees the device.
    await full.getByTestId('authority-actions').click();
    await page.getByTestId('action-remove').click();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    // The grant's toast may still be up; the newest one replaces it.
    await expect.poll(() => toastText(page)).toBe('Removed');
    await expect.poll(() => rows().count()).toBe(3);
  });

  it('changes a validity, and says so when someone else changed it first', async () => {
    const ada = row(ADA, front.deviceKey!);
    await ada.getByTestId('authority-actions').click();
    await page.getByTestId('action-edit').click();
    await expect.poll(() => page.getByTestId('validity-save').isVisible()).toBe(true);
    // Meanwhile, someone else changes it.
    const current = (await call<{ items: { authorityKey: string; version: number }[] }>('GET', `/v1/authorities?personKey=${people.ada.employeeKey}&deviceKey=${front.deviceKey}`, { token })).body.data.items[0]!;
    const other = await call('PATCH', `/v1/authorities/${current.authorityKey}`, { token, body: { validity: { permanent: true }, version: current.version } });
    expect(other.body.code, other.body.message).toBe(201);
    expectFailure(`409 /v1/authorities/${current.authorityKey}`);
    await page.getByTestId('validity-save').click();
    await expect.poll(() => page.getByTestId('validity-stale').isVisible()).toBe(true);
    await page.screenshot({ path: `${shots}/validity-stale-en.png` });
    await page.getByTestId('validity-stale').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('validity-save').count()).toBe(0);

    // Read again, the change goes through and the device gets it.
    await ada.getByTestId('authority-actions').click();
    await page.getByTestId('action-edit').click();
    await page.getByTestId('validity-save').click();
    await expect.poll(() => toastText(page)).toBe('Saved');
    await expect.poll(() => ada.getAttribute('data-state'), { timeout: 20_000 }).toBe('synced');
  });

  it('has a blacklist of its own', async () => {
    await page.goto('/pass-platform/passage/blacklist/monitoring');
    await expect.poll(() => page.getByTestId('authority-empty').isVisible()).toBe(true);
    expect(await page.getByTestId('authority-add').innerText()).toBe('Add to blacklist');
    await page.getByTestId('authority-add').click();
    await page.waitForURL('**/pass-platform/passage/blacklist/monitoring/setting');
    await expect.poll(() => page.getByTestId('wizard-stepper').innerText()).toContain('Who to watch for');
    await page.getByTestId('wizard-cancel').click();
    await page.waitForURL('**/pass-platform/passage/blacklist/monitoring');
  });
});

describe('in Chinese', () => {
  it('shows the list, the wizard and the panel translated', async () => {
    // The same session, the language switched as the language menu does (it is kept in local storage).
    const zh = page;
    await zh.evaluate(() => localStorage.setItem('locale', 'zh_CN'));
    await zh.goto(LIST);
    await expect.poll(() => zh.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await expect.poll(() => zh.getByTestId('authority-row').count()).toBe(3);
    expect(await zh.getByTestId('authority-table').innerText()).toContain('同步状态');
    await zh.screenshot({ path: `${shots}/list-zh_CN.png` });
    await zh.getByTestId('authority-add').click();
    await expect.poll(() => zh.getByTestId('wizard-person-row').count()).toBe(2);
    expect(await zh.getByTestId('wizard-blocked').innerText()).toBe('请至少选择一个人员、分组或部门');
    await zh.getByTestId('wizard-person-row').first().getByRole('checkbox').check();
    await zh.screenshot({ path: `${shots}/wizard-1-people-zh_CN.png` });
    await zh.getByTestId('wizard-next').click();
    await zh.locator(`[data-testid=wizard-device-row][data-key="${front.deviceKey}"]`).getByRole('checkbox').check();
    await zh.screenshot({ path: `${shots}/wizard-2-devices-zh_CN.png` });
    await zh.getByTestId('wizard-next').click();
    await zh.getByTestId('validity-period').check();
    await zh.screenshot({ path: `${shots}/wizard-3-validity-zh_CN.png` });
    // A period without its days is refused on the field, before anything is sent.
    await zh.getByTestId('wizard-submit').click();
    await expect.poll(() => zh.getByTestId('wizard-validity').innerText()).toContain('请选择开始和结束日期');
    await zh.getByTestId('wizard-cancel').click();

    await zh.goto(`/pass-platform/enterprise/employee/${people.ben.employeeKey}`);
    await expect.poll(() => zh.getByTestId('sync-row').count()).toBeGreaterThan(0);
    expect(await zh.getByTestId('sync-panel').innerText()).toContain('人脸同步到设备');
    await zh.getByTestId('sync-panel').scrollIntoViewIfNeeded();
    await zh.screenshot({ path: `${shots}/person-panel-zh_CN.png`, fullPage: true });
  });
});
