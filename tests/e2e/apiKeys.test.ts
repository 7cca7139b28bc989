/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { API_KEY_LIMIT, KEY_CODES, SESSION_ONLY_CODES } from '@passcloud/functions/contract/apiKeys';
import { createApiKey, findApiKey, rotateApiKey } from '@passcloud/functions/data/apiKeys';
import { launchBrowser } from '../support/browser.ts';
import { baseUrl, newCompany, unique } from '../support/api.ts';
import {
  TAGLINE,
  confirmPasswordInBrowser,
  failedLoads,
  loginInBrowser,
  newPage,
  pageErrors,
  shotDir,
  toastText,
  watchConsole as watchPage,
} from './support.ts';

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

/**
 * Console errors count as page errors, except the answers the test provokes on purpose: the
 * password asked for (401) when a key is made, given a new secret or revoked, and a revocation
 * sent with a stale version (409).
 */
const watchConsole = (page: Page) =>
  watchPage(page, failedLoads([/\/v1\/apiKeys$/, /\/v1\/apiKeys\/[0-9a-z]+\/secret$/, /\/v1\/apiKeys\/[0-9a-z]+\?version=\d+$/]));

const modal = (page: Page) => page.locator('.mantine-Modal-content');
const rows = (page: Page) => page.getByTestId('apikey-row');
/** Waits for the toast on screen to close, so the next one read is the next action's. */
const toastGone = (page: Page) => expect.poll(() => page.locator('.mantine-Notification-root').count()).toBe(0);

/** What a machine gets when it calls the API with `key`: the HTTP status and the envelope's code. */
async function asMachine(key: string, path: string, init: { method?: string; body?: unknown } = {}) {
  const res = await fetch(baseUrl() + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${key}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await res.json()) as { code: number; message: string; data: unknown };
  return { status: res.status, code: body.code, data: body.data };
}

/** A visitor added by a machine with `key` (a change the audit log keeps under the key's name). */
async function addVisitor(key: string, name: string) {
  const groups = await asMachine(key, '/v1/groups?type=visitor');
  expect(groups.code).toBe(200);
  const groupKey = (groups.data as { items: { groupKey: string }[] }).items[0]!.groupKey;
  const added = await asMachine(key, '/v1/visitors', { method: 'POST', body: { personId: unique('V'), name, role: 'Guest', gender: 'male', groupKey } });
  expect(added.code).toBe(201);
}

/** The whole key the modal shows once; it closes only once said to be kept. */
async function readShownKey(page: Page, warning = 'It will not be shown again'): Promise<string> {
  const field = page.getByTestId('apikey-secret');
  await field.waitFor();
  const key = (await field.inputValue()).trim();
  expect(await page.getByTestId('apikey-secret-modal').innerText()).toContain(warning);
  expect(await page.getByTestId('apikey-secret-done').isDisabled()).toBe(true);
  return key;
}
async function closeShownKey(page: Page): Promise<void> {
  await page.getByTestId('apikey-secret-kept').check();
  await page.getByTestId('apikey-secret-done').click();
  await expect.poll(() => page.getByTestId('apikey-secret-modal').count()).toBe(0);
}

/**
 * After an action that needs the password: confirms it when the console asks (the first such
 * action of the session; a confirmed password covers the next ones for a few minutes), then
 * waits for `after` to show.
 */
async function confirmIfAsked(page: Page, password: string, after: string): Promise<boolean> {
  const asked = page.getByTestId('confirm-password-input');
  const shown = page.getByTestId(after);
  await expect.poll(async () => (await asked.count()) + (await shown.count())).toBeGreaterThan(0);
  if ((await asked.count()) === 0) return false;
  await confirmPasswordInBrowser(page, password);
  return true;
}

/** Nothing on the page sticks out sideways, and no badge or button is narrower than its text. */
async function overflow(page: Page) {
  return page.evaluate(() => ({
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    cut: [...document.querySelectorAll('.mantine-Badge-label, .mantine-Button-label, .mantine-Tabs-tabLabel, .mantine-Checkbox-label')]
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => e.textContent),
  }));
}

/** The key field shows the whole key: no line of it is scrolled out of sight or cut. */
async function keyFieldFits(page: Page) {
  return page.getByTestId('apikey-secret').evaluate((field) => ({ x: field.scrollWidth - field.clientWidth, y: field.scrollHeight - field.clientHeight }));
}

describe('API keys', () => {
  it('makes a key that reaches only the sections chosen, shows it once, gives it a new secret and revokes it', async () => {
    const owner = await newCompany();
    const { context, page } = await newPage(browser);
    watchConsole(page);
    const posted: string[] = [];
    const bodies: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'GET' || !request.url().includes('/v1/apiKeys')) return;
      posted.push(`${request.method()} ${new URL(request.url()).pathname}`);
      bodies.push(request.postDataJSON());
    });
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/apikeys');
    await expect.poll(() => page.title()).toBe(`API keys - ${TAGLINE}`);
    await expect.poll(() => page.getByTestId('apikey-intro').count()).toBe(1);
    expect(await page.getByTestId('apikey-intro').innerText()).toContain('No API keys yet');
    expect(await page.getByTestId('settings-sections').getByRole('tab', { selected: true }).innerText()).toBe('API keys');
    expect(await page.getByTestId('apikey-count').innerText()).toBe(`0 of ${API_KEY_LIMIT} keys`);
    const about = await page.getByTestId('apikey-about').innerText();
    expect(about).toContain('Authorization: Bearer <key>');
    expect(about).toContain('never accounts, two-factor login, API keys, webhook secrets or security settings');
    expect(await page.getByTestId('apikey-rate').innerText()).toBe('Each key may make 300 requests every 60 seconds; past that it is asked to wait.');
    expect(await page.getByTestId('apikey-docs').getAttribute('href')).toBe('/docs/api');

    // The form offers the sections a key may hold, never those for people only; it sends nothing without a name and a section.
    await page.getByTestId('apikey-add').click();
    await page.getByTestId('apikey-name').waitFor();
    const offered = await page.locator('[data-testid^=apikey-code-]').evaluateAll((found) => found.map((box) => box.getAttribute('data-testid')));
    expect(offered.sort()).toEqual(KEY_CODES.map((code) => `apikey-code-${code}`).sort());
    for (const code of SESSION_ONLY_CODES) expect(await page.getByTestId(`apikey-code-${code}`).count()).toBe(0);
    await page.getByTestId('apikey-submit').click();
    await expect.poll(() => page.getByText('Enter a name for the key').count()).toBe(1);
    expect(await page.getByText('Choose at least one section').count()).toBe(1);
    expect(await page.getByTestId('apikey-name').getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('apikey-code-pass:employee').check();
    await page.getByTestId('apikey-code-pass:visitor').check();
    await page.getByTestId('apikey-submit').click();
    await expect.poll(() => page.getByText('Enter a name for the key').count()).toBe(1);
    expect(posted).toEqual([]);
    await page.getByTestId('apikey-name').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shotDir}/apikeys-form-en.png` });

    // The key works through the 15th of next month, to the last second of that day.
    await page.getByTestId('apikey-name').fill('HR sync');
    await page.getByTestId('apikey-expiry').click();
    await page.locator('.mantine-Popover-dropdown button[data-direction=next]').click();
    await page.locator('.mantine-Popover-dropdown button:not([data-outside])', { hasText: /^15$/ }).click();
    const now = new Date();
    const lastDay = new Date(now.getFullYear(), now.getMonth() + 1, 15, 23, 59, 59);
    const shownDay = `${String(lastDay.getMonth() + 1).padStart(2, '0')}/15/${lastDay.getFullYear()}`;
    await expect.poll(() => page.getByTestId('apikey-expiry').innerText()).toBe(lastDay.toLocaleDateString('en-US', { dateStyle: 'long' }));

    // Made with the password confirmed: cancelling the confirmation makes nothing.
    await page.getByTestId('apikey-submit').click();
    await page.getByTestId('confirm-password-input').waitFor();
    await page.getByTestId('confirm-password-cancel').click();
    expect(await toastText(page)).toBe('Confirm your password to do this');
    await toastGone(page);
    expect(await page.getByTestId('apikey-form').count()).toBeGreaterThan(0);
    await page.getByTestId('apikey-submit').click();
    expect(await confirmIfAsked(page, owner.password, 'apikey-secret')).toBe(true);
    const key = await readShownKey(page);
    expect(key).toMatch(new RegExp(`^pck_${owner.tenantId}_[0-9a-z]{16}_[A-Za-z0-9_-]{43}$`));
    expect(await keyFieldFits(page)).toEqual({ x: 0, y: 0 });
    await page.screenshot({ path: `${shotDir}/apikeys-secret-en.png` });
    await closeShownKey(page);
    await expect.poll(() => rows(page).count()).toBe(1);
    const row = rows(page).first();
    const prefix = key.split('_').slice(0, 3).join('_');
    expect(await row.getByTestId('apikey-row-name').innerText()).toBe('HR sync');
    expect(await row.getByTestId('apikey-prefix').innerText()).toBe(`pck_…_${prefix.split('_')[2]}`);
    expect(await row.getByTestId('apikey-prefix').getAttribute('title')).toBe(prefix);
    expect(await row.locator('td[data-column=sections]').innerText()).toBe('Employees and Visitors');
    expect(await row.locator('td[data-column=createdBy]').innerText()).toBe(owner.username);
    expect(await row.locator('td[data-column=lastUsedTime]').innerText()).toBe('Never');
    expect(await row.locator('td[data-column=expireTime]').innerText()).toBe(`${shownDay} 11:59 PM`);
    expect(await page.getByTestId('apikey-count').innerText()).toBe(`1 of ${API_KEY_LIMIT} keys`);
    expect(await page.content()).not.toContain(key.slice(prefix.length + 1));
    // The one cancelled, then the one the password was asked for and the same sent again with it.
    expect(posted).toEqual(['POST /v1/apiKeys', 'POST /v1/apiKeys', 'POST /v1/apiKeys']);
    expect(bodies.at(-1)).toEqual({ name: 'HR sync', authCodes: ['pass:employee', 'pass:visitor'], expireTime: lastDay.toISOString() });

    // The key reaches the sections chosen and no other; a change it makes is audited under its name.
    expect((await asMachine(key, '/v1/employees')).code).toBe(200);
    const devices = await asMachine(key, '/v1/devices');
    expect(devices.status).toBe(401);
    expect(devices.code).toBe(401);
    await addVisitor(key, 'Keyed Visitor');

    // A new secret is asked for first; the old key stops at once and the new one works.
    await row.getByTestId('apikey-renew').click();
    expect(await modal(page).innerText()).toContain('The current key stops working at once');
    await page.getByTestId('confirm-renew').click();
    await confirmIfAsked(page, owner.password, 'apikey-secret');
    const renewed = await readShownKey(page);
    expect(renewed).not.toBe(key);
    expect(renewed.startsWith(`${prefix}_`)).toBe(true);
    expect(await page.getByTestId('apikey-secret-modal').innerText()).toContain('New secret for “HR sync”');
    await closeShownKey(page);
    expect((await asMachine(key, '/v1/employees')).status).toBe(403);
    expect((await asMachine(renewed, '/v1/employees')).code).toBe(200);
    await expect.poll(() => row.locator('td[data-column=lastUsedTime]').innerText()).not.toBe('Never');
    await page.screenshot({ path: `${shotDir}/apikeys-list-en.png`, fullPage: true });

    // Revoke asks first; Cancel changes nothing.
    await row.getByTestId('apikey-revoke').click();
    expect(await modal(page).innerText()).toContain('Revoke the key “HR sync”? Every system that uses it is refused at once.');
    await page.getByTestId('cancel-revoke').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    expect(await rows(page).count()).toBe(1);
    expect((await asMachine(renewed, '/v1/employees')).code).toBe(200);

    // Someone else gave the key a new secret meanwhile: the revocation sent with the version shown is refused, and the list is read again.
    const apiKeyKey = prefix.split('_')[2]!;
    const shownVersion = (await findApiKey(owner.tenantId, apiKeyKey))!.version;
    const elsewhere = await rotateApiKey(owner.tenantId, apiKeyKey, shownVersion);
    await row.getByTestId('apikey-revoke').click();
    const stale = page.waitForResponse(
      (r) => r.url().includes(`/v1/apiKeys/${apiKeyKey}?version=${shownVersion}`) && r.request().method() === 'DELETE' && r.status() !== 401,
    );
    await page.getByTestId('confirm-revoke').click();
    await confirmIfAsked(page, owner.password, 'apikey-row');
    expect((await stale).status()).toBe(409);
    expect(await toastText(page)).toBe('This record was changed by someone else; reload it and try again');
    await toastGone(page);
    expect(await rows(page).count()).toBe(1);
    expect((await asMachine(elsewhere.key, '/v1/employees')).code).toBe(200);

    // Revoked with the version read again: the row goes and the key answers as a logged-out session.
    const revoked = page.waitForRequest((r) => r.url().includes(`/v1/apiKeys/${apiKeyKey}?version=${shownVersion + 1}`) && r.method() === 'DELETE');
    await row.getByTestId('apikey-revoke').click();
    await page.getByTestId('confirm-revoke').click();
    await revoked;
    await confirmIfAsked(page, owner.password, 'apikey-intro');
    expect(await toastText(page)).toBe('API key revoked');
    await expect.poll(() => rows(page).count()).toBe(0);
    expect(await page.getByTestId('apikey-intro').count()).toBe(1);
    expect(await page.getByTestId('apikey-count').innerText()).toBe(`0 of ${API_KEY_LIMIT} keys`);
    expect((await asMachine(elsewhere.key, '/v1/employees')).status).toBe(403);
    expect((await asMachine(renewed, '/v1/employees')).status).toBe(403);

    // The audit log marks the change the key made.
    await page.goto('/settings/audit?kind=change');
    const entry = page.getByTestId('audit-row').filter({ hasText: 'POST /v1/visitors' });
    await expect.poll(() => entry.count()).toBe(1);
    expect(await entry.locator('td[data-column=username]').getByText('HR sync', { exact: true }).count()).toBe(1);
    expect(await entry.getByTestId('audit-api-key').textContent()).toBe('API key');
    expect(await page.getByTestId('audit-row').filter({ hasText: 'POST /v1/apiKeys' }).first().getByTestId('audit-api-key').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/apikeys-audit-en.png` });
    await context.close();
  });

  it('lays the section out in Chinese: the list with an expired key, the form, the key shown once and the audit log', async () => {
    const owner = await newCompany();
    const made = (name: string, authCodes: (typeof KEY_CODES)[number][], expiresAt: string | null) =>
      createApiKey(owner.tenantId, { name, authCodes, expiresAt, createdBy: owner.username });
    const door = await made(
      '门禁同步系统',
      ['pass:employee', 'pass:attendance-statistics', 'pass:attendance-settings', 'pass:record'],
      new Date(Date.now() + 90 * 86_400_000).toISOString(),
    );
    await made('旧访客登记台', ['pass:visitor'], new Date(Date.now() - 86_400_000).toISOString());
    const desk = await made('访客登记台', ['pass:visitor'], null);
    await addVisitor(desk.key, '王小明');
    expect((await asMachine(door.key, '/v1/employees')).code).toBe(200);

    const { context, page } = await newPage(browser, { locale: 'zh_CN' });
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/apikeys');
    await expect.poll(() => rows(page).count()).toBe(3);
    const title = await page.getByTestId('screen-title').innerText();
    expect(title).not.toMatch(/keys/i);
    expect(await page.getByTestId('settings-sections').getByRole('tab', { selected: true }).innerText()).toBe(title);
    const expired = rows(page).filter({ hasText: '旧访客登记台' });
    expect(await expired.getAttribute('data-expired')).toBe('true');
    expect(await expired.getByTestId('apikey-expired').innerText()).toBe('已过期');
    const never = rows(page).filter({ has: page.getByTestId('apikey-row-name').getByText('访客登记台', { exact: true }) });
    expect(await never.locator('td[data-column=expireTime]').innerText()).not.toMatch(/[A-Za-z]{3,}/);
    expect(await expired.locator('td[data-column=lastUsedTime]').innerText()).not.toMatch(/[A-Za-z]{3,}/);
    expect(await page.getByTestId('apikey-table').locator('thead').innerText()).not.toMatch(/[A-Za-z]{3,}/);
    expect(await page.getByTestId('apikey-rate').innerText()).toContain('300');
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/apikeys-list-zh.png`, fullPage: true });

    await page.getByTestId('apikey-add').click();
    await page.getByTestId('apikey-name').waitFor();
    await page.getByTestId('apikey-submit').click();
    await expect.poll(() => page.getByTestId('apikey-name').getAttribute('aria-invalid')).toBe('true');
    // Webhook is the Chinese menu's own word for webhooks.
    expect((await modal(page).innerText()).replaceAll('Webhook', '')).not.toMatch(/[A-Za-z]{4,}/);
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/apikeys-form-zh.png` });
    await page.getByTestId('apikey-name').fill('人事系统');
    await page.getByTestId('apikey-code-pass:employee').check();
    await page.getByTestId('apikey-code-pass:attendance-statistics').check();
    await page.getByTestId('apikey-submit').click();
    await confirmIfAsked(page, owner.password, 'apikey-secret');
    const key = await readShownKey(page, '密钥不会再次显示');
    expect(key).toMatch(/^pck_/);
    expect(await keyFieldFits(page)).toEqual({ x: 0, y: 0 });
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/apikeys-secret-zh.png` });
    await closeShownKey(page);
    await expect.poll(() => rows(page).count()).toBe(4);
    expect((await asMachine(key, '/v1/employees')).code).toBe(200);

    await page.goto('/settings/audit?kind=change');
    const entry = page.getByTestId('audit-row').filter({ hasText: 'POST /v1/visitors' });
    await expect.poll(() => entry.count()).toBe(1);
    expect(await entry.getByTestId('audit-api-key').textContent()).toBe('API 密钥');
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/apikeys-audit-zh.png` });
    await context.close();
  });

  it(`offers no new key once the company holds ${API_KEY_LIMIT}, and says why`, async () => {
    const owner = await newCompany();
    for (let i = 0; i < API_KEY_LIMIT; i++)
      await createApiKey(owner.tenantId, { name: `Key ${i + 1}`, authCodes: ['pass:employee'], expiresAt: null, createdBy: owner.username });
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/apikeys');
    await expect.poll(() => rows(page).count()).toBe(API_KEY_LIMIT);
    expect(await page.getByTestId('apikey-count').innerText()).toBe(`${API_KEY_LIMIT} of ${API_KEY_LIMIT} keys`);
    expect(await page.getByTestId('apikey-add').isDisabled()).toBe(true);
    await page.getByTestId('apikey-limit').hover();
    await expect.poll(() => page.getByRole('tooltip').innerText()).toBe(`A company may have at most ${API_KEY_LIMIT} API keys; revoke one to make another.`);
    await context.close();
  });
});
