/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { storeRecord } from '@passcloud/functions/data/passRecords';
import { createRecomputeJob, moveRecomputeJob } from '@passcloud/functions/data/attendanceJobs';
import { newTimeId } from '@passcloud/functions/lib/crypto';
import { addDays, atLocalTime, dayOf } from '@passcloud/functions/domain/time';
import { call, login, newCompany, unique } from '../support/api.ts';
import { failedLoads, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/** Attendance rules in the browser: a shift of two periods, a group over it, a holiday. */

let browser: Browser;
let owner: { username: string; password: string };
let tenantId: string;
const employeeKeys: Record<string, string> = {};
const names = { ana: unique('Ana '), ben: unique('Ben ') };
const BASE = '/pass-platform/enterprise/attendance/settings';

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
  owner = await newCompany();
  const { token } = await login(owner.username, owner.password);
  tenantId = token.split('.')[0]!;
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Office', type: 'employee' } })).body.data.groupKey;
  for (const [who, name] of Object.entries(names)) {
    const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('E'), name, role: 'Clerk', gender: 'female', groupKey, needsAttendance: true } });
    expect(answer.body.code).toBe(201);
    employeeKeys[who] = answer.body.data.employeeKey;
  }
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** Sets a time picker as a user pasting "HH:mm" into it does (the picker reads pasted times in 12- and 24-hour formats alike). */
async function setTime(page: Page, testId: string, value: string): Promise<void> {
  const hours = page.getByTestId(testId).locator('input').first();
  await hours.click();
  await hours.evaluate((input, text) => {
    const data = new DataTransfer();
    data.setData('text', text);
    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, value);
}

async function setPeriod(page: Page, i: number, times: [string, string, string, string]): Promise<void> {
  const fields = ['onDuty', 'offDuty', 'earliestCheckIn', 'latestCheckOut'];
  for (const [n, field] of fields.entries()) await setTime(page, `period-${i}-${field}`, times[n]!);
}

async function apiToken(page: Page): Promise<string> {
  return (await page.evaluate(() => localStorage.getItem('token')))!;
}

describe('attendance rules', () => {
  it('creates a shift with two periods, showing an overlap next to its field first', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, failedLoads([/\/v1\/attendance\/shifts$/]));
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto(`${BASE}/shift`);
    await page.getByTestId('shift-empty').waitFor();
    await page.getByTestId('shift-add').click();
    await page.waitForURL(`**${BASE}/shift/create`);
    await page.getByTestId('shift-name').fill('Office day');
    await setPeriod(page, 0, ['09:00', '12:00', '07:00', '12:30']);
    await page.getByTestId('period-add').click();
    await setPeriod(page, 1, ['11:00', '18:00', '10:45', '21:00']);
    await page.getByTestId('shift-submit').click();
    await page.getByText('Period 2 overlaps period 1').waitFor();
    const token = await apiToken(page);
    expect((await call<{ total: number }>('GET', '/v1/attendance/shifts', { token })).body.data.total).toBe(0);

    await setPeriod(page, 1, ['13:30', '18:00', '12:45', '21:00']);
    await page.getByTestId('period-0-lateTolerance').fill('10');
    await page.screenshot({ path: `${shotDir}/attendance-shift-form-en.png`, fullPage: true });
    await page.getByTestId('shift-submit').click();
    await page.waitForURL(`**${BASE}/shift`);
    const row = page.getByTestId('shift-row');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toMatch(/Office day\s+09:00–12:00\s*13:30–18:00/);
    const stored = (await call<{ items: { periods: { lateTolerance: number }[] }[] }>('GET', '/v1/attendance/shifts', { token })).body.data.items;
    expect(stored[0]!.periods.map((p) => p.lateTolerance)).toEqual([10, 0]);
    await page.screenshot({ path: `${shotDir}/attendance-shifts-en.png` });
    await context.close();
  });

  it('creates an attendance group with staff, and asks before moving someone from another group', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, failedLoads([/\/v1\/attendance\/groups$/]));
    await loginInBrowser(page, owner.username, owner.password);
    const create = async (name: string, staff: string[]) => {
      await page.goto(`${BASE}/group/create`);
      await page.getByTestId('group-name').fill(name);
      // Weekdays start on the first shift once the shifts are read.
      await expect.poll(() => page.getByTestId('group-day-mon').inputValue()).toBe('Office day');
      expect(await page.getByTestId('group-day-sat').inputValue()).toBe('Rest');
      for (const person of staff) {
        await page.getByTestId('group-staff').fill(person.slice(0, 6));
        await page.getByRole('option', { name: new RegExp(person) }).click();
      }
      await page.getByTestId('group-overtime-on').check();
      await setTime(page, 'group-overtime-after', '19:30');
      await page.getByTestId('group-submit').click();
    };
    await create('Front desk', [names.ana, names.ben]);
    await page.waitForURL(`**${BASE}/group`);
    const rows = page.getByTestId('group-row');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.innerText()).toMatch(/Front desk\s+2\s+Mon Tue Wed Thu Fri/);
    await page.screenshot({ path: `${shotDir}/attendance-groups-en.png` });

    await create('Night desk', [names.ben]);
    const move = page.getByTestId('confirm-move');
    await move.waitFor();
    expect(await page.locator('.mantine-Modal-content').innerText()).toContain(names.ben);
    await move.click();
    await page.waitForURL(`**${BASE}/group`);
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.allInnerTexts()).toEqual([expect.stringMatching(/^Front desk\s+1\s/), expect.stringMatching(/^Night desk\s+1\s/)]);

    const token = await apiToken(page);
    const groups = (await call<{ items: { attendanceGroupKey: string; name: string; workdayOvertimeAfter: string }[] }>('GET', '/v1/attendance/groups', { token })).body.data.items;
    expect(groups.map((g) => g.workdayOvertimeAfter)).toEqual(['19:30', '19:30']);

    // The detail page shows what was saved, and Cancel goes back without a question when nothing changed.
    await rows.first().getByRole('link').click();
    await page.waitForURL(`**${BASE}/group/${groups[0]!.attendanceGroupKey}`);
    await expect.poll(() => page.getByTestId('group-name').inputValue()).toBe('Front desk');
    await page.locator('.mantine-MultiSelect-pill', { hasText: names.ana }).waitFor();
    await page.getByTestId('group-cancel').click();
    await page.waitForURL(`**${BASE}/group`);

    // The employee's own form shows the group they are in.
    await page.goto(`/pass-platform/enterprise/employee/${employeeKeys.ana}`);
    await expect.poll(() => page.getByTestId('attendance-group-select').inputValue()).toBe('Front desk');
    await context.close();
  });

  it('adds a holiday and a make-up workday, and reads them in Chinese', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto(`${BASE}/holiday`);
    await page.getByTestId('holiday-empty').waitFor();
    const add = async (name: string, from: string, to: string, workday: boolean) => {
      await page.getByTestId('holiday-add').click();
      await page.getByTestId('holiday-name').fill(name);
      await page.getByTestId('holiday-range').click();
      const day = (n: string) => page.locator('.mantine-DatePickerInput-day:not([data-outside])').getByText(n, { exact: true });
      await day(from).click();
      await day(to).click();
      if (workday) {
        await page.getByTestId('holiday-workday').check();
        await page.getByTestId('holiday-shift').click();
        await page.getByRole('option', { name: 'Office day' }).click();
      }
      await page.getByTestId('holiday-submit').click();
      await page.locator('.mantine-Modal-content').waitFor({ state: 'detached' });
    };
    await add('Founders week', '10', '12', false);
    await add('Make-up Saturday', '14', '14', true);
    const rows = page.getByTestId('holiday-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.allInnerTexts()).toEqual([expect.stringMatching(/Make-up Saturday.*Make-up workday\s+Office day/is), expect.stringMatching(/Founders week.*Day off/is)]);

    await page.evaluate(() => localStorage.setItem('locale', 'zh_CN'));
    await page.reload();
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.getByTestId('holiday-table').locator('th').allInnerTexts()).not.toContain('Dates');
    await page.screenshot({ path: `${shotDir}/attendance-holidays-zh.png` });
    await page.goto(`${BASE}/shift/create`);
    await page.getByTestId('period-add').click();
    await page.screenshot({ path: `${shotDir}/attendance-shift-form-zh.png`, fullPage: true });
    await context.close();
  });

  it("reads a day's statistics and opens the trace of a figure", async () => {
    // Ana clocked in at 09:12 and out at 18:30 on the last weekday (company time, UTC for a new company) on some terminal.
    let lastWeekday = addDays(dayOf(new Date(), 'UTC'), -1);
    while ([0, 6].includes(new Date(`${lastWeekday}T00:00:00Z`).getUTCDay())) lastWeekday = addDays(lastWeekday, -1);
    for (const hhmm of ['09:12', '18:30']) {
      const at = atLocalTime(lastWeekday, Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)), 'UTC').toISOString();
      const record = {
        tenantId,
        deviceKey: 'frontdoor0000001',
        recordId: unique('r'),
        time: at,
        verifyTime: at,
        day: lastWeekday,
        personKey: employeeKeys.ana!,
        personKind: 'employee' as const,
        name: names.ana,
        nameLower: names.ana.toLowerCase(),
        type: 'employee' as const,
        measured: true,
        temperature: 36.6,
        fever: false,
        passState: 'passed' as const,
        source: 'face' as const,
        ttl: Math.floor(Date.now() / 1000) + 86_400,
      };
      await storeRecord(record, 9);
    }
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto(`/pass-platform/enterprise/attendance/statistics/daily?from=${lastWeekday}&to=${lastWeekday}`);
    await page.getByTestId('daily-empty').waitFor();
    // The punches were stored behind the ingest's back: the day is computed on demand.
    await page.getByTestId('daily-recompute').click();
    const rows = page.getByTestId('daily-row');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(1);
    const ana = rows.filter({ hasText: names.ana });
    const text = await ana.innerText();
    for (const part of ['late', '09:12', '18:30', '12 min']) expect(text.toLowerCase()).toContain(part);
    await page.screenshot({ path: `${shotDir}/attendance-daily-en.png` });
    await ana.getByTestId('day-late').click();
    const trace = page.getByTestId('day-trace');
    await trace.waitFor();
    expect(await page.getByTestId('day-trace-lines').innerText()).toContain('Late 12 min: clock-in 09:12, on duty 09:00, tolerance 10 min');
    expect(await page.getByTestId('day-computed').innerText()).toMatch(/^Computed at /);
    await page.screenshot({ path: `${shotDir}/attendance-trace-en.png` });
    await page.getByTestId('day-trace-close').click();
    await trace.waitFor({ state: 'detached' });

    // A run that stopped midway is shown, with what it means for the figures, until it is closed.
    const stopped = await createRecomputeJob(tenantId, newTimeId(), lastWeekday, lastWeekday, 'en_US');
    await moveRecomputeJob(tenantId, stopped.jobKey, 'queued', 'failed', { done: 3, total: 7, error: 'The background work stopped before it was complete' });
    await page.reload();
    const notice = page.getByTestId('recompute-failed');
    await notice.waitFor();
    expect(await notice.innerText()).toContain('3 of 7 employees were computed again. The others keep their earlier figures');
    await page.screenshot({ path: `${shotDir}/attendance-recompute-failed-en.png` });
    await page.evaluate(() => localStorage.setItem('locale', 'zh_CN'));
    await page.reload();
    await notice.waitFor();
    expect(await notice.innerText()).toContain('7 名员工中已重新计算 3 名');
    await page.screenshot({ path: `${shotDir}/attendance-recompute-failed-zh.png` });
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    await page.reload();
    await notice.waitFor();
    await notice.getByRole('button', { name: 'Close' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.reload();
    await rows.first().waitFor();
    expect(await page.getByTestId('recompute-failed').count()).toBe(0);

    // A rule changed after the day was computed: the screen says so until the days are computed again.
    const token = await apiToken(page);
    const holiday = await call<{ holidayKey: string }>('POST', '/v1/attendance/holidays', { token, body: { name: unique('Closure '), start: '2020-01-01', end: '2020-01-01', workday: false } });
    expect(holiday.body.code).toBe(201);
    await page.reload();
    const outdated = page.getByTestId('daily-outdated');
    await outdated.waitFor();
    await page.screenshot({ path: `${shotDir}/attendance-outdated-en.png` });
    await page.getByTestId('daily-outdated-recompute').click();
    await outdated.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('recompute-running').count()).toBe(0);
    await expect.poll(() => page.getByTestId('daily-outdated').count()).toBe(0);

    // Only the late show with the status filter; the month counts the day.
    await page.getByTestId('daily-status').click();
    await page.getByRole('option', { name: 'Absent' }).click();
    await page.getByTestId('daily-search').click();
    await expect.poll(() => rows.filter({ hasText: names.ana }).count()).toBe(0);
    await page.goto(`/pass-platform/enterprise/attendance/statistics/monthly?month=${lastWeekday.slice(0, 7)}`);
    const month = page.getByTestId('monthly-row').filter({ hasText: names.ana });
    await month.waitFor();
    expect(await month.innerText()).toMatch(/1 · 12 min/);
    // The month is computed again as a whole, and its figures stay.
    await page.getByTestId('monthly-recompute').click();
    await page.getByText('Attendance computed again').waitFor();
    expect(await page.getByTestId('monthly-recompute').isEnabled()).toBe(true);
    expect(await month.innerText()).toMatch(/1 · 12 min/);
    await page.evaluate(() => localStorage.setItem('locale', 'ja_JP'));
    await page.reload();
    await month.waitFor();
    await page.screenshot({ path: `${shotDir}/attendance-monthly-ja.png` });
    await context.close();
  });
});
