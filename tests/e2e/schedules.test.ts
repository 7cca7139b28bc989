/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { AuthorityPage } from '@passcloud/functions/contract/authorities';
import type { SchedulePage } from '@passcloud/functions/contract/schedules';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { base, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole } from './support.ts';

/**
 * Access schedules in the console: one made on Passage › Access schedules (a field error shown
 * where it is, nothing stored until it is right), chosen in the authorization wizard's third
 * step, shown and filtered on on the authority list, and kept from deletion while in use; the
 * screens in English and Japanese.
 */

let browser: Browser;
let owner: { username: string; password: string; userCode: string };
let token: string;
let agent: DeviceAgent;
const ADA = 'Ada Schedule';
const NAME = unique('Front desk hours ');
const shots = join(shotDir, 'schedules');
const LIST = '/pass-platform/passage/schedule';

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Reception', type: 'employee' } })).body.data.groupKey;
  const made = await call('POST', '/v1/employees', { token, body: { personId: unique('S'), name: ADA, role: 'Staff', gender: 'female', groupKey } });
  expect(made.body.code, made.body.message).toBe(201);
  agent = new DeviceAgent({ apiUrl: base(), userCode: owner.userCode, info: simulatedInfo(unique('SCW').toUpperCase(), 1), heartbeatMs: 60_000 });
  await agent.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await agent?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const apiToken = async (page: Page) => (await page.evaluate(() => localStorage.getItem('token')))!;
const schedules = async (page: Page) => (await call<SchedulePage>('GET', '/v1/schedules?pageSize=200', { token: await apiToken(page) })).body.data.items;

describe('access schedules in the console', () => {
  it('makes a schedule, chooses it in the wizard, shows and filters by it, and keeps it while in use', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, failedLoads([/\/v1\/schedules$/, /\/v1\/schedules\/\w+\?version=1$/]));
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto(LIST);
    await page.getByTestId('schedule-empty').waitFor();
    await page.getByTestId('schedule-add').click();
    await page.waitForURL(`**${LIST}/create`);
    await page.getByTestId('schedule-name').fill(NAME);
    // Monday to Friday come as office hours; Saturday gets two periods, the second one overlapping first.
    expect(await page.getByTestId('day-0-0-from').inputValue()).toBe('07:00');
    expect(await page.getByTestId('day-6-closed').isVisible()).toBe(true);
    await page.getByTestId('day-5-add').click();
    await page.getByTestId('day-5-0-from').fill('09:00');
    await page.getByTestId('day-5-0-to').fill('13:00');
    await page.getByTestId('day-5-add').click();
    await page.getByTestId('day-5-1-from').fill('12:00');
    await page.getByTestId('day-5-1-to').fill('24:00');
    await page.getByTestId('exception-add').click();
    await page.getByTestId('exception-0-date').fill('2026-12-24');
    await page.getByTestId('schedule-submit').click();
    await page.getByText('Period 2 overlaps period 1').waitFor();
    expect(await schedules(page)).toEqual([]);
    await page.getByTestId('day-5-1-from').fill('14:00');
    await page.screenshot({ path: `${shots}/form-en.png`, fullPage: true });
    await page.getByTestId('schedule-submit').click();
    expect(await toastText(page)).toContain('Access schedule created');
    await page.waitForURL(`**${LIST}`);
    await expect.poll(() => page.getByTestId('schedule-row').count()).toBe(1);
    const [made] = await schedules(page);
    expect(made).toMatchObject({
      name: NAME,
      holidaysClosed: true,
      exceptions: [{ date: '2026-12-24', periods: [] }],
      usedBy: 0,
    });
    expect(made!.weekly[5]).toEqual([
      { from: '09:00', to: '13:00' },
      { from: '14:00', to: '24:00' },
    ]);
    expect(await page.getByTestId('schedule-row').innerText()).toContain('Mon–Fri 07:00–19:00');
    await page.screenshot({ path: `${shots}/list-en.png` });

    // The wizard's third step chooses it.
    await page.goto('/pass-platform/passage/authority/setting');
    await expect.poll(() => page.getByTestId('wizard-person-row').count()).toBe(1);
    await page.getByTestId('wizard-person-row').filter({ hasText: ADA }).getByRole('checkbox').check();
    await page.getByTestId('wizard-next').click();
    await page.locator(`[data-testid=wizard-device-row][data-key="${agent.deviceKey}"]`).getByRole('checkbox').check();
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-schedule').click();
    await page.getByRole('option', { name: NAME, exact: true }).click();
    await page.screenshot({ path: `${shots}/wizard-en.png` });
    await page.getByTestId('wizard-submit').click();
    expect(await toastText(page)).toContain('Authorized: 1 authorization is on its way to the device');
    await page.waitForURL('**/pass-platform/passage/authority');
    await expect.poll(() => page.getByTestId('authority-row').count()).toBe(1);
    expect(await page.getByTestId('authority-row').innerText()).toContain(NAME);
    const granted = (await call<AuthorityPage>('GET', `/v1/authorities?setType=0&scheduleKey=${made!.scheduleKey}`, { token: await apiToken(page) })).body.data
      .items;
    expect(granted.map((i) => i.name)).toEqual([ADA]);

    // The list filters by it.
    await page.getByTestId('authority-schedule').click();
    await page.getByRole('option', { name: NAME, exact: true }).click();
    await page.getByTestId('authority-search').click();
    await page.waitForURL((url) => url.searchParams.get('scheduleKey') === made!.scheduleKey);
    await expect.poll(() => page.getByTestId('authority-row').count()).toBe(1);
    await page.screenshot({ path: `${shots}/authorities-en.png` });

    // In use: the deletion is refused with how many use it, and the schedule stays.
    await page.goto(LIST);
    await expect.poll(() => page.getByTestId('schedule-row').count()).toBe(1);
    expect(await page.getByTestId('schedule-row').innerText()).toMatch(/\b1\b/);
    await page.getByTestId('schedule-actions').click();
    await page.getByTestId('schedule-delete').click();
    await page.getByTestId('confirm-delete').click();
    expect(await toastText(page)).toContain('Authorizations that use this schedule: 1');
    expect((await schedules(page)).map((s) => s.name)).toEqual([NAME]);
    await context.close();
  });

  it('shows the list, the form and the wizard’s choice in Japanese', async () => {
    const { context, page } = await newPage(browser, { locale: 'ja_JP' });
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto(LIST);
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('通行スケジュール');
    await expect.poll(() => page.getByTestId('schedule-row').count()).toBe(1);
    expect(await page.getByTestId('schedule-table').innerText()).toContain('休日は通行不可');
    await page.screenshot({ path: `${shots}/list-ja.png` });
    await page.getByTestId('schedule-row').getByRole('link').click();
    await page.getByTestId('schedule-name').waitFor();
    expect(await page.getByTestId('schedule-name').inputValue()).toBe(NAME);
    expect(await page.locator('form').innerText()).toContain('例外日');
    await page.screenshot({ path: `${shots}/form-ja.png`, fullPage: true });
    await page.goto('/pass-platform/passage/authority/setting');
    await expect.poll(() => page.getByTestId('wizard-person-row').count()).toBe(1);
    await page.getByTestId('wizard-person-row').getByRole('checkbox').check();
    await page.getByTestId('wizard-next').click();
    await page.locator(`[data-testid=wizard-device-row][data-key="${agent.deviceKey}"]`).getByRole('checkbox').check();
    await page.getByTestId('wizard-next').click();
    await page.getByTestId('wizard-schedule').click();
    await page.getByRole('option', { name: NAME, exact: true }).waitFor();
    await page.screenshot({ path: `${shots}/wizard-ja.png` });
    await page.keyboard.press('Escape');
    await page.getByTestId('wizard-cancel').click();
    await context.close();
  });
});
