/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { launchBrowser } from '../support/browser.ts';
import { createAccount } from '@passcloud/functions/data/identity';
import { baseUrl, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { confirmPasswordInBrowser, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, watchConsole as watchPage } from './support.ts';

/**
 * Door modes from the console: an administrator sets a lockdown for every terminal from Devices
 * (reason and password), the terminal applies it, every other screen heads with the banner that
 * names the mode, the terminals, who set it and since when, and its End action ends the mode;
 * in English and in Japanese, with screenshots.
 */

let browser: Browser;
const agents: DeviceAgent[] = [];
const stateDir = mkdtempSync(join(tmpdir(), 'doormodes-e2e-'));

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
});
afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const tokens = new Map<string, string>();
const token = (owner: { username: string }) => tokens.get(owner.username)!;

/** The password asked for (401) when the mode is set is an answer the test provokes. */
const watchConsole = (page: Page) => watchPage(page, failedLoads([/\/v1\/doorModes$/]));

async function companyWithTerminal(locale: string) {
  const owner = await newCompany({ locale: locale === 'ja_JP' ? 'ja_JP' : 'en_US' });
  const session = (await login(owner.username, owner.password)).token;
  tokens.set(owner.username, session);
  await grantSeats(session, 1);
  const serial = unique('DME').toUpperCase();
  const agent = new DeviceAgent({
    apiUrl: baseUrl(),
    userCode: owner.userCode,
    info: simulatedInfo(serial, 1),
    heartbeatMs: 60_000,
    credentialsFile: join(stateDir, `${serial}.json`),
  });
  agents.push(agent);
  await agent.start();
  return { owner, agent };
}

async function lockdownAndEnd(locale: string, tag: string, texts: { lockdown: string; reason: string; allClear: string }) {
  const { owner, agent } = await companyWithTerminal(locale);
  const { context, page } = await newPage(browser, { locale });
  watchConsole(page);
  try {
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/device/management');
    await page.getByTestId('door-mode-open').click();
    await page.getByTestId('door-mode-reason').waitFor();
    await page.getByTestId('door-mode-reason').fill(texts.reason);
    await page.screenshot({ path: `${shotDir}/doormodes-dialog-${tag}.png` });
    await page.getByTestId('door-mode-submit').click();
    await confirmPasswordInBrowser(page, owner.password);
    await expect.poll(() => agent.doorMode.mode, { timeout: 15_000 }).toBe('lockdown');

    // Another screen: the banner heads it, naming the mode, who set it and the reason.
    await page.goto('/pass-platform/enterprise/employee');
    const banner = page.getByTestId('door-mode-banner-item');
    await banner.waitFor({ timeout: 15_000 });
    const said = await banner.innerText();
    expect(said).toContain(texts.lockdown);
    expect(said).toContain(owner.username);
    expect(said).toContain(texts.reason);
    await expect.poll(() => page.getByTestId('door-mode-pending').count(), { timeout: 20_000 }).toBe(0);
    await page.screenshot({ path: `${shotDir}/doormodes-banner-${tag}.png` });
    // The banner comes before the screen's own content.
    const above = await page.evaluate(() => {
      const bannerTop = document.querySelector('[data-testid=door-mode-banner]')!.getBoundingClientRect().top;
      const content = [...document.querySelectorAll('main .mantine-Paper-root')].map((e) => e.getBoundingClientRect().top);
      return content.every((top) => top >= bannerTop);
    });
    expect(above).toBe(true);

    // An account that may not set door modes sees the banner too, without the action to end it.
    const reader = unique('reader');
    await createAccount(token(owner).split('.')[0]!, { username: reader, password: 'records-only-1', authCodes: ['pass:record'] });
    const other = await newPage(browser, { locale });
    watchConsole(other.page);
    try {
      await loginInBrowser(other.page, reader, 'records-only-1');
      await other.page.goto('/pass-platform/passage/record');
      const seen = other.page.getByTestId('door-mode-banner-item');
      await seen.waitFor({ timeout: 15_000 });
      expect(await seen.innerText()).toContain(texts.reason);
      expect(await other.page.getByTestId('door-mode-end').count()).toBe(0);
      await other.page.screenshot({ path: `${shotDir}/doormodes-reader-${tag}.png` });
    } finally {
      await other.context.close();
    }

    // The dashboard shows it first too; the device list shows the terminal in lockdown.
    await page.goto('/pass-platform/dashboard');
    await banner.waitFor();
    await page.screenshot({ path: `${shotDir}/doormodes-dashboard-${tag}.png` });
    await page.goto('/pass-platform/device/management');
    await expect.poll(() => page.getByTestId('door-mode-badge').getAttribute('data-applied'), { timeout: 15_000 }).toBe('lockdown');
    await page.screenshot({ path: `${shotDir}/doormodes-devices-${tag}.png` });

    // End it from the banner.
    await page.getByTestId('door-mode-end').click();
    await page.getByTestId('door-mode-reason').waitFor();
    await page.getByTestId('door-mode-reason').fill(texts.allClear);
    await page.getByTestId('door-mode-submit').click();
    if (
      await page
        .getByTestId('confirm-password-input')
        .isVisible()
        .catch(() => false)
    )
      await confirmPasswordInBrowser(page, owner.password);
    await expect.poll(() => agent.doorMode.mode, { timeout: 15_000 }).toBe('normal');
    await expect.poll(() => page.getByTestId('door-mode-banner').count(), { timeout: 20_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('door-mode-badge').count(), { timeout: 10_000 }).toBe(0);
  } finally {
    await context.close();
  }
}

describe('door modes in the console', () => {
  it('sets a lockdown from Devices, heads every screen with its banner, and ends it there (English)', async () => {
    await lockdownAndEnd('en_US', 'en', { lockdown: 'Lockdown', reason: 'Intruder reported at the gate', allClear: 'All clear' });
  }, 120_000);

  it('does the same in Japanese', async () => {
    await lockdownAndEnd('ja_JP', 'ja', { lockdown: 'ロックダウン', reason: '不審者の通報', allClear: '安全確認済み' });
  }, 120_000);
});
