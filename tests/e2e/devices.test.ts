/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { TAGLINE, base, demoAdmin, loginInBrowser, newPage, pageErrors, shotDir } from './support.ts';

let browser: Browser;
let page: Page;
let fleet: Fleet;
let deviceKey: string;
let serial: string;

beforeAll(async () => {
  // The local stack of the tests starts no devices; one simulated face terminal binds to the
  // demo tenant with its device binding code and talks to the stack's broker like a real one.
  const demo = inject('demo');
  fleet = await startFleet({ apiUrl: base(), userCode: demo.userCode, count: 1, prefix: unique('E2E').toUpperCase() });
  const agent = fleet.agents[0]!;
  deviceKey = agent.deviceKey!;
  serial = agent.options.info.serial;
  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  const admin = await demoAdmin();
  await loginInBrowser(page, admin.username, admin.password);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const row = () => page.getByTestId(`device-row-${deviceKey}`);
/** Intl puts no-break spaces between a number and its unit; compared as plain spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('face terminals in the console', () => {
  it('lists the simulated device as online and finds it by serial number', async () => {
    await page.goto('/pass-platform/device/management');
    await expect.poll(() => page.title()).toBe(`Devices - ${TAGLINE}`);
    await page.getByTestId('device-keyword').fill(serial);
    await page.getByTestId('device-search').click();
    await expect.poll(() => page.locator('.device-row').count()).toBe(1);
    await expect.poll(() => row().getByTestId('online-badge').getAttribute('data-online')).toBe('true');
    expect(await row().innerText()).toContain(serial);
    expect(await page.getByTestId('device-totals').innerText()).toMatch(/Online 1/i);
    await page.screenshot({ path: `${shotDir}/devices-list.png` });
  });

  it('opens the detail, changes the volume and shows it pending until the device confirms', async () => {
    await row().getByRole('link').first().click();
    await page.waitForURL(`**/pass-platform/device/management/${deviceKey}`);
    await expect.poll(() => page.getByTestId('device-name').textContent()).toBeTruthy();
    await expect.poll(() => page.getByTestId('device-facts').innerText()).toContain(serial);

    await page.getByTestId('tab-other').click();
    const volume = page.getByTestId('setting-volume').locator('input');
    await volume.fill('35');
    await page.getByTestId('device-save').click();
    await expect.poll(() => page.getByTestId('pending-volume').count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/devices-pending.png` });
    // The device applies the setting and reports it; the screen asks again every 2 s.
    await expect.poll(() => page.getByTestId('pending-volume').count(), { timeout: 15_000 }).toBe(0);
    expect(fleet.agents[0]!.settings.volume).toBe(35);
    expect(await page.getByTestId('reported-volume').count()).toBe(0);

    await page.reload();
    await page.getByTestId('tab-other').click();
    await expect.poll(() => page.getByTestId('setting-volume').locator('input').inputValue()).toBe('35%');
  });

  it('refuses an out-of-format app password inline', async () => {
    await page.getByTestId('tab-other').click();
    const password = page.getByTestId('setting-appPassword').locator('input');
    await password.fill('12');
    await page.getByTestId('device-save').click();
    await expect.poll(() => page.getByTestId('setting-appPassword').innerText()).toContain('Enter 4 to 8 digits');
    await page.getByRole('button', { name: 'Discard changes' }).click();
  });

  it('captures a photo and shows it', async () => {
    await page.getByTestId('cmd-capturePhoto').click();
    await expect.poll(() => page.getByTestId('photo-pending').innerText()).toContain('Getting, please wait');
    const photo = page.getByTestId('device-photo');
    await expect.poll(() => photo.count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const succeeded = page.getByTestId('commands-table').locator('tr[data-state="succeeded"]').filter({ hasText: 'Capture photo' });
    await expect.poll(() => succeeded.count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${shotDir}/devices-detail.png`, fullPage: true });
  });

  it("shows the device log as sentences, and sizes, numbers and log in the reader's language", async () => {
    // The device logged codes with parameters; the console writes them out with its own setting names.
    const log = page.getByTestId('logs-table');
    const newest = page.getByTestId('logs-panel').getByRole('button', { name: 'Newest' });
    await expect
      .poll(
        async () => {
          await newest.click();
          return log.innerText();
        },
        { timeout: 15_000 },
      )
      .toContain('Photo captured and uploaded');
    expect(await log.innerText()).toContain('Applied settings: Volume');
    expect(await log.innerText()).not.toMatch(/settingsApplied|photoCaptured|volume\b/);
    await page.getByRole('tab').first().click();
    expect(plain(await page.getByTestId('device-facts').innerText())).toMatch(/\b\d+(\.\d)? GB free of 32 GB\b/);

    // German, chosen in the language menu: the page reloads in it.
    await page.getByTestId('language-menu').click();
    await page.locator('[data-locale="de_DE"]').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('de-DE');
    await expect.poll(() => page.getByTestId('device-facts').count()).toBe(1);
    expect(plain(await page.getByTestId('device-facts').innerText())).toMatch(/\b\d+(,\d)? GB frei von 32 GB\b/);
    await expect.poll(() => log.innerText()).toContain('Einstellungen übernommen: Lautstärke');
    expect(await log.innerText()).toContain('Foto aufgenommen und hochgeladen');
    expect(await log.innerText()).toMatch(/\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}/);
    await page.getByTestId('tab-other').click();
    expect(plain(await page.getByTestId('setting-volume').locator('input').inputValue())).toBe('35 %');
    await page.getByTestId('tab-temperature').click();
    expect(await page.getByTestId('setting-temperatureThreshold').locator('input').inputValue()).toMatch(/^\d{2},\d\s°C$/);
    expect(plain(await page.getByTestId('setting-temperatureThreshold').innerText())).toContain('Von 35,0 °C bis 42,0 °C, in Schritten von 0,1 °C');
    await page.screenshot({ path: `${shotDir}/devices-detail-de_DE.png`, fullPage: true });

    await page.getByTestId('language-menu').click();
    await page.locator('[data-locale="en_US"]').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en-US');
  });

  it('shows a message the cloud refused in the device log, with its topic and reason, in English and Japanese', async () => {
    const agent = fleet.agents[0]!;
    const topic = `pc/${agent.binding!.thingName}/heartbeat`;
    const { serial: _serial, ...info } = agent.options.info;
    agent.client!.publish(topic, JSON.stringify({ time: Date.now(), info, battery: 80 }), { qos: 1 });
    const log = page.getByTestId('logs-table');
    const newest = page.getByTestId('logs-panel').getByRole('button', { name: 'Newest' });
    await expect
      .poll(
        async () => {
          await newest.click();
          return log.innerText();
        },
        { timeout: 15_000 },
      )
      .toContain(`The cloud refused a message on ${topic}: message: unknown field battery`);
    await page.getByTestId('language-menu').click();
    await page.locator('[data-locale="ja_JP"]').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('ja-JP');
    await expect.poll(() => page.getByTestId('logs-table').innerText()).toContain(`クラウドが ${topic} のメッセージを拒否しました: message: unknown field battery`);
    await page.getByTestId('logs-panel').screenshot({ path: `${shotDir}/devices-log-refused-ja_JP.png` });
    await page.getByTestId('language-menu').click();
    await page.locator('[data-locale="en_US"]').click();
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('en-US');
  });

  it('shows a terminal that bound again under the serial as a replacement, and approves it after confirming', async () => {
    const agent = fleet.agents[0]!;
    const { serial: sameSerial, ...info } = agent.options.info;
    const rebind = await fetch(`${base()}/v1/devices/bind`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userCode: inject('demo').userCode, serial: sameSerial, info: { ...info, mac: '02:00:00:00:0E:2E' } }),
    });
    expect(((await rebind.json()) as { code: number }).code).toBe(202);

    await page.goto('/pass-platform/device/management');
    await page.getByTestId('device-keyword').fill(serial);
    await page.getByTestId('device-search').click();
    await expect.poll(() => row().getByTestId('replacement-pending').count()).toBe(1);
    await row().getByRole('link').first().click();
    const panel = page.getByTestId('replacement');
    await expect.poll(() => panel.innerText()).toContain('02:00:00:00:0E:2E');
    await page.screenshot({ path: `${shotDir}/devices-replacement.png`, fullPage: true });

    // Cancel first: nothing changes.
    await page.getByTestId('replacement-approve').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await panel.count()).toBe(1);

    await page.getByTestId('replacement-approve').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    await expect.poll(() => page.getByTestId('device-facts').innerText()).toContain('02:00:00:00:0E:2E');
  });
});

describe('a company without terminals', () => {
  it('tells how to add the first one, with its binding code and a copy button', async () => {
    const company = await newCompany();
    const { context, page: fresh } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await loginInBrowser(fresh, company.username, company.password);
    await fresh.goto('/pass-platform/device/management');
    const hint = fresh.getByTestId('device-add-hint');
    await expect.poll(() => hint.count()).toBe(1);
    expect(await fresh.getByTestId('device-binding-code').innerText()).toBe(company.userCode);
    await fresh.getByTestId('copy-binding-code').click();
    await expect.poll(() => fresh.getByTestId('copy-binding-code').innerText()).toBe('Copied');
    expect(await fresh.evaluate(() => navigator.clipboard.readText())).toBe(company.userCode);
    await fresh.screenshot({ path: `${shotDir}/devices-empty.png` });
    await context.close();
  });
});

describe('a deleted terminal that binds again', () => {
  it('waits in a panel above the list, and is added again after confirming', async () => {
    const company = await newCompany();
    const { token } = await login(company.username, company.password);
    await grantSeats(token, 2);
    const { serial: back, ...info } = simulatedInfo(unique('BACK').toUpperCase(), 1);
    const bind = async () =>
      (await (await fetch(`${base()}/v1/devices/bind`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userCode: company.userCode, serial: back, info }) })).json()) as {
        code: number;
        data: { deviceKey: string };
      };
    const first = await bind();
    const device = await call<{ version: number }>('GET', `/v1/devices/${first.data.deviceKey}`, { token });
    expect((await call('DELETE', `/v1/devices/${first.data.deviceKey}?version=${device.body.data.version}`, { token })).body.code).toBe(204);
    const again = await bind();
    expect(again.code).toBe(202);

    const { context, page: admin } = await newPage(browser);
    await loginInBrowser(admin, company.username, company.password);
    await admin.goto('/pass-platform/device/management');
    const panel = admin.getByTestId('device-requests');
    await expect.poll(() => panel.innerText()).toContain(back);
    expect(await panel.innerText()).toContain(info.mac);
    await admin.screenshot({ path: `${shotDir}/devices-requests.png`, fullPage: true });
    await admin.getByTestId('language-menu').click();
    await admin.locator('[data-locale="ja_JP"]').click();
    await expect.poll(() => panel.innerText()).toContain('再追加');
    await admin.screenshot({ path: `${shotDir}/devices-requests-ja_JP.png`, fullPage: true });
    await admin.getByTestId('language-menu').click();
    await admin.locator('[data-locale="en_US"]').click();
    await expect.poll(() => panel.innerText()).toContain('Add again');

    // Cancel first: nothing changes.
    await admin.getByTestId('device-request-reject').click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => admin.getByRole('dialog').count()).toBe(0);
    expect(await admin.getByTestId('device-request').count()).toBe(1);

    await admin.getByTestId('device-request-approve').click();
    await admin.getByRole('dialog').getByRole('button', { name: 'Add again' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    await expect.poll(() => admin.getByTestId(`device-row-${again.data.deviceKey}`).count()).toBe(1);
    expect(await admin.getByTestId(`device-row-${again.data.deviceKey}`).innerText()).toContain(info.mac);
    await context.close();
  });
});

describe('the device list', () => {
  it('keeps its filters in the address, so a filtered list survives a reload', async () => {
    await page.goto('/pass-platform/device/management');
    await page.getByTestId('device-keyword').fill(serial);
    await page.getByTestId('device-search').click();
    await page.waitForURL((url) => url.searchParams.get('keyword') === serial);
    await page.reload();
    expect(await page.getByTestId('device-keyword').inputValue()).toBe(serial);
    await expect.poll(() => page.locator('.device-row').count()).toBe(1);
    expect(await row().innerText()).toContain(serial);
    // A filter that matches nothing says so, and clearing it in the address brings the list back.
    await page.goto('/pass-platform/device/management?keyword=no-such-terminal');
    await expect.poll(() => page.getByTestId('device-empty').innerText()).toContain('Nothing matches these filters.');
  });

  it('shows a terminal that binds while it is open, without a reload', async () => {
    const company = await newCompany();
    const { token } = await login(company.username, company.password);
    await grantSeats(token, 1);
    const { context, page: admin } = await newPage(browser);
    await loginInBrowser(admin, company.username, company.password);
    await admin.goto('/pass-platform/device/management');
    await expect.poll(() => admin.getByTestId('device-add-hint').count()).toBe(1);
    const { serial: fresh, ...info } = simulatedInfo(unique('LIVE').toUpperCase(), 1);
    const bound = (await (await fetch(`${base()}/v1/devices/bind`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userCode: company.userCode, serial: fresh, info }) })).json()) as {
      code: number;
      data: { deviceKey: string };
    };
    expect(bound.code).toBe(201);
    await expect.poll(() => admin.getByTestId(`device-row-${bound.data.deviceKey}`).count(), { timeout: 25_000, interval: 500 }).toBe(1);
    expect(await admin.getByTestId('device-totals').innerText()).toMatch(/Total 1/i);
    await context.close();
  });
});
