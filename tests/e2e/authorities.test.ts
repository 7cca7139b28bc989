/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { CapacityCheck } from '@passcloud/functions/contract/authorities';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole } from './support.ts';

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
const watch = (target: Page): Page =>
  watchConsole(target, (text, url) => {
    const status = /status of (\d{3})/.exec(text)?.[1];
    return !!status && !!url && expectedFailures.has(`${status} ${new URL(url).pathname}`);
  });

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
  owner = await newCompany();
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
    // Both rows are employees: the type is said once above the table, as a sentence rather than a filter's "Type: Employee".
    expect(await page.getByTestId('authority-folded').innerText()).toContain('Everyone on this page is an employee.');
    expect(await page.getByTestId('authority-folded').innerText()).not.toContain('Type:');
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
    // Reload closes the dialog and reads the list again; the next edit starts from that read.
    const reread = page.waitForResponse((answer) => answer.request().method() === 'GET' && new URL(answer.url()).pathname === '/v1/authorities');
    await page.getByTestId('validity-stale').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('validity-save').count()).toBe(0);
    await reread;

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

describe('a person on both lists of a device', () => {
  const CARL = 'Carl Watched';
  let carl: string;
  beforeAll(async () => {
    carl = (await employee(CARL, await photo())).employeeKey;
    const blacklisted = await call('POST', '/v1/authorities', { token, body: { setType: 1, personKeys: [carl], deviceKeys: [front.deviceKey], validity: { permanent: true } } });
    expect(blacklisted.body.code, blacklisted.body.message).toBe(201);
  });

  /** The pass authority wizard for Carl on the front terminal, up to the check before granting; answers the both-lists warning. */
  async function wizardUpToTheCheck(locale: string) {
    await page.evaluate((l) => localStorage.setItem('locale', l), locale);
    await page.goto(`${LIST}/setting`);
    await expect.poll(() => page.getByTestId('wizard-person-row').filter({ hasText: CARL }).count()).toBe(1);
    await pickPeople([CARL]);
    await page.getByTestId('wizard-next').click();
    await page.locator(`[data-testid=wizard-device-row][data-key="${front.deviceKey}"]`).getByRole('checkbox').check();
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-submit').click();
    const alert = page.getByTestId('both-lists-alert');
    await expect.poll(() => alert.isVisible()).toBe(true);
    // The dialog has finished fading in before anything is read or shot.
    await expect.poll(() => page.getByRole('dialog').evaluate((dialog) => getComputedStyle(dialog).opacity)).toBe('1');
    return alert;
  }

  it('warns in the wizard, naming the person, before the grant is confirmed', async () => {
    const alert = await wizardUpToTheCheck('en_US');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en-US');
    expect(await alert.innerText()).toContain('On both lists: the blacklist wins');
    expect(await alert.innerText()).toContain('These people are on the blacklist of the device.');
    expect(await alert.getByTestId('both-lists-row').innerText()).toBe(`${await deviceName(front)}: ${CARL}`);
    expect(await page.getByTestId('capacity-table').count()).toBe(0);
    await page.screenshot({ path: `${shots}/wizard-both-lists-en.png` });
    // Nothing is granted before it is confirmed.
    expect((await call<{ items: unknown[] }>('GET', `/v1/authorities?setType=0&personKey=${carl}`, { token })).body.data.items).toEqual([]);
    await page.getByTestId('capacity-continue').click();
    expect(await toastText(page)).toContain('Authorized: 1 authorization is on its way to the device');
    await page.waitForURL(`**${LIST}`);
  });

  it('shows both rows on the person’s and the device’s detail, each with its list, marked', async () => {
    await page.goto(`/pass-platform/enterprise/employee/${carl}`);
    const panel = page.getByTestId('sync-panel');
    const onFront = panel.locator(`[data-testid=sync-row][data-key$=".${front.deviceKey}"]`);
    await expect.poll(() => onFront.count()).toBe(2);
    const lists = () => onFront.getByTestId('sync-list').evaluateAll((badges) => badges.map((b) => `${b.getAttribute('data-list')}: ${b.textContent}`).sort());
    expect(await lists()).toEqual(['blacklist: Blacklist', 'pass: Pass authority']);
    await expect.poll(() => onFront.getByTestId('sync-both').count()).toBe(2);
    await expect.poll(() => panel.locator('[data-testid=sync-row][data-state=synced]').count(), { timeout: 20_000 }).toBe(2);
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/person-both-lists-en.png`, fullPage: true });

    await page.goto(`/pass-platform/device/management/${front.deviceKey}`);
    const devicePanel = page.getByTestId('sync-panel');
    const carlRows = devicePanel.locator(`[data-testid=sync-row][data-key*=".${carl}."]`);
    await expect.poll(() => carlRows.count()).toBe(2);
    await expect.poll(() => carlRows.getByTestId('sync-both').count()).toBe(2);
    // Ada and Ben hold pass authority only: no marker.
    expect(await devicePanel.getByTestId('sync-both').count()).toBe(2);
    expect(await devicePanel.getByTestId('sync-row').count()).toBe(4);
    await devicePanel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/device-both-lists-en.png` });
  });

  it('warns and marks in Chinese', async () => {
    const alert = await wizardUpToTheCheck('zh_CN');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await alert.innerText()).toContain('同时在两个名单中：黑名单优先');
    expect(await alert.innerText()).toContain('这些人员在该设备的黑名单中');
    expect(await alert.getByTestId('both-lists-row').innerText()).toBe(`${await deviceName(front)}: ${CARL}`);
    await page.screenshot({ path: `${shots}/wizard-both-lists-zh_CN.png` });
    await page.getByTestId('capacity-back').click();
    await expect.poll(() => page.getByTestId('wizard-devices').isVisible()).toBe(true);

    await page.goto(`/pass-platform/enterprise/employee/${carl}`);
    const onFront = page.locator(`[data-testid=sync-row][data-key$=".${front.deviceKey}"]`);
    await expect.poll(() => onFront.getByTestId('sync-both').count()).toBe(2);
    expect((await onFront.getByTestId('sync-list').allInnerTexts()).sort()).toEqual(['通行权限', '黑名单'].sort());
    expect(await onFront.getByTestId('sync-both').first().innerText()).toBe('同时在两个名单中');
    await page.getByTestId('sync-panel').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shots}/person-both-lists-zh_CN.png`, fullPage: true });
  });

  it('marks a blacklist record the terminal reported as passed', async () => {
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    const through = newPassRecord({ personKey: carl, name: CARL, passState: 'passed' });
    front.records.add(through);
    await expect
      .poll(async () => (await call<{ items: { recordKey: string }[] }>('GET', '/v1/blacklistRecords?pageSize=100', { token })).body.data.items.map((r) => r.recordKey))
      .toContain(`${front.deviceKey}.${through.recordId}`);
    await page.goto('/pass-platform/passage/blacklist/record');
    const row = page.getByTestId('record-row').filter({ hasText: CARL });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByTestId('record-violation').textContent()).toBe('Let through despite the blacklist');
    await page.screenshot({ path: `${shots}/blacklist-record-violation-en.png` });
  });
});

describe('a device’s sync panel', () => {
  it('counts every face of the device, not the page shown, and retries all that failed', async () => {
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    const door = await terminal('AUD');
    // More people without a photo than the panel shows on a page (20): each fails on the terminal.
    const keys: string[] = [];
    for (let i = 0; i < 22; i++) keys.push((await employee(`Nophoto ${String(i).padStart(2, '0')}`)).employeeKey);
    const granted = await call('POST', '/v1/authorities', { token, body: { setType: 0, personKeys: keys, deviceKeys: [door.deviceKey], validity: { permanent: true } } });
    expect(granted.body.code, granted.body.message).toBe(201);
    type Sync = { items: { authorityKey: string; version: number; syncState: string }[]; counts: Record<string, number> };
    const all = () => call<Sync>('GET', `/v1/authorities/sync?deviceKey=${door.deviceKey}&pageSize=200`, { token });
    await expect.poll(async () => (await all()).body.data.counts.failed, { timeout: 20_000 }).toBe(22);
    const versions = new Map((await all()).body.data.items.map((i) => [i.authorityKey, i.version]));

    await page.goto(`/pass-platform/device/management/${door.deviceKey}`);
    const panel = page.getByTestId('sync-panel');
    await expect.poll(async () => (await panel.getByTestId('sync-count-failed').innerText()).toLowerCase()).toBe('sync failed 22');
    expect(await panel.getByTestId('sync-table').locator('tbody tr').count()).toBe(20);
    await panel.screenshot({ path: `${shots}/device-sync-panel-en.png` });
    await panel.getByTestId('sync-retry-all').click();
    await expect.poll(() => toastText(page)).toBe('Sent to the devices again');
    // Every one was sent again (a new version), the two beyond the page too, and failed again.
    await expect
      .poll(async () => {
        const data = (await all()).body.data;
        return data.counts.failed === 22 && data.items.every((i) => i.version > versions.get(i.authorityKey)!);
      }, { timeout: 20_000 })
      .toBe(true);
  });
});
