/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { WEBHOOK_HEADERS, type WebhookCreated } from '@passcloud/functions/contract/webhooks';
import { verifySignature } from '@passcloud/functions/domain/webhookSignature';
import { launchBrowser } from '../support/browser.ts';
import { call, login, newCompany } from '../support/api.ts';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhookReceiver.ts';
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
let receiver: WebhookReceiver;

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = await startWebhookReceiver();
  mkdirSync(shotDir, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/**
 * Console errors count as page errors, except the answers the test provokes on purpose: the
 * address refused (422) and the password asked for (401) when a webhook is added or changed.
 */
const watchConsole = (page: Page) => watchPage(page, failedLoads([/\/v1\/webhooks$/, /\/v1\/webhooks\/[0-9a-z]+$/, /\/v1\/webhooks\/[0-9a-z]+\/secret$/]));

const modal = (page: Page) => page.locator('.mantine-Modal-content');
const rows = (page: Page) => page.getByTestId('webhook-row');
const deliveries = (page: Page) => page.getByTestId('delivery-row');
/** Waits for the toast on screen to close, so the next one read is the next action's. */
const toastGone = (page: Page) => expect.poll(() => page.locator('.mantine-Notification-root').count()).toBe(0);
const header = (request: Received, name: string) => String(request.headers[name] ?? '');
const signedWith = (secret: string, request: Received) =>
  verifySignature(secret, header(request, WEBHOOK_HEADERS.signature), header(request, WEBHOOK_HEADERS.timestamp), request.body);

/** The statuses of the delivery log's rows, newest first; read again through the Refresh button. */
async function statuses(page: Page): Promise<string[]> {
  await page.getByTestId('delivery-refresh').click();
  return deliveries(page).evaluateAll((found) => found.map((row) => row.getAttribute('data-status') ?? ''));
}

/** Nothing on the page sticks out sideways, and no badge or button is narrower than its text. */
async function overflow(page: Page) {
  return page.evaluate(() => ({
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    cut: [...document.querySelectorAll('.mantine-Badge-label, .mantine-Button-label, .mantine-Tabs-tabLabel')]
      .filter((e) => e.scrollWidth > e.clientWidth + 1)
      .map((e) => e.textContent),
  }));
}

describe('webhooks', () => {
  it('adds a webhook, shows its secret once, delivers and replays events, rotates the secret, edits it, turns it off and on, and deletes it', async () => {
    const owner = await newCompany();
    const { context, page } = await newPage(browser);
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/webhooks');
    await expect.poll(() => page.title()).toBe(`Webhooks - ${TAGLINE}`);
    await expect.poll(() => page.getByTestId('webhook-intro').count()).toBe(1);
    expect(await page.getByTestId('webhook-intro').innerText()).toContain('No webhooks yet');
    expect(await page.getByTestId('webhook-count').innerText()).toBe('0 of 10 webhooks');

    // Cancel closes the dialog and adds nothing.
    await page.getByTestId('webhook-add').click();
    await page.getByTestId('webhook-url').fill(receiver.url('/cancelled'));
    await page.getByTestId('webhook-cancel').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    expect(await rows(page).count()).toBe(0);

    // Nothing leaves the form without an address and an event; the server refuses plain http on the field.
    await page.getByTestId('webhook-add').click();
    expect(await page.getByTestId('webhook-url').inputValue()).toBe('');
    await page.getByTestId('webhook-submit').click();
    await expect.poll(() => page.getByText('Enter the address that receives the events').count()).toBe(1);
    expect(await page.getByText('Choose at least one event').count()).toBe(1);
    await page.getByTestId('webhook-url').fill(receiver.url('/hooks').replace('https:', 'http:'));
    await page.getByTestId('webhook-event-pass.record').check();
    await page.getByTestId('webhook-event-device.online').check();
    const refused = page.waitForResponse((r) => r.url().endsWith('/v1/webhooks') && r.request().method() === 'POST');
    await page.getByTestId('webhook-submit').click();
    expect(((await (await refused).json()) as { code: number }).code).toBe(422);
    await expect.poll(() => page.getByTestId('webhook-url').getAttribute('aria-invalid')).toBe('true');
    expect(await modal(page).innerText()).toContain('must start with https://');
    await page.getByTestId('webhook-url').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shotDir}/webhooks-form-en.png` });

    // Added with the password confirmed: the secret is shown once, and closes only once said to be kept.
    const url = receiver.url('/hooks');
    await page.getByTestId('webhook-url').fill(url);
    await page.getByTestId('webhook-description').fill('Door events for the building system');
    await page.getByTestId('webhook-submit').click();
    await confirmPasswordInBrowser(page, owner.password);
    const secret = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await page.getByTestId('webhook-secret-modal').innerText()).toContain('It will not be shown again');
    expect(await page.getByTestId('webhook-secret-done').isDisabled()).toBe(true);
    await page.screenshot({ path: `${shotDir}/webhooks-secret-en.png` });
    await page.getByTestId('webhook-secret-kept').check();
    await page.getByTestId('webhook-secret-done').click();
    await expect.poll(() => page.getByTestId('webhook-secret-modal').count()).toBe(0);
    await expect.poll(() => rows(page).count()).toBe(1);
    const row = rows(page).first();
    expect(await row.innerText()).toContain(url);
    expect(await row.innerText()).toContain('Pass record and Device online');
    expect(await row.getByTestId('webhook-on').textContent()).toBe('Active');
    expect(await page.getByText(secret).count()).toBe(0);

    // A test event, signed with the secret shown, is delivered and logged.
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Send test event' }).click();
    expect(await toastText(page)).toContain('A test event is on its way');
    await toastGone(page);
    await receiver.waitFor(1);
    const first = receiver.received[0]!;
    expect(first.path).toBe('/hooks');
    expect(header(first, WEBHOOK_HEADERS.type)).toBe('webhook.test');
    expect(signedWith(secret, first)).toBe(true);
    await row.getByTestId('webhook-deliveries').click();
    await page.waitForURL(/\/settings\/webhooks\?webhook=[0-9a-z]+$/);
    await expect.poll(() => page.getByTestId('delivery-url').innerText()).toBe(url);
    await expect.poll(() => statuses(page)).toEqual(['delivered']);
    const delivered = deliveries(page).first();
    expect(await delivered.locator('td[data-column=code]').innerText()).toBe('200');
    expect(await delivered.getByTestId('delivery-excerpt').innerText()).toBe('ok');

    // The receiver refuses the next one with a 400: a dead letter at once, which a replay delivers.
    receiver.answer({ status: 400, times: 1, body: 'unknown event type' });
    await page.getByTestId('delivery-send-test').click();
    expect(await toastText(page)).toContain('A test event is on its way');
    await toastGone(page);
    await receiver.waitFor(2);
    await expect.poll(() => statuses(page)).toEqual(['dead', 'delivered']);
    await expect.poll(() => page.getByTestId('delivery-drawer').getByTestId('webhook-failing').count()).toBe(1);
    const dead = deliveries(page).first();
    expect(await dead.getByTestId('delivery-status').textContent()).toBe('Failed (dead letter)');
    expect(await dead.locator('td[data-column=code]').innerText()).toBe('400');
    expect(await dead.locator('td[data-column=error]').innerText()).toBe('Answered with an error code');
    expect(await dead.getByTestId('delivery-excerpt').innerText()).toBe('unknown event type');
    await page.getByTestId('delivery-dead-letters').click();
    await page.waitForURL(/status=dead/);
    await expect.poll(() => deliveries(page).count()).toBe(1);
    await page.screenshot({ path: `${shotDir}/webhooks-dead-letter-en.png` });
    await deliveries(page).first().getByTestId('delivery-replay').click();
    expect(await toastText(page)).toBe('The delivery is queued to be sent again');
    await toastGone(page);
    await receiver.waitFor(3);
    expect(receiver.received[2]!.status).toBe(200);
    // The same event again: its id is the receiver's idempotency key.
    expect(header(receiver.received[2]!, WEBHOOK_HEADERS.id)).toBe(header(receiver.received[1]!, WEBHOOK_HEADERS.id));
    await expect.poll(() => page.getByTestId('delivery-empty').count()).toBe(1);
    await page.getByTestId('delivery-dead-letters').click();
    await expect.poll(() => statuses(page)).toEqual(['delivered', 'delivered']);
    await expect.poll(() => page.getByTestId('delivery-drawer').getByTestId('webhook-failing').count()).toBe(0);
    expect(await deliveries(page).first().locator('td[data-column=attempts]').innerText()).toBe('2');
    await page.screenshot({ path: `${shotDir}/webhooks-deliveries-en.png` });

    // A range is replayed after a confirmation, which says how many were sent.
    await page.getByTestId('delivery-replay-range').click();
    await page.getByTestId('replay-range-status').getByText('Delivered', { exact: true }).click();
    await page.getByTestId('replay-range-submit').click();
    expect(await toastText(page)).toBe('2 deliveries are queued to be sent again');
    await toastGone(page);
    await expect.poll(() => modal(page).count()).toBe(0);
    await receiver.waitFor(5);
    await page.getByTestId('delivery-drawer').getByRole('button', { name: 'Close' }).click();
    await page.waitForURL((at) => at.search === '');

    // Rotation asks first; the new secret is shown once, and the old one keeps signing beside it.
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Rotate secret' }).click();
    expect(await modal(page).innerText()).toContain('keeps signing them too for 24 hours');
    await page.getByTestId('confirm-rotate').click();
    await expect.poll(() => page.getByTestId('webhook-secret').count()).toBe(1);
    const rotated = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await page.getByTestId('webhook-previous-until').innerText()).toMatch(/^The previous secret also signs deliveries until .+\.$/);
    await page.getByTestId('webhook-secret-kept').check();
    await page.getByTestId('webhook-secret-done').click();
    await expect.poll(() => page.getByTestId('webhook-secret-modal').count()).toBe(0);
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Send test event' }).click();
    expect(await toastText(page)).toContain('A test event is on its way');
    await toastGone(page);
    await receiver.waitFor(6);
    expect(signedWith(rotated, receiver.received[5]!)).toBe(true);
    expect(signedWith(secret, receiver.received[5]!)).toBe(true);
    await page.screenshot({ path: `${shotDir}/webhooks-list-en.png`, fullPage: true });

    // Editing sends the version read; Cancel leaves the webhook as it was.
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    expect(await page.getByTestId('webhook-url').inputValue()).toBe(url);
    await page.getByTestId('webhook-description').fill('Not saved');
    await page.getByTestId('webhook-cancel').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    expect(await row.innerText()).toContain('Door events for the building system');
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Edit' }).click();
    await page.getByTestId('webhook-event-device.offline').check();
    await page.getByTestId('webhook-description').fill('Doors and devices');
    const patched = page.waitForRequest((r) => /\/v1\/webhooks\/[0-9a-z]+$/.test(r.url()) && r.method() === 'PATCH');
    await page.getByTestId('webhook-submit').click();
    expect((await patched).postDataJSON()).toMatchObject({
      description: 'Doors and devices',
      events: ['pass.record', 'device.online', 'device.offline'],
      version: expect.any(Number),
    });
    expect(await toastText(page)).toBe('Webhook saved');
    await toastGone(page);
    await expect.poll(() => row.innerText()).toContain('Doors and devices');

    // Turned off after a confirmation, it takes no test events until turned on again.
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Turn off' }).click();
    await page.getByTestId('confirm-turn-off').click();
    expect(await toastText(page)).toBe('Webhook turned off');
    await toastGone(page);
    await expect.poll(() => row.getByTestId('webhook-off').textContent()).toBe('Turned off');
    await row.getByTestId('webhook-menu').click();
    expect(await page.getByRole('menuitem', { name: 'Send test event' }).isDisabled()).toBe(true);
    await page.getByRole('menuitem', { name: 'Turn on' }).click();
    expect(await toastText(page)).toBe('Webhook turned on');
    await toastGone(page);
    await expect.poll(() => row.getByTestId('webhook-on').count()).toBe(1);

    // Deletion asks first, and leaves the list empty again.
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    expect(await modal(page).innerText()).toContain(`Delete the webhook for ${url}?`);
    await page.getByTestId('cancel-delete').click();
    await expect.poll(() => modal(page).count()).toBe(0);
    expect(await rows(page).count()).toBe(1);
    await row.getByTestId('webhook-menu').click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await page.getByTestId('confirm-delete').click();
    expect(await toastText(page)).toBe('Webhook deleted');
    await expect.poll(() => rows(page).count()).toBe(0);
    expect(await page.getByTestId('webhook-intro').count()).toBe(1);
    await context.close();
  });

  it('lays the section out in Chinese: the list with a webhook turned off after failing, the form and the delivery log', async () => {
    const { disableFailing, noteFailing } = await import('@passcloud/functions/data/webhooks');
    const owner = await newCompany();
    const { token } = await login(owner.username, owner.password);
    const tenantId = token.split('.')[0]!;
    const add = async (body: object) => {
      const answer = await call<WebhookCreated>('POST', '/v1/webhooks', { token, body, confirm: true });
      expect(answer.body.code).toBe(201);
      return answer.body.data.webhook;
    };
    const working = await add({ url: receiver.url('/zh'), events: ['pass.record', 'device.online', 'device.offline'], description: '一号楼门禁系统' });
    const failing = await add({ url: receiver.url('/zh-failing'), events: ['fever.detected'] });
    const since = new Date(Date.now() - 3 * 86_400_000).toISOString();
    expect(await noteFailing(tenantId, failing.webhookKey, new Date(since))).toBe(since);
    expect(await disableFailing(tenantId, failing.webhookKey, since)).toBeDefined();
    const before = receiver.received.length;
    expect((await call('POST', `/v1/webhooks/${working.webhookKey}/test`, { token })).body.code).toBe(202);
    await receiver.waitFor(before + 1);

    const { context, page } = await newPage(browser, { locale: 'zh_CN' });
    watchConsole(page);
    await loginInBrowser(page, owner.username, owner.password);
    await page.goto('/settings/webhooks');
    await expect.poll(() => page.getByTestId('screen-title').innerText()).toBe('Webhook');
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(await page.getByTestId('settings-sections').getByRole('tab', { selected: true }).innerText()).toBe('Webhook');
    expect(await rows(page).filter({ hasText: '一号楼' }).innerText()).toContain('通行记录');
    expect(await page.getByTestId('webhook-on').textContent()).toBe('启用中');
    expect(await page.getByTestId('webhook-failing-off').textContent()).toBe('因失败已停用');
    expect(await page.getByTestId('webhook-add').textContent()).toBe('添加 Webhook');
    expect(await page.getByTestId('webhook-count').textContent()).toBe('2 / 10 个 Webhook');
    expect(await page.getByTestId('webhook-table').locator('thead').innerText()).not.toMatch(/[A-Za-z]{3,}/);
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/webhooks-list-zh.png`, fullPage: true });

    await page.getByTestId('webhook-add').click();
    await expect.poll(() => page.getByTestId('webhook-form').count()).toBeGreaterThan(0);
    expect(await modal(page).innerText()).toContain('人脸同步失败');
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/webhooks-form-zh.png` });
    await page.getByTestId('webhook-cancel').click();
    await expect.poll(() => modal(page).count()).toBe(0);

    await rows(page).filter({ hasText: '一号楼' }).getByTestId('webhook-deliveries').click();
    await expect.poll(() => statuses(page)).toEqual(['delivered']);
    expect(await page.getByTestId('delivery-status').textContent()).toBe('已投递');
    expect(await page.getByTestId('delivery-table').locator('thead').innerText()).not.toMatch(/[A-Za-z]{3,}/);
    expect(await overflow(page)).toEqual({ page: 0, cut: [] });
    await page.screenshot({ path: `${shotDir}/webhooks-deliveries-zh.png` });
    await context.close();
  });
});
