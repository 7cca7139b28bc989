/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ErasureReceipt } from '@passcloud/functions/contract/erasures';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany, unique } from '../support/api.ts';
import { makePng } from '../support/images.ts';
import { loginInBrowser, newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/** The Erase action of the employee and visitor lists: the confirmation naming the person, the erasure, the receipt and its download. */

let browser: Browser;
let owner: { username: string; password: string };
let token: string;

async function employee(name: string): Promise<string> {
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Erase staff '), type: 'employee' } })).body.data
    .groupKey;
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(800, 600))]), 'face.png');
  const avatar = (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
  const created = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('X'), name, role: 'Staff', gender: 'female', groupKey, avatar },
  });
  expect(created.body.code).toBe(201);
  return created.body.data.employeeKey;
}

beforeAll(async () => {
  browser = await launchBrowser();
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

async function openErase(page: Page, name: string): Promise<void> {
  await page.goto('/pass-platform/enterprise/employee');
  const row = page.getByTestId('people-row').filter({ hasText: name });
  await row.waitFor();
  await row.locator('button[aria-haspopup="menu"]').click();
  await page.getByTestId('erase-person').click();
  await page.getByTestId('erase-name').waitFor();
}

describe('erasing a person in the console', () => {
  it('confirms with the typed name and a box, erases, and shows the receipt to download (English)', async () => {
    const name = 'Erin Erasure';
    const key = await employee(name);
    const { page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await openErase(page, name);
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain(`Erase ${name} for good?`);
    expect(await dialog.textContent()).toContain('This cannot be undone.');
    const confirm = page.getByTestId('erase-confirm');
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByTestId('erase-name').fill('Erin');
    await page.getByTestId('erase-understood').check();
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByTestId('erase-name').fill(name);
    expect(await confirm.isDisabled()).toBe(false);
    await page.screenshot({ path: join(shotDir, 'erase-confirm-en.png') });
    await confirm.click();

    await page.getByTestId('erasure-receipt').waitFor();
    await expect.poll(() => page.getByTestId('count-personRecords').textContent()).toBe('1');
    expect(await page.getByTestId('count-photoObjects').textContent()).toBe('1');
    await page.screenshot({ path: join(shotDir, 'erase-receipt-en.png') });

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download JSON' }).click();
    const file = await (await download).path();
    const receipt = JSON.parse(readFileSync(file, 'utf8')) as ErasureReceipt;
    expect(receipt).toMatchObject({ personKey: key, state: 'done', counts: { personRecords: 1, photoObjects: 1 } });
    const text = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download text' }).click();
    expect(readFileSync(await (await text).path(), 'utf8')).toContain('Photos: 1');

    await page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.getByTestId('people-row').filter({ hasText: name }).count()).toBe(0);
    // A login ends the account's earlier session: the API check logs in again.
    token = (await login(owner.username, owner.password)).token;
    expect((await call('GET', `/v1/employees/${key}`, { token })).status).toBe(404);
    await page.context().close();
  });

  it('shows the confirmation and the receipt in Chinese', async () => {
    const name = '张三';
    token = (await login(owner.username, owner.password)).token;
    await employee(name);
    const { page } = await newPage(browser, { locale: 'zh_CN' });
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await openErase(page, name);
    expect(await page.getByRole('dialog').textContent()).toContain(`永久擦除 ${name}？`);
    await page.getByTestId('erase-name').fill(name);
    await page.getByTestId('erase-understood').check();
    await page.screenshot({ path: join(shotDir, 'erase-confirm-zh.png') });
    await page.getByTestId('erase-confirm').click();
    await page.getByTestId('erasure-receipt').waitFor();
    await expect.poll(() => page.getByTestId('count-personRecords').textContent()).toBe('1');
    expect(await page.getByRole('dialog').textContent()).toContain('擦除回执');
    await page.screenshot({ path: join(shotDir, 'erase-receipt-zh.png') });
    await page.context().close();
  });
});
