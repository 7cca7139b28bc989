/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { findDevice } from '@passcloud/functions/data/devices';
import { createAccount } from '@passcloud/functions/data/identity';
import { launchBrowser } from '../support/browser.ts';
import { unique } from '../support/api.ts';
import { base, demoAdmin, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/** A number out of its range is named on its field, as the server would refuse it; it is never changed to fit, and nothing is saved. */

let browser: Browser;
let page: Page;
let fleet: Fleet;
let deviceKey: string;
/** The writes the page sent, as `METHOD /path`. */
const writes: string[] = [];

beforeAll(async () => {
  const demo = inject('demo');
  fleet = await startFleet({ apiUrl: base(), userCode: demo.userCode, count: 1, prefix: unique('RANGE').toUpperCase() });
  deviceKey = fleet.agents[0]!.deviceKey!;
  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  watchConsole(page);
  page.on('request', (request) => {
    if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
  });
  const admin = await demoAdmin();
  await loginInBrowser(page, admin.username, admin.password);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const stored = async () => (await findDevice(inject('demo').tenantId, deviceKey))!;

describe('numbers out of range', () => {
  it('shows 99 seconds of door relay delay as an error on the field, keeps 99, and saves nothing', async () => {
    const before = await stored();
    await page.goto(`/pass-platform/device/management/${deviceKey}`);
    await page.getByTestId('tab-pass').click();
    const field = page.getByTestId('setting-relayDelay');
    const input = field.locator('input');
    await input.fill('99');
    await input.press('Tab');
    await expect.poll(() => field.innerText()).toContain('Enter a value from 1 to 60');
    expect(await input.inputValue()).toBe('99');
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: `${shotDir}/range-relay-en.png` });

    writes.length = 0;
    await page.getByTestId('device-save').click();
    await expect.poll(() => field.innerText()).toContain('Enter a value from 1 to 60');
    expect(await input.inputValue()).toBe('99');
    expect(writes.filter((w) => w.startsWith('PATCH /v1/devices/'))).toEqual([]);
    const after = await stored();
    expect(after.settings.relayDelay).toBe(before.settings.relayDelay);
    expect(after.version).toBe(before.version);

    // Back in range, the error goes as the value is typed.
    await input.fill('30');
    await input.press('Tab');
    await expect.poll(() => field.innerText()).not.toContain('Enter a value from');
    await page.getByRole('button', { name: 'Discard changes' }).click();
  });

  it('says the range in Japanese on the field, in the words of the check before saving', async () => {
    // An account of its own: a second login of the English page's account would end that page's session.
    const username = unique('rangeja');
    await createAccount(inject('demo').tenantId, { username, password: 'range-ja-pass-1', authCodes: [...AUTH_CODES] });
    const ja = await newPage(browser, { locale: 'ja_JP' });
    watchConsole(ja.page);
    await loginInBrowser(ja.page, username, 'range-ja-pass-1');
    await ja.page.goto(`/pass-platform/device/management/${deviceKey}`);
    await ja.page.getByTestId('tab-pass').click();
    const field = ja.page.getByTestId('setting-relayDelay');
    await field.locator('input').fill('99');
    await field.locator('input').press('Tab');
    await expect.poll(() => field.getByText(/1.*60/).count()).toBeGreaterThan(1);
    expect(await field.locator('input').inputValue()).toBe('99');
    expect(await field.innerText()).not.toContain('Enter a value');
    expect(await field.innerText()).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    await ja.page.screenshot({ path: `${shotDir}/range-relay-ja.png` });
    await ja.context.close();
  });

  it('names a late tolerance over a day on its field and creates no shift', async () => {
    await page.goto('/pass-platform/enterprise/attendance/settings/shift/create');
    await page.getByTestId('shift-name').fill(unique('Range shift '));
    const tolerance = page.getByTestId('period-0-lateTolerance');
    await tolerance.fill('2000');
    await tolerance.press('Tab');
    expect(await tolerance.inputValue()).toBe('2000');
    writes.length = 0;
    await page.getByTestId('shift-submit').click();
    await expect.poll(() => page.getByText('Enter a value from 0 to 1440').count()).toBe(1);
    expect(await tolerance.getAttribute('aria-invalid')).toBe('true');
    expect(await tolerance.inputValue()).toBe('2000');
    expect(writes).toEqual([]);
  });
});
