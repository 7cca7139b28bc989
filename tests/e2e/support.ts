/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, inject } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { createAccount } from '@passcloud/functions/data/identity';
import { unique } from '../support/api.ts';

export const base = (): string => inject('baseUrl');

let demoAdminAccount: Promise<{ username: string; password: string }> | undefined;
/**
 * An account of the demo company with every permission, made once per test file. Files that run
 * side by side log in with one of their own: a login of the demo owner would end the session of
 * every other file that used it (one session an account).
 */
export function demoAdmin(): Promise<{ username: string; password: string }> {
  demoAdminAccount ??= (async () => {
    const username = unique('demoadmin');
    const password = 'demo-admin-pass-1';
    await createAccount(inject('demo').tenantId, { username, password, authCodes: [...AUTH_CODES], email: `${username}@example.test` });
    return { username, password };
  })();
  return demoAdminAccount;
}

/** English menu titles by key, read from the console's own title table. */
export function englishTitles(): Record<string, string> {
  const source = readFileSync(resolve(import.meta.dirname, '../../web/src/app/menuTitles.ts'), 'utf8');
  return Object.fromEntries([...source.matchAll(/'(menu\.\w+)': msg`([^`]+)`/g)].map((m) => [m[1]!, m[2]!]));
}

/** Uncaught errors of every page opened through newPage; a test file asserts it stays empty. */
export const pageErrors: string[] = [];

export const TAGLINE = 'Pass Cloud · face recognition access control';

/**
 * Console errors of `page` fail the test as page errors do, but those `expected` lets through:
 * a request the test makes fail on purpose, which the browser logs as an error with its address.
 */
/** The expected errors of `watchConsole`: failed loads of the addresses a test makes fail on purpose. */
export const failedLoads =
  (addresses: RegExp[]) =>
  (text: string, url: string): boolean =>
    /Failed to load resource/.test(text) && addresses.some((pattern) => pattern.test(url));

export function watchConsole(page: Page, expected: (text: string, url: string) => boolean = () => false): Page {
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    const url = message.location().url ?? '';
    if (expected(text, url)) return;
    pageErrors.push(`console: ${text}${url ? ` (${url})` : ''}`);
  });
  return page;
}

/**
 * Reads the console makes on its own, whatever the screen: the dashboard (where a login lands)
 * reads its figures again and asks where its live channel is, and the blacklist alerts read the
 * newest blacklist records every 15 s. A test that counts a form's requests leaves them out.
 */
export function isBackgroundRead(method: string, path: string): boolean {
  return method === 'GET' && (path.startsWith('/v1/dashboard') || path === '/v1/systems/live' || path === '/v1/blacklistRecords');
}

/** A page of a browser that speaks English (the console takes the browser's language on a first visit), or the console in `locale`. */
export async function newPage(browser: Browser, options: { locale?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 820 }, baseURL: base(), locale: 'en-US' });
  if (options.locale) await context.addInitScript((locale) => localStorage.setItem('locale', locale), options.locale);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page };
}

export async function loginInBrowser(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.locator('input[autocomplete=username]').fill(username);
  await page.locator('input[type=password]').fill(password);
  await page.locator('form button[type=submit]').click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

export async function toastText(page: Page): Promise<string> {
  const toast = page.locator('.mantine-Notification-root');
  await expect.poll(() => toast.count()).toBe(1);
  // It covers no field or button of the screen: people read it while they correct the form.
  const covered = await toast.first().evaluate((shown) => {
    const box = shown.getBoundingClientRect();
    // What scrolls under the fixed header is hidden there anyway: only the part below it counts.
    const top = document.querySelector('header')?.getBoundingClientRect().bottom ?? 0;
    return [...document.querySelectorAll(':is(main, form) :is(input, textarea, select, button, [role=combobox])')]
      .filter((field) => !shown.contains(field))
      .map((field) => ({ field, at: field.getBoundingClientRect() }))
      .filter(({ at }) => at.width > 0 && at.height > 0 && at.left < box.right && at.right > box.left && Math.max(at.top, top) < box.bottom && at.bottom > box.top)
      .map(({ field }) => field.outerHTML.slice(0, 120));
  });
  expect(covered).toEqual([]);
  // A toast on its way out can still be in the page beside the new one, which comes first.
  return (await toast.first().innerText()).trim();
}

/** The newest 6-digit code mailed to `address` (the local host's mail sink). */
export async function mailedCode(address: string): Promise<string> {
  const res = await fetch(`${base()}/_local/mails?to=${encodeURIComponent(address)}`);
  const mails = ((await res.json()) as { data: { to: string[]; text: string }[] }).data.filter((m) => m.to.includes(address));
  const code = /\b(\d{6})\b/.exec(mails.at(-1)?.text ?? '')?.[1];
  if (!code) throw new Error(`no code mailed to ${address}`);
  return code;
}

export const shotDir = resolve(import.meta.dirname, '../.artifacts');

/** Answers the console's password confirmation (a sensitive action) with `password`, and waits for the dialog to close. */
export async function confirmPasswordInBrowser(page: Page, password: string): Promise<void> {
  const input = page.getByTestId('confirm-password-input');
  await input.waitFor();
  await input.fill(password);
  await page.getByTestId('confirm-password-submit').click();
  await input.waitFor({ state: 'detached' });
}
