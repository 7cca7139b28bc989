import { emailSettingsAnswer, emailSettingsBody, testMailAnswer, testMailBody } from '#contract/mail';
import { countAttempt } from '#data/identity';
import { readEmailSettings, saveEmailSettings } from '#data/mailSettings';
import { fieldError } from '#lib/errors';
import { created, defineResource, ok, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { deliver, mailErrorText } from '#lib/mail';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'EVENTS_TABLE', 'MAIL_FROM', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'SETTINGS_KMS_KEY_ID']);

/**
 * `/v1/settings/email`: the company's SMTP server, sender, recipients and content types. The
 * password is stored sealed (lib/secretBox) and never answered: `passwordSet` says whether one is
 * stored. The test mail goes through the saved settings and answers the outcome with HTTP 200:
 * `ok: false` carries why, as a category in the caller's language (never the server's own text).
 * A company sends at most THROTTLES.testMails test mails an hour.
 */
export const mailSettings = defineResource('mailSettings', {
  'GET /v1/settings/email': sessionRoute({
    answer: emailSettingsAnswer,
    async handle({ auth }) {
      return ok(await readEmailSettings(auth.tenantId));
    },
  }),
  'PUT /v1/settings/email': sessionRoute({
    answer: emailSettingsAnswer,
    body: emailSettingsBody,
    async handle({ auth, body }) {
      return created(await saveEmailSettings(auth.tenantId, body));
    },
  }),
  'POST /v1/settings/email/test': sessionRoute({
    answer: testMailAnswer,
    body: testMailBody,
    async handle({ auth, body, locale }) {
      const to = body.to ?? (await readEmailSettings(auth.tenantId)).recipients[0] ?? auth.account.email;
      if (!to) throw fieldError('to', 'mail.noTestRecipient');
      await countAttempt('testMails', auth.tenantId, 'mail.testMailLimit', auth.tenantId);
      const outcome = await deliver(
        auth.tenantId,
        { to, subject: translate(locale, 'mail.testSubject'), text: translate(locale, 'mail.testBody'), kind: 'test' },
        { retry: false },
      );
      return ok({ ok: outcome.status === 'sent', error: mailErrorText(locale, outcome.error, outcome.errorCode), to, mailKey: outcome.mailKey });
    },
  }),
});

export const handler = mailSettings.handler;
