/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it, inject } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { unique } from '../support/api.ts';
import { licenceCode } from '../support/licence.ts';
import { TAGLINE, loginInBrowser, newPage, pageErrors, shotDir, toastText } from './support.ts';

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** Console errors count as page errors, except the answers a test provokes on purpose. */
function watchConsole(page: Page, expected: RegExp[] = []) {
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (/Failed to load resource/.test(text) && expected.some((pattern) => pattern.test(message.location().url ?? ''))) return;
    pageErrors.push(`console: ${text}`);
  });
}

const demo = () => inject('demo');
const rows = (page: Page) => page.getByTestId('account-row');
const modal = (page: Page) => page.locator('.mantine-Modal-content');
const permission = (page: Page, path: string) => page.getByTestId(`permission-${path}`);

async function logout(page: Page) {
  await page.getByTestId('user-menu').click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await page.waitForURL('**/login');
}

async function searchAccount(page: Page, keyword: string) {
  await page.getByTestId('account-keyword').fill(keyword);
  await page.getByTestId('account-search').click();
}

describe('system settings', () => {
  it('lists the permitted sections and remembers the chosen one for the session', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, demo().username, demo().password);
    await page.getByTestId('settings-button').click();
    await page.waitForURL('**/settings/account');
    const tabs = page.getByTestId('settings-sections').getByRole('tab');
    expect(await tabs.allInnerTexts()).toEqual(['Accounts', 'Privacy', 'Licences']);
    await page.getByRole('tab', { name: 'Licences' }).click();
    await page.waitForURL('**/settings/licence');
    await expect.poll(() => page.title()).toBe(`Licences - ${TAGLINE}`);
    expect(await page.evaluate(() => sessionStorage.getItem('settingsTab'))).toBe('/settings/licence');
    await page.goto('/pass-platform/dashboard');
    await page.getByTestId('settings-button').click();
    await page.waitForURL('**/settings/licence');
    expect(await page.getByRole('tab', { name: 'Licences' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('tab', { name: 'Accounts' }).click();
    await page.waitForURL('**/settings/account');
    // The owner comes first, marked as such.
    await expect.poll(() => rows(page).first().getByTestId('badge-owner').count()).toBe(1);
    await context.close();
  });

  it('shows an empty state to an account whose settings sections are not offered yet', async () => {
    const { createAccount } = await import('@passcloud/functions/data/identity');
    const username = unique('mailer');
    await createAccount(demo().tenantId, { username, password: 'mailer-pass-1', authCodes: ['pass:dashboard', 'settings:email'] });
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, username, 'mailer-pass-1');
    await page.getByTestId('settings-button').click();
    await expect.poll(() => page.getByTestId('settings-empty').count()).toBe(1);
    expect(await page.getByTestId('settings-sections').count()).toBe(0);
    await context.close();
  });

  it('creates an account with part of the menu and an initial password, which it must change before seeing its menu', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, [/\/v1\/accounts$/]);
    await loginInBrowser(page, demo().username, demo().password);
    await page.goto('/settings/account');
    await page.getByTestId('account-add').click();
    await page.waitForURL('**/settings/account/create');
    await expect.poll(() => page.title()).toBe(`New account - ${TAGLINE}`);

    // Nothing leaves the form until it is complete.
    await page.getByTestId('account-submit').click();
    await expect.poll(() => page.getByText('Enter the username').count()).toBe(1);
    expect(await page.getByText('Choose at least one permission').count()).toBe(1);
    expect(await page.getByText('Enter the password', { exact: true }).count()).toBe(1);

    const username = unique('clerk');
    await page.getByTestId('account-username').fill(username);
    await page.getByTestId('account-nickname').fill('Front desk');
    await page.getByTestId('account-email').fill(`${username}@example.test`);
    await page.getByTestId('account-phone').fill('+81 3-1234-5678');
    await page.getByTestId('account-remark').fill('Reception, ground floor');

    // A parent checks its children; taking one child out leaves the parent partly checked.
    await permission(page, '/pass-platform').check();
    expect(await permission(page, '/pass-platform/enterprise/employee').isChecked()).toBe(true);
    expect(await permission(page, '/pass-platform/device/management').isChecked()).toBe(true);
    await permission(page, '/pass-platform/enterprise/employee').uncheck();
    expect(await permission(page, '/pass-platform').getAttribute('data-indeterminate')).toBe('true');
    expect(await permission(page, '/intercom-platform').isChecked()).toBe(false);

    // The initial password is typed twice and checked against the rules in the form.
    const passwords = page.locator('input[type=password]');
    await passwords.nth(0).fill('short');
    await passwords.nth(0).blur();
    await expect.poll(() => page.getByTestId('password-rules').locator('[data-met]').count()).toBe(1);
    await passwords.nth(0).fill('initial-pass-1');
    await passwords.nth(1).fill('initial-pass-2');
    await passwords.nth(1).blur();
    await expect.poll(() => page.getByText('The passwords do not match').count()).toBe(1);
    await passwords.nth(1).fill('initial-pass-1');
    await page.screenshot({ path: `${shotDir}/settings-account-create-en.png`, fullPage: true });

    // Cancel asks first; its own Cancel keeps the form.
    await page.getByTestId('account-cancel').click();
    await expect.poll(() => modal(page).getByText('Leave this page without saving?').count()).toBe(1);
    await modal(page).getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => modal(page).count()).toBe(0);
    expect(await page.getByTestId('account-username').inputValue()).toBe(username);

    const created = page.waitForResponse((r) => r.url().endsWith('/v1/accounts') && r.request().method() === 'POST');
    await page.getByTestId('account-submit').click();
    const sent = (await (await created).request().postDataJSON()) as { password: string; authCodes: string[] };
    expect(sent.password).not.toContain('initial-pass-1');
    expect(sent.authCodes).not.toContain('pass:employee');
    expect(sent.authCodes).toContain('pass:visitor');
    await page.waitForURL('**/settings/account');
    expect(await toastText(page)).toContain('Account created');

    // The same username again: the server's 409 shows on the field.
    await page.goto('/settings/account/create');
    await page.getByTestId('account-username').fill(username);
    await permission(page, '/pass-platform/dashboard').check();
    await page.locator('input[type=password]').nth(0).fill('another-pass-1');
    await page.locator('input[type=password]').nth(1).fill('another-pass-1');
    await page.getByTestId('account-submit').click();
    await expect.poll(() => page.getByTestId('account-username').getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('account-cancel').click();
    await modal(page).getByRole('button', { name: 'Discard changes' }).click();
    await page.waitForURL('**/settings/account');

    await searchAccount(page, username);
    await expect.poll(() => rows(page).count()).toBe(1);
    expect(await rows(page).getByTestId('badge-must-change').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/settings-accounts-en.png`, fullPage: true });

    await logout(page);
    await context.close();

    // The first login must choose its own password before anything else.
    const { context: next, page: clerk } = await newPage(browser);
    // Until the password is changed the screens' requests are refused (401).
    watchConsole(clerk, [/\/v1\//]);
    const answer = clerk.waitForResponse((r) => r.url().endsWith('/v1/systems/login'));
    await loginInBrowser(clerk, username, 'initial-pass-1');
    expect(((await (await answer).json()) as { data: { mustChangePassword: boolean } }).data.mustChangePassword).toBe(true);
    const dialog = clerk.getByRole('dialog');
    await expect.poll(() => dialog.getByTestId('password-required').count()).toBe(1);
    const fields = dialog.locator('input[type=password]');
    await fields.nth(0).fill('initial-pass-1');
    await fields.nth(1).fill('my-own-pass-1');
    await fields.nth(2).fill('my-own-pass-1');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => clerk.getByTestId('password-required').count()).toBe(0);
    const menu = clerk.getByTestId('side-menu');
    await expect.poll(() => menu.getByRole('link', { name: 'Visitors' }).count()).toBe(1);
    expect(await menu.getByRole('link', { name: 'Devices' }).count()).toBe(1);
    expect(await menu.getByRole('link', { name: 'Employees' }).count()).toBe(0);
    expect(await clerk.getByRole('link', { name: 'Intercom platform' }).count()).toBe(0);
    expect(await clerk.getByTestId('settings-button').count()).toBe(0);
    await clerk.screenshot({ path: `${shotDir}/settings-new-account-menu-en.png` });
    await next.close();
  });

  it('edits, disables, enables and deletes an account after confirmations, and protects the owner', async () => {
    const { createAccount } = await import('@passcloud/functions/data/identity');
    const username = unique('staff');
    await createAccount(demo().tenantId, { username, password: 'staff-pass-1', authCodes: ['pass:visitor'] });
    const { context, page } = await newPage(browser);
    watchConsole(page, [/\/v1\/accounts\/[0-9a-z]+$/]);
    await loginInBrowser(page, demo().username, demo().password);
    await page.goto('/settings/account');

    // The owner: disable and delete are shown but cannot be used, with the reason on hover.
    await rows(page).first().getByRole('link').click();
    await page.waitForURL(/\/settings\/account\/[0-9a-z]+$/);
    await expect.poll(() => page.getByTestId('account-toggle').isDisabled()).toBe(true);
    expect(await page.getByTestId('account-delete').isDisabled()).toBe(true);
    await page.getByTestId('guarded').first().hover();
    await expect.poll(() => page.getByRole('tooltip').innerText()).toBe("The owner's account cannot be disabled");

    await page.goto('/settings/account');
    await searchAccount(page, username);
    await expect.poll(() => rows(page).count()).toBe(1);
    await rows(page).getByRole('link', { name: username }).click();
    await page.waitForURL(/\/settings\/account\/[0-9a-z]+$/);
    const key = page.url().split('/').at(-1)!;
    await expect.poll(() => page.getByTestId('account-name').innerText()).toBe(username);
    await expect.poll(() => page.title()).toBe(`Account details - ${TAGLINE}`);

    // Edit with the version; the Cancel button puts the saved values back.
    await page.getByTestId('account-nickname').fill('Changed, then cancelled');
    await page.getByTestId('account-cancel').click();
    expect(await page.getByTestId('account-nickname').inputValue()).toBe(username);
    await page.getByTestId('account-nickname').fill('Visitor desk');
    await permission(page, '/pass-platform/passage/record').check();
    await page.getByTestId('account-save').click();
    expect(await toastText(page)).toContain('Saved');

    // Someone else changes it meanwhile: saving answers 409 and says so.
    await page.evaluate(async (accountKey) => {
      const headers = { authorization: `Bearer ${localStorage.getItem('token')}`, 'content-type': 'application/json' };
      const current = (await (await fetch(`/v1/accounts/${accountKey}`, { headers })).json()) as { data: { version: number } };
      await fetch(`/v1/accounts/${accountKey}`, { method: 'PATCH', headers, body: JSON.stringify({ remark: 'Changed elsewhere', version: current.data.version }) });
    }, key);
    await page.getByTestId('account-phone').fill('12345');
    await page.getByTestId('account-save').click();
    await expect.poll(() => page.getByTestId('account-stale').count()).toBe(1);
    await page.getByTestId('account-stale').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('account-remark').inputValue()).toBe('Changed elsewhere');
    expect(await page.getByTestId('account-nickname').inputValue()).toBe('Visitor desk');

    // Disable: the confirmation's Cancel changes nothing; its confirm disables.
    await page.getByTestId('account-toggle').click();
    await page.getByTestId('cancel-toggle').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    expect(await page.getByTestId('badge-disabled').count()).toBe(0);
    await page.getByTestId('account-toggle').click();
    await page.getByTestId('confirm-toggle').click();
    await expect.poll(() => page.getByTestId('badge-disabled').count()).toBe(1);
    await page.getByTestId('account-toggle').click();
    await page.getByTestId('confirm-toggle').click();
    await expect.poll(() => page.getByTestId('badge-disabled').count()).toBe(0);

    // Reset the password: typed twice, or an invitation to the account's email (it has none).
    await page.getByTestId('account-reset').click();
    await expect.poll(() => modal(page).getByRole('radio', { name: 'Send an invitation by mail' }).isDisabled()).toBe(true);
    await page.getByTestId('reset-cancel').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    await page.getByTestId('account-reset').click();
    await modal(page).locator('input[type=password]').nth(0).fill('reset-pass-11');
    await modal(page).locator('input[type=password]').nth(1).fill('reset-pass-11');
    await page.getByTestId('reset-submit').click();
    await expect.poll(() => page.getByTestId('badge-must-change').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/settings-account-detail-en.png`, fullPage: true });

    // Delete: cancelled once, then confirmed.
    await page.getByTestId('account-delete').click();
    await page.getByTestId('cancel-delete').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    await page.getByTestId('account-delete').click();
    await page.getByTestId('confirm-delete').click();
    await page.waitForURL('**/settings/account');
    await searchAccount(page, username);
    await expect.poll(() => page.getByTestId('account-empty').count()).toBe(1);
    await page.goto(`/settings/account/${key}`);
    await expect.poll(() => page.getByTestId('account-missing').count()).toBe(1);
    await context.close();
  });

  it('activates a licence, shows the totals change, and keeps the reminder days in range', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, [/\/v1\/licences$/]);
    await loginInBrowser(page, demo().username, demo().password);
    await page.goto('/settings/licence');
    const number = async (id: string) => Number((await page.getByTestId(id).innerText()).replace(/\D/g, ''));
    await expect.poll(() => page.getByTestId('licence-row').count()).toBeGreaterThan(0);
    const before = { total: await number('licence-total'), remaining: await number('licence-remaining'), used: await number('licence-used') };

    // A code that is not one shows its problem on the field; Cancel empties the field.
    await page.getByTestId('licence-activate').click();
    await expect.poll(() => page.getByText('Paste the activation code').count()).toBe(1);
    await page.getByTestId('licence-code').fill('PCL1.not-a-code.at-all');
    await page.getByTestId('licence-activate').click();
    await expect.poll(() => page.getByTestId('licence-code').getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('licence-cancel').click();
    expect(await page.getByTestId('licence-code').inputValue()).toBe('');

    await page.getByTestId('licence-code').fill(licenceCode({ seats: 7 }));
    await page.getByTestId('licence-activate').click();
    expect(await toastText(page)).toContain('Licence activated');
    await expect.poll(() => number('licence-total')).toBe(before.total + 7);
    expect(await number('licence-remaining')).toBe(before.remaining + 7);
    expect(await number('licence-used')).toBe(before.used);

    // One that ends within the reminder days shows as expiring; fewer days make it valid again.
    await page.getByTestId('licence-code').fill(licenceCode({ seats: 1, expiresAt: new Date(Date.now() + 10 * 86_400_000).toISOString() }));
    await page.getByTestId('licence-activate').click();
    await expect.poll(() => page.locator('[data-state=expiring]').count()).toBeGreaterThan(0);
    const expiring = await page.locator('[data-state=expiring]').count();
    const days = await page.getByTestId('licence-reminder').inputValue();
    await page.getByTestId('licence-reminder').fill('400');
    await page.getByTestId('reminder-save').click();
    await expect.poll(() => page.getByText('Enter a value from 1 to 365').count()).toBe(1);
    await page.getByTestId('reminder-cancel').click();
    expect(await page.getByTestId('licence-reminder').inputValue()).toBe(days);
    await page.getByTestId('licence-reminder').fill('5');
    await page.getByTestId('reminder-save').click();
    await expect.poll(() => page.locator('[data-state=expiring]').count()).toBe(expiring - 1);
    await page.screenshot({ path: `${shotDir}/settings-licences-en.png`, fullPage: true });
    await page.getByTestId('licence-reminder').fill(days);
    await page.getByTestId('reminder-save').click();
    await expect.poll(() => page.locator('[data-state=expiring]').count()).toBe(expiring);
    await context.close();
  });

  it('saves the privacy settings with their version and keeps the days in range', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, [/\/v1\/settings\/privacy$/]);
    await loginInBrowser(page, demo().username, demo().password);
    await page.goto('/settings/privacy');
    const days = page.getByTestId('privacy-days-captures');
    await expect.poll(() => days.inputValue()).not.toBe('');
    const before = await days.inputValue();
    await days.fill('500');
    await page.getByTestId('privacy-save').click();
    await expect.poll(() => page.getByText('Enter a value from 1 to 180').count()).toBe(1);
    await page.getByTestId('privacy-cancel').click();
    expect(await days.inputValue()).toBe(before);
    await days.fill('30');
    await page.getByTestId('privacy-save').click();
    expect(await toastText(page)).toContain('Saved');
    // Someone else saves meanwhile: this page's version is stale.
    await page.evaluate(async () => {
      const headers = { authorization: `Bearer ${localStorage.getItem('token')}`, 'content-type': 'application/json' };
      const current = ((await (await fetch('/v1/settings/privacy', { headers })).json()) as { data: Record<string, unknown> }).data;
      await fetch('/v1/settings/privacy', { method: 'PUT', headers, body: JSON.stringify(current) });
    });
    await days.fill(before);
    await page.getByTestId('privacy-save').click();
    await expect.poll(() => page.getByTestId('privacy-stale').count()).toBe(1);
    await page.getByTestId('privacy-stale').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => days.inputValue()).toBe('30');
    await days.fill(before);
    await page.getByTestId('privacy-save').click();
    expect(await toastText(page)).toContain('Saved');
    await page.screenshot({ path: `${shotDir}/settings-privacy-en.png`, fullPage: true });
    await context.close();
  });

  it('reads in Japanese', async () => {
    const { context, page } = await newPage(browser, { locale: 'ja_JP' });
    watchConsole(page);
    await loginInBrowser(page, demo().username, demo().password);
    await page.goto('/settings/licence');
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('ライセンス');
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${shotDir}/settings-licences-ja.png`, fullPage: true });
    await page.goto('/settings/account/create');
    await page.getByTestId('account-submit').click();
    await expect.poll(() => page.getByText('権限を 1 つ以上選んでください').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/settings-account-create-ja.png`, fullPage: true });
    await page.goto('/settings/account');
    await expect.poll(() => rows(page).count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${shotDir}/settings-accounts-ja.png`, fullPage: true });
    await page.goto('/settings/privacy');
    await expect.poll(() => page.getByTestId('privacy-days-captures').inputValue()).not.toBe('');
    await page.screenshot({ path: `${shotDir}/settings-privacy-ja.png`, fullPage: true });
    await context.close();
  });
});
