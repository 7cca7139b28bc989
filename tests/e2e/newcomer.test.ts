/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { AuthorityItem } from '@passcloud/functions/contract/authorities';
import { routeKey, routes, type RouteEntry } from '@passcloud/functions/routes';
import { launchBrowser } from '../support/browser.ts';
import { call, encrypt, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { base, loginInBrowser, newPage, pageErrors, shotDir, toastText } from './support.ts';

/**
 * What a newcomer meets first: a wrong password said on the form as well as in the toast; an
 * account whose password was set for it, which must choose its own before the screen behind the
 * dialog loads; and a photo a terminal refused, with the terminal's own words on why.
 */

let browser: Browser;
const shots = join(shotDir, 'newcomer');

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** A screenshot once transitions (toasts, dialogs) have ended. */
async function shot(page: Page, name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(shots, name) });
}

describe('a wrong password', () => {
  it.each([
    { locale: 'en_US', message: 'Wrong username or password' },
    { locale: 'ja_JP', message: 'ユーザー名またはパスワードが正しくありません' },
  ])('is shown under the password field and in the toast ($locale), until the user types', async ({ locale, message }) => {
    const owner = await newCompany();
    const { context, page } = await newPage(browser, { locale });
    await page.goto('/login');
    await page.locator('input[autocomplete=username]').fill(owner.username);
    const password = page.locator('input[type=password]');
    await password.fill('not-the-password-1');
    await page.locator('form button[type=submit]').click();

    expect(await toastText(page)).toContain(message);
    const onForm = page.locator('form').getByText(message, { exact: true });
    await expect.poll(() => onForm.count()).toBe(1);
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    expect(await password.getAttribute('aria-describedby')).toBe(await onForm.getAttribute('id'));
    await shot(page, `login-wrong-password-${locale}.png`);

    // Typing again clears it; so does changing the username.
    await password.fill('not-the-password-');
    await expect.poll(() => onForm.count()).toBe(0);
    expect(await password.getAttribute('aria-invalid')).not.toBe('true');
    await page.locator('form button[type=submit]').click();
    await expect.poll(() => onForm.count()).toBe(1);
    await page.locator('input[autocomplete=username]').fill(`${owner.username}x`);
    await expect.poll(() => onForm.count()).toBe(0);

    // The right password goes on as before.
    await page.locator('input[autocomplete=username]').fill(owner.username);
    await password.fill(owner.password);
    await page.locator('form button[type=submit]').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await context.close();
  });
});

describe('an account whose password was set for it', () => {
  /** Session routes the account may use before it has its own password (the route table's flag). */
  const allowed = new Set((routes as readonly RouteEntry[]).filter((r) => r.access !== 'session' || r.beforePasswordChange).map(routeKey));

  it('asks for its own password first, requests nothing else until then, and then loads the screen', async () => {
    const owner = await newCompany();
    const admin = await login(owner.username, owner.password);
    const username = unique('clerk');
    const given = 'given-pass-1';
    const made = await call('POST', '/v1/accounts', {
      token: admin.token,
      body: {
        username,
        nickname: 'Clerk',
        email: `${username}@example.test`,
        authCodes: ['pass:employee', 'pass:blacklist'],
        password: await encrypt(admin.key, given),
      },
    });
    expect(made.body.code).toBe(201);

    const { context, page } = await newPage(browser);
    const answers: { route: string; status: number }[] = [];
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname.startsWith('/v1/')) answers.push({ route: `${response.request().method()} ${url.pathname}`, status: response.status() });
    });
    await loginInBrowser(page, username, given);
    const dialog = page.getByRole('dialog');
    await expect.poll(() => page.getByTestId('password-required').isVisible()).toBe(true);
    // Long enough for a screen or the blacklist watch to have asked for something.
    await page.waitForTimeout(2000);
    await shot(page, 'password-required-en.png');
    expect(answers.filter((a) => !allowed.has(a.route))).toEqual([]);
    expect(answers.filter((a) => a.status >= 400)).toEqual([]);
    expect(await page.getByTestId('screen-title').count()).toBe(0);

    const fields = dialog.locator('input[type=password]');
    await fields.nth(0).fill(given);
    await fields.nth(1).fill('my-own-pass-2');
    await fields.nth(2).fill('my-own-pass-2');
    await dialog.getByRole('button', { name: 'Save' }).click();

    await expect.poll(() => page.getByTestId('screen-title').count()).toBeGreaterThan(0);
    await expect.poll(() => dialog.count()).toBe(0);
    const screen = await page.getByTestId('screen-title').first().innerText();
    expect(['Employees', 'Blacklist records', 'Blacklist monitoring']).toContain(screen);
    await expect.poll(() => answers.some((a) => !allowed.has(a.route) && a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.status >= 400)).toEqual([]);
    expect(answers.filter((a) => a.route === 'PATCH /v1/systems/reset')).toHaveLength(1);
    await shot(page, 'password-changed-en.png');
    await context.close();
  });
});

describe('a photo a terminal refused', () => {
  const NAME = 'Tiny Photo';
  const DETAIL = 'photo is 640×480; this terminal needs at least 800×600';
  let owner: { username: string; password: string; userCode: string };
  let employeeKey: string;
  let agent: DeviceAgent;

  beforeAll(async () => {
    owner = await newCompany();
    const { token } = await login(owner.username, owner.password);
    await grantSeats(token, 2);
    const form = new FormData();
    form.set('kind', 'avatar');
    form.set('file', new Blob([new Uint8Array(makePng(640, 480))]), 'face.png');
    const avatar = (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
    const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Front desk', type: 'employee' } })).body.data.groupKey;
    employeeKey = (
      await call<{ employeeKey: string }>('POST', '/v1/employees', {
        token,
        body: { personId: unique('T'), name: NAME, role: 'Staff', gender: 'male', groupKey, avatar },
      })
    ).body.data.employeeKey;
    agent = new DeviceAgent({ apiUrl: base(), userCode: owner.userCode, info: simulatedInfo(unique('NC').toUpperCase(), 1), heartbeatMs: 60_000 });
    await agent.start();
    const granted = await call('POST', '/v1/authorities', {
      token,
      body: { setType: 0, personKeys: [employeeKey], deviceKeys: [agent.deviceKey], validity: { permanent: true } },
    });
    expect(granted.body.code).toBe(201);
    const started = Date.now();
    const state = async () =>
      (await call<{ items: AuthorityItem[] }>('GET', `/v1/authorities/sync?personKey=${employeeKey}`, { token })).body.data.items[0]?.syncState;
    while ((await state()) !== 'failed') {
      if (Date.now() - started > 10_000) throw new Error('the terminal has not reported the photo it refused');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  afterAll(async () => {
    await agent?.stop();
  });

  it.each([
    { locale: 'en_US', reason: 'The device rejected the photo', detail: `The device reports: ${DETAIL}` },
    { locale: 'ja_JP', reason: 'デバイスが写真を受け付けませんでした', detail: `デバイスからの報告：${DETAIL}` },
  ])('shows the reason and the terminal’s words on the list and on the person ($locale)', async ({ locale, reason, detail }) => {
    const { context, page } = await newPage(browser, { locale });
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/pass-platform/passage/authority');
    const row = page.getByTestId('authority-row').filter({ hasText: NAME });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.getByTestId('sync-reason').innerText()).toBe(reason);
    expect(await row.getByTestId('sync-detail').innerText()).toBe(detail);
    expect(await row.getByTestId('sync-detail').getAttribute('title')).toBe(DETAIL);
    await shot(page, `authority-list-detail-${locale}.png`);

    await page.goto(`/pass-platform/enterprise/employee/${employeeKey}`);
    const panelRow = page.getByTestId('sync-row');
    await expect.poll(() => panelRow.count()).toBe(1);
    expect(await panelRow.getByTestId('sync-reason').innerText()).toBe(reason);
    expect(await panelRow.getByTestId('sync-detail').innerText()).toBe(detail);
    await page.getByTestId('sync-panel').scrollIntoViewIfNeeded();
    await shot(page, `person-panel-detail-${locale}.png`);
    await context.close();
  });
});
