/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { launchBrowser } from '../support/browser.ts';
import { unique } from '../support/api.ts';
import { loginInBrowser, mailedCode, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * A company from nothing: it registers on the public screen with the mailed code, logs in, and
 * binds a simulated terminal with what the console shows it (the binding code and the seats of its
 * free trial on Devices, the server address under Settings), then sees the terminal online and the
 * dashboard's first step done.
 */

let browser: Browser;
let agent: DeviceAgent | undefined;
const shots = join(shotDir, 'newCompany');

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await agent?.stop();
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

async function shot(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(shots, name), fullPage: true });
}

async function register(page: Page): Promise<{ username: string; password: string }> {
  const username = unique('fresh');
  const email = `${username}@example.test`;
  const password = 'fresh-company-1';
  await page.goto('/register');
  await page.getByLabel('Company name').fill(`Fresh ${username}`);
  await page.locator('input[autocomplete=username]').fill(username);
  await page.getByLabel('Email').fill(email);
  const passwords = page.locator('input[type=password]');
  await passwords.nth(0).fill(password);
  await passwords.nth(1).fill(password);
  await page.getByTestId('send-code').click();
  // The countdown starts once the mail is sent.
  await expect.poll(() => page.getByTestId('send-code').textContent()).toMatch(/Resend in \d+ s/);
  await page.getByLabel('Verification code').fill(await mailedCode(email));
  await page.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.waitForURL('**/login');
  return { username, password };
}

describe('a new company', () => {
  let owner: { username: string; password: string };

  it('registers, reads its binding code and trial seats on Devices, binds a terminal and sees it online', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    owner = await register(page);
    await loginInBrowser(page, owner.username, owner.password);

    // Before anything is bound, the dashboard lists the first steps, none done.
    await page.waitForURL('**/pass-platform/dashboard');
    await expect.poll(() => page.getByTestId('start-terminal').getAttribute('data-done')).toBe('false');
    expect(await page.getByTestId('dashboard-sync-clear').count()).toBe(0);
    expect(await page.getByTestId('dashboard-offline-none').count()).toBe(0);

    await page.goto('/pass-platform/device/management');
    const code = (await page.getByTestId('device-binding-code').innerText()).trim();
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    const seats = page.getByTestId('device-seats');
    await expect.poll(() => seats.innerText()).toMatch(/Licence seats left: 5 of 5\./);
    expect(await seats.innerText()).toMatch(/The free trial ends on/);
    await shot(page, 'devices-empty-en_US.png');

    // The seats line leads to the licences, where the trial is shown with its seats.
    await page.getByTestId('device-seats-link').click();
    await page.waitForURL('**/settings/licence');
    await expect.poll(() => page.getByTestId('licence-trial').getAttribute('data-state')).toBe('active');
    expect(await page.getByTestId('licence-total').innerText()).toBe('5');
    expect(await page.getByTestId('licence-row').innerText()).toContain('Free trial');
    await shot(page, 'licences-trial-en_US.png');
    // And the licences lead back to where terminals are bound.
    await page.getByTestId('licence-devices-link').click();
    await page.waitForURL('**/pass-platform/device/management');

    // The server address the hint points to: Settings, Ports and versions.
    await page.goto('/settings/system');
    const apiUrl = (await page.getByTestId('system-api-url').innerText()).trim();
    expect(apiUrl).toMatch(/^https?:\/\/.+\/v1$/);

    agent = new DeviceAgent({ apiUrl, userCode: code, info: simulatedInfo(unique('NC').toUpperCase(), 1), heartbeatMs: 60_000 });
    await agent.start();

    await page.goto('/pass-platform/device/management');
    const row = page.getByTestId(`device-row-${agent.deviceKey}`);
    await expect.poll(() => row.getByTestId('online-badge').getAttribute('data-online'), { timeout: 20_000 }).toBe('true');
    await expect.poll(() => seats.innerText(), { timeout: 20_000 }).toMatch(/Licence seats left: 4 of 5\./);
    await shot(page, 'devices-bound-en_US.png');

    await page.goto('/pass-platform/dashboard');
    await expect.poll(() => page.getByTestId('start-terminal').getAttribute('data-done')).toBe('true');
    expect(await page.getByTestId('start-people').getAttribute('data-done')).toBe('false');
    expect(await page.getByTestId('start-people').getByRole('link').getAttribute('href')).toBe('/pass-platform/enterprise/employee');
    expect(await page.getByTestId('dashboard-sync-clear').count()).toBe(0);
    await shot(page, 'dashboard-start-en_US.png');
    await context.close();
  });

  it('shows the same in Japanese', async () => {
    const { context, page } = await newPage(browser, { locale: 'ja_JP' });
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await expect.poll(() => page.getByTestId('start-terminal').getAttribute('data-done')).toBe('true');
    expect(await page.getByTestId('dashboard-start').innerText()).toContain('顔認証端末をバインドする');
    await shot(page, 'dashboard-start-ja_JP.png');
    await page.goto('/pass-platform/device/management');
    await expect.poll(() => page.getByTestId('device-seats').innerText()).toContain('5 シート中 4 シート');
    await shot(page, 'devices-bound-ja_JP.png');
    await page.goto('/settings/licence');
    await expect.poll(() => page.getByTestId('licence-trial').getAttribute('data-state')).toBe('active');
    expect(await page.getByTestId('licence-used-by').innerText()).toContain('顔認証端末：1 台');
    await shot(page, 'licences-trial-ja_JP.png');
    await context.close();
  });
});
