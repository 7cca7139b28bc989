/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import { launchBrowser } from '../support/browser.ts';
import { login, newCompany, unique } from '../support/api.ts';
import { avatarOf, delivered, employeeWith, made } from '../support/people.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * Why a terminal decided a pass, in the console: the record list filters refused passes by their
 * reason and shows it; the detail traces the list that matched, the validity, the schedule and
 * the period in force, the door mode and the temperature and mask rules, in English and Japanese.
 */

let browser: Browser;
let fleet: Fleet;
let agent: DeviceAgent;
let owner: { username: string; password: string; userCode: string };
let token: string;

beforeAll(async () => {
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  const staff = await made<{ groupKey: string }>(token, '/v1/groups', { name: 'Night shift', type: 'employee' });
  const avatar = await avatarOf(token, makePng(1024, 768, 40), 'face.png');
  const person = (name: string) => employeeWith(token, { personId: unique('D'), name, groupKey: staff.groupKey, avatar });
  const closed = await made<{ scheduleKey: string }>(token, '/v1/schedules', {
    name: 'Weekends only',
    weekly: Array.from({ length: 7 }, () => []),
    exceptions: [],
    holidaysClosed: false,
  });
  const nora = await person('Nora Closedhours');
  const ivo = await person('Ivo Anytime');

  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('RD').toUpperCase() });
  agent = fleet.agents[0]!;
  await made(token, '/v1/authorities', {
    setType: 0,
    personKeys: [nora],
    deviceKeys: [agent.deviceKey],
    validity: { permanent: true },
    scheduleKey: closed.scheduleKey,
  });
  await made(token, '/v1/authorities', { setType: 0, personKeys: [ivo], deviceKeys: [agent.deviceKey], validity: { permanent: true } });
  const end = Date.now() + 20_000;
  while (!agent.faces.find('pass', nora) || !agent.schedules.find(closed.scheduleKey) || !agent.faces.find('pass', ivo)) {
    if (Date.now() > end) throw new Error('the terminal did not take the faces and the schedule');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(agent.see({ personKey: nora, temperature: 36.4 })).toMatchObject({ passState: 'refused', refusedFor: 'schedule' });
  expect(agent.see({ personKey: ivo, temperature: 36.6 }).passState).toBe('passed');
  await delivered(agent);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

async function opened(locale?: string): Promise<Page> {
  const { page } = await newPage(browser, locale ? { locale } : {});
  watchConsole(page);
  await loginInBrowser(page, owner.username, owner.password);
  await page.goto('/pass-platform/passage/record');
  await expect.poll(() => page.getByTestId('record-row').count()).toBe(2);
  return page;
}

describe('how the terminal decided, in the console', () => {
  it('filters refused passes by their reason, shows it, and traces the decision in the detail', async () => {
    const page = await opened();
    const refused = page.getByTestId('record-row').filter({ hasText: 'Nora Closedhours' });
    expect(await refused.getByTestId('record-refused-for').innerText()).toBe('Outside schedule');
    await page.getByTestId('record-refusal-filter').click();
    await page.getByRole('option', { name: 'Outside schedule', exact: true }).click();
    await page.getByTestId('record-search').click();
    await expect.poll(() => page.getByTestId('record-row').count()).toBe(1);
    await expect.poll(() => page.url()).toContain('refusedFor=schedule');
    await page.getByTestId('record-row').first().click();
    const trace = page.getByRole('dialog').getByTestId('decision-trace');
    await expect.poll(() => trace.count()).toBe(1);
    const text = await trace.innerText();
    expect(text).toContain('How the terminal decided');
    expect(text).toMatch(/Refused for\s+Outside schedule/);
    expect(text).toMatch(/Matched list\s+Pass list/);
    expect(text).toMatch(/Validity\s+At any time/);
    expect(await trace.getByTestId('decision-schedule').innerText()).toMatch(/^Closed at \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\), weekly hours$/);
    expect(text).toMatch(/Temperature rule\s+Fever alarm from 37\.3\s?°C/);
    expect(text).toMatch(/Mask rule\s+Mask not required/);
    await trace.scrollIntoViewIfNeeded();
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${shotDir}/record-decision-en.png` });
    await trace.screenshot({ path: `${shotDir}/record-decision-trace-en.png` });
    await page.context().close();
  });

  it('says the reason and the trace in Japanese', async () => {
    const page = await opened('ja_JP');
    const refused = page.getByTestId('record-row').filter({ hasText: 'Nora Closedhours' });
    expect(await refused.getByTestId('record-refused-for').innerText()).toBe('スケジュール外');
    await refused.click();
    const trace = page.getByRole('dialog').getByTestId('decision-trace');
    await expect.poll(() => trace.count()).toBe(1);
    const text = await trace.innerText();
    expect(text).toContain('端末の判定の経緯');
    expect(text).toContain('拒否理由');
    expect(text).toContain('通行リスト');
    expect(await trace.getByTestId('decision-schedule').innerText()).toMatch(/^閉鎖中、時刻 \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)、週間の時間帯$/);
    expect(text).not.toMatch(/Closed at|Pass list|Refused for/);
    await trace.scrollIntoViewIfNeeded();
    await page.waitForTimeout(400);
    await page.screenshot({ path: `${shotDir}/record-decision-ja.png` });
    await trace.screenshot({ path: `${shotDir}/record-decision-trace-ja.png` });
    await page.context().close();
  });
});
