import type { Locale } from '#contract/locales';
import { mailKeyParams, mailListQuery, mailRecordAnswer, mailRecordPage, mailResendAnswer, type MailRecordJson } from '#contract/mail';
import { claimResend, findMailRecord, listMailRecords, mailKeyOf, type MailRecord } from '#data/mailRecords';
import { NotFoundError, fieldError } from '#lib/errors';
import { created, defineResource, ok, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { deliver, mailErrorText, newMailIdentity } from '#lib/mail';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'EVENTS_TABLE', 'MAIL_FROM', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

function remarks(record: MailRecord, locale: Locale): string | null {
  const notes = [
    ...(record.resendOf ? [translate(locale, 'mail.remarkResendOf', { mailKey: record.resendOf })] : []),
    ...(record.resentAs ? [translate(locale, 'mail.remarkResentAs', { mailKey: record.resentAs })] : []),
  ];
  return notes.length ? notes.join(translate(locale, 'issue.separator')) : null;
}

function recordJson(record: MailRecord, locale: Locale): MailRecordJson {
  return {
    mailKey: mailKeyOf(record),
    name: record.name ?? null,
    group: record.kind,
    from: record.from,
    to: record.to,
    // The person the mail was about was erased: their name, the subject and the text went with them.
    title: record.erased ? translate(locale, 'mail.erased') : record.title,
    content: record.erased ? translate(locale, 'mail.erased') : record.content,
    status: record.status,
    error: mailErrorText(locale, record.error, record.errorCode),
    sendTime: record.sentAt,
    attempts: record.attempts ?? 1,
    lastAttemptTime: record.lastAttemptAt ?? null,
    nextAttemptTime: record.status === 'retrying' || record.status === 'queued' ? (record.retryAt ?? null) : null,
    remarks: remarks(record, locale),
    resendable: record.status === 'failed' && !record.masked && !record.resentAs,
  };
}

async function requireRecord(tenantId: string, mailKey: string): Promise<MailRecord> {
  const record = await findMailRecord(tenantId, mailKey);
  if (!record) throw new NotFoundError();
  return record;
}

/**
 * `/v1/mailRecords`: every mail the company's account sent, newest first, with its outcome; why a
 * mail failed is told in the reader's language. A failed mail may be sent again, once.
 */
export const mailRecords = defineResource('mailRecords', {
  'GET /v1/mailRecords': sessionRoute({
    answer: mailRecordPage,
    query: mailListQuery,
    async handle({ auth, query, locale }) {
      const page = await listMailRecords(auth.tenantId, query);
      return ok({ items: page.items.map((r) => recordJson(r, locale)), nextCursor: page.nextCursor });
    },
  }),
  'GET /v1/mailRecords/{mailKey}': sessionRoute({
    answer: mailRecordAnswer,
    params: mailKeyParams,
    async handle({ auth, params, locale }) {
      return ok(recordJson(await requireRecord(auth.tenantId, params.mailKey), locale));
    },
  }),
  'POST /v1/mailRecords/{mailKey}/resend': sessionRoute({
    answer: mailResendAnswer,
    params: mailKeyParams,
    async handle({ auth, params, locale }) {
      const record = await requireRecord(auth.tenantId, params.mailKey);
      if (record.status !== 'failed') throw fieldError('mailKey', 'mail.notResendable');
      if (record.masked) throw fieldError('mailKey', 'mail.maskedNotResendable');
      // A failed mail is sent again once: the resend's key is claimed on the record before it goes.
      const identity = newMailIdentity();
      const resentAs = mailKeyOf(identity);
      if (record.resentAs || !(await claimResend(record, resentAs))) {
        const again = record.resentAs ?? (await requireRecord(auth.tenantId, params.mailKey)).resentAs;
        throw fieldError('mailKey', 'mail.alreadyResent', { mailKey: again ?? '' });
      }
      const outcome = await deliver(
        auth.tenantId,
        { to: record.to, subject: record.title, text: record.content, kind: record.kind, ...(record.name ? { about: record.name } : {}) },
        { resendOf: params.mailKey, identity },
      );
      return created({ mailKey: outcome.mailKey, status: outcome.status, error: mailErrorText(locale, outcome.error, outcome.errorCode) });
    },
  }),
});

export const handler = mailRecords.handler;
