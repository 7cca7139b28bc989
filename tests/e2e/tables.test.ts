/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import type { MenuItem } from '@passcloud/functions/contract/menu';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { captureJpeg, newPassRecord } from '@passcloud/device-shadow/records';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { base, loginInBrowser, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * Every screen of the menu that shows a table, at 1280 and 1440 px in English, German and
 * Japanese: each header and cell is whole, or cut only at the edge of the table's sideways scroll
 * and reached by it; lines break between words only; the name column stays in view when the
 * table scrolls to its end. A live alert shows all along, and covers no control of any screen and
 * no table's first row. The screens are found from the account's menu, so a new one is covered.
 * Shots: tests/.artifacts/tables/<screen>-<locale>-<width>.png.
 */
const LOCALES = ['en_US', 'de_DE', 'ja_JP'] as const;
const WIDTHS = [1280, 1440] as const;
const HEIGHT = 900;
const DAILY = '/pass-platform/enterprise/attendance/statistics/daily';

let browser: Browser;
let page: Page;
let fleet: Fleet;
let watchedKey: string;
const dir = join(shotDir, 'tables');
const menuPaths: string[] = [];
/** The screens of the menu with a table, and the test ids of their tables: found on the first round, which visits every screen. */
const screens = new Map<string, string[]>();

const EMPLOYEES = ['Maximilian Schneider-Hoffmann', 'Alexandra Konstantinidou', '山田 花子'];

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  const owner = await newCompany({ companyName: 'Nordlicht Logistik GmbH' });
  const { token } = await login(owner.username, owner.password);
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const answer = await call<T>('POST', path, { token, body });
    if (answer.body.code !== 201) throw new Error(`${path} answered ${answer.status}: ${answer.body.message}`);
    return answer.body.data;
  };
  const staff = (await post<{ groupKey: string }>('/v1/groups', { name: 'Facilities & Security', type: 'employee' })).groupKey;
  const guests = (await post<{ groupKey: string }>('/v1/groups', { name: 'Besucher & Gäste', type: 'visitor' })).groupKey;
  const employeeKeys: string[] = [];
  for (const [i, name] of EMPLOYEES.entries()) {
    const body = { name, personId: `EMP-2024-${1017 + i}`, role: 'Facilities Engineer', gender: 'female', groupKey: staff, needsAttendance: true };
    employeeKeys.push((await post<{ employeeKey: string }>('/v1/employees', body)).employeeKey);
  }
  const visitor = (name: string) =>
    post<{ visitorKey: string }>('/v1/visitors', { personId: unique('V'), name, role: 'Lieferant', gender: 'male', groupKey: guests });
  const guest = (await visitor('Jean-Baptiste Lefèvre')).visitorKey;
  watchedKey = (await visitor('Konstantin Wasserfallenberger')).visitorKey;

  await grantSeats(token, 5);
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('TBL').toUpperCase() });
  const deviceKey = fleet.agents[0]!.deviceKey!;
  const permanent = { permanent: true };
  await post('/v1/authorities', { setType: 0, personKeys: [...employeeKeys, guest], deviceKeys: [deviceKey], validity: permanent });
  await post('/v1/authorities', { setType: 1, personKeys: [watchedKey], deviceKeys: [deviceKey], validity: permanent });

  // A working day for everyone, clock-ins of today with a fever, for the daily and monthly statistics.
  const period = { onDuty: '01:00', offDuty: '23:00', earliestCheckIn: '00:00', latestCheckOut: '23:59', lateTolerance: 0, earlyLeaveTolerance: 0 };
  const shiftKey = (await post<{ shiftKey: string }>('/v1/attendance/shifts', { name: 'Frühschicht Lager', periods: [period] })).shiftKey;
  const week = Object.fromEntries(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((day) => [day, shiftKey]));
  await post('/v1/attendance/groups', {
    name: 'Lager und Versand',
    employeeKeys,
    deviceKeys: [deviceKey],
    weekdays: week,
    workdayOvertimeAfter: '19:00',
    restDayMinHours: null,
  });
  // The company keeps UTC days, as the browser below does; a clock-in of today even just after midnight.
  const today = new Date().toISOString().slice(0, 10);
  const verifyTime = Math.max(Date.now() - 20_000, Date.parse(`${today}T00:00:01Z`));
  for (const [i, personKey] of employeeKeys.entries())
    fleet.agents[0]!.records.add(newPassRecord({ personKey, name: EMPLOYEES[i], temperature: 37.8, verifyTime }), captureJpeg());
  for (const name of ['reception', 'nightshift'])
    await post('/v1/accounts', { username: unique(name), email: `${unique(name)}@example.test`, authCodes: ['pass:dashboard'], invite: true });
  const days = async () => (await call<{ items: unknown[] }>('GET', `/v1/attendance/daily?from=${today}&to=${today}`, { token })).body.data.items.length;
  for (let tries = 0; (await days()) < EMPLOYEES.length; tries++) {
    if (tries === 100) throw new Error('the clock-ins made no days of attendance');
    await new Promise((wait) => setTimeout(wait, 200));
  }

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: HEIGHT }, baseURL: base(), timezoneId: 'UTC', locale: 'en-US' });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  watchConsole(page);
  await loginInBrowser(page, owner.username, owner.password);

  // Every screen of the menu without a key in its path.
  const menu = (await call<MenuItem[]>('GET', '/v1/systems/routes', { token: (await page.evaluate(() => localStorage.getItem('token')))! })).body.data;
  const walk = (items: MenuItem[]): string[] => items.flatMap((item) => [...(item.redirect ? [] : [item.path]), ...walk(item.children ?? [])]);
  menuPaths.push(...walk(menu).filter((path) => !path.includes(':')));
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/**
 * Opens a screen in the page as a link does, so the alerts that show stay, and waits for it: its
 * title, its tables (those given, and any) with their first rows, and no loader.
 */
async function visit(path: string, tables: string[] = []): Promise<void> {
  if (new URL(page.url()).pathname !== path) {
    const title = await page.title();
    await page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, path);
    await page.waitForFunction((before) => document.title !== before, title);
  }
  for (const name of tables) await page.getByTestId(name).waitFor();
  await page.waitForFunction(() => !document.querySelector('main :is([data-testid$="-loading"], .mantine-Loader-root)'));
}

/**
 * What is wrong with a table: a header or cell cut (other than free text ending in an ellipsis
 * with the whole text on hover) or broken inside a word; a frame wider than the screen, so that
 * its scroll cannot reach its end; no name column pinned, or one that leaves when the table
 * scrolls to its last column, which must then be whole.
 */
function tableProblems(table: Locator): Promise<string[]> {
  return table.evaluate(async (element: HTMLTableElement) => {
    const problems: string[] = [];
    const scroller = element.parentElement!;
    const frame = () => scroller.getBoundingClientRect();
    const name = (cell: Element) =>
      `${cell.closest('thead') ? 'header' : 'cell'} ${cell.getAttribute('data-column') ?? ''} "${(cell.textContent ?? '').trim().slice(0, 40)}"`;
    const main = document.querySelector('main')!.getBoundingClientRect();
    if (frame().left < main.left - 1 || frame().right > main.right + 1)
      problems.push(`frame ${frame().left}–${frame().right} outside the screen ${main.left}–${main.right}`);
    if (document.documentElement.scrollWidth > innerWidth + 1) problems.push('the page scrolls sideways');
    for (let up = scroller.parentElement; up && up.tagName !== 'MAIN'; up = up.parentElement) {
      const box = up.getBoundingClientRect();
      if (getComputedStyle(up).overflowX !== 'visible' && (frame().left < box.left - 1 || frame().right > box.right + 1))
        problems.push('the frame is cut by what holds it');
    }
    const wide = /[\s\-–/·,]/;
    const cjk = /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/;
    const cells = [...element.querySelectorAll(':scope > thead > tr > th, :scope > tbody > tr:nth-child(-n+5) > td')];
    for (const cell of cells) {
      if (cell.scrollWidth > cell.clientWidth + 1) problems.push(`${name(cell)} is wider than its cell`);
      for (const inner of cell.querySelectorAll('*')) {
        if (inner.clientWidth === 0 || inner.scrollWidth <= inner.clientWidth + 1) continue;
        const style = getComputedStyle(inner);
        if (style.overflowX === 'visible' || (style.textOverflow === 'ellipsis' && inner.closest('[title]'))) continue;
        problems.push(`${name(cell)}: "${inner.textContent}" is cut`);
      }
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        const range = document.createRange();
        range.selectNodeContents(node);
        if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size < 2) continue;
        let top: number | undefined;
        for (let i = 0; i < text.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const at = range.getBoundingClientRect();
          if (at.width === 0) continue;
          if (top !== undefined && at.top > top + 2 && i > 0 && !wide.test(text[i - 1]!) && !wide.test(text[i]!) && !cjk.test(text[i - 1]! + text[i]!))
            problems.push(`${name(cell)}: "${text}" breaks inside a word at "${text.slice(Math.max(0, i - 5), i)}|${text.slice(i, i + 5)}"`);
          top = at.top;
        }
      }
    }
    const headers = [...element.querySelectorAll<HTMLTableCellElement>(':scope > thead > tr > th[data-column]')];
    const pinned = headers.find((th) => getComputedStyle(th).position === 'sticky' && getComputedStyle(th).left !== 'auto');
    if (!pinned) return [...problems, 'no column is pinned at the start'];
    if (scroller.scrollWidth > scroller.clientWidth + 1) {
      scroller.scrollLeft = scroller.scrollWidth;
      await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
      const within = (cell: Element) => cell.getBoundingClientRect().left >= frame().left - 1 && cell.getBoundingClientRect().right <= frame().right + 1;
      const row = element.querySelector(':scope > tbody > tr');
      const pinnedCell = row?.children[pinned.cellIndex];
      for (const cell of [pinned, pinnedCell].filter((c) => !!c)) {
        if (!within(cell!)) problems.push(`scrolled to its end, the table leaves out its pinned ${name(cell!)}`);
        const box = cell!.getBoundingClientRect();
        const seen = document.elementFromPoint(box.left + Math.min(box.width / 2, 20), box.top + box.height / 2);
        if (box.top >= 0 && box.bottom <= innerHeight && !cell!.contains(seen)) problems.push(`scrolled to its end, the pinned ${name(cell!)} is covered`);
      }
      const last = headers.at(-1)!;
      if (!within(last)) problems.push(`scrolled to its end, the last ${name(last)} is still cut`);
      scroller.scrollLeft = 0;
    }
    return problems;
  });
}

/** Controls and tables' first rows of the screen that a live alert covers, on the screen as it is or scrolled: the alerts' columns against theirs. */
function coveredByAlerts(): Promise<{ alerts: number; covered: string[] }> {
  return page.evaluate(() => {
    const alerts = [...document.querySelectorAll('[data-testid=alert-column] .mantine-Notification-root')].map((a) => a.getBoundingClientRect());
    const covered: string[] = [];
    const targets = document.querySelectorAll('main :is(input, button, select, textarea, [role=combobox], a[href]), main table > tbody > tr:first-child');
    for (const target of targets) {
      let box = target.getBoundingClientRect();
      // What a scrolled table hides is not there to cover.
      for (let up = target.parentElement; up && up.tagName !== 'MAIN'; up = up.parentElement) {
        if (getComputedStyle(up).overflowX === 'visible') continue;
        const clip = up.getBoundingClientRect();
        box = new DOMRect(Math.max(box.left, clip.left), box.top, Math.max(0, Math.min(box.right, clip.right) - Math.max(box.left, clip.left)), box.height);
      }
      if (box.width === 0 || box.height === 0 || getComputedStyle(target).visibility === 'hidden') continue;
      if (alerts.some((a) => a.left < box.right && box.left < a.right)) covered.push(target.outerHTML.slice(0, 100));
    }
    return { alerts: alerts.length, covered };
  });
}

describe.each(LOCALES)('tables in %s', (locale) => {
  beforeAll(async () => {
    await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
    await page.evaluate((l) => localStorage.setItem('locale', l), locale);
    // The console has read the day's blacklist records once; a hit after that raises an alert, which stays until closed.
    const read = page.waitForResponse((response) => new URL(response.url()).pathname === '/v1/blacklistRecords');
    await page.goto('/pass-platform/dashboard');
    await page.getByTestId('screen-title').waitFor();
    await read;
    await page.waitForTimeout(500);
    fleet.agents[0]!.records.add(newPassRecord({ personKey: watchedKey, name: 'Konstantin Wasserfallenberger', passState: 'refused' }), captureJpeg());
    await page.getByTestId('blacklist-alert').waitFor({ timeout: 30_000 });
  });

  it.each(WIDTHS)('shows every column of every table at %i px whole or within its scroll, the names pinned, and no alert over a control', async (width) => {
    await page.setViewportSize({ width, height: HEIGHT });
    // The alert column has come in.
    await expect
      .poll(() => page.getByTestId('alert-column').evaluate((e: HTMLElement) => Math.round(e.getBoundingClientRect().left) === innerWidth - e.offsetWidth))
      .toBe(true);
    const round: [string, string[]][] = screens.size ? [...screens] : menuPaths.map((path) => [path, []]);
    const problems: Record<string, string[]> = {};
    for (const [path, known] of round) {
      await visit(path, known);
      const tables = known.length
        ? known
        : await page.locator('main table[data-testid$="-table"]').evaluateAll((all) => all.map((t) => t.getAttribute('data-testid')!));
      const reached = new URL(page.url()).pathname;
      if (!known.length) {
        if (!tables.length || screens.has(reached)) continue;
        screens.set(reached, tables);
      }
      await page.screenshot({ path: join(dir, `${reached.slice(1).replaceAll('/', '_')}-${locale}-${width}.png`) });
      const found: string[] = [];
      for (const name of tables) found.push(...(await tableProblems(page.getByTestId(name))).map((p) => `${name}: ${p}`));
      const { alerts, covered } = await coveredByAlerts();
      if (alerts === 0) found.push('no alert shows');
      found.push(...covered.map((c) => `under the alert: ${c}`));
      if (found.length) problems[reached] = found;
      // The screen of the issue, scrolled to its last column, to be looked at.
      if (reached === DAILY) {
        await page.getByTestId('daily-table').evaluate((table) => (table.parentElement!.scrollLeft = table.parentElement!.scrollWidth));
        await page.waitForTimeout(100);
        await page.screenshot({ path: join(dir, `daily-scrolled-${locale}-${width}.png`) });
        await page.getByTestId('daily-table').evaluate((table) => (table.parentElement!.scrollLeft = 0));
      }
    }
    expect(screens.size).toBeGreaterThanOrEqual(15);
    expect(problems).toEqual({});
  });
});
