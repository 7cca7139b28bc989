/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { base, loginInBrowser, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * The console at two desktop widths in a compact language (English), a long one (German) and a
 * CJK one (Japanese): what can be measured is asserted, and every screen is saved under
 * tests/.artifacts/layout/<screen>-<locale>-<width>.png to be looked at.
 */
const LOCALES = ['en_US', 'de_DE', 'ja_JP'] as const;
const WIDTHS = [1280, 1440] as const;
const HEIGHT = 900;

let browser: Browser;
let page: Page;
let fleet: Fleet;
let deviceKey: string;
const dir = join(shotDir, 'layout');

/** People with long-ish names, roles, phones, groups and card numbers, as a real company has them. */
const PEOPLE = [
  { name: 'Maximilian Schneider-Hoffmann', role: 'Facilities Engineer', gender: 'male', group: 0, phone: '+49 (151) 2345-6789', icCard: '04A1B2C3D4E5F6' },
  { name: 'Alexandra Konstantinidou', role: 'Customer Success Lead', gender: 'female', group: 1, phone: '+1 (415) 555-0142', icCard: '7F3E91AC55D2' },
  { name: 'Jean-Baptiste Lefèvre', role: 'Security Officer', gender: 'male', group: 0, phone: '+33 6 12 34 56 78', icCard: '0098765432' },
  { name: '山田 花子', role: '総務部 主任', gender: 'female', group: 2, phone: '090-1234-5678', icCard: 'A1B2C3D4' },
] as const;
const GROUPS = ['Facilities & Security', 'Customer Success Team', '東京本社 総務部'];

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  const owner = await newCompany({ companyName: 'Nordlicht Logistik GmbH' });
  const { token } = await login(owner.username, owner.password);
  const groupKeys: string[] = [];
  for (const name of GROUPS) {
    const made = await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name, type: 'employee' } });
    if (made.body.code !== 201) throw new Error(`group answered ${made.status}: ${made.body.message}`);
    groupKeys.push(made.body.data.groupKey);
  }
  const personKeys: string[] = [];
  for (const [i, person] of PEOPLE.entries()) {
    const { group, ...fields } = person;
    const body = { ...fields, personId: `EMP-2024-${String(1017 + i).padStart(5, '0')}`, groupKey: groupKeys[group], email: `person${i}@example.test` };
    const made = await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body });
    if (made.body.code !== 201) throw new Error(`employee answered ${made.status}: ${made.body.message}`);
    personKeys.push(made.body.data.employeeKey);
  }
  // A simulated face terminal bound to this company (a licence gives it a seat), for the device screens.
  await grantSeats(token, 5);
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('LAY').toUpperCase() });
  deviceKey = fleet.agents[0]!.deviceKey!;
  // Invitations to two accounts, for the mail records.
  for (const name of ['reception', 'nightshift']) {
    const invited = await call('POST', '/v1/accounts', { token, body: { username: unique(name), email: `${unique(name)}@example.test`, authCodes: ['pass:dashboard'], invite: true } });
    if (invited.body.code !== 201) throw new Error(`account answered ${invited.status}: ${invited.body.message}`);
  }
  // Authorizations on it, half of them until a date, for the authority list; none has a photo, so they fail.
  for (const [i, key] of personKeys.entries()) {
    const validity = i % 2 ? { permanent: false, start: '2026-01-01', end: '2030-12-31' } : { permanent: true };
    const granted = await call('POST', '/v1/authorities', { token, body: { setType: 0, personKeys: [key], deviceKeys: [deviceKey], validity } });
    if (granted.body.code !== 201) throw new Error(`authority answered ${granted.status}: ${granted.body.message}`);
  }

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: HEIGHT }, baseURL: base(), locale: 'en-US' });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
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

async function open(path: string) {
  await page.goto(path);
  await page.getByTestId('screen-title').waitFor();
}

const shot = (name: string, locale: string, width: number, fullPage = false) =>
  page.screenshot({ path: join(dir, `${name}-${locale}-${width}.png`), fullPage });

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const box = async (locator: Locator): Promise<Box> => (await locator.boundingBox())!;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * Texts that take more than one line inside `root` (table cells, tabs): each text node's box is
 * compared with the line height of the element that holds it.
 */
function wrappedTexts(root: Locator, selector: string): Promise<string[]> {
  return root.evaluate((element, cells) => {
    const found: string[] = [];
    for (const cell of element.querySelectorAll(cells)) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent?.trim()) continue;
        const style = getComputedStyle(node.parentElement!);
        const line = style.lineHeight === 'normal' ? parseFloat(style.fontSize) * 1.2 : parseFloat(style.lineHeight);
        const range = document.createRange();
        range.selectNodeContents(node);
        const height = range.getBoundingClientRect().height;
        if (height > line * 1.5) found.push(`${node.textContent.trim()} (${Math.round(height)} px for a line of ${Math.round(line)} px)`);
      }
    }
    return found;
  }, selector);
}

/** How far an input's placeholder sticks out of its text box: scrollWidth over clientWidth, and the text measured in the input's font. */
function placeholderOverflow(input: Locator): Promise<{ scroll: number; text: number }> {
  return input.evaluate((element: HTMLInputElement) => {
    const style = getComputedStyle(element);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { scroll: element.scrollWidth - element.clientWidth, text: Math.max(0, Math.ceil(context.measureText(element.placeholder).width - room)) };
  });
}

const fontWeight = (element: Locator) => element.evaluate((e) => getComputedStyle(e).fontWeight);
const labelWeight = (input: Locator) => input.evaluate((e: HTMLInputElement) => getComputedStyle(e.labels![0]!).fontWeight);

/**
 * The grid items of a settings section, grouped by row: in a row of switches every item is as
 * tall as the tallest (no blank gap beside a short one), and in a row of inputs every input
 * starts at the same height (labels and hints of different lengths do not push one down).
 */
function settingRows(section: Locator): Promise<{ switchRows: number[][]; inputRows: number[][] }> {
  return section.evaluate((element) => {
    const rows = (items: Element[], measure: (item: Element) => number) => {
      const byTop = new Map<number, number[]>();
      for (const item of items) {
        const top = Math.round(item.getBoundingClientRect().top);
        byTop.set(top, [...(byTop.get(top) ?? []), Math.round(measure(item))]);
      }
      return [...byTop.values()];
    };
    const [switches, inputs] = ['setting-switches', 'setting-inputs'].map((id) => element.querySelector(`[data-testid="${id}"]`));
    return {
      switchRows: switches ? rows([...switches.children], (item) => item.getBoundingClientRect().height) : [],
      inputRows: inputs ? rows([...inputs.children], (item) => item.querySelector('input')!.getBoundingClientRect().top) : [],
    };
  });
}

const spread = (values: number[]) => Math.max(...values) - Math.min(...values);

describe.each(LOCALES)('layout in %s', (locale) => {
  describe.each(WIDTHS)('at %i px', (width) => {
    it('keeps every row of the employee list on one line and shows the whole keyword hint', async () => {
      await page.setViewportSize({ width, height: HEIGHT });
      // The language is chosen as the language menu does it: kept in local storage, then the page reloads.
      await page.evaluate((l) => localStorage.setItem('locale', l), locale);
      await open('/pass-platform/enterprise/employee');
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale.replace('_', '-'));
      const table = page.getByTestId('people-table');
      await expect.poll(() => page.getByTestId('people-row').count()).toBe(PEOPLE.length);
      await shot('employees', locale, width);

      expect(await wrappedTexts(table, 'th, td')).toEqual([]);
      const rowHeights = await page.getByTestId('people-row').evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
      expect(spread(rowHeights)).toBeLessThanOrEqual(1);
      // One line of text or the 32 px avatar, with the cell padding: nothing taller.
      expect(Math.max(...rowHeights)).toBeLessThanOrEqual(56);
      const header = await table.locator('thead tr').evaluate((r) => r.getBoundingClientRect().height);
      expect(header).toBeLessThanOrEqual(44);
      // Columns that do not fit scroll inside the card; the name and the actions stay in view.
      const card = await box(table.locator('xpath=..'));
      for (const cell of [table.locator('tbody tr').first().locator('td').nth(1), table.locator('tbody tr').first().locator('td').last()]) {
        const b = await box(cell);
        expect(b.x).toBeGreaterThanOrEqual(card.x - 1);
        expect(b.x + b.width).toBeLessThanOrEqual(card.x + card.width + 1);
      }
      expect(await placeholderOverflow(page.getByTestId('people-keyword'))).toEqual({ scroll: 0, text: 0 });
    });

    it('shows the badges, times and states of the authority list and the mail records whole', async () => {
      await page.setViewportSize({ width, height: HEIGHT });
      for (const [path, name, columns] of [
        ['/pass-platform/passage/authority', 'authority', ['validity', 'sync', 'syncTime']],
        ['/settings/mail', 'mail', ['status', 'sendTime']],
      ] as const) {
        await open(path);
        const table = page.getByTestId(`${name}-table`);
        await expect.poll(() => table.locator('tbody tr').count()).toBeGreaterThan(0);
        await page.waitForLoadState('networkidle');
        await shot(`${name}-list`, locale, width);
        // A badge narrower than its text is cut.
        const cut = await table.evaluate((element) =>
          [...element.querySelectorAll('td .mantine-Badge-root, td .mantine-Badge-label')]
            .filter((e) => e.scrollWidth > e.clientWidth + 1)
            .map((e) => e.textContent),
        );
        expect(cut).toEqual([]);
        expect(await wrappedTexts(table, 'th')).toEqual([]);
        // The states and times are in view without scrolling sideways, each on one line, left of the pinned actions.
        const scroller = await box(table.locator('xpath=..'));
        const actions = table.locator('thead th').last();
        const actionsLeft = (await actions.getAttribute('data-column')) === 'actions' ? (await box(actions)).x : scroller.x + scroller.width;
        for (const column of columns) {
          const header = await box(table.locator(`th[data-column=${column}]`));
          expect(header.x, column).toBeGreaterThanOrEqual(scroller.x - 1);
          expect(header.x + header.width, column).toBeLessThanOrEqual(actionsLeft + 1);
          // A failed sync's reason is written under its badge, on as many lines as it takes.
          if (column !== 'sync') expect(await wrappedTexts(table, `td[data-column=${column}]`)).toEqual([]);
        }
      }
    });

    it('shows the person form', async () => {
      await open('/pass-platform/enterprise/employee/create');
      await shot('person-form', locale, width);
    });

    it('shows the device filters with labels of one weight and the whole keyword hint', async () => {
      await open('/pass-platform/device/management');
      await expect.poll(() => page.locator('.device-row').count()).toBe(1);
      await shot('devices', locale, width);
      // "State" labels a group of buttons, not an input, yet reads like the labels beside it.
      const stateLabel = page.getByTestId('device-presence-field').locator('.mantine-InputWrapper-label');
      const state = await fontWeight(stateLabel);
      // Above its buttons, as the other labels are above their inputs.
      const labelBox = await box(stateLabel);
      expect(labelBox.y + labelBox.height).toBeLessThanOrEqual((await box(page.getByTestId('device-presence'))).y + 1);
      expect(state).toBe(await labelWeight(page.getByTestId('device-group-filter')));
      expect(state).toBe(await labelWeight(page.getByTestId('device-keyword')));
      expect(await placeholderOverflow(page.getByTestId('device-keyword'))).toEqual({ scroll: 0, text: 0 });
      expect(await wrappedTexts(page.getByTestId('device-table'), 'th, td')).toEqual([]);
    });

    it('keeps the six setting tabs one per line beside their panel, and lines up each section', async () => {
      await open(`/pass-platform/device/management/${deviceKey}`);
      await page.getByTestId('device-facts').waitFor();
      await shot('device-basic', locale, width, true);

      const list = page.getByRole('tablist');
      const tabs = page.getByRole('tab');
      expect(await tabs.count()).toBe(6);
      const tabBoxes = await tabs.evaluateAll((all) => all.map((t) => t.getBoundingClientRect().toJSON() as DOMRect));
      // Every tab as tall as the first (none wraps), in one column.
      expect(spread(tabBoxes.map((b) => b.height))).toBeLessThanOrEqual(1);
      expect(spread(tabBoxes.map((b) => b.left))).toBeLessThanOrEqual(1);
      expect(await wrappedTexts(list, '[role=tab]')).toEqual([]);
      const listBox = await box(list);
      expect(listBox.height).toBeGreaterThanOrEqual(tabBoxes.reduce((sum, b) => sum + b.height, 0) - 1);
      const panel = await box(page.getByRole('tabpanel'));
      expect(panel.x).toBeGreaterThanOrEqual(listBox.x + listBox.width - 1);

      for (const section of ['temperature', 'pass', 'doorOpening', 'timing', 'other']) {
        await page.getByTestId(`tab-${section}`).click();
        const content = page.getByTestId(`section-${section}`);
        await content.waitFor();
        await shot(`device-${section}`, locale, width);
        const { switchRows, inputRows } = await settingRows(content);
        for (const row of switchRows) expect(spread(row), `${section}: switches of a row`).toBeLessThanOrEqual(2);
        for (const row of inputRows) expect(spread(row), `${section}: inputs of a row`).toBeLessThanOrEqual(1);
        expect(await wrappedTexts(list, '[role=tab]')).toEqual([]);
      }
    });

    it('shows toasts in the header band, where they cover no control of the header, no field and no dialog', async () => {
      await page.getByRole('tab').first().click();
      const name = page.getByTestId('device-name-input');
      await name.fill(`Lobby ${locale} ${width}`);
      await page.getByTestId('device-save').click();
      const toast = page.locator('.mantine-Notification-root');
      await toast.waitFor();
      await expect.poll(() => toast.evaluate((e) => getComputedStyle(e).opacity)).toBe('1');
      await shot('toast', locale, width);
      // A dialog opened while the toast shows.
      await page.getByTestId('cmd-reboot').click();
      const title = page.getByRole('dialog').locator('.mantine-Modal-title');
      await title.waitFor();
      // Both have finished coming in.
      await expect.poll(() => page.locator('.mantine-Modal-content').evaluate((e) => getComputedStyle(e).opacity)).toBe('1');
      await expect.poll(() => toast.evaluate((e) => getComputedStyle(e).opacity)).toBe('1');
      await shot('toast-dialog', locale, width);
      const toastBox = await box(toast);
      const header = await box(page.locator('header').first());
      expect(toastBox.y + toastBox.height).toBeLessThanOrEqual(header.y + header.height);
      for (const control of await page.locator('header').first().locator('button, a, input').all()) {
        if (await control.isVisible()) expect(overlaps(toastBox, await box(control))).toBe(false);
      }
      expect(overlaps(toastBox, await box(page.locator('.mantine-Modal-content')))).toBe(false);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    });
  });
});
