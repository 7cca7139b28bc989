/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import type { DeviceLogCode } from '@passcloud/functions/contract/deviceLogs';
import { storeRecord } from '@passcloud/functions/data/passRecords';
import { addDays, atLocalTime, dayOf } from '@passcloud/functions/domain/time';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * What the server computes and a terminal logs reaches the console as codes with parameters, and is
 * said in the reader's language: a day's explanation and a device's log, read in Japanese.
 */

let browser: Browser;
let fleet: Fleet;
let owner: Awaited<ReturnType<typeof newCompany>>;
let tenantId: string;
let employeeKey: string;
let attendanceGroupKey: string;
const name = unique('Mia Sato ');

/** The last Saturday before today, in the company's time zone (UTC for a new company). */
function lastSaturday(): string {
  let day = addDays(dayOf(new Date(), 'UTC'), -1);
  while (new Date(`${day}T00:00:00Z`).getUTCDay() !== 6) day = addDays(day, -1);
  return day;
}

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
  owner = await newCompany();
  const { token } = await login(owner.username, owner.password);
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 1);
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Office', type: 'employee' } })).body.data.groupKey;
  const made = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('M'), name, role: 'Clerk', gender: 'female', groupKey, needsAttendance: true },
  });
  employeeKey = made.body.data.employeeKey;
  const period = { onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '21:00', lateTolerance: 0, earlyLeaveTolerance: 0 };
  const shiftKey = (await call<{ shiftKey: string }>('POST', '/v1/attendance/shifts', { token, body: { name: 'Day', periods: [period] } })).body.data.shiftKey;
  const weekdays = { sun: null, mon: shiftKey, tue: shiftKey, wed: shiftKey, thu: shiftKey, fri: shiftKey, sat: null };
  const group = await call<{ attendanceGroupKey: string }>('POST', '/v1/attendance/groups', {
    token,
    body: { name: 'Front desk', employeeKeys: [employeeKey], weekdays, workdayOvertimeAfter: null, restDayMinHours: 4 },
  });
  expect(group.body.code).toBe(201);
  attendanceGroupKey = group.body.data.attendanceGroupKey;
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('TX').toUpperCase() });
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

describe('texts of the server and the terminals, in Japanese', () => {
  it("explains a rest day's figures with no English left", async () => {
    // Mia came in on a Saturday, a rest day, for 27 minutes: less than the 4 hours overtime needs.
    const saturday = lastSaturday();
    for (const hhmm of ['10:00', '10:27']) {
      const at = atLocalTime(saturday, Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)), 'UTC').toISOString();
      await storeRecord(
        {
          tenantId,
          deviceKey: 'frontdoor0000001',
          recordId: unique('r'),
          time: at,
          verifyTime: at,
          day: saturday,
          personKey: employeeKey,
          personKind: 'employee',
          name,
          nameLower: name.toLowerCase(),
          type: 'employee',
          measured: true,
          temperature: 36.6,
          fever: false,
          passState: 'passed',
          source: 'face',
          ttl: Math.floor(Date.now() / 1000) + 86_400,
        },
        9,
      );
    }
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.evaluate(() => localStorage.setItem('locale', 'ja_JP'));
    await page.goto(`/pass-platform/enterprise/attendance/statistics/daily?from=${saturday}&to=${saturday}`);
    await page.getByTestId('daily-empty').waitFor();
    await page.getByTestId('daily-recompute').click();
    const row = page.getByTestId('daily-row').filter({ hasText: name });
    await row.waitFor();
    await row.getByTestId('day-open').click();
    const lines = page.getByTestId('day-trace-lines');
    await lines.waitFor();
    const text = await lines.innerText();
    expect(text).toContain('休みの日: 欠勤なし');
    expect(text).toContain('残業なし: 最初から最後の打刻まで 27 分で、4 時間未満');
    for (const english of ['rest day', 'no absence', 'no overtime', 'punch', 'min', 'temperature']) expect(text.toLowerCase()).not.toContain(english);
    // Only the unit of the temperature is written in Latin letters.
    expect(text.replace(/°C/g, '')).not.toMatch(/[A-Za-z]/);
    expect(await lines.locator('li').evaluateAll((items) => items.map((i) => i.getAttribute('data-code')))).toEqual(['restDay', 'noOvertime', 'temperature']);
    await page.screenshot({ path: `${shotDir}/attendance-trace-rest-day-ja.png` });
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    await page.reload();
    await row.getByTestId('day-open').click();
    await expect.poll(() => lines.innerText()).toContain('No overtime: 27 min from the first to the last punch, less than 4 h');
    expect(await lines.innerText()).toContain('Rest day: no absence');
    await page.screenshot({ path: `${shotDir}/attendance-trace-rest-day-en.png` });

    // The month keeps the group it was computed under; deleted since, the group is said to be so.
    const token = (await page.evaluate(() => localStorage.getItem('token')))!;
    expect((await call('DELETE', `/v1/attendance/groups/${attendanceGroupKey}?version=1`, { token })).body.code).toBe(204);
    await page.goto(`/pass-platform/enterprise/attendance/statistics/monthly?month=${saturday.slice(0, 7)}`);
    const month = page.locator('tr', { hasText: name });
    await expect.poll(() => month.innerText()).toContain('Deleted attendance group');
    expect(await month.innerText()).not.toContain(attendanceGroupKey);
    await context.close();
  });

  it("shows a terminal's log entries as Japanese sentences, and a code newer than the console as the terminal's own words", async () => {
    const agent = fleet.agents[0]!;
    agent.write('info', 'questionnairesShown', { count: 2, titles: ['健康申告', '来訪目的'] });
    agent.write('info', 'facesSynced', { count: 1, failed: 0 });
    agent.write('warn', 'lensFogged' as DeviceLogCode, {}, 'lens fogged, wiping');
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.evaluate(() => localStorage.setItem('locale', 'ja_JP'));
    await page.goto(`/pass-platform/device/management/${agent.deviceKey!}`);
    const log = page.getByTestId('logs-table');
    const newest = page.getByTestId('logs-panel').getByRole('button', { name: '最新' });
    await expect
      .poll(
        async () => {
          await newest.click();
          return log.innerText();
        },
        { timeout: 15_000 },
      )
      .toContain('lensFogged');
    const row = (code: string) => log.locator(`[data-code="${code}"]`).first().innerText();
    expect(await row('questionnairesShown')).toContain('2 件のアンケートを表示中: 健康申告、来訪目的');
    expect(await row('facesSynced')).toContain('顔の変更を 1 件適用しました');
    expect(await row('lensFogged')).toContain('lensFogged（このコンソールが知らないコード）、端末自身の言葉: lens fogged, wiping');
    const text = await log.innerText();
    for (const english of ['showing', 'questionnaire', 'applied', 'face change', '(qr)']) expect(text.toLowerCase()).not.toContain(english);
    for (const code of ['questionnairesShown', 'facesSynced', 'connected']) expect(await row(code), code).not.toMatch(/[A-Za-z]{2,}/);
    await page.getByTestId('logs-panel').screenshot({ path: `${shotDir}/devices-log-codes-ja_JP.png` });
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    await page.reload();
    await expect.poll(() => log.innerText()).toContain('Showing 2 questionnaires: 健康申告 and 来訪目的');
    expect(await row('facesSynced')).toContain('Applied 1 face change');
    expect(await row('facesSynced')).not.toContain('face changes');
    await page.getByTestId('logs-panel').screenshot({ path: `${shotDir}/devices-log-codes-en.png` });
    await context.close();
  });
});
