/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { base, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole } from './support.ts';

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
const watchAnswers = (page: Page, expected: RegExp[] = []) => watchConsole(page, failedLoads(expected));

/** The invitation link of the newest mail to `address`, as the local host's mail sink holds it. */
async function mailedLink(address: string): Promise<URL> {
  const res = await fetch(`${base()}/_local/mails?to=${encodeURIComponent(address)}`);
  const mails = ((await res.json()) as { data: { to: string[]; text: string }[] }).data.filter((m) => m.to.includes(address));
  const link = /https?:\/\/\S+\/invitation\?token=[A-Za-z0-9_-]{43}/.exec(mails.at(-1)?.text ?? '')?.[0];
  if (!link) throw new Error(`no invitation mailed to ${address}`);
  return new URL(link);
}

describe('an invitation link', () => {
  let username: string;
  let link: URL;
  beforeAll(async () => {
    const owner = await newCompany();
    const admin = await login(owner.username, owner.password);
    username = unique('guest');
    const email = `${username}@example.test`;
    const made = await call('POST', '/v1/accounts', {
      token: admin.token,
      body: { username, nickname: 'Front desk', email, authCodes: ['pass:dashboard'], invite: true },
    });
    expect(made.body.code).toBe(201);
    link = await mailedLink(email);
  });

  it('opens on the console, where the invited person chooses a password and then logs in with it', async () => {
    expect(link.origin).toBe(new URL(base()).origin);
    const { context, page } = await newPage(browser);
    watchAnswers(page);
    await page.goto(link.pathname + link.search);
    await expect.poll(() => page.getByTestId('invitation-username').inputValue()).toBe(username);
    expect(await page.getByText('Choose the password you will log in with.', { exact: false }).count()).toBe(1);
    // The rules are checked before anything is sent.
    await page.getByTestId('invitation-password').fill('short');
    await page.getByTestId('invitation-confirm').fill('other');
    await page.getByTestId('invitation-submit').click();
    await expect.poll(() => page.getByText('At least 8 characters').count()).toBe(1);
    expect(await page.getByText('The passwords do not match').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/invitation-en.png`, fullPage: true });

    await page.getByTestId('invitation-password').fill('chosen-in-browser-1');
    await page.getByTestId('invitation-confirm').fill('chosen-in-browser-1');
    await page.getByTestId('invitation-submit').click();
    expect(await toastText(page)).toContain('Your password is set; log in with it');
    await page.waitForURL('**/login');

    // A normal login: no password change is asked for.
    await loginInBrowser(page, username, 'chosen-in-browser-1');
    await expect.poll(() => page.getByTestId('screen-title').count()).toBe(1);
    expect(await page.locator('.mantine-Modal-content').count()).toBe(0);
    await context.close();
  });

  it('says in the reader’s language that a used link no longer works', async () => {
    const { context, page } = await newPage(browser, { locale: 'ja_JP' });
    // The check of the used link answers 404 on purpose.
    watchAnswers(page, [/\/v1\/systems\/invitation/]);
    await page.goto(link.pathname + link.search);
    await expect.poll(() => page.getByTestId('invitation-void').count()).toBe(1);
    expect(await page.getByTestId('invitation-void').innerText()).toMatch(/^この招待リンクは無効です/);
    expect(await page.getByTestId('invitation-password').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/invitation-used-ja.png`, fullPage: true });
    await context.close();
  });
});
