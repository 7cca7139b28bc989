/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { captureJpeg, newPassRecord } from '@passcloud/device-shadow/records';
import { launchBrowser } from '../support/browser.ts';
import { login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * What a new administrator met walking the screens in English and Japanese: the department filter
 * says what it holds when empty, a pass record shows one time (the detail both), the call records
 * have a menu icon of their own, and the system settings name the database port.
 */
let browser: Browser;
let fleet: Fleet;
let owner: { username: string; password: string; userCode: string };
const contexts: BrowserContext[] = [];

const WORDS = {
  en_US: { anyDepartment: 'Any department', verifyTime: 'Verify time', time: 'Time', databasePort: 'Database port' },
  ja_JP: { anyDepartment: 'すべての部署', verifyTime: '照合日時', time: '日時', databasePort: 'データベースポート' },
} as const;

async function open(locale: keyof typeof WORDS): Promise<Page> {
  const { context, page } = await newPage(browser, { locale });
  contexts.push(context);
  watchConsole(page);
  await loginInBrowser(page, owner.username, owner.password);
  return page;
}

beforeAll(async () => {
  owner = await newCompany();
  const token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 2);
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('SF').toUpperCase() });
  const agent = fleet.agents[0]!;
  agent.records.add(newPassRecord({ temperature: 36.5, verifyTime: Date.now() - 60_000 }), captureJpeg());
  const end = Date.now() + 15_000;
  while (agent.records.pending > 0) {
    if (Date.now() > end) throw new Error('the pass record was not acknowledged');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await agent.records.settled();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  expect(pageErrors.splice(0)).toEqual([]);
});

describe.each(Object.keys(WORDS) as (keyof typeof WORDS)[])('in %s', (locale) => {
  const words = WORDS[locale];

  it('the department filter of the employees says what it holds when nothing is chosen', async () => {
    const page = await open(locale);
    await page.goto('/pass-platform/enterprise/employee');
    const filter = page.getByTestId('people-department-filter');
    await expect.poll(() => filter.getAttribute('placeholder')).toBe(words.anyDepartment);
    await page.screenshot({ path: `${shotDir}/employees-department-filter-${locale}.png` });
  });

  it('a pass record shows its verify time once in the list, and both times in its detail', async () => {
    const page = await open(locale);
    await page.goto('/pass-platform/passage/record');
    await expect.poll(() => page.getByTestId('record-row').count()).toBe(1);
    const headers = (await page.locator('thead th').allInnerTexts()).map((h) => h.trim());
    expect(headers).toContain(words.verifyTime);
    expect(headers).not.toContain(words.time);
    await page.screenshot({ path: `${shotDir}/records-time-${locale}.png`, fullPage: true });
    await page.getByTestId('record-row').first().click();
    const detail = page.getByTestId('record-detail');
    await expect.poll(() => detail.count()).toBe(1);
    const facts = await detail.innerText();
    expect(facts).toContain(words.verifyTime);
    expect(facts.split(/[\n\t]/).map((l) => l.trim())).toContain(words.time);
  });

  it('the call records have a handset icon in the menu, not a bare dot', async () => {
    const page = await open(locale);
    await page.goto('/intercom-platform/records');
    const link = page.locator('[data-testid="side-menu"] a[href="/intercom-platform/records"]');
    await expect.poll(() => link.count()).toBe(1);
    expect(await link.locator('svg').getAttribute('class')).toContain('tabler-icon-phone-call');
    await page.screenshot({ path: `${shotDir}/menu-call-records-${locale}.png` });
  });

  it('the system settings name the database port beside the server and message ports', async () => {
    const page = await open(locale);
    await page.goto('/settings/system');
    const port = page.getByTestId('system-database-port');
    await expect.poll(() => port.count()).toBe(1);
    expect(Number(await port.innerText())).toBeGreaterThan(0);
    expect(await page.getByTestId('system-addresses').innerText()).toContain(words.databasePort);
    // The broker is named by the address this browser reached the console by.
    expect(await page.getByTestId('system-mqtt-endpoint').innerText()).toBe(new URL(base()).hostname);
    await page.screenshot({ path: `${shotDir}/settings-system-database-${locale}.png`, fullPage: true });
  });
});
