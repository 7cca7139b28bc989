/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it, inject } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { MENU, type MenuItem } from '@passcloud/functions/contract/menu';
import { launchBrowser } from '../support/browser.ts';
import { unique } from '../support/api.ts';
import { TAGLINE, demoAdmin, englishTitles, loginInBrowser, mailedCode, newPage, pageErrors, shotDir, toastText } from './support.ts';

let browser: Browser;
const titles = englishTitles();

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

/** Registers a company through the register screen with the code read from the mail sink. */
async function registerInBrowser(page: Page) {
  const username = unique('web');
  const email = `${username}@example.test`;
  const password = 'browser-pass-1';
  await page.goto('/register');
  await page.getByLabel('Company name').fill(`Company ${username}`);
  await page.locator('input[autocomplete=username]').fill(username);
  await page.getByLabel('Email').fill(email);
  const passwords = page.locator('input[type=password]');
  await passwords.nth(0).fill(password);
  await passwords.nth(1).fill(password);
  await page.getByTestId('send-code').click();
  await expect.poll(() => page.getByTestId('send-code').textContent()).toMatch(/Resend in \d+ s/);
  expect(await page.getByTestId('send-code').isDisabled()).toBe(true);
  await page.getByLabel('Verification code').fill(await mailedCode(email));
  await page.getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await page.waitForURL('**/login');
  return { username, password };
}

describe('routing rules', () => {
  it('sends a visitor without a session to the entrance and shows 404 for unknown paths', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/pass-platform/enterprise/employee');
    await page.waitForURL((url) => url.pathname === '/entrance');
    // The page opened is kept to return to after login.
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/pass-platform/enterprise/employee');
    await expect.poll(() => page.title()).toBe(`Home - ${TAGLINE}`);
    await page.goto('/no/such/page');
    await page.waitForURL(/\/(entrance|404)$/);
    await context.close();
  });

  it('shows the 404 page with a way home to a signed-in user', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, (await demoAdmin()).username, (await demoAdmin()).password);
    await page.goto('/no/such/page');
    await page.waitForURL('**/404');
    await expect.poll(() => page.getByText('Page not found').count()).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'Back to home' }).click();
    await page.waitForURL('**/pass-platform/dashboard');
    await page.goto('/login');
    await page.waitForURL('**/pass-platform/dashboard');
    await context.close();
  });
});

describe('register, log in, walk the menu', () => {
  it('registers a company with the mailed code and logs in to the dashboard', async () => {
    const { context, page } = await newPage(browser);
    const { username, password } = await registerInBrowser(page);
    await loginInBrowser(page, username, password);
    await page.waitForURL('**/pass-platform/dashboard');
    await expect.poll(() => page.title()).toBe(`Dashboard - ${TAGLINE}`);
    await page.getByTestId('user-menu').click();
    await expect.poll(() => page.getByTestId('user-code').textContent()).toMatch(/^[A-Z2-9]{8}$/);
    await context.close();
  });

  it('opens every menu entry with its localized title', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, (await demoAdmin()).username, (await demoAdmin()).password);
    const visit = async (item: MenuItem) => {
      const path = item.path.replace(/:(\w+)/g, 'sample-$1');
      await page.goto(path);
      const expected = titles[item.title]!;
      await expect.poll(() => page.title(), { message: path }).toBe(`${expected} - ${TAGLINE}`);
      await expect.poll(() => page.getByTestId('screen-title').first().textContent(), { message: path }).toBe(expected);
    };
    const walk = async (items: MenuItem[]) => {
      for (const item of items) {
        if (item.path !== '/settings' && titles[item.title] && !item.redirect && item.path.split('/').length > 2) await visit(item);
        await walk(item.children ?? []);
      }
    };
    await walk(MENU);
    await context.close();
  });

  it('follows the side menu and the platform switch, and collapses the menu to 65 px', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, (await demoAdmin()).username, (await demoAdmin()).password);
    await page.getByRole('link', { name: 'Visitors' }).click();
    await page.waitForURL('**/pass-platform/personnel/management');
    await page.getByTestId('side-menu').getByText('Passage', { exact: true }).click();
    await page.getByRole('link', { name: 'Pass records' }).click();
    // The screen's code loads before the address changes: room for a machine busy with other test files.
    await page.waitForURL('**/pass-platform/passage/record', { timeout: 60_000 });
    const menu = page.getByTestId('side-menu');
    expect(Math.round((await menu.boundingBox())!.width)).toBe(250 - 1);
    await page.getByTestId('menu-toggle').click();
    await expect.poll(async () => Math.round((await menu.boundingBox())!.width)).toBe(65 - 1);
    const title = page.getByTestId('screen-title');
    await expect.poll(async () => Math.round((await title.boundingBox())!.x)).toBe(65 + 16);
    await page.screenshot({ path: `${shotDir}/layout-collapsed-en.png` });
    await page.getByTestId('menu-toggle').click();
    await page.getByRole('link', { name: 'Intercom platform' }).click();
    await page.waitForURL('**/intercom-platform/device/management');
    // Settings open at the first permitted section, under its own path.
    await page.getByTestId('settings-button').click();
    await page.waitForURL('**/settings/system');
    await expect.poll(() => page.getByTestId('settings-button').getAttribute('aria-current')).toBe('page');
    await page.getByRole('tab', { name: 'Mail records' }).click();
    await page.waitForURL('**/settings/mail');
    await page.goto('/enterprise');
    await page.waitForURL('**/pass-platform/enterprise/employee');
    await page.goto('/personnel');
    await page.waitForURL('**/pass-platform/personnel/management');
    await page.goto('/pass-platform/passage');
    await page.waitForURL('**/pass-platform/passage/authority');
    await context.close();
  });

  it('shows a screen whose code cannot be loaded as an error with a retry', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, (await demoAdmin()).username, (await demoAdmin()).password);
    await page.waitForURL('**/pass-platform/dashboard');
    await page.route(/\/assets\/pages-[^/]+\.js$/, (route) => route.abort());
    await page.getByRole('link', { name: 'Devices' }).click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'This screen could not be loaded' }).count()).toBe(1);
    await page.unroute(/\/assets\/pages-[^/]+\.js$/);
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => page.getByTestId('screen-title').count()).toBe(1);
    expect(await page.getByRole('alert').filter({ hasText: 'This screen could not be loaded' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Devices' }).click();
    await expect.poll(() => page.title()).toBe(`Devices - ${TAGLINE}`);
    await context.close();
  });

  it('lands an account on its first permitted entry when it opens a screen it may not see', async () => {
    const { createAccount } = await import('@passcloud/functions/data/identity');
    const username = unique('limited');
    await createAccount(inject('demo').tenantId, { username, password: 'limited-pass-1', authCodes: ['pass:visitor', 'intercom:record'] });
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, username, 'limited-pass-1');
    await page.waitForURL('**/pass-platform/personnel/management');
    await page.goto('/pass-platform/device/management');
    await page.waitForURL('**/pass-platform/personnel/management');
    await expect.poll(() => page.title()).toBe(`Visitors - ${TAGLINE}`);
    expect(await page.getByRole('link', { name: 'Visitors' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Devices' }).count()).toBe(0);
    expect(await page.getByTestId('settings-button').count()).toBe(0);
    await context.close();
  });
});

describe('languages', () => {
  it.each(['en_US', 'ja_JP', 'de_DE'])('lays out login, register and the expanded layout in %s without overflow', async (locale) => {
    const { context, page } = await newPage(browser, { locale });
    for (const path of ['/login', '/register', '/entrance']) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${shotDir}/${path.slice(1)}-${locale}.png`, fullPage: true });
    }
    await loginInBrowser(page, (await demoAdmin()).username, (await demoAdmin()).password);
    await page.goto('/pass-platform/enterprise/employee');
    await page.waitForLoadState('networkidle');
    const header = page.locator('header');
    const headerBox = (await header.boundingBox())!;
    expect(headerBox.height).toBe(56);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${shotDir}/layout-expanded-${locale}.png` });
    await context.close();
  });

  it('switches to Japanese and back, keeping the choice across reloads', async () => {
    const { context, page } = await newPage(browser);
    await loginInBrowser(page, (await demoAdmin()).username, (await demoAdmin()).password);
    await page.getByTestId('language-menu').click();
    await Promise.all([page.waitForEvent('load'), page.locator('[data-locale=ja_JP]').click()]);
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('ja-JP');
    await expect.poll(() => page.title()).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    await page.screenshot({ path: `${shotDir}/layout-expanded-ja.png` });
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('ja-JP');
    await page.getByTestId('language-menu').click();
    await Promise.all([page.waitForEvent('load'), page.locator('[data-locale=en_US]').click()]);
    await expect.poll(() => page.title()).toBe(`Dashboard - ${TAGLINE}`);
    await context.close();
  });
});

describe('a first visit', () => {
  it('speaks the browser’s language until another is chosen', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 820 }, baseURL: inject('baseUrl'), locale: 'ko-KR' });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/login');
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('ko-KR');
    await expect.poll(() => page.locator('form button[type=submit]').innerText()).toMatch(/[\uac00-\ud7a3]/);
    await page.screenshot({ path: `${shotDir}/first-visit-ko.png` });
    // A choice made in the language menu wins over the browser's from then on.
    await page.evaluate(() => localStorage.setItem('locale', 'en_US'));
    await page.reload();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en-US');
    await context.close();
  });
});

describe('account', () => {
  it('shows a toast for a wrong password and stays on the login screen', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.locator('input[autocomplete=username]').fill((await demoAdmin()).username);
    await page.locator('input[type=password]').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    expect(await toastText(page)).toContain('Wrong username or password');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await context.close();
  });

  it('asks for both fields before calling the server', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/login');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByText('Enter the username').count()).toBe(1);
    expect(await page.getByText('Enter the password').count()).toBe(1);
    await context.close();
  });

  it('changes the password in the 500 px dialog and logs in with the new one', async () => {
    const { context, page } = await newPage(browser);
    const { username, password } = await registerInBrowser(page);
    await loginInBrowser(page, username, password);
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Change password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change password' });
    expect(Math.round((await dialog.boundingBox())!.width)).toBe(500);
    const fields = dialog.locator('input[type=password]');
    await fields.nth(0).fill(password);
    await fields.nth(1).fill('changed-pass-22');
    await fields.nth(2).fill('changed-pass-23');
    await fields.nth(2).blur();
    await expect.poll(() => dialog.getByText('The passwords do not match').count()).toBe(1);
    await fields.nth(2).fill('changed-pass-22');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await toastText(page)).toContain('Operation succeeded');

    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('userInfo'), sessionStorage.getItem('settingsTab')])).toEqual([null, null, null]);
    await loginInBrowser(page, username, 'changed-pass-22');
    await page.waitForURL('**/pass-platform/dashboard');
    await context.close();
  });

  it('recovers a forgotten password with the mailed code', async () => {
    const { context, page } = await newPage(browser);
    const { username } = await registerInBrowser(page);
    await page.goto('/password-find');
    await page.locator('input[autocomplete=username]').fill(username);
    await page.locator('form button[type=submit]').click();
    await expect.poll(() => page.getByLabel('Verification code').count()).toBe(1);
    await page.getByLabel('Verification code').fill(await mailedCode(`${username}@example.test`));
    await page.locator('form button[type=submit]').click();
    const passwords = page.locator('input[type=password]');
    await expect.poll(() => passwords.count()).toBe(2);
    await passwords.nth(0).fill('recovered-pass-9');
    await passwords.nth(1).fill('recovered-pass-9');
    await page.locator('form button[type=submit]').click();
    await page.waitForURL('**/login');
    await loginInBrowser(page, username, 'recovered-pass-9');
    await page.waitForURL('**/pass-platform/dashboard');
    await context.close();
  });

  it('shows the service terms in the chosen language', async () => {
    const { context, page } = await newPage(browser, { locale: 'zh_CN' });
    await page.goto('/agreement');
    await expect.poll(() => page.getByTestId('terms').textContent()).toMatch(/[\u4e00-\u9fff]/);
    await context.close();
  });

  it('logs the first browser out when the account logs in elsewhere (662)', async () => {
    const first = await newPage(browser);
    const { username, password } = await registerInBrowser(first.page);
    await loginInBrowser(first.page, username, password);
    const second = await newPage(browser);
    await loginInBrowser(second.page, username, password);
    // The first browser shows the dashboard, which reads its figures again every few seconds: its
    // next read is refused, and the login comes back to the page the session ended on.
    await first.page.waitForURL((url) => url.pathname === '/login', { timeout: 15_000 });
    expect(new URL(first.page.url()).searchParams.get('redirect')).toBe('/pass-platform/dashboard');
    expect(await toastText(first.page)).toContain('logged in elsewhere');
    expect(await first.page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await second.page.goto('/pass-platform/device/management');
    await expect.poll(() => second.page.title()).toBe(`Devices - ${TAGLINE}`);
    await first.context.close();
    await second.context.close();
  });
});
