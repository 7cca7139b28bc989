import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { createTransport, type Transporter } from 'nodemailer';
import type { MailStatus } from '#contract/mail';
import { mailRoute, type SmtpSettings } from '#data/mailSettings';
import { RETRY_QUEUE, claimRetry, createMailRecord, dueRetries, mailKeyOf, recordAttempt, type MailRecord } from '#data/mailRecords';
import { epochSeconds } from '#data/entity';
import { ses } from './aws.ts';
import { newId } from './crypto.ts';
import { log } from './log.ts';

/**
 * THE mail service: every mail the product sends goes through `deliver` (or `sendMail`), which
 * picks the company's SMTP server when its email settings name one, else the service's own sender
 * (SES on AWS, the SMTP sink of the local host when `SMTP_HOST` is set), and writes a mail record.
 * Temporary failures (SMTP 4xx, connection errors, SES throttling) are tried again with back-off
 * by the retry runner (`retryDueMails`); permanent ones fail at once.
 */
export interface Mail {
  to: string;
  /** The recipient's name when known, shown in the mail records. */
  toName?: string;
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
  /** The server's own text of the failure (the SMTP reply, SES's error). */
  error?: string;
}

/** A failed attempt: the server's text, and whether trying again later may succeed. */
export class MailFailure extends Error {
  constructor(
    message: string,
    readonly temporary: boolean,
  ) {
    super(message);
  }
}

const TEMPORARY_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const TEMPORARY_SES = new Set(['ThrottlingException', 'TooManyRequestsException', 'LimitExceededException', 'ServiceUnavailable', 'ServiceUnavailableException', 'InternalFailure', 'InternalServerException', 'TimeoutError']);

/** Classifies what nodemailer or SES threw. */
export function mailFailure(error: unknown): MailFailure {
  if (error instanceof MailFailure) return error;
  const e = (error ?? {}) as { message?: string; response?: string; responseCode?: number; code?: string; name?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  const message = String(e.message ?? error);
  if (typeof e.responseCode === 'number') return new MailFailure(e.response ?? message, e.responseCode >= 400 && e.responseCode < 500);
  if (e.code && TEMPORARY_CODES.has(e.code)) return new MailFailure(message, true);
  if (e.$metadata) {
    const text = e.name ? `${e.name}: ${message}` : message;
    return new MailFailure(text, TEMPORARY_SES.has(e.name ?? '') || !!e.$retryable || (e.$metadata.httpStatusCode ?? 0) >= 500);
  }
  return new MailFailure(message, false);
}

/** `Name <address>`, the name encoded for headers when it is not plain ASCII. */
export function formatSender(name: string | undefined, address: string): string {
  if (!name) return address;
  const safe = /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}"` : `=?UTF-8?B?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  return `${safe} <${address}>`;
}

/** The service's own sender (`MAIL_FROM`, `Name <address>` or `address`). */
function serviceSender(): { name?: string; address: string } {
  const from = process.env.MAIL_FROM ?? 'Pass Cloud <no-reply@passcloud.local>';
  const match = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(from);
  return match ? { ...(match[1] ? { name: match[1] } : {}), address: match[2]!.trim() } : { address: from.trim() };
}

async function sendSes(from: string, mail: Mail): Promise<void> {
  await ses().send(
    new SendEmailCommand({
      FromEmailAddress: from,
      Destination: { ToAddresses: [mail.to] },
      Content: { Simple: { Subject: { Data: mail.subject, Charset: 'UTF-8' }, Body: { Text: { Data: mail.text, Charset: 'UTF-8' } } } },
    }),
  );
}

let sink: Transporter | undefined;
async function sendSink(from: string, mail: Mail): Promise<void> {
  sink ??= createTransport({ host: process.env.SMTP_HOST, port: Number(process.env.SMTP_PORT ?? 25), secure: false, ignoreTLS: true });
  await sink.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
}

/** One mail through the company's own SMTP server, with its TLS mode and login. */
async function sendSmtp(smtp: SmtpSettings, from: string, mail: Mail): Promise<void> {
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tlsMode === 'tls',
    requireTLS: smtp.tlsMode === 'starttls',
    ignoreTLS: smtp.tlsMode === 'none',
    ...(smtp.auth ? { auth: smtp.auth } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  try {
    await transport.sendMail({ from, to: mail.toName ? { name: mail.toName, address: mail.to } : mail.to, subject: mail.subject, text: mail.text });
  } finally {
    transport.close();
  }
}

/** Sends once; answers the sender used, or throws a MailFailure. */
async function attempt(tenantId: string, mail: Mail): Promise<string> {
  const route = await mailRoute(tenantId).catch((error: unknown) => {
    log('error', 'email settings unreadable', { tenantId, error: String(error) });
    throw new MailFailure('The email settings could not be read', true);
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
  await (process.env.SMTP_HOST ? sendSink(from, mail) : sendSes(from, mail)).catch((error: unknown) => {
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
const retryBaseMs = (): number => Number(process.env.MAIL_RETRY_BASE_MS ?? 60_000);
/** After attempt n (1-based) the next is due in base * 2^(n-1): 1, 2, 4 and 8 minutes by default. */
export const retryDelayMs = (attempts: number): number => retryBaseMs() * 2 ** (attempts - 1);
const RETENTION_DAYS = 365;

export interface DeliverOptions {
  /** Try temporary failures again in the background (default). Mails with secrets never are. */
  retry?: boolean;
  /** The mail key of the failed mail this one sends again. */
  resendOf?: string;
}

/** Sends a mail and records it under the tenant; answers its key and status. */
export async function deliver(tenantId: string, mail: Mail, options: DeliverOptions = {}): Promise<MailOutcome> {
  const masked = (mail.secrets ?? []).some(Boolean);
  const retry = (options.retry ?? true) && !masked;
  const started = new Date();
  let from: string;
  let failure: MailFailure | undefined;
  try {
    from = await attempt(tenantId, mail);
  } catch (error) {
    failure = mailFailure(error);
    from = await plannedSender(tenantId);
    log('warn', 'mail not sent', { tenantId, kind: mail.kind, error: failure.message, temporary: failure.temporary });
  }
  const at = new Date();
  const status: MailStatus = !failure ? 'sent' : failure.temporary && retry ? 'retrying' : 'failed';
  const record: MailRecord = {
    tenantId,
    mailId: newId(),
    sentAt: started.toISOString(),
    kind: mail.kind,
    ...(mail.toName ? { name: mail.toName } : {}),
    from,
    to: mail.to,
    title: mail.subject,
    content: recordedText(mail),
    status,
    ...(failure ? { error: failure.message } : {}),
    attempts: 1,
    lastAttemptAt: at.toISOString(),
    ...(masked ? { masked: true } : {}),
    ...(options.resendOf ? { resendOf: options.resendOf } : {}),
    ...(status === 'retrying' ? { retryQueue: RETRY_QUEUE, retryAt: new Date(at.getTime() + retryDelayMs(1)).toISOString() } : {}),
    ttl: epochSeconds(started) + RETENTION_DAYS * 86_400,
  };
  await createMailRecord(record);
  return { mailKey: mailKeyOf(record), status, ...(failure ? { error: failure.message } : {}) };
}

/** Sends a mail and records it; answers whether it went out now (a user waiting is told when not). */
export async function sendMail(tenantId: string, mail: Mail): Promise<boolean> {
  return (await deliver(tenantId, mail)).status === 'sent';
}

/** How long a runner holds a mail it took before another may take it again. */
const LEASE_MS = 5 * 60_000;

/**
 * One pass of the retry runner: every mail due is tried again; a success is `sent`, a temporary
 * failure waits longer, a permanent one or the last attempt is `failed` with the server's text.
 * Runs every minute on AWS (a scheduled function) and on an interval in the local host.
 */
export async function retryDueMails(now = new Date(), limit = 50): Promise<number> {
  let tried = 0;
  for (const record of await dueRetries(now, limit)) {
    if (!(await claimRetry(record, new Date(now.getTime() + LEASE_MS)))) continue;
    tried++;
    const attempts = (record.attempts ?? 1) + 1;
    const mail: Mail = { to: record.to, subject: record.title, text: record.content, kind: record.kind, ...(record.name ? { toName: record.name } : {}) };
    try {
      await attempt(record.tenantId, mail);
      await recordAttempt(record, { status: 'sent', attempts, at: new Date().toISOString() });
    } catch (error) {
      const failure = mailFailure(error);
      const at = new Date();
      const again = failure.temporary && attempts < MAX_ATTEMPTS;
      await recordAttempt(record, {
        status: again ? 'retrying' : 'failed',
        error: failure.message,
        attempts,
        at: at.toISOString(),
        ...(again ? { nextAttemptAt: new Date(at.getTime() + retryDelayMs(attempts)).toISOString() } : {}),
      });
    }
  }
  return tried;
}
