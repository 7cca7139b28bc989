/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { requireAccount } from '@passcloud/functions/data/identity';
import { launchBrowser } from '../support/browser.ts';
import { unique } from '../support/api.ts';
import { TAGLINE, demoAdmin, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole } from './support.ts';

/** The account pages sit in the settings frame (side list and breadcrumb), and their forms keep the server's one nickname rule. */

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** The settings frame around the page: Accounts chosen in the side list, and the breadcrumb down to `page`. */
async function expectFrame(page: Page, crumbs: string[]) {
  await expect.poll(() => crumbText(page)).toEqual(crumbs);
  const tabs = page.getByTestId('settings-sections').getByRole('tab');
  expect(await tabs.count()).toBeGreaterThan(5);
  expect(await page.getByTestId('settings-sections').getByRole('tab', { selected: true }).innerText()).toBe(crumbs[2]);
  expect(await page.getByTestId('screen-title').innerText()).toBe(crumbs[3]);
}

/** The breadcrumb's parts, without the separators between them. */
const crumbText = (page: Page) => page.getByTestId('settings-breadcrumb').locator('.mantine-Breadcrumbs-breadcrumb').allInnerTexts();
const stored = (accountKey: string) => requireAccount(inject('demo').tenantId, accountKey);

describe('account pages', () => {
  it('show the settings frame, and apply one nickname rule on create and on edit', async () => {
    const admin = await demoAdmin();
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, admin.username, admin.password);

    await page.goto('/settings/account/create');
    await expect.poll(() => page.title()).toBe(`New account - ${TAGLINE}`);
    await expectFrame(page, ['Pass Cloud', 'System settings', 'Accounts', 'New account']);

    // The nickname may stay empty: the account is shown by its username.
    const username = unique('frame');
    await page.getByTestId('account-username').fill(username);
    await page.getByTestId('permission-/pass-platform/dashboard').check();
    const passwords = page.locator('input[type=password]');
    await passwords.nth(0).fill('initial-pass-1');
    await passwords.nth(1).fill('initial-pass-1');
    await page.screenshot({ path: `${shotDir}/account-frame-create-en.png`, fullPage: true });
    await page.getByTestId('account-submit').click();
    await page.waitForURL('**/settings/account');

    await page.getByTestId('account-keyword').fill(username);
    await page.getByTestId('account-search').click();
    await page.getByTestId('account-row').getByRole('link', { name: username }).click();
    await page.waitForURL(/\/settings\/account\/[0-9a-z]+$/);
    const key = page.url().split('/').at(-1)!;
    await expectFrame(page, ['Pass Cloud', 'System settings', 'Accounts', 'Account details']);
    const nickname = page.getByTestId('account-nickname');
    await expect.poll(() => nickname.inputValue()).toBe(username);
    expect(await nickname.getAttribute('required')).toBeNull();

    // On edit as on create: emptied, it is the username again; saved, not refused.
    await nickname.fill('Reception');
    // The toast of the creation has gone first, so the one read next is the save's.
    await expect.poll(() => page.locator('.mantine-Notification-root').count(), { timeout: 15_000 }).toBe(0);
    await page.getByTestId('account-save').click();
    expect(await toastText(page)).toContain('Saved');
    await expect.poll(async () => (await stored(key)).nickname).toBe('Reception');
    await nickname.fill('');
    await page.getByTestId('account-save').click();
    await expect.poll(async () => (await stored(key)).nickname).toBe(username);
    await expect.poll(() => nickname.inputValue()).toBe(username);

    // Too long is refused on the field, as the server refuses it on create and edit alike; nothing is saved.
    const before = await stored(key);
    await nickname.fill('n'.repeat(65));
    await page.getByTestId('account-save').click();
    await expect.poll(() => page.getByText('At most 64 characters').count()).toBe(1);
    expect(await stored(key)).toMatchObject({ nickname: username, version: before.version });
    await page.screenshot({ path: `${shotDir}/account-frame-detail-en.png`, fullPage: true });
    await page.getByTestId('account-cancel').click();

    // The breadcrumb leads back to the section.
    await page.getByTestId('settings-breadcrumb-section').click();
    await page.waitForURL('**/settings/account');
    await context.close();

    const ja = await newPage(browser, { locale: 'ja_JP' });
    watchConsole(ja.page);
    await loginInBrowser(ja.page, admin.username, admin.password);
    await ja.page.goto(`/settings/account/${key}`);
    await expect.poll(() => ja.page.getByTestId('account-name').innerText()).toBe(username);
    const crumbs = await crumbText(ja.page);
    expect(crumbs).toHaveLength(4);
    expect(crumbs.slice(1).every((crumb) => /[\u3040-\u30ff\u4e00-\u9fff]/.test(crumb))).toBe(true);
    expect(await ja.page.getByTestId('settings-sections').getByRole('tab', { selected: true }).innerText()).toBe(crumbs[2]);
    await ja.page.screenshot({ path: `${shotDir}/account-frame-detail-ja.png`, fullPage: true });
    await ja.page.goto('/settings/account/create');
    await expect.poll(async () => (await crumbText(ja.page)).length).toBe(4);
    await ja.page.screenshot({ path: `${shotDir}/account-frame-create-ja.png`, fullPage: true });
    await ja.context.close();
  });
});
