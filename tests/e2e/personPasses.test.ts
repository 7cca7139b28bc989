/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { captureJpeg, newPassRecord } from '@passcloud/device-shadow/records';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { delivered } from '../support/people.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { base, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * The photo rules a company's terminals raise, as the person form states them and refuses a photo
 * below them; and a person's and a terminal's recent passes, whose link opens the record list
 * filtered the same way, a filter that survives a reload.
 */

let browser: Browser;
let page: Page;
let fleet: Fleet;
let agent: DeviceAgent;
let owner: { username: string; password: string; userCode: string };
let token: string;
let deviceName: string;
let adaKey: string;

beforeAll(async () => {
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 2);
  // A simulated terminal: its model says it needs photos of 800 × 600 to enrol a face.
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('PP').toUpperCase() });
  agent = fleet.agents[0]!;
  deviceName = (await call<{ name: string }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.name;
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Front desk', type: 'employee' } })).body.data.groupKey;
  const hire = async (name: string) =>
    (await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('P'), name, role: 'Staff', gender: 'female', groupKey } }))
      .body.data.employeeKey;
  adaKey = await hire('Ada Park');
  const other = await hire('Otto Other');
  agent.records.add(newPassRecord({ personKey: adaKey, name: 'Ada Park', temperature: 36.6, verifyTime: Date.now() - 90_000 }), captureJpeg());
  agent.records.add(newPassRecord({ personKey: other, name: 'Otto Other', verifyTime: Date.now() - 60_000 }), captureJpeg());
  agent.records.add(
    newPassRecord({ personKey: adaKey, name: 'Ada Park', temperature: 36.9, passState: 'refused', verifyTime: Date.now() - 30_000 }),
    captureJpeg(),
  );
  await delivered(agent);

  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  // The refused photo's completion answers 422 on purpose.
  watchConsole(page, failedLoads([/\/v1\/files\/uploads\/avatar-[0-9a-z]{20}\/complete$/]));
  await loginInBrowser(page, owner.username, owner.password);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const recentRows = () => page.getByTestId('recent-row');
const recordRows = () => page.getByTestId('record-row');

describe('photo rules the terminals raise', () => {
  it('states the company’s minimum with the terminal that needs it, and shows the server’s refusal naming it', async () => {
    await page.goto('/pass-platform/enterprise/employee/create');
    await expect.poll(() => page.getByTestId('photo-hint').innerText()).toContain('800 × 600 to 4096 × 2688');
    expect(await page.getByTestId('photo-terminals').innerText()).toBe(`Your terminals ${deviceName} need at least 800 × 600 pixels to enrol a face.`);
    const files = join(shotDir, 'files');
    mkdirSync(files, { recursive: true });
    const small = join(files, 'between.png');
    writeFileSync(small, makePng(700, 525));
    const chooser = page.waitForEvent('filechooser');
    await page.getByTestId('photo-button').click();
    await (await chooser).setFiles(small);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain(deviceName);
    expect(await page.getByRole('alert').textContent()).toMatch(/800 × 600.*700 × 525/);
    // Nothing was taken: no preview.
    expect(await page.getByTestId('photo-preview').locator('img').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/photo-rules-en.png`, fullPage: true });
  });
});

describe('recent passes', () => {
  it('shows an employee’s recent passes and links to the record list filtered to them, which survives a reload', async () => {
    await page.goto(`/pass-platform/enterprise/employee/${adaKey}`);
    const panel = page.getByTestId('recent-passes');
    await expect.poll(() => recentRows().count()).toBe(2);
    const texts = await recentRows().allInnerTexts();
    expect(texts.every((t) => t.includes(deviceName))).toBe(true);
    // Newest first: the refused pass, then the one before.
    expect(texts[0]).toMatch(/Refused/i);
    expect(texts[0]).toMatch(/36\.9\s?°C/);
    expect(texts[1]).toMatch(/Passed/i);
    await expect
      .poll(() =>
        panel
          .getByTestId('recent-capture')
          .first()
          .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
      )
      .toBe(true);
    await page.screenshot({ path: `${shotDir}/recent-passes-person-en.png`, fullPage: true });

    await panel.getByTestId('recent-passes-all').click();
    await page.waitForURL((url) => url.pathname === '/pass-platform/passage/record' && url.searchParams.get('personKey') === adaKey);
    await expect.poll(() => recordRows().count()).toBe(2);
    expect((await recordRows().allInnerTexts()).every((t) => t.includes('Ada Park'))).toBe(true);
    expect(await page.getByTestId('record-person').innerText()).toContain('Ada Park');
    await page.reload();
    await expect.poll(() => recordRows().count()).toBe(2);
    expect(await page.getByTestId('record-person').innerText()).toContain('Ada Park');
    // Everyone's passes again: the person's filter leaves the URL.
    await page.getByTestId('record-person-clear').click();
    await expect.poll(() => recordRows().count()).toBe(3);
    expect(new URL(page.url()).searchParams.get('personKey')).toBeNull();
  });

  it('shows a terminal’s recent passes and links to the record list filtered to it', async () => {
    await page.goto(`/pass-platform/device/management/${agent.deviceKey}`);
    const panel = page.getByTestId('recent-passes');
    await expect.poll(() => recentRows().count()).toBe(3);
    expect((await recentRows().allInnerTexts()).map((t) => (t.includes('Ada Park') ? 'Ada' : t.includes('Otto Other') ? 'Otto' : t))).toEqual([
      'Ada',
      'Otto',
      'Ada',
    ]);
    await page.screenshot({ path: `${shotDir}/recent-passes-device-en.png`, fullPage: true });
    await panel.getByTestId('recent-passes-all').click();
    await page.waitForURL((url) => url.pathname === '/pass-platform/passage/record' && url.searchParams.get('deviceKey') === agent.deviceKey);
    await expect.poll(() => recordRows().count()).toBe(3);
    await page.reload();
    await expect.poll(() => recordRows().count()).toBe(3);
    expect(new URL(page.url()).searchParams.get('deviceKey')).toBe(agent.deviceKey);
  });

  it('reads in Japanese', async () => {
    // The same session in Japanese: a second login would end this one.
    await page.evaluate(() => localStorage.setItem('locale', 'ja_JP'));
    await page.goto('/pass-platform/enterprise/employee/create');
    await expect
      .poll(() => page.getByTestId('photo-terminals').innerText())
      .toBe(`お使いの端末 ${deviceName} は、顔の登録に 800 × 600 ピクセル以上の写真を必要とします。`);
    expect(await page.getByTestId('photo-hint').innerText()).toContain('800 × 600～4096 × 2688');
    await page.screenshot({ path: `${shotDir}/photo-rules-ja.png`, fullPage: true });
    await page.goto(`/pass-platform/enterprise/employee/${adaKey}`);
    await expect.poll(() => recentRows().count()).toBe(2);
    expect(await page.getByTestId('recent-passes').innerText()).toContain('最近の通行記録');
    await page.screenshot({ path: `${shotDir}/recent-passes-person-ja.png`, fullPage: true });
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
  });
});
