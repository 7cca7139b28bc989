/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { base, isBackgroundRead, loginInBrowser, newPage, pageErrors, shotDir } from './support.ts';

/**
 * A new administrator's first hour: toasts that close, a first visit without a session toast,
 * groups made in place, confirmations that name what they touch, counted texts, the password
 * rules in the form and the way back to the page opened before logging in.
 */
let browser: Browser;
const contexts: BrowserContext[] = [];

/** Console errors of every page opened here, and the failed requests a test says it expects. */
const consoleErrors: string[] = [];
let expectedFailures = new Set<string>();

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(() => {
  consoleErrors.length = 0;
  expectedFailures = new Set();
});
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  expect(pageErrors.splice(0)).toEqual([]);
  // The browser logs every answered error status; only the ones a test provokes may appear.
  expect(consoleErrors.filter((e) => !expectedFailures.has(e))).toEqual([]);
});

/** Declares a request the test makes fail on purpose, as "<status> <path>". */
const expectFailure = (...failures: string[]) => failures.forEach((f) => expectedFailures.add(f));

async function open(options: { locale?: string } = {}): Promise<Page> {
  const { context, page } = await newPage(browser, options);
  contexts.push(context);
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(message.text())?.[1];
    const url = message.location().url;
    consoleErrors.push(status && url ? `${status} ${new URL(url).pathname}` : message.text());
  });
  return page;
}

/** Requests to the API (`METHOD /path`), recorded from now on. */
function recordApi(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    // What the console reads on its own is not the form's.
    if (isBackgroundRead(request.method(), url.pathname)) return;
    if (url.pathname.startsWith('/v1/')) seen.push(`${request.method()} ${url.pathname}`);
  });
  return seen;
}

/** A screenshot once transitions (toasts, dialogs) have ended. */
async function shot(page: Page, path: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path });
}

const toasts = (page: Page) => page.locator('.mantine-Notification-root');

async function submitLogin(page: Page, username: string, password: string) {
  await page.locator('input[autocomplete=username]').fill(username);
  await page.locator('input[type=password]').fill(password);
  await page.locator('form button[type=submit]').click();
}

describe('toasts', () => {
  it('closes an error toast with ×, shows the next error after it, and lets an error go by itself after 2 s', async () => {
    const page = await open();
    expectFailure('401 /v1/systems/login');
    const username = unique('nobody');
    await page.goto('/login');
    await submitLogin(page, username, 'wrong-password-1');
    await expect.poll(() => toasts(page).count()).toBe(1);
    expect(await toasts(page).innerText()).toContain('Wrong username or password');

    await toasts(page).getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => toasts(page).count()).toBe(0);

    // The next error shows after the closed one, and closes by itself after about 2 s.
    await page.locator('form button[type=submit]').click();
    await expect.poll(() => toasts(page).count(), { interval: 25 }).toBe(1);
    const shownAt = Date.now();
    expect(await toasts(page).innerText()).toContain('Wrong username or password');
    await page.waitForTimeout(1200);
    expect(await toasts(page).count()).toBe(1);
    await expect.poll(() => toasts(page).count(), { interval: 25, timeout: 5000 }).toBe(0);
    const lasted = Date.now() - shownAt;
    expect(lasted).toBeGreaterThanOrEqual(1800);
    expect(lasted).toBeLessThan(3000);

    // And one more: nothing is stuck in the single toast place.
    await page.locator('form button[type=submit]').click();
    await expect.poll(() => toasts(page).count()).toBe(1);
    await shot(page, `${shotDir}/polish-toast-en.png`);
    await expect.poll(() => toasts(page).count(), { timeout: 5000 }).toBe(0);
  });

  it('shows a success toast for 2 s in the same place, replacing an error', async () => {
    const owner = await newCompany();
    const page = await open();
    expectFailure('401 /v1/systems/login');
    await page.goto('/login');
    await submitLogin(page, owner.username, 'wrong-password-1');
    await expect.poll(() => toasts(page).innerText()).toContain('Wrong username or password');
    await submitLogin(page, owner.username, owner.password);
    await expect.poll(() => toasts(page).innerText()).toContain('Login succeeded');
    expect(await toasts(page).count()).toBe(1);
    await expect.poll(() => toasts(page).count(), { timeout: 5000 }).toBe(0);
  });
});

describe('a first visit without a session', () => {
  it('brings a user whose session the server ended back to the same page after the next login', async () => {
    const owner = await newCompany();
    const page = await open();
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/device/management?keyword=gate');
    await expect.poll(() => page.getByTestId('device-empty').count()).toBe(1);
    // A login elsewhere replaces this session: its live channel is closed at once, and the console's
    // next request (to reopen it, or the blacklist alerts' catch-up read) answers 662.
    for (const path of ['/v1/systems/live', '/v1/blacklistRecords', '/v1/devices']) expectFailure(`401 ${path}`);
    await login(owner.username, owner.password);
    await page.waitForURL((url) => url.pathname === '/login');
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/pass-platform/device/management?keyword=gate');
    await submitLogin(page, owner.username, owner.password);
    await page.waitForURL((url) => url.pathname === '/pass-platform/device/management');
    expect(new URL(page.url()).search).toBe('?keyword=gate');
  });

  it('requests nothing private and shows no toast on / and on a private page, then returns there after login', async () => {
    const owner = await newCompany();
    const page = await open();
    const requests = recordApi(page);
    await page.goto('/');
    await page.waitForURL((url) => url.pathname === '/entrance');
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(300);
    expect(requests).toEqual([]);
    expect(await toasts(page).count()).toBe(0);

    await page.goto('/pass-platform/device/management?keyword=door');
    await page.waitForURL((url) => url.pathname === '/entrance');
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/pass-platform/device/management?keyword=door');
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(300);
    expect(requests).toEqual([]);
    expect(await toasts(page).count()).toBe(0);

    // The entrance's "Log in" keeps the page to come back to.
    await page.getByRole('link', { name: 'Log in' }).first().click();
    await page.waitForURL((url) => url.pathname === '/login');
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/pass-platform/device/management?keyword=door');
    expect(requests).toEqual([]);

    expectFailure('401 /v1/systems/login');
    await submitLogin(page, owner.username, 'wrong-password-1');
    await expect.poll(() => toasts(page).count()).toBe(1);
    expect(await toasts(page).innerText()).toContain('Wrong username or password');
    expect(await toasts(page).innerText()).not.toContain('Please log in again');

    await submitLogin(page, owner.username, owner.password);
    await page.waitForURL((url) => url.pathname === '/pass-platform/device/management');
    expect(new URL(page.url()).search).toBe('?keyword=door');
  });

  it('with a token the server no longer knows, says so once; the login screen then shows what the login answered', async () => {
    const owner = await newCompany();
    const page = await open();
    expectFailure('403 /v1/systems/routes', '401 /v1/systems/login');
    await page.goto('/entrance');
    await page.evaluate(() => localStorage.setItem('token', 'stale.token'));
    await page.goto('/pass-platform/dashboard');
    await page.waitForURL((url) => url.pathname === '/login');
    await expect.poll(() => toasts(page).innerText()).toContain('Please log in again');
    await submitLogin(page, owner.username, 'wrong-password-1');
    await expect.poll(() => toasts(page).innerText()).toContain('Wrong username or password');
    expect(await toasts(page).count()).toBe(1);
  });

  it('only returns to paths of this console after login', async () => {
    const owner = await newCompany();
    const page = await open();
    // Clearing the session while the dashboard is open fails its next background read (the dashboard's, or the door-mode
    // banner's every screen makes), if one comes before the page goes.
    expectFailure('403 /v1/dashboard', '403 /v1/dashboard/captures', '403 /v1/doorModes', '403 /v1/doorModes/banner');
    await page.goto('/entrance?redirect=//evil.example/steal');
    expect(await page.getByRole('link', { name: 'Log in' }).first().getAttribute('href')).toBe('/login');
    for (const target of ['//evil.example/steal', 'https://evil.example/', '/\\evil.example', '/login']) {
      await page.goto(`/login?redirect=${encodeURIComponent(target)}`);
      await submitLogin(page, owner.username, owner.password);
      await page.waitForURL((url) => url.pathname === '/pass-platform/dashboard');
      expect(new URL(page.url()).host, target).toBe(new URL(base()).host);
      await page.evaluate(() => localStorage.clear());
    }
  });
});

describe('groups where they are needed', () => {
  let owner: Awaited<ReturnType<typeof newCompany>>;
  beforeAll(async () => {
    owner = await newCompany();
  });

  it('offers the default group and "Create a group" in the employee form; a new group is chosen, a taken name refused on the field', async () => {
    const page = await open();
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/enterprise/employee/create');
    await page.getByTestId('group-select').click();
    await expect.poll(() => page.getByRole('option', { name: 'Employees', exact: true }).count()).toBe(1);
    expect(await page.getByRole('option', { name: 'Create a group' }).count()).toBe(1);
    await shot(page, `${shotDir}/polish-group-options-en.png`);
    await page.getByRole('option', { name: 'Create a group' }).click();
    const name = page.getByTestId('inline-group-name');
    await expect.poll(() => name.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByTestId('group-select').inputValue()).toBe('');

    const requests = recordApi(page);
    await name.fill('Night shift');
    await page.getByTestId('new-group').getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByTestId('group-select').inputValue()).toBe('Night shift');
    expect(await page.getByTestId('new-group').count()).toBe(0);
    expect(requests).toEqual(['POST /v1/groups']);

    // The same name again: 409, named on the field; Enter creates, it does not save the person.
    expectFailure('409 /v1/groups');
    await page.getByTestId('group-select').click();
    await page.getByRole('option', { name: 'Create a group' }).click();
    await page.getByTestId('inline-group-name').fill('night shift');
    await page.getByTestId('inline-group-name').press('Enter');
    await expect.poll(() => page.getByTestId('new-group').innerText()).toContain('A group named night shift already exists');
    expect(requests).toEqual(['POST /v1/groups', 'POST /v1/groups']);
    expect(await page.getByText('Enter the personnel ID').count()).toBe(0);
    await shot(page, `${shotDir}/polish-group-taken-en.png`);
    await page.getByTestId('new-group').getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByTestId('new-group').count()).toBe(0);
    expect(await page.getByTestId('group-select').inputValue()).toBe('Night shift');

    await page.getByLabel('Personnel ID').fill('N-1');
    await page.getByLabel('Name', { exact: false }).first().fill('Nina Night');
    await page.getByLabel('Role').fill('Guard');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL((url) => url.pathname === '/pass-platform/enterprise/employee');
    await page.getByTestId('people-keyword').fill('N-1');
    await page.getByTestId('people-search').click();
    await expect.poll(() => page.getByTestId('people-row').count()).toBe(1);
    expect(await page.getByTestId('people-row').innerText()).toContain('Night shift');
  });

  it('does the same in the visitor form', async () => {
    const page = await open();
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/personnel/management/create');
    await page.getByTestId('group-select').click();
    await expect.poll(() => page.getByRole('option', { name: 'Visitors', exact: true }).count()).toBe(1);
    await page.getByRole('option', { name: 'Create a group' }).click();
    await page.getByTestId('inline-group-name').fill('Contractors');
    await page.getByTestId('new-group').getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByTestId('group-select').inputValue()).toBe('Contractors');
    // Visitor groups are their own: the employee group of the same name is no clash.
    await page.getByTestId('group-select').click();
    await page.getByRole('option', { name: 'Create a group' }).click();
    await page.getByTestId('inline-group-name').fill('Night shift');
    await page.getByTestId('new-group').getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByTestId('group-select').inputValue()).toBe('Night shift');
  });

  it('asks before deleting a group, naming it; Cancel keeps it, Delete removes it', async () => {
    const page = await open();
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/enterprise/employee');
    await page.getByRole('button', { name: 'Groups' }).click();
    const manager = page.getByRole('dialog', { name: 'Groups and departments' });
    await manager.getByTestId('new-group-name').fill('Temporary');
    await manager.getByRole('button', { name: 'Add' }).click();
    const row = manager.locator('tr').filter({ has: page.locator('input[value="Temporary"]') });
    await expect.poll(() => row.count()).toBe(1);

    const requests = recordApi(page);
    await row.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete group' });
    await expect.poll(() => confirm.innerText()).toContain('Delete the group “Temporary”? This cannot be undone.');
    await shot(page, `${shotDir}/polish-group-delete-en.png`);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => confirm.count()).toBe(0);
    expect(await row.count()).toBe(1);
    expect(requests.filter((r) => r.startsWith('DELETE'))).toEqual([]);
    expect(await manager.isVisible()).toBe(true);

    await row.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => row.count()).toBe(0);
    expect(requests.filter((r) => r.startsWith('DELETE'))).toHaveLength(1);
    expect(await manager.locator('input[value="Employees"]').count()).toBe(1);
  });
});

describe('counted confirmations', () => {
  let owner: Awaited<ReturnType<typeof newCompany>>;
  beforeAll(async () => {
    owner = await newCompany();
    const { token } = await login(owner.username, owner.password);
    const groups = await call<{ items: { groupKey: string }[] }>('GET', '/v1/groups?type=employee', { token });
    const groupKey = groups.body.data.items[0]!.groupKey;
    for (let i = 1; i <= 5; i++) {
      const made = await call('POST', '/v1/employees', { token, body: { personId: `P-${i}`, name: `Person ${i}`, role: 'Clerk', gender: 'female', groupKey } });
      expect(made.body.code).toBe(201);
    }
  });

  const rows = (page: Page) => page.getByTestId('people-row');
  async function askFor(page: Page, count: number, button: string): Promise<string> {
    await expect.poll(() => rows(page).count()).toBeGreaterThanOrEqual(count);
    for (let i = 0; i < count; i++) await rows(page).nth(i).getByRole('checkbox').check();
    await page.getByTestId('people-bulk').getByRole('button', { name: button }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.count()).toBe(1);
    return (await dialog.innerText()).trim();
  }
  async function cancel(page: Page, cancelLabel: string) {
    await page.getByRole('dialog').getByRole('button', { name: cancelLabel }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    for (const box of await rows(page).getByRole('checkbox').all()) await box.uncheck();
  }

  it('counts employees to resign and to bring back with plural rules', async () => {
    const page = await open();
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/enterprise/employee');
    expect(await askFor(page, 1, 'Resign')).toContain('Mark 1 employee as resigned?');
    await cancel(page, 'Cancel');
    expect(await askFor(page, 2, 'Resign')).toContain('Mark 2 employees as resigned?');
    await shot(page, `${shotDir}/polish-resign-en.png`);
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => rows(page).count()).toBe(3);

    await page.goto('/pass-platform/enterprise/employee/resigned');
    expect(await askFor(page, 1, 'Re-enter')).toContain('Bring 1 employee back?');
    await cancel(page, 'Cancel');
    expect(await askFor(page, 2, 'Re-enter')).toContain('Bring 2 employees back?');
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.getByTestId('people-empty').count()).toBe(1);
  });

  it('uses the plural forms of Russian (1, 2, 5)', async () => {
    const page = await open({ locale: 'ru_RU' });
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/enterprise/employee');
    expect(await askFor(page, 1, 'Уволить')).toContain('Отметить 1 сотрудника как уволенного?');
    await cancel(page, 'Отмена');
    expect(await askFor(page, 2, 'Уволить')).toContain('Отметить 2 сотрудников как уволенных?');
    await cancel(page, 'Отмена');
    expect(await askFor(page, 5, 'Уволить')).toContain('Отметить 5 сотрудников как уволенных?');
    await cancel(page, 'Отмена');
  });
});

/** The texts of the rules the new password meets. */
const metRules = (rules: ReturnType<Page['locator']>) => rules.evaluateAll((items) => items.filter((i) => i.hasAttribute('data-met')).map((i) => (i as HTMLElement).innerText.trim()));

describe('change password', () => {
  it('is named the same in the user menu and the dialog, checks the rules in the form and sends nothing while they fail', async () => {
    const owner = await newCompany();
    const page = await open();
    await loginInBrowser(page, owner.username, owner.password);
    await page.getByTestId('user-menu').click();
    expect(await page.getByRole('menuitem', { name: 'Account settings' }).count()).toBe(0);
    await page.getByRole('menuitem', { name: 'Change password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change password' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    const rules = dialog.getByTestId('password-rules').getByRole('listitem');
    expect(await rules.allInnerTexts()).toEqual(['At least 8 characters', 'At most 64 characters', 'Different from the original password']);

    const requests = recordApi(page);
    const fields = dialog.locator('input[type=password]');
    const save = dialog.getByRole('button', { name: 'Save' });
    await fields.nth(0).fill(owner.password);
    await fields.nth(1).fill('short');
    await fields.nth(2).fill('short');
    await save.click();
    // The broken rule shows in the list under the field, which turns red; nothing is sent.
    await expect.poll(() => fields.nth(1).getAttribute('aria-invalid')).toBe('true');
    expect(await metRules(rules)).toEqual(['At most 64 characters', 'Different from the original password']);
    await shot(page, `${shotDir}/polish-password-rules-en.png`);

    await fields.nth(1).fill(owner.password);
    await fields.nth(2).fill(owner.password);
    await save.click();
    await expect.poll(() => metRules(rules)).toEqual(['At least 8 characters', 'At most 64 characters']);
    expect(await fields.nth(1).getAttribute('aria-invalid')).toBe('true');

    const long = 'x'.repeat(65);
    await fields.nth(1).fill(long);
    await fields.nth(2).fill(long);
    await save.click();
    await expect.poll(() => metRules(rules)).toEqual(['At least 8 characters', 'Different from the original password']);
    expect(await fields.nth(1).getAttribute('aria-invalid')).toBe('true');
    expect(requests).toEqual([]);

    await fields.nth(1).fill('brand-new-pass-7');
    await fields.nth(2).fill('brand-new-pass-7');
    await expect.poll(() => metRules(rules)).toHaveLength(3);
    expect(await fields.nth(1).getAttribute('aria-invalid')).not.toBe('true');
    await save.click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(requests).toEqual(['PATCH /v1/systems/reset']);
    await expect.poll(() => toasts(page).innerText()).toContain('Operation succeeded');
  });
});

describe('in Japanese', () => {
  it('shows the toast, the group choices, the confirmations and the password rules', async () => {
    const owner = await newCompany();
    const page = await open({ locale: 'ja_JP' });
    expectFailure('401 /v1/systems/login', '409 /v1/groups');
    await page.goto('/login');
    await submitLogin(page, owner.username, 'wrong-password-1');
    await expect.poll(() => toasts(page).count()).toBe(1);
    await shot(page, `${shotDir}/polish-toast-ja.png`);
    await toasts(page).getByRole('button', { name: '閉じる' }).click();
    await expect.poll(() => toasts(page).count()).toBe(0);

    await submitLogin(page, owner.username, owner.password);
    await page.waitForURL((url) => url.pathname === '/pass-platform/dashboard');
    await page.goto('/pass-platform/enterprise/employee/create');
    await page.getByTestId('group-select').click();
    await expect.poll(() => page.getByRole('option', { name: 'グループを作成' }).count()).toBe(1);
    await shot(page, `${shotDir}/polish-group-options-ja.png`);
    await page.getByRole('option', { name: 'グループを作成' }).click();
    await page.getByTestId('inline-group-name').fill('夜勤');
    await page.getByTestId('new-group').getByRole('button', { name: '作成', exact: true }).click();
    await expect.poll(() => page.getByTestId('group-select').inputValue()).toBe('夜勤');
    await page.getByTestId('group-select').click();
    await page.getByRole('option', { name: 'グループを作成' }).click();
    await page.getByTestId('inline-group-name').fill('夜勤');
    await page.getByTestId('inline-group-name').press('Enter');
    await expect.poll(() => page.getByTestId('new-group').innerText()).toContain('夜勤');
    await expect.poll(() => page.getByTestId('new-group').locator('.mantine-TextInput-error').count()).toBe(1);
    await shot(page, `${shotDir}/polish-group-taken-ja.png`);
    await page.getByTestId('new-group').getByRole('button', { name: 'キャンセル' }).click();

    await page.goto('/pass-platform/enterprise/employee');
    await page.getByRole('button', { name: 'グループ', exact: true }).click();
    const manager = page.getByRole('dialog', { name: 'グループと部署' });
    await manager.getByTestId('new-group-name').fill('臨時');
    await manager.getByRole('button', { name: '追加' }).click();
    const row = manager.locator('tr').filter({ has: page.locator('input[value="臨時"]') });
    await row.getByRole('button', { name: '削除' }).click();
    const confirm = page.getByRole('dialog', { name: 'グループを削除' });
    await expect.poll(() => confirm.innerText()).toContain('グループ「臨時」を削除しますか？');
    await shot(page, `${shotDir}/polish-group-delete-ja.png`);
    await confirm.getByRole('button', { name: 'キャンセル' }).click();
    await expect.poll(() => confirm.count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'パスワードの変更' }).click();
    const dialog = page.getByRole('dialog', { name: 'パスワードの変更' });
    const fields = dialog.locator('input[type=password]');
    await fields.nth(0).fill(owner.password);
    await fields.nth(1).fill('short');
    await dialog.getByRole('button', { name: '保存' }).click();
    await expect.poll(() => fields.nth(1).getAttribute('aria-invalid')).toBe('true');
    expect(await dialog.getByTestId('password-rules').innerText()).toContain('8 文字以上');
    await shot(page, `${shotDir}/polish-password-rules-ja.png`);
  });

  it('counts employees in the resign confirmation', async () => {
    const owner = await newCompany();
    const { token } = await login(owner.username, owner.password);
    const groups = await call<{ items: { groupKey: string }[] }>('GET', '/v1/groups?type=employee', { token });
    const made = await call('POST', '/v1/employees', { token, body: { personId: 'J-1', name: '山田 花子', role: '受付', gender: 'female', groupKey: groups.body.data.items[0]!.groupKey } });
    expect(made.body.code).toBe(201);
    const page = await open({ locale: 'ja_JP' });
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/enterprise/employee');
    await expect.poll(() => page.getByTestId('people-row').count()).toBe(1);
    await page.getByTestId('people-row').first().getByRole('checkbox').check();
    await page.getByTestId('people-bulk').getByRole('button', { name: '退職' }).click();
    await expect.poll(() => page.getByRole('dialog').innerText()).toContain('1 人の従業員を退職済みにしますか？');
    await shot(page, `${shotDir}/polish-resign-ja.png`);
    await page.getByRole('dialog').getByRole('button', { name: 'キャンセル' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });
});
