/// <reference lib="dom" />
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import type { QuestionnaireLink } from '@passcloud/functions/contract/protocol';
import { launchBrowser } from '../support/browser.ts';
import { call, login, mailsTo, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { TAGLINE, base, confirmPasswordInBrowser, failedLoads, loginInBrowser, newPage, pageErrors, shotDir, toastText, watchConsole } from './support.ts';

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
/** The survey in Japanese, typed in the editor's translations. */
const JA = {
  title: '健康申告',
  fever: '今日、発熱や咳はありますか？',
  no: 'いいえ',
  yes: 'はい',
  travel: '過去 14 日間にどこへ旅行しましたか？',
};

beforeAll(async () => {
  owner = await newCompany();
  const { token } = await login(owner.username, owner.password);
  await grantSeats(token, 5);
  // One simulated face terminal of this company, on the stack's broker like a real one.
  fleet = await startFleet({ apiUrl: base(), userCode: owner.userCode, count: 1, prefix: unique('QN').toUpperCase() });
  agent = fleet.agents[0]!;
  deviceName = (await call<{ name: string }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.name;

  browser = await launchBrowser();
  ({ page } = await newPage(browser));
  // Saving an open survey without terminals is refused (422), which the browser logs; the drawer shows why on the field.
  // Saving the email settings asks for the password first (401 with data.reauth).
  watchConsole(page, failedLoads([/\/v1\/questionnaires\/[0-9a-z]{8,32}$/, /\/v1\/settings\/email$/]));
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
  const context = await browser.newContext({ viewport: { width: 375, height: 667 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, baseURL: base(), locale: 'en-US' });
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
    await confirmPasswordInBrowser(page, owner.password);
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

    // Japanese added with one question: its card has the title, the question and both options, each with the English beside it.
    await page.getByTestId('translation-add').click();
    await page.getByRole('option', { name: '日本語', exact: true }).click();
    const ja = page.locator('[data-testid=translation][data-locale=ja_JP]');
    await expect.poll(() => ja.getByTestId('translation-question').count()).toBe(1);
    expect(await ja.getByTestId('translation-option-text').count()).toBe(2);
    expect(await ja.innerText()).toContain(FEVER);
    // A language is added once.
    await page.getByTestId('translation-add').click();
    expect(await page.getByRole('option', { name: '日本語', exact: true }).count()).toBe(0);
    await page.keyboard.press('Escape');
    // Removing a language asks first only when something was typed in it.
    const ko = page.locator('[data-testid=translation][data-locale=ko_KR]');
    await page.getByTestId('translation-add').click();
    await page.getByRole('option', { name: '한국어', exact: true }).click();
    await expect.poll(() => ko.count()).toBe(1);
    await ko.getByTestId('translation-remove').click();
    await expect.poll(() => ko.count()).toBe(0);
    await page.getByTestId('translation-add').click();
    await page.getByRole('option', { name: '한국어', exact: true }).click();
    await ko.getByTestId('translation-title').fill('건강 신고');
    await ko.getByTestId('translation-remove').click();
    await page.getByTestId('confirm-remove-translation').click();
    await expect.poll(() => ko.count()).toBe(0);
    expect(await page.getByTestId('translation').count()).toBe(1);

    await page.getByTestId('question-add').click();
    const second = page.getByTestId('question').nth(1);
    await second.getByTestId('question-text').fill(TRAVEL);
    await second.getByTestId('question-type').click();
    await page.getByRole('option', { name: 'Free text', exact: true }).click();
    await expect.poll(() => second.getByTestId('option-text').count()).toBe(0);
    expect(await second.getByTestId('question-mandatory').isChecked()).toBe(true);
    // The translation follows: a second question, free text, so without options.
    await expect.poll(() => ja.getByTestId('translation-question').count()).toBe(2);
    await expect.poll(() => ja.getByTestId('translation-question').nth(1).getByTestId('translation-option-text').count()).toBe(0);
    await page.screenshot({ path: `${shotDir}/questionnaire-form.png` });

    // Every text of an added language is required: nothing is sent until the Japanese is complete.
    const posts: string[] = [];
    const countPost = (request: Request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/questionnaires') posts.push(request.url());
    };
    page.on('request', countPost);
    await page.getByTestId('questionnaire-submit').click();
    await expect.poll(() => ja.getByTestId('translation-title').getAttribute('aria-invalid')).toBe('true');
    expect(await ja.getByTestId('translation-question-text').nth(1).getAttribute('aria-invalid')).toBe('true');
    expect(await ja.getByTestId('translation-option-text').nth(0).getAttribute('aria-invalid')).toBe('true');
    expect(posts).toEqual([]);
    await ja.getByTestId('translation-title').fill(JA.title);
    const [jaFever, jaTravel] = [ja.getByTestId('translation-question').nth(0), ja.getByTestId('translation-question').nth(1)];
    await jaFever.getByTestId('translation-question-text').fill(JA.fever);
    await jaFever.getByTestId('translation-option-text').nth(0).fill(JA.no);
    await jaFever.getByTestId('translation-option-text').nth(1).fill(JA.yes);
    await jaTravel.getByTestId('translation-question-text').fill(JA.travel);
    await expect.poll(() => ja.locator('[aria-invalid=true]').count()).toBe(0);
    // Moving, adding and removing questions and options in the editor does the same to the translation.
    const jaTexts = () => ja.getByTestId('translation-question-text').evaluateAll((inputs) => inputs.map((i) => (i as HTMLTextAreaElement).value));
    const jaOptions = () => ja.getByTestId('translation-option-text').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    await first.getByTestId('question-down').click();
    await expect.poll(jaTexts).toEqual([JA.travel, JA.fever]);
    expect(await ja.getByTestId('translation-question').nth(1).getByTestId('translation-option-text').count()).toBe(2);
    await page.getByTestId('question').nth(1).getByTestId('question-up').click();
    await expect.poll(jaTexts).toEqual([JA.fever, JA.travel]);
    await first.getByRole('button', { name: 'Move Option 1 down' }).click();
    await expect.poll(jaOptions).toEqual([JA.yes, JA.no]);
    await first.getByRole('button', { name: 'Move Option 2 up' }).click();
    await expect.poll(jaOptions).toEqual([JA.no, JA.yes]);
    // A third option, moved between the two and removed again: the translation keeps its texts in step.
    await first.getByTestId('option-add').click();
    await expect.poll(jaOptions).toEqual([JA.no, JA.yes, '']);
    await first.getByTestId('option-text').nth(2).fill('Not sure');
    await ja.getByTestId('translation-option-text').nth(2).fill('わからない');
    await first.getByRole('button', { name: 'Move Option 3 up' }).click();
    await expect.poll(jaOptions).toEqual([JA.no, 'わからない', JA.yes]);
    expect(await first.getByTestId('option-alarm').nth(2).isChecked()).toBe(true);
    await first.getByTestId('option-remove').nth(1).click();
    await expect.poll(jaOptions).toEqual([JA.no, JA.yes]);
    expect(await first.getByTestId('option-text').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual(['No', 'Yes']);
    await ja.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${shotDir}/questionnaire-translations.png` });

    await page.getByTestId('questionnaire-submit').click();
    expect(await toastText(page)).toBe('Survey created');
    page.off('request', countPost);
    expect(posts).toHaveLength(1);
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

    // Opened again, the editor holds the Japanese as saved.
    await row.getByTestId('questionnaire-edit').click();
    const saved = drawer().locator('[data-testid=translation][data-locale=ja_JP]');
    await expect.poll(() => saved.getByTestId('translation-title').inputValue()).toBe(JA.title);
    expect(await drawer().getByTestId('translation').count()).toBe(1);
    expect(await saved.getByTestId('translation-question-text').evaluateAll((inputs) => inputs.map((i) => (i as HTMLTextAreaElement).value))).toEqual([
      JA.fever,
      JA.travel,
    ]);
    expect(await saved.getByTestId('translation-option-text').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual([
      JA.no,
      JA.yes,
    ]);
    // The server's objections to a translation land on their inputs: the request is altered on its way
    // so that the Japanese title and the second option are blank, and nothing is saved.
    await page.route(/\/v1\/questionnaires\/[0-9a-z]{8,32}$/, async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      const body = route.request().postDataJSON() as { translations: { ja_JP: { title: string; questions: { options: string[] }[] } } };
      body.translations.ja_JP.title = ' ';
      body.translations.ja_JP.questions[0]!.options[1] = '';
      return route.continue({ postData: JSON.stringify(body) });
    });
    await page.getByTestId('questionnaire-submit').click();
    await expect.poll(() => saved.getByTestId('translation-title').getAttribute('aria-invalid')).toBe('true');
    expect(await saved.getByTestId('translation-option-text').nth(1).getAttribute('aria-invalid')).toBe('true');
    expect(await saved.getByTestId('translation-option-text').nth(0).getAttribute('aria-invalid')).not.toBe('true');
    expect(await drawer().getByTestId('questionnaire-form').count()).toBe(1);
    await page.unroute(/\/v1\/questionnaires\/[0-9a-z]{8,32}$/);
    await page.getByTestId('questionnaire-cancel').click();
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

      // 日本語 and back: the page reloads in the language, shows the survey's Japanese texts, and keeps what was chosen.
      await mobile.getByTestId('language-select').selectOption({ label: '日本語' });
      await expect.poll(() => mobile.evaluate(() => document.documentElement.lang)).toBe('ja-JP');
      await expect.poll(() => mobile.getByTestId('survey-title').innerText()).toBe(JA.title);
      expect(await mobile.title()).toContain(JA.title);
      const [jaFever, jaTravel] = [mobile.getByTestId('survey-question').nth(0), mobile.getByTestId('survey-question').nth(1)];
      expect(await jaFever.innerText()).toContain(`1. ${JA.fever}`);
      expect(await jaTravel.innerText()).toContain(`2. ${JA.travel}`);
      expect(await jaFever.getByRole('radio').count()).toBe(2);
      for (const name of [JA.no, JA.yes]) expect(await jaFever.getByRole('radio', { name, exact: true }).count()).toBe(1);
      for (const english of [FEVER, TRAVEL, 'No', 'Yes']) expect(await mobile.getByText(english, { exact: true }).count()).toBe(0);
      expect(await jaFever.getByRole('radio', { name: JA.yes }).isChecked()).toBe(true);
      // Answered in Japanese: the alarm option chosen again by its Japanese text, after another.
      await jaFever.getByRole('radio', { name: JA.no }).check();
      await jaFever.getByRole('radio', { name: JA.yes }).check();
      expect(await jaFever.getByRole('radio', { name: JA.no }).isChecked()).toBe(false);
      expect(await mobile.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
      await mobile.screenshot({ path: `${shotDir}/survey-phone-ja.png`, fullPage: true });
      await mobile.getByTestId('language-select').selectOption({ label: 'English' });
      await expect.poll(() => mobile.evaluate(() => document.documentElement.lang)).toBe('en-US');
      await expect.poll(() => mobile.getByTestId('survey-submit').innerText()).toBe('Send answers');
      // Back in English, the survey's own texts, and the choice made in Japanese.
      expect(await mobile.getByTestId('survey-title').innerText()).toBe(TITLE);
      expect(await mobile.getByTestId('survey-question').nth(0).getByRole('radio', { name: 'Yes' }).isChecked()).toBe(true);

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
    // Answered in Japanese, kept in the survey's own texts.
    expect(await detail.innerText()).not.toContain(JA.fever);
    expect(await detail.innerText()).not.toContain(JA.yes);
    expect(await detail.innerText()).not.toContain(JA.travel);
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
