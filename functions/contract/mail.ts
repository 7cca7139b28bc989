import * as z from 'zod';

/**
 * Email settings (`/v1/settings/email`) and mail records (`/v1/mailRecords`).
 *
 * Without an SMTP server (`host` null) the company's mail goes through the service's own sender
 * (SES on AWS, the local sink on one machine); with one, through that server with its sender.
 */

/** `none`: plain SMTP; `starttls`: upgrade with STARTTLS (required); `tls`: TLS from the first byte (usually port 465). */
export const TLS_MODES = ['none', 'starttls', 'tls'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

/** `queued`: recorded, to be sent by the mail service in the background (alerts); `retrying`: an attempt failed for a temporary reason. */
export const MAIL_STATUSES = ['queued', 'sent', 'failed', 'retrying'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/**
 * Why a mail was not sent, as the test mail and the mail records tell it (in the caller's
 * language; the remote server's own words stay in the service's logs): `blocked` the server's
 * address or port is not one the service connects to, `connect` no SMTP conversation could be
 * had, `tls` the encrypted connection failed, `auth` the login was refused, `refused` the server
 * refused the mail (with its reply code), `other` anything else.
 */
export const MAIL_FAILURES = ['blocked', 'connect', 'tls', 'auth', 'refused', 'other'] as const;
export type MailFailureCategory = (typeof MAIL_FAILURES)[number];

/** What mails are for (the record's `group`); other parts of the product add theirs. */
export const MAIL_GROUPS = ['verification', 'invitation', 'test', 'feverAlert', 'blacklistAlert', 'questionnaireAlert', 'attendanceSummary', 'licenceReminder', 'webhookDisabled', 'doorMode'] as const;

export const MAX_RECIPIENTS = 20;
/** The ports a company's SMTP server may use: SMTP, SMTPS, submission and the common alternative. */
export const SMTP_PORTS = [25, 465, 587, 2525] as const;
/** A host name or an IP address. */
const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^[0-9A-Fa-f:]{2,39}$/;
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

const emptyToNull = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? null : value);
const optionalText = (schema: z.ZodType<string>) => z.preprocess(emptyToNull, schema.nullable()).optional();

/**
 * `PUT /v1/settings/email`: the whole set with the `version` last read (0 when never saved).
 * `password` absent keeps the stored one, unless the host, port, TLS mode or username change:
 * a password goes only to the server it was given for, so it is then cleared. `null` clears it.
 * With a `host`, `senderAddress` and `port` are required; with a content type on, at least one
 * recipient. With a username but no password, mail goes without a login.
 * The server's own checks (data/mailSettings.ts): a password needs TLS (`starttls` or `tls`), the
 * port is one of SMTP_PORTS, and the host resolves to public addresses only.
 */
export const emailSettingsBody = z
  .object({
    senderAddress: optionalText(z.email().max(254)),
    senderName: optionalText(z.string().trim().max(100)),
    host: optionalText(z.string().trim().max(253).regex(HOST, { message: 'issue.format' })),
    port: z.number().int().min(1).max(65535).nullable().optional(),
    tlsMode: z.enum(TLS_MODES).default('starttls'),
    username: optionalText(z.string().trim().max(254)),
    password: z.string().min(1).max(1024).nullable().optional(),
    recipients: z.array(z.email().max(254)).max(MAX_RECIPIENTS).default([]),
    feverAlert: z.boolean().default(false),
    blacklistAlert: z.boolean().default(false),
    questionnaireAlert: z.boolean().default(false),
    attendanceSummary: z.boolean().default(false),
    attendanceSummaryTime: z.string().regex(CLOCK, { message: 'devices.clockFormat' }).default('18:00'),
    version: z.number().int().min(0),
  })
  .strict()
  .superRefine((body, ctx) => {
    const required = (path: string) => ctx.addIssue({ code: 'custom', message: 'issue.required', path: [path] });
    if (body.host) {
      if (!body.senderAddress) required('senderAddress');
      if (body.port == null) required('port');
    }
    if (body.password && !body.username) required('username');
    if ((body.feverAlert || body.blacklistAlert || body.questionnaireAlert || body.attendanceSummary) && body.recipients.length === 0) required('recipients');
  });
export type EmailSettingsBody = z.output<typeof emailSettingsBody>;

/** `POST /v1/settings/email/test`: to `to`, else the first recipient, else the caller's own email. */
export const testMailBody = z.object({ to: z.email().max(254).optional() }).strict();

/** What `GET` and `PUT /v1/settings/email` answer; the password never comes back. */
export const emailSettingsAnswer = z.object({
  senderAddress: z.string().nullable(),
  senderName: z.string().nullable(),
  host: z.string().nullable().meta({ description: 'The company’s SMTP server; null: mail goes through the service’s own sender' }),
  port: z.number().int().nullable(),
  tlsMode: z.enum(TLS_MODES).meta({ description: '`none`: plain SMTP; `starttls`: upgrade with STARTTLS (required); `tls`: TLS from the first byte' }),
  username: z.string().nullable(),
  passwordSet: z.boolean().meta({ description: 'Whether a password is stored (it is never answered)' }),
  recipients: z.array(z.string()).meta({ description: 'Who receives the alerts and summaries' }),
  feverAlert: z.boolean().meta({ description: 'A mail at once when a pass record shows a fever' }),
  blacklistAlert: z.boolean().meta({ description: 'A mail at once when a person on a device’s blacklist passes it' }),
  questionnaireAlert: z.boolean().meta({ description: 'A mail at once when a questionnaire result is abnormal' }),
  attendanceSummary: z.boolean().meta({ description: 'A daily attendance summary mail' }),
  attendanceSummaryTime: z.string().meta({ description: 'When the summary goes, `HH:MM`' }),
  version: z.number().int().meta({ description: '0 while never saved; send it back with a change' }),
  updateTime: z.iso.datetime().nullable().meta({ description: 'When they were last saved; null while never saved' }),
});
export type EmailSettings = z.output<typeof emailSettingsAnswer>;

/** `POST /v1/settings/email/test`: how the test mail went (HTTP 200 either way). */
export const testMailAnswer = z.object({
  ok: z.boolean().meta({ description: 'Whether the mail was sent' }),
  error: z.string().nullable().meta({ description: 'Why it was not sent (a category), in the caller’s language; null when it was' }),
  to: z.string().meta({ description: 'Whom it went to' }),
  mailKey: z.string().meta({ description: 'Its mail record' }),
});
export type TestMailAnswer = z.output<typeof testMailAnswer>;

/** A mail record's key in URLs: the send time in milliseconds, a dash, the mail id. */
export const MAIL_KEY = /^\d{13}-[0-9a-z]{16}$/;
export const mailKeyParams = z.object({ mailKey: z.string().regex(MAIL_KEY, { message: 'error.itemNotFound' }) });

export const mailListQuery = z
  .object({
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    status: z.enum(MAIL_STATUSES).optional(),
    group: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,39}$/)
      .optional(),
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: z.string().regex(MAIL_KEY, { message: 'error.badCursor' }).optional(),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to), { message: 'mail.rangeReversed', path: ['to'] });

/** A mail record, as `/v1/mailRecords` lists and reads it. */
export const mailRecordAnswer = z.object({
  mailKey: z.string(),
  name: z.string().nullable().meta({ description: 'Whom or what the mail is about (the person of an alert, the account of an invitation); null when about nobody' }),
  group: z.string().meta({ description: 'What the mail is for: `verification`, `invitation`, `test`, `feverAlert`, …' }),
  from: z.string(),
  to: z.string(),
  title: z.string(),
  content: z.string().meta({ description: 'The text, with any code, password or link masked' }),
  status: z.enum(MAIL_STATUSES).meta({ description: '`queued`: to be sent in the background; `retrying`: an attempt failed for a temporary reason' }),
  error: z.string().nullable().meta({ description: 'Why it was not sent (a category), in the reader’s language' }),
  sendTime: z.iso.datetime(),
  attempts: z.number().int(),
  lastAttemptTime: z.iso.datetime().nullable(),
  nextAttemptTime: z.iso.datetime().nullable().meta({ description: 'When the next attempt is due, for a mail queued or retrying; else null' }),
  remarks: z.string().nullable().meta({ description: 'Which mail this one resends, or was resent as' }),
  resendable: z.boolean().meta({ description: 'False for a mail that held a code, password or link (masked in the record), that did not fail, or that was sent again already' }),
});
export type MailRecordJson = z.output<typeof mailRecordAnswer>;

/** `GET /v1/mailRecords`: a page, newest first. */
export const mailRecordPage = z.object({
  items: z.array(mailRecordAnswer),
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
});

/** `POST /v1/mailRecords/{mailKey}/resend`: the new mail and how it went. */
export const mailResendAnswer = z.object({
  mailKey: z.string().meta({ description: 'The resend’s own mail record' }),
  status: z.enum(MAIL_STATUSES),
  error: z.string().nullable().meta({ description: 'Why it was not sent (a category), in the caller’s language; null when it was' }),
});
