import { isIP } from 'node:net';
import type { Transporter } from 'nodemailer';
import { MAIL_FAILURES, type MailFailureCategory, type MailStatus } from '#contract/mail';
import type { Locale } from '#contract/locales';
import { mailRoute, pinSmtpHost, privateSmtpAllowed, smtpPortAllowed, type SmtpSettings } from '#data/mailSettings';
import { RETRY_QUEUE, claimRetry, createMailRecord, dueRetries, mailKeyOf, recordAttempt, type MailRecord } from '#data/mailRecords';
import { epochSeconds } from '#data/entity';
import { HostRefused } from './addresses.ts';
import { ses } from './aws.ts';
import { newId } from './crypto.ts';
import { translate } from './i18n.ts';
import { log } from './log.ts';
import { pool } from './pool.ts';
import { env } from './env.ts';

/**
 * THE mail service: every mail the product sends goes through `deliver` (or `sendMail`), which
 * picks the company's SMTP server when its email settings name one, else the service's own sender
 * (SES on AWS, the SMTP sink of the local host when `SMTP_HOST` is set), and writes a mail record.
 * Temporary failures (SMTP 4xx, connection errors, SES throttling) are tried again with back-off
 * by the retry runner (`retryDueMails`); permanent ones fail at once.
 */
export interface Mail {
  to: string;
  /** Whom or what the mail is about (the person of an alert, the account of an invitation), the Name of its record. */
  about?: string;
  /** The person an alert is about, so that erasing them scrubs the mail's record (flows/erasure.ts). */
  personKey?: string;
  subject: string;
  text: string;
  /** What the mail is for, shown as the record's group: `verification`, `feverAlert`, ... */
  kind: string;
  /** Secrets in the text (a verification code) that go out in the mail but are masked in its record. */
  secrets?: string[];
}

/** The text as the mail record keeps it: every secret masked. */
export function recordedText(mail: Pick<Mail, 'text' | 'secrets'>): string {
  return (mail.secrets ?? []).filter(Boolean).reduce((text, secret) => text.split(secret).join('*'.repeat(secret.length)), mail.text);
}

export interface MailOutcome {
  mailKey: string;
  status: MailStatus;
  /** Why it was not sent. */
  error?: MailFailureCategory;
  /** The SMTP reply code of a refusal. */
  errorCode?: number;
}

/**
 * A failed attempt: its category, whether trying again later may succeed, and the SMTP reply
 * code. The message is the remote side's own text, for the service's logs only: a company's
 * server is told what it answered in categories, never in the text of whatever listens there.
 */
export class MailFailure extends Error {
  constructor(
    readonly category: MailFailureCategory,
    readonly temporary: boolean,
    detail: string = category,
    readonly replyCode?: number,
  ) {
    super(detail);
  }
}

/** Connection failures worth another try later. */
const TEMPORARY_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const TEMPORARY_SES = new Set(['ThrottlingException', 'TooManyRequestsException', 'LimitExceededException', 'ServiceUnavailable', 'ServiceUnavailableException', 'InternalFailure', 'InternalServerException', 'TimeoutError']);
/** A socket error that is the TLS handshake's (nodemailer reports those as ESOCKET). */
const TLS_TEXT = /certificate|self[- ]signed|altname|ssl|tls|handshake|wrong version/i;

/** Classifies what nodemailer or SES threw. */
export function mailFailure(error: unknown): MailFailure {
  if (error instanceof MailFailure) return error;
  if (error instanceof HostRefused) return new MailFailure(error.reason === 'notPublic' ? 'blocked' : 'connect', error.reason !== 'notPublic', error.message);
  const e = (error ?? {}) as { message?: string; response?: string; responseCode?: number; code?: string; name?: string; library?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  const message = e.message ?? String(error);
  const detail = e.response && !message.includes(e.response) ? `${message} | ${e.response}` : message;
  if (e.$metadata) {
    const temporary = TEMPORARY_SES.has(e.name ?? '') || !!e.$retryable || (e.$metadata.httpStatusCode ?? 0) >= 500;
    return new MailFailure(temporary ? 'other' : 'refused', temporary, e.name ? `${e.name}: ${detail}` : detail);
  }
  const replyCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  const temporary = replyCode !== undefined ? replyCode >= 400 && replyCode < 500 : !!e.code && TEMPORARY_CODES.has(e.code);
  const category: MailFailureCategory =
    e.code === 'EAUTH' || e.code === 'ENOAUTH'
      ? 'auth'
      : e.code === 'ETLS' || (e.code === 'ESOCKET' && (TLS_TEXT.test(e.message ?? '') || !!e.library))
        ? 'tls'
        : e.code === 'EPROTOCOL'
          ? 'connect'
          : replyCode !== undefined || e.code === 'EENVELOPE' || e.code === 'EMESSAGE'
            ? 'refused'
            : e.code && TEMPORARY_CODES.has(e.code)
              ? 'connect'
              : 'other';
  // The reply code tells more only of a refusal (550 no such mailbox, 552 too large, ...).
  return new MailFailure(category, temporary && category !== 'tls', detail, category === 'refused' ? replyCode : undefined);
}

const isCategory = (value: string): value is MailFailureCategory => (MAIL_FAILURES as readonly string[]).includes(value);

/**
 * Why a mail was not sent, in the reader's language: its category, with the SMTP reply code when
 * the server refused it. Records kept before the categories carried the server's text; they read
 * as `other`.
 */
export function mailErrorText(locale: Locale, error: string | undefined | null, replyCode?: number | null): string | null {
  if (!error) return null;
  const reason = translate(locale, `mail.failure.${isCategory(error) ? error : 'other'}`);
  return replyCode ? translate(locale, 'mail.failure.withCode', { reason, code: replyCode }) : reason;
}

/** `Name <address>`, the name encoded for headers when it is not plain ASCII. */
export function formatSender(name: string | undefined, address: string): string {
  if (!name) return address;
  const safe = /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  return `${safe} <${address}>`;
}

/** The service's own sender (`MAIL_FROM`, `Name <address>` or `address`). */
function serviceSender(): { name?: string; address: string } {
  const from = env('MAIL_FROM') ?? 'Pass Cloud <no-reply@passcloud.local>';
  const match = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(from);
  return match ? { ...(match[1] ? { name: match[1] } : {}), address: match[2]!.trim() } : { address: from.trim() };
}

/**
 * The senders' code is loaded on the first mail a function sends: SES (and nodemailer, for a
 * company's SMTP server or the local sink) are in no function's start, and nodemailer only
 * where a company's server or the sink is used.
 */
const nodemailer = () => import('nodemailer');

async function sendSes(from: string, mail: Mail): Promise<void> {
  const { client, sdk } = await ses();
  await client.send(
    new sdk.SendEmailCommand({
      FromEmailAddress: from,
      Destination: { ToAddresses: [mail.to] },
      Content: { Simple: { Subject: { Data: mail.subject, Charset: 'UTF-8' }, Body: { Text: { Data: mail.text, Charset: 'UTF-8' } } } },
    }),
  );
}

let sink: Transporter | undefined;
async function sendSink(from: string, mail: Mail): Promise<void> {
  const { createTransport } = await nodemailer();
  sink ??= createTransport({ host: env('SMTP_HOST'), port: Number(env('SMTP_PORT') ?? 25), secure: false, ignoreTLS: true });
  await sink.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
}

/**
 * One mail through the company's own SMTP server, with its TLS mode and login. The host is looked
 * up and checked now (lib/addresses.ts), and the connection goes to that very address, with the
 * name kept for the certificate; a login is offered only over TLS.
 */
async function sendSmtp(smtp: SmtpSettings, from: string, mail: Mail): Promise<void> {
  const target = await pinSmtpHost(smtp.host);
  if (!smtpPortAllowed(smtp.port)) throw new MailFailure('blocked', false, `port ${smtp.port} is not a mail port`);
  const encrypted = smtp.tlsMode !== 'none';
  const { createTransport } = await nodemailer();
  const transport = createTransport({
    host: target.address,
    port: smtp.port,
    secure: smtp.tlsMode === 'tls',
    requireTLS: smtp.tlsMode === 'starttls',
    ignoreTLS: !encrypted,
    tls: {
      ...(isIP(smtp.host) ? {} : { servername: smtp.host }),
      // A developer's own server on a private address may have a self-signed certificate.
      ...(target.kind !== 'public' && privateSmtpAllowed() ? { rejectUnauthorized: false } : {}),
    },
    ...(smtp.auth && encrypted ? { auth: smtp.auth } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  } finally {
    transport.close();
  }
}

/** Sends once; answers the sender used, or throws a MailFailure. */
async function attempt(tenantId: string, mail: Mail): Promise<string> {
  const route = await mailRoute(tenantId).catch((error: unknown) => {
    log('error', 'email settings unreadable', { tenantId, error: String(error) });
    throw new MailFailure('other', true, 'The email settings could not be read');
  });
  if (route.smtp) {
    const from = formatSender(route.smtp.senderName, route.smtp.senderAddress);
    await sendSmtp(route.smtp, from, mail).catch((error: unknown) => {
      throw mailFailure(error);
    });
    return from;
  }
  const own = serviceSender();
  const from = formatSender(route.senderName ?? own.name, own.address);
  await (env('SMTP_HOST') ? sendSink(from, mail) : sendSes(from, mail)).catch((error: unknown) => {
    throw mailFailure(error);
  });
  return from;
}

/** The sender a mail of the company would go out with, for its record when the attempt failed before knowing. */
async function plannedSender(tenantId: string): Promise<string> {
  try {
    const route = await mailRoute(tenantId);
    if (route.smtp) return formatSender(route.smtp.senderName, route.smtp.senderAddress);
    const own = serviceSender();
    return formatSender(route.senderName ?? own.name, own.address);
  } catch {
    return serviceSender().address;
  }
}

export const MAX_ATTEMPTS = 5;
const retryBaseMs = (): number => Number(env('MAIL_RETRY_BASE_MS') ?? 60_000);
/** After attempt n (1-based) the next is due in base * 2^(n-1): 1, 2, 4 and 8 minutes by default. */
export const retryDelayMs = (attempts: number): number => retryBaseMs() * 2 ** (attempts - 1);
const RETENTION_DAYS = 365;

export interface DeliverOptions {
  /** Try temporary failures again in the background (default). Mails with secrets never are. */
  retry?: boolean;
  /** The mail key of the failed mail this one sends again. */
  resendOf?: string;
  /** The record's id and time, when its key had to be known before sending (newMailIdentity). */
  identity?: MailIdentity;
}

/** What a mail record's key is made of. */
export interface MailIdentity {
  mailId: string;
  sentAt: string;
}

export const newMailIdentity = (now = new Date()): MailIdentity => ({ mailId: newId(), sentAt: now.toISOString() });

/** What a mail's record holds of the mail itself, kept RETENTION_DAYS from when it was made. */
function recordOf(tenantId: string, mail: Mail, identity: MailIdentity, from: string): Omit<MailRecord, 'status' | 'attempts'> {
  return {
    tenantId,
    mailId: identity.mailId,
    sentAt: identity.sentAt,
    kind: mail.kind,
    ...(mail.about ? { name: mail.about } : {}),
    ...(mail.personKey ? { personKey: mail.personKey } : {}),
    from,
    to: mail.to,
    title: mail.subject,
    content: recordedText(mail),
    ttl: epochSeconds(new Date(identity.sentAt)) + RETENTION_DAYS * 86_400,
  };
}

/** Sends a mail and records it under the tenant; answers its key and status. */
export async function deliver(tenantId: string, mail: Mail, options: DeliverOptions = {}): Promise<MailOutcome> {
  const masked = (mail.secrets ?? []).some(Boolean);
  const retry = (options.retry ?? true) && !masked;
  const identity = options.identity ?? newMailIdentity();
  let from: string;
  let failure: MailFailure | undefined;
  try {
    from = await attempt(tenantId, mail);
  } catch (error) {
    failure = mailFailure(error);
    from = await plannedSender(tenantId);
    log('warn', 'mail not sent', { tenantId, kind: mail.kind, category: failure.category, error: failure.message, temporary: failure.temporary });
  }
  const at = new Date();
  const status: MailStatus = !failure ? 'sent' : failure.temporary && retry ? 'retrying' : 'failed';
  const record: MailRecord = {
    ...recordOf(tenantId, mail, identity, from),
    status,
    ...(failure ? { error: failure.category, ...(failure.replyCode ? { errorCode: failure.replyCode } : {}) } : {}),
    attempts: 1,
    lastAttemptAt: at.toISOString(),
    ...(masked ? { masked: true } : {}),
    ...(options.resendOf ? { resendOf: options.resendOf } : {}),
    ...(status === 'retrying' ? { retryQueue: RETRY_QUEUE, retryAt: new Date(at.getTime() + retryDelayMs(1)).toISOString() } : {}),
  };
  await createMailRecord(record);
  return { mailKey: mailKeyOf(record), status, ...(failure ? { error: failure.category, ...(failure.replyCode ? { errorCode: failure.replyCode } : {}) } : {}) };
}

/**
 * Records a mail for the mail service to send in the background; the caller then starts a pass
 * of the service (`MAIL_WORKER_FUNCTION`, see functions/iot/alerts.ts). What must not wait on a company's SMTP server (an alert during a terminal's upload)
 * queues its mails here; the service sends them and tries again as it does any mail.
 */
export async function enqueue(tenantId: string, mails: Mail[]): Promise<string[]> {
  if (mails.length === 0) return [];
  const now = new Date();
  const from = await plannedSender(tenantId);
  const keys: string[] = [];
  for (const mail of mails) {
    const identity = newMailIdentity(now);
    const record: MailRecord = { ...recordOf(tenantId, mail, identity, from), status: 'queued', attempts: 0, retryQueue: RETRY_QUEUE, retryAt: identity.sentAt };
    await createMailRecord(record);
    keys.push(mailKeyOf(record));
  }
  return keys;
}

/** Sends a mail and records it; answers whether it went out now (a user waiting is told when not). */
export async function sendMail(tenantId: string, mail: Mail): Promise<boolean> {
  return (await deliver(tenantId, mail)).status === 'sent';
}

/** How long a runner holds a mail it took before another may take it again. */
const LEASE_MS = 5 * 60_000;
/** Due mails read per pass, to find the tenants waiting behind one with many. */
const DUE_READ = 500;
/** Mails of one tenant tried per pass: a company whose server hangs holds up only its own. */
const PER_TENANT = 3;
/** Attempts under way at once. */
const RETRY_WIDTH = 10;

/** Another attempt of one mail that was due. */
async function retryOne(record: MailRecord, now: Date): Promise<boolean> {
  if (!(await claimRetry(record, new Date(now.getTime() + LEASE_MS)))) return false;
  const attempts = (record.attempts ?? 0) + 1;
  const mail: Mail = { to: record.to, subject: record.title, text: record.content, kind: record.kind, ...(record.name ? { about: record.name } : {}) };
  try {
    await attempt(record.tenantId, mail);
    await recordAttempt(record, { status: 'sent', attempts, at: new Date().toISOString() });
  } catch (error) {
    const failure = mailFailure(error);
    const at = new Date();
    const again = failure.temporary && attempts < MAX_ATTEMPTS;
    log('warn', 'mail not sent again', { tenantId: record.tenantId, kind: record.kind, category: failure.category, error: failure.message, attempts });
    await recordAttempt(record, {
      status: again ? 'retrying' : 'failed',
      error: failure.category,
      ...(failure.replyCode ? { errorCode: failure.replyCode } : {}),
      attempts,
      at: at.toISOString(),
      ...(again ? { nextAttemptAt: new Date(at.getTime() + retryDelayMs(attempts)).toISOString() } : {}),
    });
  }
  return true;
}

/**
 * The due mails of a pass, fairly: at most PER_TENANT of each tenant (its oldest due first), taken
 * in turns across tenants, at most `limit` in all.
 */
export function fairShare<T extends { tenantId: string }>(due: readonly T[], limit: number, perTenant = PER_TENANT): T[] {
  const byTenant = new Map<string, T[]>();
  for (const record of due) {
    const mine = byTenant.get(record.tenantId) ?? [];
    if (mine.length < perTenant) mine.push(record);
    byTenant.set(record.tenantId, mine);
  }
  const queues = [...byTenant.values()];
  const out: T[] = [];
  for (let turn = 0; turn < perTenant && out.length < limit; turn++) {
    for (const queue of queues) {
      if (out.length >= limit) break;
      if (queue[turn]) out.push(queue[turn]!);
    }
  }
  return out;
}

/**
 * One pass of the retry runner: the mails due are tried again, a fair share of each tenant,
 * RETRY_WIDTH at a time; a success is `sent`, a temporary failure waits longer, a permanent one or
 * the last attempt is `failed`. Runs every minute on AWS (a scheduled function) and on an interval
 * in the local host. Answers how many mails were tried.
 */
export async function retryDueMails(now = new Date(), limit = 50): Promise<number> {
  const chosen = fairShare(await dueRetries(now, DUE_READ), limit);
  const tried = await pool(chosen, RETRY_WIDTH, (record) =>
    retryOne(record, now).catch((error: unknown) => {
      log('error', 'mail retry failed', { tenantId: record.tenantId, error: String(error) });
      return false;
    }),
  );
  return tried.filter(Boolean).length;
}
