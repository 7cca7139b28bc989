/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { createAccount, findAccountByUsername } from '@passcloud/functions/data/identity';
import { launchBrowser } from '../support/browser.ts';
import { advanceHostClock, hostNow, newCompany, setHostClock, unique } from '../support/api.ts';
import { newPage, pageErrors, shotDir, toastText, watchConsole as watchPage, failedLoads } from './support.ts';

/**
 * Two-factor login in the browser: an owner sets it up from the user menu (the QR code and the key,
 * confirmed with a code computed here as an authenticator app would), keeps its recovery codes,
 * requires it of the company, and logs in again through the second step, with an app code and
 * with a recovery code; a new account of the company is led through setting it up, in Chinese.
 */

let browser: Browser;
const PERIOD_MS = 30_000;

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  // Steps came by moving the host's clock (e2e files run one at a time); it is put back.
  await setHostClock(0);
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/**
 * The refusals these tests provoke (a wrong code, the reset and the company's requirement asking for the password) are logged by
 * the browser as failed loads; so is the blacklist alerts' read every 15 s when it falls in the
 * moment a session of these tests ends (it is quiet: no toast, and the next read is the new session's).
 */
const watchConsole = (page: Page) => watchPage(page, failedLoads([/\/v1\/systems\/login\/twoFactor$/, /\/v1\/accounts\/[0-9a-z]+\/twoFactor$/, /\/v1\/settings\/twoFactor$/, /\/v1\/blacklistRecords\?/]));
const dialog = (page: Page) => page.getByTestId('two-factor-dialog').locator('.mantine-Modal-content');

function appCode(secret: string, at = hostNow()): string {
  return new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: at });
}

/** Moves the host's clock into the next 30-second step while the current one has under 6 s left, so a code computed now is still good when it arrives. */
async function freshStep(): Promise<void> {
  const left = PERIOD_MS - (hostNow() % PERIOD_MS);
  if (left < 6_000) await advanceHostClock(left + 50);
}

async function firstStep(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.locator('input[autocomplete=username]').fill(username);
  await page.locator('input[type=password]').fill(password);
  await page.locator('form button[type=submit]').click();
}

/** Sets two-factor login up in the open dialog; answers the key and the recovery codes. */
async function setUp(page: Page, password: string, shots?: { enrol: string; codes: string }): Promise<{ secret: string; codes: string[] }> {
  await dialog(page).getByTestId('two-factor-start').click();
  await expect.poll(() => page.getByTestId('two-factor-qr').count()).toBe(1);
  // The QR code is drawn in the page: an image from a data URL, not a request to anyone.
  expect(await page.getByTestId('two-factor-qr').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  const secret = (await page.getByTestId('two-factor-secret').innerText()).replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await page.getByTestId('two-factor-password').fill(password);
  await freshStep();
  await page.getByTestId('two-factor-code').fill(appCode(secret));
  if (shots) await page.screenshot({ path: `${shotDir}/${shots.enrol}` });
  await page.getByTestId('two-factor-confirm').click();
  await expect.poll(() => page.getByTestId('recovery-codes').count()).toBe(1);
  const codes = (await page.getByTestId('recovery-codes').innerText()).split(/\s+/).filter(Boolean);
  expect(codes).toHaveLength(10);
  if (shots) await page.screenshot({ path: `${shotDir}/${shots.codes}` });
  // Done waits until the person says the codes are kept.
  expect(await page.getByTestId('recovery-done').isDisabled()).toBe(true);
  await page.getByTestId('recovery-kept').check();
  await page.getByTestId('recovery-done').click();
  await expect.poll(() => page.locator('.mantine-Modal-content').count()).toBe(0);
  return { secret, codes };
}

describe('two-factor login in the console', () => {
  let owner: { username: string; password: string };
  let secret = '';
  let codes: string[] = [];
  let clerk = '';

  it('is set up from the user menu, required by the owner, and asked for at the next login', async () => {
    owner = await newCompany();
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await firstStep(page, owner.username, owner.password);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    await page.getByTestId('user-menu').click();
    await page.getByTestId('menu-two-factor').click();
    ({ secret, codes } = await setUp(page, owner.password, { enrol: 'two-factor-enrol-en.png', codes: 'two-factor-codes-en.png' }));

    // The owner requires it of every account (Settings, Privacy), after a confirmation.
    await page.goto('/settings/privacy');
    const rule = page.getByTestId('privacy-require-two-factor');
    await expect.poll(() => rule.isDisabled()).toBe(false);
    await rule.click({ force: true });
    await page.getByTestId('confirm-two-factor-policy').click();
    // Changing the company's requirement asks for the password again.
    await page.getByTestId('confirm-password-input').fill(owner.password);
    await page.getByTestId('confirm-password-submit').click();
    expect(await toastText(page)).toBe('Saved');
    await expect.poll(() => rule.isChecked()).toBe(true);
    await page.screenshot({ path: `${shotDir}/two-factor-policy-en.png`, fullPage: true });

    // Logging in again takes the second step: no session without it.
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await firstStep(page, owner.username, owner.password);
    await expect.poll(() => page.getByTestId('totp-code').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await page.screenshot({ path: `${shotDir}/two-factor-login-en.png` });
    // A wrong code is refused under the field, translated.
    await page.getByTestId('totp-code').fill(appCode(secret) === '000000' ? '111111' : '000000');
    await expect.poll(() => page.getByText('The code is wrong or was already used').count()).toBeGreaterThan(0);
    // The code of the next step (the enrolment used this one) lets the owner in.
    await freshStep();
    await page.getByTestId('totp-code').fill(appCode(secret, hostNow() + PERIOD_MS));
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeTruthy();

    // And with a recovery code instead.
    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL('**/login');
    await firstStep(page, owner.username, owner.password);
    await page.getByTestId('toggle-recovery').click();
    await page.getByTestId('recovery-code').fill(codes[0]!);
    await page.getByTestId('verify-code').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.getByTestId('user-menu').click();
    await page.getByTestId('menu-two-factor').click();
    await expect.poll(() => page.getByTestId('two-factor-codes-left').innerText()).toBe('Recovery codes left: 9');
    await context.close();
  }, 180_000);

  it('leads a new account of the company through setting it up before anything else, in Chinese', async () => {
    const ownerAccount = (await findAccountByUsername(owner.username))!;
    const username = (clerk = unique('clerk'));
    const password = 'clerk-pass-12';
    await createAccount(ownerAccount.tenantId, { username, password, authCodes: [...AUTH_CODES] as never });
    const { context, page } = await newPage(browser, { locale: 'zh_CN' });
    watchConsole(page);
    await firstStep(page, username, password);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    // The dialog cannot be closed, and no screen loads behind it.
    await expect.poll(() => page.getByTestId('two-factor-required').count()).toBe(1);
    expect(await page.getByTestId('two-factor-required').innerText()).toBe('贵公司要求使用两步验证登录，请完成设置后继续。');
    expect(await page.getByTestId('screen-title').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/two-factor-required-zh.png` });
    const own = await setUp(page, password, { enrol: 'two-factor-enrol-zh.png', codes: 'two-factor-codes-zh.png' });
    await expect.poll(() => page.getByTestId('screen-title').count()).toBeGreaterThan(0);

    await page.getByTestId('user-menu').click();
    await page.getByRole('menuitem', { name: '退出登录' }).click();
    await page.waitForURL('**/login');
    await firstStep(page, username, password);
    await expect.poll(() => page.getByTestId('totp-code').count()).toBe(1);
    expect(await page.getByTestId('second-step-hint').innerText()).toBe('请输入身份验证器应用中 Pass Cloud 的 6 位验证码。');
    await page.screenshot({ path: `${shotDir}/two-factor-login-zh.png` });
    await freshStep();
    await page.getByTestId('totp-code').fill(appCode(own.secret, hostNow() + PERIOD_MS));
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await expect.poll(() => page.getByTestId('screen-title').count()).toBeGreaterThan(0);
    await context.close();
  }, 180_000);

  it('lets the owner reset the two-factor login of an account, after a confirmation', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await firstStep(page, owner.username, owner.password);
    await page.getByTestId('toggle-recovery').click();
    await page.getByTestId('recovery-code').fill(codes[1]!);
    await page.getByTestId('verify-code').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    const clerkAccount = (await findAccountByUsername(clerk))!;
    await page.goto(`/settings/account/${clerkAccount.accountId}`);
    await expect.poll(() => page.getByTestId('badge-two-factor').count()).toBe(1);
    await page.getByTestId('account-reset-two-factor').click();
    await expect.poll(() => page.getByTestId('confirm-two-factor').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/two-factor-reset-en.png` });
    await page.getByTestId('confirm-two-factor').click();
    // Like deleting an account, it asks for the password again first.
    await page.getByTestId('confirm-password-input').fill(owner.password);
    await page.getByTestId('confirm-password-submit').click();
    expect(await toastText(page)).toBe('Operation succeeded');
    await expect.poll(() => page.getByTestId('badge-two-factor').count()).toBe(0);
    expect(await page.getByTestId('account-reset-two-factor').isDisabled()).toBe(true);
    expect((await findAccountByUsername(clerk))!.totpSecret).toBeUndefined();
    await context.close();
  }, 120_000);
});
