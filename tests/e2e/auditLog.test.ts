/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { call, encrypt, login, newCompany, unique } from '../support/api.ts';
import { loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/** The audit log reads as sentences in the reader's language, naming each item and linking those still there. */

let browser: Browser;
let owner: { username: string; password: string };
const names = { dept: unique('Lobby-'), kept: unique('kept'), gone: unique('gone') };
let keptKey: string;
let goneKey: string;

beforeAll(async () => {
  browser = await launchBrowser();
  owner = await newCompany();
  const me = await login(owner.username, owner.password);
  expect((await call('POST', '/v1/departments', { token: me.token, body: { name: names.dept } })).body.code).toBe(201);
  const account = async (username: string) =>
    (
      await call<{ accountKey: string; version: number }>('POST', '/v1/accounts', {
        token: me.token,
        body: { username, password: await encrypt(me.key, 'first-pass-1'), authCodes: ['pass:dashboard'] },
      })
    ).body.data;
  keptKey = (await account(names.kept)).accountKey;
  const gone = await account(names.gone);
  goneKey = gone.accountKey;
  expect((await call('DELETE', `/v1/accounts/${goneKey}?version=${gone.version}`, { token: me.token, confirm: true })).body.code).toBe(204);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

const row = (page: Page, text: string) => page.getByTestId('audit-row').filter({ has: page.getByTestId('audit-action').filter({ hasText: text }) });

describe('the audit log', () => {
  it('says each change as a sentence naming its item, links what is still there, and keeps the route and key in the details', async () => {
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/audit?kind=change');
    await expect.poll(() => page.getByTestId('audit-row').count()).toBe(4);
    const said = await page.getByTestId('audit-action').allInnerTexts();
    expect(said).toEqual([
      `Deleted account ${names.gone}`,
      `Created account ${names.gone}`,
      `Created account ${names.kept}`,
      `Created department ${names.dept}`,
    ]);
    // Nowhere a route or a key where the name belongs.
    const table = await page.getByTestId('audit-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).innerText).join('\n'));
    expect(table).not.toMatch(/\/v1\/|accountKey|departmentKey/);
    expect(table).not.toContain(goneKey);

    // A deleted account is named, not linked; one still there links to its screen.
    const deleted = row(page, `Deleted account ${names.gone}`);
    expect(await deleted.getByTestId('audit-item-link').count()).toBe(0);
    expect(await deleted.getByTestId('audit-item-name').innerText()).toBe(names.gone);
    const kept = row(page, `Created account ${names.kept}`);
    expect(await kept.getByTestId('audit-item-link').getAttribute('href')).toBe(`/settings/account/${keptKey}`);

    // The whole address shows, not cut.
    const address = deleted.getByTestId('audit-address');
    expect(await address.innerText()).toMatch(/\d/);
    expect(await address.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);

    // As recorded: the route and the key.
    await deleted.getByTestId('audit-details-toggle').click();
    const details = deleted.getByTestId('audit-details');
    await expect.poll(() => details.isVisible()).toBe(true);
    expect(await details.innerText()).toContain('DELETE /v1/accounts/{accountKey}');
    expect(await details.innerText()).toContain(goneKey);
    await page.screenshot({ path: `${shotDir}/audit-sentences-en.png`, fullPage: true });

    await kept.getByTestId('audit-item-link').click();
    await page.waitForURL(`**/settings/account/${keptKey}`);
    await expect.poll(() => page.getByTestId('account-name').innerText()).toBe(names.kept);
    await context.close();
  });

  it('says them in Japanese with the names as they were', async () => {
    const { context, page } = await newPage(browser, { locale: 'ja_JP' });
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/audit?kind=change');
    await expect.poll(() => page.getByTestId('audit-row').count()).toBe(4);
    const said = await page.getByTestId('audit-action').allInnerTexts();
    expect(said[0]).toContain(names.gone);
    expect(said[3]).toContain(names.dept);
    for (const sentence of said) expect(sentence).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    expect(said.join('\n')).not.toMatch(/\/v1\/|Deleted|Created/);
    await page.screenshot({ path: `${shotDir}/audit-sentences-ja.png`, fullPage: true });
    await context.close();
  });
});
