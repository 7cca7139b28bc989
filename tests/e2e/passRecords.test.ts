/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { captureJpeg, newPassRecord } from '@passcloud/device-shadow/records';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { avatarOf, delivered, employeeWith, made } from '../support/people.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { TAGLINE, base, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

let browser: Browser;
let page: Page;
let fleet: Fleet;
let agent: DeviceAgent;
let owner: { username: string; password: string; userCode: string };
let deviceName: string;
let token: string;
let staffKey: string;
let watchedKey: string;

beforeAll(async () => {
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  const staff = await made<{ groupKey: string }>(token, '/v1/groups', { name: 'Front desk', type: 'employee' });
  const avatar = await avatarOf(token, makePng(640, 480, 40), 'face.png');
  const person = (name: string) => employeeWith(token, { personId: unique('P'), name, groupKey: staff.groupKey, avatar });
  staffKey = await person('Ada Park');
  watchedKey = await person('Mallory Stone');

  // One simulated face terminal of this company, on the stack's broker like a real one.
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('PR').toUpperCase() });
  agent = fleet.agents[0]!;
  deviceName = (await call<{ name: string }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.name;
  const watched = await call('POST', '/v1/authorities', {
    token,
    body: { setType: 1, personKeys: [watchedKey], deviceKeys: [agent.deviceKey], validity: { permanent: true } },
  });
  expect(watched.body.code, watched.body.message).toBeLessThan(300);

  agent.records.add(newPassRecord({ personKey: staffKey, name: 'Ada Park', temperature: 36.6, mask: true, verifyTime: Date.now() - 60_000 }), captureJpeg());
  agent.records.add(newPassRecord({ temperature: 38.4, passState: 'refused', verifyTime: Date.now() - 30_000 }), captureJpeg());
  await delivered(agent);

  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  watchConsole(page);
  await loginInBrowser(page, owner.username, owner.password);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const rows = () => page.getByTestId('record-row');
const row = (name: string) => rows().filter({ hasText: name });

async function chooseOption(testId: string, label: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: label, exact: true }).click();
}

describe('pass records in the console', () => {
  it('lists what the terminal published: the known person, and a stranger with a fever in red', async () => {
    await page.goto('/pass-platform/passage/record');
    await expect.poll(() => page.title()).toBe(`Pass records - ${TAGLINE}`);
    await expect.poll(() => rows().count()).toBe(2);
    const ada = row('Ada Park');
    expect(await ada.getAttribute('data-type')).toBe('employee');
    expect(await ada.innerText()).toContain('Front desk');
    expect(await ada.innerText()).toContain(deviceName);
    expect(await ada.innerText()).toMatch(/36\.6\s?°C/);
    const stranger = rows().and(page.locator('[data-type="stranger"]'));
    expect(await stranger.getByTestId('record-temperature').getAttribute('data-fever')).toBe('true');
    expect(await stranger.getByTestId('record-temperature').evaluate((el) => getComputedStyle(el).color)).toMatch(/^rgb\((2[0-9]{2}), (\d{1,2}), (\d{1,2})\)$/);
    expect(await stranger.innerText()).toMatch(/Refused/i);
    // The capture thumbnail is the photo the terminal uploaded.
    await expect.poll(() => ada.getByTestId('record-capture').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.screenshot({ path: `${shotDir}/pass-records.png`, fullPage: true });
  });

  it('filters by type', async () => {
    await chooseOption('record-type-filter', 'Stranger');
    await page.getByTestId('record-search').click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().getAttribute('data-type')).toBe('stranger');
    await chooseOption('record-type-filter', 'Employee');
    await page.getByTestId('record-search').click();
    await expect.poll(() => rows().first().getAttribute('data-type')).toBe('employee');
    expect(await rows().count()).toBe(1);
    await chooseOption('record-type-filter', 'Blacklist');
    await page.getByTestId('record-search').click();
    await expect.poll(() => page.getByTestId('record-empty').innerText()).toBe('No records match these filters.');
    await page.getByTestId('record-reset').click();
    await expect.poll(() => rows().count()).toBe(2);
  });

  it('opens a record with the capture and the enrolled photo side by side, and closes it', async () => {
    await row('Ada Park').click();
    const detail = page.getByRole('dialog');
    await expect.poll(() => detail.count()).toBe(1);
    const capture = detail.getByTestId('detail-capture');
    const enrolled = detail.getByTestId('detail-avatar');
    for (const photo of [capture, enrolled])
      await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    // Side by side once the dialog has finished opening: level, the capture on the left, both large.
    const boxes = async () => [(await capture.boundingBox())!, (await enrolled.boundingBox())!] as const;
    await expect.poll(async () => Math.abs((await boxes())[0].y - (await boxes())[1].y)).toBeLessThan(1);
    const [left, right] = await boxes();
    expect(left.x + left.width).toBeLessThanOrEqual(right.x);
    expect(Math.min(left.height, right.height)).toBeGreaterThanOrEqual(300);
    expect(await detail.innerText()).toContain('Worn');
    await page.screenshot({ path: `${shotDir}/pass-record-detail.png` });
    await page.getByTestId('record-detail-close').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  it('exports the listed records and hands the workbook to the browser', async () => {
    const download = page.waitForEvent('download', { timeout: 30_000 });
    await page.getByTestId('record-export-button').click();
    await expect.poll(() => page.getByTestId('export-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect(await page.getByTestId('export-progress').innerText()).toContain('2 records exported');
    expect((await download).suggestedFilename()).toMatch(/\.xlsx$/);
    await page.getByTestId('export-close').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  it('alerts on a blacklist hit made while the console is open, and lists it on the blacklist screen', async () => {
    await page.goto('/pass-platform/passage/blacklist/record');
    await expect.poll(() => page.title()).toBe(`Blacklist records - ${TAGLINE}`);
    await expect.poll(() => page.getByTestId('record-empty').count()).toBe(1);
    expect(await page.getByTestId('record-empty').innerText()).toBe('No blacklist hits on these days.');
    expect(await page.getByTestId('record-type-filter').count()).toBe(0);
    // The console has read the day's blacklist records once; a hit after that is an alert.
    await page.waitForTimeout(1000);
    const sent = Date.now();
    agent.records.add(newPassRecord({ personKey: watchedKey, name: 'Mallory Stone', temperature: 36.9, passState: 'refused' }), captureJpeg());
    const alert = page.getByTestId('blacklist-alert');
    // Over the live channel: within a second or two, not at the next 15 s read.
    await expect.poll(() => alert.count(), { timeout: 5000, interval: 50 }).toBe(1);
    expect(Date.now() - sent).toBeLessThan(3000);
    await delivered(agent);
    expect(await alert.innerText()).toContain('Mallory Stone');
    expect(await alert.innerText()).toContain(deviceName);
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${shotDir}/blacklist-alert.png` });
    await page.getByTestId('record-search').click();
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().getAttribute('data-type')).toBe('blacklist');
    await alert.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => alert.count()).toBe(0);
  });

  it('opens the record an alert mail links to, and closes it back to the list', async () => {
    await page.goto('/pass-platform/passage/record');
    await expect.poll(() => row('Ada Park').count()).toBe(1);
    const recordKey = await row('Ada Park').getAttribute('data-record');
    expect(recordKey).toBeTruthy();
    await page.goto(`/pass-platform/passage/record?record=${encodeURIComponent(recordKey!)}`);
    const detail = page.getByTestId('record-detail');
    await expect.poll(() => detail.count()).toBe(1);
    await expect.poll(() => detail.innerText()).toContain('Ada Park');
    await page.getByTestId('record-detail-close').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('record')).toBeNull();
    await expect.poll(() => row('Ada Park').count()).toBe(1);
  });

  it('shows a record that arrives while the first page is open, marked new, without a reload', async () => {
    await page.goto('/pass-platform/passage/record');
    await expect.poll(() => rows().count()).toBe(3);
    // Once the live channel is open (and the page read again to catch up), it is not read again on a timer.
    await page.waitForTimeout(1500);
    let reads = 0;
    const count = (request: { url(): string }) => {
      if (new URL(request.url()).pathname === '/v1/passRecords') reads++;
    };
    page.on('request', count);
    await page.waitForTimeout(6000);
    expect(reads).toBe(0);
    const sent = Date.now();
    agent.records.add(newPassRecord({ personKey: staffKey, name: 'Ada Park', temperature: 36.4, mask: true, verifyTime: Date.now() }), captureJpeg());
    await expect.poll(() => rows().count(), { timeout: 8000, interval: 50 }).toBe(4);
    // Pushed by the live channel (no read on a timer, above), with room for a loaded CI machine.
    expect(Date.now() - sent).toBeLessThan(6000);
    expect(reads).toBe(1);
    page.off('request', count);
    await delivered(agent);
    const marked = page.locator('[data-testid="record-row"][data-new="true"]');
    expect(await marked.count()).toBe(1);
    expect(await marked.innerText()).toMatch(/36\.4\s?°C/);
  });

  it('reads in Chinese, with the same layout', async () => {
    // The same account signing in again ends the English page's session, whose background reads would then be refused.
    await page.context().close();
    const { page: zh } = await newPage(browser, { locale: 'zh_CN' });
    watchConsole(zh);
    await loginInBrowser(zh, owner.username, owner.password);
    await zh.goto('/pass-platform/passage/record');
    // Ada twice, the stranger and Mallory's blacklist hit.
    await expect.poll(() => zh.getByTestId('record-row').count()).toBe(4);
    expect(await zh.getByTestId('record-table').locator('thead').innerText()).toContain('抓拍照片');
    expect(await zh.getByTestId('record-row').filter({ hasText: 'Ada Park' }).first().innerText()).toContain('员工');
    await zh.screenshot({ path: `${shotDir}/pass-records-zh_CN.png`, fullPage: true });
    await zh.getByTestId('record-row').filter({ hasText: 'Ada Park' }).first().click();
    const detail = zh.getByRole('dialog');
    await expect.poll(() => detail.getByTestId('detail-avatar').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await detail.innerText()).toContain('注册照片');
    await zh.screenshot({ path: `${shotDir}/pass-record-detail-zh_CN.png` });
    await zh.context().close();
  });
});
