/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { people } from '@passcloud/functions/data/people';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * Who is in an attendance group, in the browser: the group's staff are named, never shown by their
 * key, and the person form keeps Needs attendance on for someone in a group.
 */

let browser: Browser;
let owner: Awaited<ReturnType<typeof newCompany>>;
let token: string;
let groupKey: string;
let removedDevice: string;
const groupName = unique('Counter ');
const kept = { key: '', name: unique('Eda Holm '), personId: unique('K') };
const BASE = '/pass-platform/enterprise/attendance/settings';

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  const tenantId = token.split('.')[0]!;
  const staffGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Office', type: 'employee' } })).body.data.groupKey;
  const period = { onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '21:00', lateTolerance: 0, earlyLeaveTolerance: 0 };
  const shiftKey = (await call<{ shiftKey: string }>('POST', '/v1/attendance/shifts', { token, body: { name: 'Day', periods: [period] } })).body.data.shiftKey;
  const weekdays = { sun: null, mon: shiftKey, tue: shiftKey, wed: shiftKey, thu: shiftKey, fri: shiftKey, sat: null };
  // A terminal the group counts, removed since.
  await grantSeats(token, 1);
  const { serial, ...info } = simulatedInfo(unique('ATS').toUpperCase(), 1);
  removedDevice = (await call<{ deviceKey: string }>('POST', '/v1/devices/bind', { body: { userCode: owner.userCode, serial, info } })).body.data.deviceKey;
  const group = await call<{ attendanceGroupKey: string }>('POST', '/v1/attendance/groups', {
    token,
    body: { name: groupName, weekdays, workdayOvertimeAfter: null, restDayMinHours: null, deviceKeys: [removedDevice] },
  });
  groupKey = group.body.data.attendanceGroupKey;
  expect((await call('DELETE', `/v1/devices/${removedDevice}?version=1`, { token })).body.code).toBe(204);
  // An employee put in the group before the rule, with Needs attendance off.
  const made = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: kept.personId, name: kept.name, role: 'Clerk', gender: 'female', groupKey: staffGroup },
  });
  kept.key = made.body.data.employeeKey;
  await people().patch({ tenantId, kind: 'employee', personKey: kept.key }).set({ attendanceGroupKey: groupKey }).go();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

describe('the staff of an attendance group', () => {
  it('names a member who does not need attendance and a removed device by what they are, in English and Japanese', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto(`${BASE}/group/${groupKey}`);
    const pill = page.locator('.mantine-MultiSelect-pill', { hasText: kept.name });
    await pill.waitFor();
    expect(await pill.innerText()).toBe(`${kept.name} · ${kept.personId} (does not need attendance)`);
    expect(await page.getByTestId('group-staff').locator('..').innerText()).not.toContain(kept.key);
    const device = page.getByTestId('group-devices').locator('..').locator('.mantine-MultiSelect-pill');
    await expect.poll(() => device.allInnerTexts()).toEqual(['Removed device']);
    expect(await page.locator('body').innerText()).not.toContain(removedDevice);
    await page.screenshot({ path: `${shotDir}/attendance-group-staff-en.png`, fullPage: true });

    await page.evaluate(() => localStorage.setItem('locale', 'ja_JP'));
    await page.reload();
    await pill.waitFor();
    expect(await pill.innerText()).toBe(`${kept.name} · ${kept.personId} (勤怠管理の対象外)`);
    await expect.poll(() => device.allInnerTexts()).toEqual(['削除されたデバイス']);
    await page.screenshot({ path: `${shotDir}/attendance-group-staff-ja.png`, fullPage: true });
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    await context.close();
  });

  it('switches Needs attendance on when a group is chosen in the person form, and the group off with it', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/enterprise/employee/create');
    const name = unique('Noor Aziz ');
    await page.getByLabel('Personnel ID').fill(unique('N'));
    await page.getByLabel('Name', { exact: false }).first().fill(name);
    await page.getByLabel('Role').fill('Clerk');
    await page.getByTestId('group-select').click();
    await page.getByRole('option', { name: 'Office' }).click();
    const needs = page.getByTestId('needs-attendance');
    expect(await needs.isChecked()).toBe(false);
    await page.getByTestId('attendance-group-select').click();
    await page.getByRole('option', { name: groupName }).click();
    await expect.poll(() => needs.isChecked()).toBe(true);
    // Switched off, the employee leaves the group; on again, they stay out until a group is chosen.
    await needs.uncheck({ force: true });
    await expect.poll(() => page.getByTestId('attendance-group-select').inputValue()).toBe('');
    await page.getByTestId('attendance-group-select').click();
    await page.getByRole('option', { name: groupName }).click();
    await expect.poll(() => needs.isChecked()).toBe(true);
    await page.screenshot({ path: `${shotDir}/person-attendance-group-en.png`, fullPage: true });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/create'));

    const found = await call<{ items: { name: string; attendanceGroupKey: string | null; needsAttendance: boolean }[] }>(
      'GET',
      `/v1/employees?keyword=${encodeURIComponent(name)}`,
      // The browser's login ended the session the test began with.
      { token: (await page.evaluate(() => localStorage.getItem('token')))! },
    );
    expect(found.body.data.items).toEqual([expect.objectContaining({ name, attendanceGroupKey: groupKey, needsAttendance: true })]);
    await context.close();
  });
});
