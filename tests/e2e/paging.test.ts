/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { PassRecordUp } from '@passcloud/functions/contract/protocol';
import { addDays, dayOf } from '@passcloud/functions/domain/time';
import { launchBrowser } from '../support/browser.ts';
import { login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * Paging of the record list in the browser: the total it shows, the page size it remembers for the
 * account, and the jump to a day that starts the list there.
 */

const DAY_MS = 86_400_000;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

let browser: Browser;
let page: Page;
let fleet: Fleet;
let deviceKey: string;
let today: string;
let sent: PassRecordUp[];

beforeAll(async () => {
  const owner = await newCompany();
  await grantSeats((await login(owner.username, owner.password)).token, 2);
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('PG').toUpperCase() });
  const agent = fleet.agents[0]!;
  deviceKey = agent.deviceKey!;
  // 25 passes today, 3 two days ago and 2 four days ago (the company's days are UTC days).
  const now = Date.now();
  today = dayOf(new Date(now), 'UTC');
  const made = (daysAgo: number, count: number) =>
    Array.from({ length: count }, (_, i) => newPassRecord({ recordId: unique(`pg${daysAgo}x${i}x`), verifyTime: now - daysAgo * DAY_MS - i * 1000 }));
  sent = [...made(0, 25), ...made(2, 3), ...made(4, 2)];
  for (const record of sent) agent.records.add(record);
  const end = Date.now() + 20_000;
  while (agent.records.pending > 0) {
    if (Date.now() > end) throw new Error(`${agent.records.pending} records not acknowledged`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await agent.records.settled();

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
const count = () => page.getByTestId('record-count').innerText();

/** Picks a day in the open date picker, going back a month at a time until it shows. */
async function pickDay(day: string): Promise<void> {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const button = page.locator(`.mantine-DatePickerInput-day:not([data-outside])[aria-label="${d} ${MONTHS[m - 1]} ${y}"]`);
  for (let i = 0; i < 3 && !(await button.isVisible()); i++)
    await page.locator('.mantine-DatePickerInput-calendarHeaderControl[data-direction="previous"]').click();
  await button.click();
}

describe('paging the record list', () => {
  it('shows how many records the day holds beside the first 20', async () => {
    await page.goto('/pass-platform/passage/record');
    await expect.poll(() => rows().count()).toBe(20);
    await expect.poll(count).toBe('25 in all');
    // No page number: the jump to a day takes its place, with nothing to jump to within one day.
    expect(await page.getByTestId('record-page').count()).toBe(0);
    expect(await page.getByTestId('record-jump').isDisabled()).toBe(true);
  });

  it('shows 50 rows once 50 is chosen, and still after a reload', async () => {
    await page.getByTestId('record-page-size').getByText('50', { exact: true }).click();
    await expect.poll(() => rows().count()).toBe(25);
    expect(await page.getByTestId('record-next').isDisabled()).toBe(true);
    await page.reload();
    await expect.poll(() => rows().count()).toBe(25);
    await expect.poll(count).toBe('25 in all');
    expect(await page.getByTestId('record-page-size').locator('input[value="50"]').isChecked()).toBe(true);
    await page.screenshot({ path: `${shotDir}/paging-records-en.png`, fullPage: true });
  });

  it('jumps to a day of the chosen range: that day’s latest record comes first', async () => {
    await page.getByTestId('record-range').click();
    await pickDay(addDays(today, -5));
    await pickDay(today);
    await page.getByTestId('record-search').click();
    await expect.poll(count).toBe('30 in all');
    expect(await rows().first().getAttribute('data-record')).toBe(`${deviceKey}.${sent[0]!.recordId}`);

    const day = addDays(today, -2);
    await page.getByTestId('record-jump').click();
    await pickDay(day);
    const newestThatDay = sent.filter((r) => dayOf(new Date(r.verifyTime), 'UTC') === day).sort((a, b) => b.verifyTime - a.verifyTime)[0]!;
    await expect.poll(() => rows().first().getAttribute('data-record')).toBe(`${deviceKey}.${newestThatDay.recordId}`);
    await expect.poll(() => rows().count()).toBe(5);
    expect(await count()).toBe('5 in all');
    await page.screenshot({ path: `${shotDir}/paging-records-jump-en.png`, fullPage: true });

    // Other filters forget the jump: Reset starts again at today's newest.
    await page.getByTestId('record-reset').click();
    await expect.poll(count).toBe('25 in all');
    expect(await rows().first().getAttribute('data-record')).toBe(`${deviceKey}.${sent[0]!.recordId}`);
  });

  it('reads the same in Japanese', async () => {
    await page.evaluate(() => localStorage.setItem('locale', 'ja_JP'));
    await page.reload();
    await expect.poll(() => rows().count()).toBe(25);
    expect(await page.getByTestId('record-page-size').locator('xpath=..').innerText()).toContain('表示件数');
    await page.screenshot({ path: `${shotDir}/paging-records-ja.png`, fullPage: true });
  });
});
