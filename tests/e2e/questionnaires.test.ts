/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import type { QuestionnaireLink } from '@passcloud/functions/contract/protocol';
import { launchBrowser } from '../support/browser.ts';
import { call, login, mailsTo, registerTenant, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { TAGLINE, base, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole } from './support.ts';

let browser: Browser;
let page: Page;
let fleet: Fleet;
let agent: DeviceAgent;
let owner: { username: string; password: string; userCode: string };
let deviceName: string;
/** The survey the first test creates and opens. */
let questionnaireKey: string;
/** Where the terminal's QR code leads (path and `#token`). */
let surveyLink: string;

const TITLE = 'Health declaration';
/** Who receives the company's alert mails. */
const GUARD = `${unique('guard')}@company.test`;
const FEVER = 'Do you have a fever or a cough today?';
const TRAVEL = 'Where have you travelled in the last 14 days?';

beforeAll(async () => {
  owner = await registerTenant();
  const { token } = await login(owner.username, owner.password);
  await grantSeats(token, 5);
  // One simulated face terminal of this company, on the stack's broker like a real one.
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('QN').toUpperCase() });
  agent = fleet.agents[0]!;
  deviceName = (await call<{ name: string }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.name;

  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  // Saving an open survey without terminals is refused (422), which the browser logs; the drawer shows why on the field.
  watchConsole(page, failedLoads([/\/v1\/questionnaires\/[0-9a-z]{8,32}$/]));
  // The browser's login ends the API token: everything after this goes through the screens or the terminal.
  await loginInBrowser(page, owner.username, owner.password);
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});
afterEach(() => {
  expect(pageErrors.splice(0)).toEqual([]);
});

/** A phone (375×667, touch) on the public page; its page errors count like the console's. */
async function phone(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 375, height: 667 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, baseURL: base() });
  const phonePage = await context.newPage();
  phonePage.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page: phonePage };
}

const rows = () => page.getByTestId('questionnaire-row');
const drawer = () => page.getByTestId('questionnaire-drawer');

describe('questionnaires', () => {
  it('switches on the mail for abnormal questionnaire results beside the fever and blacklist alerts, and keeps it', async () => {
    await page.goto('/settings/email');
    await expect.poll(() => page.getByTestId('email-save').isEnabled()).toBe(true);
    const alert = page.getByTestId('email-questionnaire');
    expect(await alert.isChecked()).toBe(false);
    const recipients = page.getByTestId('email-recipients');
    await recipients.fill(GUARD);
    await recipients.press('Enter');
    await alert.check();
    await page.getByTestId('email-save').click();
    expect(await toastText(page)).toContain('Saved');
    await page.reload();
    await expect.poll(() => page.getByTestId('email-save').isEnabled()).toBe(true);
    await expect.poll(() => page.getByTestId('email-questionnaire').isChecked()).toBe(true);
    expect(await page.getByTestId('email-fever').isChecked()).toBe(false);
  });

  it('creates a QR survey with an alarm option and a mandatory free-text question in the setting screen, and opens it', async () => {
    await page.goto('/pass-platform/passage/questionnaire/setting');
    await expect.poll(() => page.title()).toBe(`Questionnaire setting - ${TAGLINE}`);
    await expect.poll(() => page.getByTestId('questionnaire-empty').count()).toBe(1);

    await page.getByTestId('questionnaire-add').click();
    await expect.poll(() => drawer().getByTestId('questionnaire-form').count()).toBe(1);
    // Nothing filled in: the form says what is missing and sends nothing.
    await page.getByTestId('questionnaire-submit').click();
    await expect.poll(() => page.getByTestId('questionnaire-title').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('question-text').getAttribute('aria-invalid')).toBe('true');

    await page.getByTestId('questionnaire-title').fill(TITLE);
    await page.getByTestId('questionnaire-mode').getByText('Scan a QR code').click();
    await page.getByTestId('questionnaire-seconds').fill('45');
    await page.getByTestId('questionnaire-devices').click();
    await page.getByRole('option', { name: deviceName }).click();
    await page.keyboard.press('Escape');

    const first = page.getByTestId('question').nth(0);
    await first.getByTestId('question-text').fill(FEVER);
    await first.getByTestId('option-text').nth(0).fill('No');
    await first.getByTestId('option-text').nth(1).fill('Yes');
    await first.getByTestId('option-alarm').nth(1).check();

    await page.getByTestId('question-add').click();
    const second = page.getByTestId('question').nth(1);
    await second.getByTestId('question-text').fill(TRAVEL);
    await second.getByTestId('question-type').click();
    await page.getByRole('option', { name: 'Free text', exact: true }).click();
    await expect.poll(() => second.getByTestId('option-text').count()).toBe(0);
    expect(await second.getByTestId('question-mandatory').isChecked()).toBe(true);
    await page.screenshot({ path: `${shotDir}/questionnaire-form.png` });

    await page.getByTestId('questionnaire-submit').click();
    expect(await toastText(page)).toBe('Survey created');
    await expect.poll(() => page.getByTestId('questionnaire-drawer').getByTestId('questionnaire-form').count()).toBe(0);
    await expect.poll(() => rows().count()).toBe(1);
    const row = rows().first();
    questionnaireKey = (await row.getAttribute('data-key'))!;
    expect(await row.getAttribute('data-state')).toBe('closed');
    const cells = async () =>
      Object.fromEntries(
        await Promise.all(
          ['title', 'mode', 'revision', 'terminals', 'questions'].map(async (c) => [c, (await row.locator(`[data-column=${c}]`).innerText()).trim()]),
        ),
      );
    expect(await cells()).toEqual({ title: TITLE, mode: 'Scan a QR code', revision: '1', terminals: '1', questions: '2' });

    await row.getByTestId('questionnaire-open').click();
    await expect.poll(() => row.getAttribute('data-state')).toBe('open');
    expect(await toastText(page)).toBe('Survey opened');
    // An open survey cannot be deleted: the menu says to close it first.
    await row.getByTestId('questionnaire-actions').click();
    expect(await page.getByTestId('questionnaire-delete').isDisabled()).toBe(true);
    await page.keyboard.press('Escape');

    // The editor of an opened survey says what editing it does to the answers.
    await row.getByTestId('questionnaire-edit').click();
    await expect.poll(() => drawer().getByTestId('questionnaire-revision').innerText()).toContain('makes revision 2');
    // An open survey cannot lose all its terminals: the server says so on the devices field, and nothing changes.
    await page.getByTestId('questionnaire-devices').click();
    await page.keyboard.press('Backspace');
    await page.getByTestId('questionnaire-submit').click();
    await expect.poll(() => page.getByTestId('questionnaire-devices').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: `${shotDir}/questionnaire-scope-refused.png` });
    await page.getByTestId('questionnaire-cancel').click();
    await page.getByTestId('confirm-discard').click();
    await expect.poll(() => drawer().getByTestId('questionnaire-form').count()).toBe(0);
    expect(await cells()).toEqual({ title: TITLE, mode: 'Scan a QR code', revision: '1', terminals: '1', questions: '2' });
    await page.screenshot({ path: `${shotDir}/questionnaire-setting.png`, fullPage: true });
  });

  it('answers on a phone through the terminal QR link: languages, the mandatory check, thank you, and used once sent', async () => {
    const link = await agent.call<QuestionnaireLink>('POST', '/v1/deviceSync/questionnaireLinks', { questionnaireKey });
    const url = new URL(link.url);
    expect(url.pathname).toBe('/survey');
    surveyLink = url.pathname + url.hash;

    const { context, page: mobile } = await phone();
    // Opening the link again after answering is refused (409), which the browser logs.
    watchConsole(mobile, failedLoads([/\/v1\/surveys\/open$/]));
    const apiCalls: Request[] = [];
    mobile.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v1/')) apiCalls.push(request);
    });
    const answersSent = () => apiCalls.filter((r) => r.url().endsWith('/v1/surveys/answers')).length;
    try {
      await mobile.goto(surveyLink);
      await expect.poll(() => mobile.getByTestId('survey-title').innerText()).toBe(TITLE);
      expect(await mobile.getByTestId('survey-device').innerText()).toBe(deviceName);
      expect(await mobile.getByTestId('survey-question').count()).toBe(2);
      // It fits the phone: nothing wider than the screen.
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

      const fever = mobile.getByTestId('survey-question').nth(0);
      await fever.getByRole('radio', { name: 'Yes' }).check();
      await mobile.screenshot({ path: `${shotDir}/survey-phone-en.png`, fullPage: true });

      // 日本語 and back: the page reloads in the language, and keeps what was chosen.
      await mobile.getByTestId('language-select').selectOption({ label: '日本語' });
      await expect.poll(() => mobile.evaluate(() => document.documentElement.lang)).toBe('ja-JP');
      await expect.poll(() => mobile.getByTestId('survey-title').innerText()).toBe(TITLE);
      expect(await mobile.getByTestId('survey-question').nth(0).getByRole('radio', { name: 'Yes' }).isChecked()).toBe(true);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await mobile.screenshot({ path: `${shotDir}/survey-phone-ja.png`, fullPage: true });
      await mobile.getByTestId('language-select').selectOption({ label: 'English' });
      await expect.poll(() => mobile.evaluate(() => document.documentElement.lang)).toBe('en-US');
      await expect.poll(() => mobile.getByTestId('survey-submit').innerText()).toBe('Send answers');

      // The mandatory free-text question left empty: said on the question, and nothing is sent.
      await mobile.getByTestId('survey-submit').click();
      const travel = mobile.getByTestId('survey-question').nth(1);
      await expect.poll(() => travel.getAttribute('data-invalid')).toBe('true');
      expect(await travel.innerText()).toContain('Please answer this question.');
      expect(await mobile.getByTestId('survey-question').nth(0).getAttribute('data-invalid')).toBeNull();
      expect(answersSent()).toBe(0);
      await mobile.screenshot({ path: `${shotDir}/survey-phone-missing.png`, fullPage: true });

      await travel.getByTestId('survey-text').fill('Osaka, for a client visit');
      await expect.poll(() => travel.getAttribute('data-invalid')).toBeNull();
      await mobile.getByTestId('survey-submit').click();
      await expect.poll(() => mobile.getByTestId('survey-done').innerText()).toContain('Thank you');
      expect(answersSent()).toBe(1);
      await mobile.screenshot({ path: `${shotDir}/survey-phone-done.png`, fullPage: true });

      // The link works once.
      await mobile.reload();
      await expect.poll(() => mobile.getByTestId('survey-refused').getAttribute('data-reason')).toBe('used');
      expect(await mobile.getByTestId('survey-refused').innerText()).toContain('This link has been used');
      await mobile.screenshot({ path: `${shotDir}/survey-phone-used.png`, fullPage: true });

      // Only the survey's own public calls, never with a session.
      expect(apiCalls.map((r) => new URL(r.url()).pathname).filter((path) => !/^\/v1\/surveys\/(open|answers)$/.test(path))).toEqual([]);
      expect(apiCalls.filter((r) => r.headers().authorization)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('raises a live alert in the console and lists the answer as abnormal and anonymous, with the alarm marked', async () => {
    // The console stayed open on the setting screen while the phone answered.
    const alert = page.getByTestId('questionnaire-alert');
    await expect.poll(() => alert.count()).toBe(1);
    expect(await alert.getByTestId('questionnaire-alert-title').innerText()).toBe(TITLE);
    expect(await alert.getByTestId('questionnaire-alert-person').innerText()).toBe('Anonymous');
    expect(await alert.innerText()).toContain(deviceName);
    await page.screenshot({ path: `${shotDir}/questionnaire-alert.png` });
    await alert.getByTestId('questionnaire-alert-open').click();
    await expect.poll(() => page.url()).toBe(`${base()}/pass-platform/passage/questionnaire?questionnaire=${questionnaireKey}`);
    await expect.poll(() => alert.count()).toBe(0);

    await expect.poll(() => page.title()).toBe(`Questionnaire results - ${TAGLINE}`);
    const results = page.getByTestId('result-row');
    await expect.poll(() => results.count()).toBe(1);
    const row = results.first();
    expect(await row.getAttribute('data-result')).toBe('abnormal');
    expect(await row.getByTestId('result-anonymous').innerText()).toBe('Anonymous');
    expect((await row.locator('[data-column=device]').innerText()).trim()).toBe(deviceName);
    expect((await row.locator('[data-column=source]').innerText()).trim()).toBe('QR code');
    expect((await row.locator('[data-column=revision]').innerText()).trim()).toBe('1');
    expect(await row.getByTestId('result-badge').textContent()).toBe('Abnormal');
    await page.screenshot({ path: `${shotDir}/questionnaire-results.png`, fullPage: true });

    await row.click();
    const detail = page.getByTestId('result-detail');
    await expect.poll(() => detail.getByTestId('result-answer').count()).toBe(2);
    await expect.poll(() => page.locator('.mantine-Modal-content').evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
    const [fever, travel] = [detail.getByTestId('result-answer').nth(0), detail.getByTestId('result-answer').nth(1)];
    expect(await fever.innerText()).toContain(FEVER);
    expect(await fever.innerText()).toContain('Yes');
    expect(await fever.getByTestId('result-alarm').count()).toBe(1);
    expect(await travel.innerText()).toContain('Osaka, for a client visit');
    expect(await travel.getByTestId('result-alarm').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/questionnaire-result-detail.png` });
    await page.getByTestId('result-detail-close').click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

    // Normal answers only: none.
    await page.getByTestId('result-filter').click();
    await page.getByRole('option', { name: 'Normal', exact: true }).click();
    await page.getByTestId('result-search').click();
    await expect.poll(() => page.getByTestId('result-empty').count()).toBe(1);
    await page.getByTestId('result-reset').click();
    await expect.poll(() => results.count()).toBe(1);

    // And the alert went out by mail too.
    await expect.poll(async () => (await mailsTo(GUARD)).length).toBe(1);
    expect(JSON.stringify(await mailsTo(GUARD))).toContain(TITLE);

    // The filtered results export as a workbook.
    const download = page.waitForEvent('download');
    await page.getByTestId('result-export-button').click();
    await expect.poll(() => page.getByTestId('export-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect((await download).suggestedFilename()).toMatch(/\.xlsx$/);
    await page.getByTestId('export-close').click();
  });

  it('closes the survey after a confirmation, and then deletes it after another', async () => {
    await page.getByTestId('questionnaire-setting-link').click();
    await expect.poll(() => rows().count()).toBe(1);
    const row = rows().first();
    await row.getByTestId('questionnaire-close').click();
    await page.getByTestId('confirm-close').click();
    await expect.poll(() => row.getAttribute('data-state')).toBe('closed');
    expect(await toastText(page)).toBe('Survey closed');

    // The link of a closed survey says so.
    const link = await agent.call<QuestionnaireLink>('POST', '/v1/deviceSync/questionnaireLinks', { questionnaireKey }).catch((error: unknown) => error);
    expect(link).toBeInstanceOf(Error);

    await row.getByTestId('questionnaire-actions').click();
    await page.getByTestId('questionnaire-delete').click();
    await page.getByTestId('confirm-delete').click();
    await expect.poll(() => page.getByTestId('questionnaire-empty').count()).toBe(1);
    expect(await toastText(page)).toBe('Survey deleted');
  });
});
