/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it, inject } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { ZipFile } from 'yazl';
import { freePort } from '@passcloud/infra/local/standins';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { call, login as loginApi, loginAnswer, mailsTo, newCompany, unique } from '../support/api.ts';
import { licenceCode } from '../support/licence.ts';
import { TAGLINE, confirmPasswordInBrowser, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole as watchPage } from './support.ts';

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
const watchConsole = (page: Page, expected: RegExp[] = []) => watchPage(page, failedLoads(expected));

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
    await page.waitForURL('**/settings/system');
    const tabs = page.getByTestId('settings-sections').getByRole('tab');
    expect(await tabs.allInnerTexts()).toEqual(['Ports and versions', 'Email settings', 'Accounts', 'Privacy', 'Licences', 'Mail records', 'Audit log', 'Webhooks', 'API keys']);
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

  it('shows the audit log: logins, a failed login and a change, filtered by kind and exported, in English and Chinese', async () => {
    const owner = await newCompany();
    const token = (await loginApi(owner.username, owner.password)).token;
    const dept = unique('Audited-');
    expect((await call('POST', '/v1/departments', { token, body: { name: dept } })).body.code).toBe(201);
    expect((await loginAnswer(owner.username, 'not-the-password')).status).toBe(401);

    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/audit');
    await expect.poll(() => page.title()).toBe(`Audit log - ${TAGLINE}`);
    const entries = page.getByTestId('audit-row');
    await expect.poll(() => entries.count()).toBe(4);
    expect(await entries.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')))).toEqual(['login', 'loginFailed', 'change', 'login']);
    await expect.poll(() => entries.nth(1).innerText()).toContain('Wrong username or password');
    await page.screenshot({ path: `${shotDir}/settings-audit-en.png`, fullPage: true });

    await page.getByTestId('audit-kind-filter').click();
    await page.getByRole('option', { name: 'Change', exact: true }).click();
    await page.getByTestId('audit-search').click();
    await page.waitForURL('**/settings/audit?*kind=change*');
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().getByTestId('audit-action').innerText()).toBe(`Created department ${dept}`);

    const download = page.waitForEvent('download');
    await page.getByTestId('audit-export').click();
    expect((await download).suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.xlsx$/);
    await page.getByTestId('audit-reset').click();
    await expect.poll(() => entries.count()).toBe(5);
    await context.close();

    const zh = await newPage(browser, { locale: 'zh_CN' });
    watchConsole(zh.page);
    await loginInBrowser(zh.page, owner.username, owner.password);
    await zh.page.goto('/settings/audit');
    await expect.poll(() => zh.page.getByTestId('screen-title').innerText()).toBe('审计日志');
    await expect.poll(() => zh.page.getByTestId('audit-row').count()).toBeGreaterThan(4);
    expect(await zh.page.getByTestId('audit-row').first().getByTestId('audit-kind').innerText()).toBe('登录');
    await zh.page.screenshot({ path: `${shotDir}/settings-audit-zh.png`, fullPage: true });
    await zh.context.close();
  });

  it('offers an account only the sections it holds, at their own paths', async () => {
    const { createAccount } = await import('@passcloud/functions/data/identity');
    const username = unique('mailer');
    await createAccount(demo().tenantId, { username, password: 'mailer-pass-1', authCodes: ['pass:dashboard', 'settings:email', 'settings:mail'] });
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, username, 'mailer-pass-1');
    await page.getByTestId('settings-button').click();
    await page.waitForURL('**/settings/email');
    expect(await page.getByTestId('settings-sections').getByRole('tab').allInnerTexts()).toEqual(['Email settings', 'Mail records']);
    await page.goto('/settings/mail');
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('Mail records');
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
    // The screen behind the dialog waits for the new password, so no request of it fails.
    watchConsole(clerk);
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
    // The deletion asks for the password first (401 with data.reauth), which the browser logs.
    watchConsole(page, [/\/v1\/accounts\/[0-9a-z]+$/, /\/v1\/accounts\/[0-9a-z]+\?version=\d+$/]);
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
    await confirmPasswordInBrowser(page, demo().password);
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
    // Privacy settings change what is kept of people: the password first (it then covers this session for five minutes).
    await confirmPasswordInBrowser(page, demo().password);
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
    await page.goto('/settings/system');
    await expect.poll(() => page.getByTestId('system-api-url').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/settings-system-ja.png`, fullPage: true });
    await page.goto('/settings/email');
    await expect.poll(() => page.getByTestId('email-save').isEnabled()).toBe(true);
    await page.getByTestId('email-port').fill('0');
    await page.getByTestId('email-save').click();
    await expect.poll(() => page.getByText('1～65535 のポートを入力してください').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/settings-email-ja.png`, fullPage: true });
    await page.getByTestId('email-cancel').click();
    await page.goto('/settings/mail');
    await expect.poll(() => page.getByTestId('mail-table').count()).toBe(1);
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: `${shotDir}/settings-mail-ja.png`, fullPage: true });
    await context.close();
  });
});

/** A small stand-in for an install package: a zip archive named .apk. */
async function fakeApk(): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from('<manifest package="com.passcloud.terminal"/>'), 'AndroidManifest.xml');
  zip.addBuffer(Buffer.alloc(64 * 1024, 7), 'classes.dex');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('ports and versions, email and mail records', () => {
  let owner: { username: string; password: string };
  beforeAll(async () => {
    owner = await newCompany();
  });
  const sinkPort = () => inject('localEnv').SMTP_PORT!;

  it('shows the service addresses with copy buttons and uploads a client package with its progress', async () => {
    const { context, page } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/system');
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('Ports and versions');
    await expect.poll(() => page.getByTestId('system-api-url').innerText()).toMatch(/^https?:\/\/.+\/v1$/);
    expect(await page.getByTestId('system-mqtt-endpoint').innerText()).not.toBe('');
    expect(await page.getByTestId('system-version').innerText()).toBe('3.2.0');
    expect(await page.getByTestId('system-client-version').innerText()).toBe('No install package uploaded yet');
    await page.getByTestId('system-api-url-copy').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await page.getByTestId('system-api-url').innerText());

    // The browser checks the file and the version before anything is sent.
    const file = page.locator('input[type=file]');
    await file.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a package') });
    await page.getByTestId('system-package-version').fill('3.2');
    await page.getByTestId('system-package-upload').click();
    await expect.poll(() => page.getByText('Choose an .apk file', { exact: true }).count()).toBeGreaterThan(0);
    expect(await page.getByText('Enter the version as three numbers, like 3.2.1').count()).toBe(1);
    // Cancel empties the form.
    await page.getByTestId('system-package-cancel').click();
    expect(await page.getByTestId('system-package-version').inputValue()).toBe('');

    const apk = await fakeApk();
    await file.setInputFiles({ name: 'terminal-3.2.1.apk', mimeType: 'application/vnd.android.package-archive', buffer: apk });
    await page.getByTestId('system-package-version').fill('3.2.1');
    // The upload is held a moment so its progress shows.
    await page.route(
      (url) => !url.pathname.startsWith('/v1/') && url.pathname.endsWith('.apk'),
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await route.continue();
      },
    );
    const completed = page.waitForResponse((r) => /\/complete$/.test(r.url()));
    await page.getByTestId('system-package-upload').click();
    await expect.poll(() => page.getByTestId('system-package-progress').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/settings-system-uploading-en.png`, fullPage: true });
    expect((await completed).ok()).toBe(true);
    await expect.poll(() => page.getByTestId('system-package-done').count()).toBe(1);
    expect(await page.getByTestId('system-package-done').innerText()).toContain('Version 3.2.1 is uploaded.');
    expect(await page.getByTestId('system-package-notified').innerText()).toBe('No terminal is online; terminals update when they next connect.');
    await expect.poll(() => page.getByTestId('system-client-version').innerText()).toBe('3.2.1');
    const sha = createHash('sha256').update(apk).digest('hex');
    expect(await page.getByTestId('system-client-sha256').innerText()).toBe(sha);
    await page.screenshot({ path: `${shotDir}/settings-system-en.png`, fullPage: true });
    await context.close();
  });

  it('saves the SMTP settings, names a bad port on its field, and shows whether a test mail went out or why not', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page, [/\/v1\/settings\/email$/]);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/email');
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('Email settings');
    await expect.poll(() => page.getByTestId('email-save').isEnabled()).toBe(true);
    await expect.poll(() => page.getByText("Without an SMTP server, mail is sent through the service's own sender.").count()).toBe(1);

    // With a server, the sender and a port in range are required before anything is sent.
    await page.getByTestId('email-host').fill('127.0.0.1');
    await page.getByTestId('email-port').fill('70000');
    await page.getByTestId('email-save').click();
    await expect.poll(() => page.getByText('Enter a port from 1 to 65535').count()).toBe(1);
    expect(await page.getByText('Enter the sender address').count()).toBe(1);
    expect(await page.getByTestId('email-port').getAttribute('aria-invalid')).toBe('true');

    // A port where nothing listens: the test mail shows why it was not sent.
    const closed = String(await freePort());
    await page.getByTestId('email-port').fill(closed);
    await page.getByTestId('email-sender-address').fill('alerts@company.test');
    await page.getByTestId('email-sender-name').fill('Acme Alerts');
    await page.getByTestId('email-tls').click();
    await page.getByRole('option', { name: 'None (plain SMTP)' }).click();
    const recipients = page.getByTestId('email-recipients');
    await recipients.fill('guard@company.test');
    await recipients.press('Enter');
    await page.getByTestId('email-fever').check();
    await page.getByTestId('email-save').click();
    // Changing the email settings asks for the password again, once in five minutes: cancelled saves nothing.
    await page.getByTestId('confirm-password-cancel').click();
    await expect.poll(() => page.getByTestId('confirm-password-input').count()).toBe(0);
    expect(await toastText(page)).toBe('Confirm your password to do this');
    await expect.poll(() => page.locator('.mantine-Notification-root').count()).toBe(0);
    await page.getByTestId('email-save').click();
    await page.getByTestId('confirm-password-input').fill('not-my-password');
    await page.getByTestId('confirm-password-submit').click();
    await expect.poll(() => page.getByText('The password is not right').count()).toBe(1);
    await expect.poll(() => modal(page).evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
    await page.screenshot({ path: `${shotDir}/settings-confirm-password-en.png` });
    await page.getByTestId('confirm-password-input').fill(owner.password);
    await page.getByTestId('confirm-password-submit').click();
    expect(await toastText(page)).toContain('Saved');
    await page.getByTestId('email-test').click();
    await expect.poll(() => page.getByTestId('email-test-result').getAttribute('data-ok')).toBe('false');
    expect(await page.getByTestId('email-test-result').innerText()).toContain('Could not connect to the SMTP server');

    // The local sink: a mailbox it refuses is told as a refusal with its reply code, not in the server's words; the first recipient gets it.
    await page.getByTestId('email-port').fill(sinkPort());
    await expect.poll(() => page.getByTestId('email-test').isDisabled()).toBe(true);
    await page.getByTestId('email-save').click();
    await expect.poll(() => page.getByTestId('email-test').isDisabled()).toBe(false);
    await page.getByTestId('email-test-to').fill('nobody@company.invalid');
    await page.getByTestId('email-test').click();
    await expect.poll(() => page.getByTestId('email-test-result').innerText()).toContain('The mail server refused the mail (reply code 550)');
    expect(await page.getByTestId('email-test-result').innerText()).not.toContain('Mailbox unavailable');
    await page.getByTestId('email-test-to').fill('');
    await page.getByTestId('email-test').click();
    await expect.poll(() => page.getByTestId('email-test-result').getAttribute('data-ok')).toBe('true');
    expect(await page.getByTestId('email-test-result').innerText()).toContain('The test mail was sent to guard@company.test.');
    await expect.poll(async () => (await mailsTo('guard@company.test')).length).toBeGreaterThan(0);
    await page.screenshot({ path: `${shotDir}/settings-email-en.png`, fullPage: true });

    // Cancel puts the saved values back.
    await page.getByTestId('email-sender-name').fill('Someone else');
    await page.getByTestId('email-cancel').click();
    expect(await page.getByTestId('email-sender-name').inputValue()).toBe('Acme Alerts');

    // A password goes only over an encrypted connection: the server names the field.
    await page.getByTestId('email-username').fill('mailer');
    await page.getByTestId('email-password').fill('smtp-Secret-42!');
    await page.getByTestId('email-save').click();
    await expect
      .poll(() => page.getByText('A password is sent only over an encrypted connection: choose STARTTLS or TLS, or leave the password out').count())
      .toBe(1);
    await page.getByTestId('email-tls').click();
    await page.getByRole('option', { name: 'STARTTLS' }).click();
    await page.getByTestId('email-save').click();
    // A password is never shown again: it is kept, replaced or cleared.
    await expect.poll(() => page.getByTestId('email-password-saved').count()).toBe(1);
    expect(await page.locator('input[type=password]').count()).toBe(0);
    await page.getByTestId('email-password-replace').click();
    expect(await page.getByTestId('email-password').inputValue()).toBe('');
    await page.getByRole('button', { name: 'Keep the saved password' }).click();
    // It belongs to its server: another port asks for it again, the same one keeps it.
    await page.getByTestId('email-port').fill('2525');
    await expect.poll(() => page.getByTestId('email-password').count()).toBe(1);
    expect(await page.getByText('The saved password is kept only for the server it was saved with', { exact: false }).count()).toBe(1);
    await page.getByTestId('email-port').fill(sinkPort());
    await expect.poll(() => page.getByTestId('email-password-saved').count()).toBe(1);
    await page.getByTestId('email-password-clear').click();
    await expect.poll(() => page.getByText('The saved password is removed when you save.').count()).toBe(1);
    await page.getByTestId('email-username').fill('');
    await page.getByTestId('email-tls').click();
    await page.getByRole('option', { name: 'None (plain SMTP)' }).click();
    const saved = page.waitForResponse((r) => r.url().endsWith('/v1/settings/email') && r.request().method() === 'PUT');
    await page.getByTestId('email-save').click();
    expect((await (await saved).request().postDataJSON()) as Record<string, unknown>).toMatchObject({ password: null, username: null, tlsMode: 'none' });
    await expect.poll(() => page.getByTestId('email-password').count()).toBe(1);

    // Someone else saves meanwhile: this page's version is stale.
    await page.evaluate(async () => {
      const headers = { authorization: `Bearer ${localStorage.getItem('token')}`, 'content-type': 'application/json' };
      const { passwordSet: _p, updateTime: _u, ...current } = ((await (await fetch('/v1/settings/email', { headers })).json()) as { data: Record<string, unknown> }).data;
      await fetch('/v1/settings/email', { method: 'PUT', headers, body: JSON.stringify(current) });
    });
    await page.getByTestId('email-sender-name').fill('Acme Guards');
    await page.getByTestId('email-save').click();
    await expect.poll(() => page.getByTestId('email-stale').count()).toBe(1);
    await page.getByTestId('email-stale').getByRole('button', { name: 'Reload' }).click();
    await expect.poll(() => page.getByTestId('email-sender-name').inputValue()).toBe('Acme Alerts');
    await context.close();
  });

  it('lists the mails with their outcome, opens one, and resends a failed one after a confirmation', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/mail');
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('Mail records');
    const mailRows = page.getByTestId('mail-row');
    await expect.poll(() => mailRows.count()).toBeGreaterThanOrEqual(3);
    const tests = page.locator('[data-testid=mail-row][data-group=test]');
    expect(await tests.count()).toBe(3);
    // Newest first: the test mail that went through, then the refused one, then the one no server took.
    expect(await tests.nth(0).getByTestId('mail-status-badge').textContent()).toBe('Sent');
    expect(await tests.nth(1).getByTestId('mail-status-badge').textContent()).toBe('Failed');
    await page.screenshot({ path: `${shotDir}/settings-mail-en.png`, fullPage: true });

    await tests.nth(0).getByTestId('mail-view').click();
    const drawer = page.locator('.mantine-Drawer-content');
    await expect.poll(() => drawer.getByTestId('mail-content').count()).toBe(1);
    expect(await drawer.innerText()).toContain('guard@company.test');
    expect((await drawer.getByTestId('mail-content').innerText()).length).toBeGreaterThan(0);
    // Settled after its slide-in.
    await expect.poll(async () => Math.round((await drawer.boundingBox())!.x + (await drawer.boundingBox())!.width)).toBe(1366);
    await page.waitForFunction(() => getComputedStyle(document.querySelector('.mantine-Drawer-content')!).opacity === '1');
    await page.screenshot({ path: `${shotDir}/settings-mail-view-en.png`, fullPage: true });
    await page.getByTestId('mail-drawer-close').click();
    await expect.poll(() => drawer.count()).toBe(0);

    // Filters: only the failed ones.
    await page.getByTestId('mail-status').click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await page.getByTestId('mail-search').click();
    await expect.poll(() => page.locator('[data-testid=mail-row][data-status=sent]').count()).toBe(0);
    expect(await mailRows.count()).toBe(2);
    // Both are test mails: the group is said once above the table and its column gives way.
    expect(await page.getByTestId('mail-folded').locator('[data-column=group]').innerText()).toBe('Group: Test mail');
    expect(await page.getByTestId('mail-table').locator('th', { hasText: /^Group$/ }).count()).toBe(0);

    // The one no server took goes out again through the saved server; Cancel first changes nothing.
    const unsent = page.locator('[data-testid=mail-row]', { hasText: 'guard@company.test' });
    await unsent.getByTestId('mail-resend').click();
    await page.getByTestId('cancel-resend').click();
    await expect.poll(() => page.getByTestId('cancel-resend').count()).toBe(0);
    expect(await mailRows.count()).toBe(2);
    await unsent.getByTestId('mail-resend').click();
    await page.getByTestId('confirm-resend').click();
    expect(await toastText(page)).toContain('The mail was sent again');
    await page.getByTestId('mail-reset').click();
    await expect.poll(() => tests.count()).toBe(4);
    expect(await tests.nth(0).getByTestId('mail-status-badge').textContent()).toBe('Sent');
    await context.close();
  });
});
