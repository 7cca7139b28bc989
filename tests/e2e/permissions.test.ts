/// <reference lib="dom" />
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { AUTH_CODES, type AuthCode } from '@passcloud/functions/contract/menu';
import { menuPaths, permittedMenu } from '@passcloud/functions/domain/menu';
import { createAccount } from '@passcloud/functions/data/identity';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { launchBrowser } from '../support/browser.ts';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { loginInBrowser, newPage, pageErrors, watchConsole } from './support.ts';

/**
 * What a limited account can do, it can do fully: for every code of the menu, an account holding
 * exactly that code opens each screen its menu shows (and the hidden screens under them) without
 * any request refused (401, 403, or any other 4xx or 5xx), and without a page or console error. An account with pass
 * authority only runs the whole authorization wizard.
 */

let browser: Browser;
let tenantId: string;
let agent: DeviceAgent;
let intercom: DeviceAgent;
const keys: Record<string, string> = {};
const PASSWORD = 'walk-pass-1';

async function accountWith(codes: AuthCode[]): Promise<string> {
  const username = unique('walk');
  await createAccount(tenantId, { username, password: PASSWORD, authCodes: codes, nickname: codes.join(' ') });
  return username;
}

/** A page that records every refused API request and every console error. */
async function watchedPage(): Promise<{ page: Page; refused: string[]; close: () => Promise<void> }> {
  const { context, page } = await newPage(browser);
  const refused: string[] = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith('/v1/') && response.status() >= 400) refused.push(`${response.status()} ${response.request().method()} ${url.pathname}${url.search}`);
  });
  watchConsole(page);
  return { page, refused, close: () => context.close() };
}

/** The screens of a code: its menu's paths, hidden ones with a key filled in from the seeded company. */
function screensOf(code: AuthCode): string[] {
  return menuPaths(permittedMenu(new Set([code])))
    // The intercom platform's detail screens name an intercom, not a face terminal.
    .map((path) => path.replace(/:(\w+)/g, (whole, name: string) => keys[path.startsWith('/intercom-platform/') && name === 'deviceKey' ? 'intercomKey' : name] ?? whole))
    .filter((path) => !path.includes(':'));
}

beforeAll(async () => {
  const owner = await newCompany();
  const token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  const group = async (name: string, type: string) => (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name, type } })).body.data.groupKey;
  const staff = await group('Walk staff', 'employee');
  const guests = await group('Walk guests', 'visitor');
  keys.employeeKey = (
    await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('W'), name: 'Walk Employee', role: 'Clerk', gender: 'female', groupKey: staff } })
  ).body.data.employeeKey;
  keys.visitorKey = (
    await call<{ visitorKey: string }>('POST', '/v1/visitors', { token, body: { personId: unique('V'), name: 'Walk Visitor', role: 'Guest', gender: 'male', groupKey: guests } })
  ).body.data.visitorKey;
  await grantSeats(token, 5);
  agent = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('WK').toUpperCase(), 1), heartbeatMs: 60_000 });
  await agent.start();
  keys.deviceKey = agent.deviceKey!;
  intercom = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, kind: 'doorStation', info: simulatedInfo(unique('WI').toUpperCase(), 1), heartbeatMs: 60_000 });
  await intercom.start();
  keys.intercomKey = intercom.deviceKey!;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await intercom?.stop();
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

describe('an account with one permission', () => {
  it.each(AUTH_CODES.map((code) => [code]))('%s opens every screen its menu shows without a refused request', async (code) => {
    const username = await accountWith([code]);
    const screens = screensOf(code);
    expect(screens.length, code).toBeGreaterThan(0);
    const { page, refused, close } = await watchedPage();
    try {
      await loginInBrowser(page, username, PASSWORD);
      for (const path of screens) {
        await page.goto(path);
        await page.waitForLoadState('networkidle');
        // A screen is shown, not the login form or a "no permission" page.
        expect(new URL(page.url()).pathname, path).not.toMatch(/^\/(login|403)/);
      }
      expect(refused, `${code}: ${screens.join(', ')}`).toEqual([]);
    } finally {
      await close();
    }
  });

  it('pass:authority runs the whole wizard: people, devices and validity, and the grant is listed', async () => {
    const username = await accountWith(['pass:authority']);
    const { page, refused, close } = await watchedPage();
    try {
      await loginInBrowser(page, username, PASSWORD);
      await page.goto('/pass-platform/passage/authority/setting');
      const person = page.locator(`[data-testid=wizard-person-row][data-key="${keys.employeeKey}"]`);
      await expect.poll(() => person.count()).toBe(1);
      await person.getByRole('checkbox').check();
      await page.getByTestId('wizard-next').click();
      const device = page.locator(`[data-testid=wizard-device-row][data-key="${keys.deviceKey}"]`);
      await expect.poll(() => device.count()).toBe(1);
      await device.getByRole('checkbox').check();
      await page.getByTestId('wizard-next').click();
      await expect.poll(() => page.getByTestId('wizard-validity').isVisible()).toBe(true);
      await page.getByTestId('wizard-submit').click();
      await page.waitForURL((url) => url.pathname === '/pass-platform/passage/authority');
      await expect.poll(() => page.getByText('Walk Employee').count()).toBeGreaterThan(0);
      expect(refused).toEqual([]);
    } finally {
      await close();
    }
  });
});
