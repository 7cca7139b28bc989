/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import { newPage, pageErrors, shotDir, watchConsole } from './support.ts';

/**
 * The API reference at /docs/api: a public page of the console that renders the OpenAPI
 * document the API serves, every route grouped by resource, in the reader's language.
 */
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(shotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  expect(pageErrors.splice(0)).toEqual([]);
});

async function open(locale?: string) {
  const { context, page } = await newPage(browser, locale ? { locale } : {});
  contexts.push(context);
  watchConsole(page);
  await page.goto('/docs/api');
  return page;
}

describe('the API reference', () => {
  it('shows every route of the document, grouped by resource, without a session', async () => {
    const page = await open();
    const doc = (await (await fetch(new URL('/v1/openapi.json', page.url()))).json()) as { paths: Record<string, Record<string, unknown>> };
    const count = Object.values(doc.paths).reduce((sum, ops) => sum + Object.keys(ops).length, 0);
    await expect.poll(() => page.getByTestId('api-route').count()).toBe(count);
    await expect.poll(() => page.title()).toContain('API reference');

    // A known route: its method, path and authCode in the header, its body's fields when opened.
    const create = page.locator('[data-route="POST /v1/employees"]');
    await expect.poll(() => create.innerText()).toContain('pass:employee');
    expect(await page.getByTestId('api-group-employees').count()).toBe(1);
    await create.getByRole('button').first().click();
    const panel = create.locator('.mantine-Accordion-panel');
    await expect.poll(() => panel.innerText()).toContain('personId');
    expect(await panel.innerText()).toContain('application/json');
    expect(await panel.innerText()).toContain('Some fields are not valid');

    // The filter narrows the list to the routes whose path or permission matches.
    await page.getByTestId('api-filter').fill('/v1/deviceSync');
    await expect.poll(() => page.getByTestId('api-route').count()).toBe(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/deviceSync')).length);
    await page.getByTestId('api-filter').fill('');
    await page.locator('[data-route="POST /v1/devices/bind"]').getByRole('button').first().click();
    await expect.poll(() => page.locator('[data-route="POST /v1/devices/bind"] .mantine-Accordion-panel').innerText()).toContain('userCode');
    await page.screenshot({ path: `${shotDir}/api-docs-en.png` });
  });

  it('reads in the visitor’s language', async () => {
    const page = await open('zh_CN');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('API 参考');
    const login = page.locator('[data-route="POST /v1/systems/login"]');
    await login.getByRole('button').first().click();
    await expect.poll(() => login.locator('.mantine-Accordion-panel').innerText()).toContain('任何人：无需凭据');
    await page.screenshot({ path: `${shotDir}/api-docs-zh.png` });
  });

  it('says which routes an API key may call, and leads to the integrators’ guide', async () => {
    const page = await open();
    const employees = page.locator('[data-route="GET /v1/employees"]');
    await employees.getByRole('button').first().click();
    await expect.poll(() => employees.locator('.mantine-Accordion-panel').innerText()).toContain('or an API key');
    const accounts = page.locator('[data-route="GET /v1/accounts"]');
    await accounts.getByRole('button').first().click();
    await expect.poll(() => accounts.locator('.mantine-Accordion-panel').innerText()).toContain('not API keys');

    await page.getByTestId('guide-link').click();
    await page.waitForURL('**/docs/api/guide');
    const guide = page.getByTestId('api-guide');
    await expect.poll(() => guide.locator('h2').allInnerTexts()).toEqual(expect.arrayContaining(['API keys: how a machine calls the API', 'The envelope', 'Lists and cursors']));
    expect(await guide.innerText()).toContain('Authorization: Bearer pck_');
    // Links to files of the repository show as their text; nothing in the guide leads off the page unasked.
    expect(await guide.locator('a').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/api-guide-en.png`, fullPage: false });
    await page.getByTestId('guide-reference-link').click();
    await page.waitForURL('**/docs/api');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).innerText()).toBe('API reference');
  });
});
