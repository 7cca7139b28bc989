import { SendEmailCommand } from '@aws-sdk/client-sesv2';
import { createTransport, type Transporter } from 'nodemailer';
import { mailRecords } from '#data/mailRecords';
import { epochSeconds } from '#data/entity';
import { ses } from './aws.ts';
import { newId } from './crypto.ts';
import { log } from './log.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** What the mail is for, shown in the mail records: `verification`, `fever-alert`, ... */
  kind: string;
  /** Secrets in the text (a verification code) that go out in the mail but are masked in its record. */
  secrets?: string[];
}

/** The text as the mail record keeps it: every secret masked. */
export function recordedText(mail: Pick<Mail, 'text' | 'secrets'>): string {
  return (mail.secrets ?? []).filter(Boolean).reduce((text, secret) => text.split(secret).join('*'.repeat(secret.length)), mail.text);
}

/** The one port for outgoing mail: SES on AWS, SMTP (the local sink) when `SMTP_HOST` is set. */
export interface MailTransport {
  send(from: string, mail: Mail): Promise<void>;
}

const sesTransport: MailTransport = {
  async send(from, mail) {
    await ses().send(
      new SendEmailCommand({
        FromEmailAddress: from,
        Destination: { ToAddresses: [mail.to] },
        Content: { Simple: { Subject: { Data: mail.subject, Charset: 'UTF-8' }, Body: { Text: { Data: mail.text, Charset: 'UTF-8' } } } },
      }),
    );
  },
};

let smtp: Transporter | undefined;
const smtpTransport: MailTransport = {
  async send(from, mail) {
    smtp ??= createTransport({ host: process.env.SMTP_HOST, port: Number(process.env.SMTP_PORT ?? 25), secure: false, ignoreTLS: true });
    await smtp.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
  },
};

const transport = (): MailTransport => (process.env.SMTP_HOST ? smtpTransport : sesTransport);
const sender = (): string => process.env.MAIL_FROM ?? 'Pass Cloud <no-reply@passcloud.local>';
const RETENTION_DAYS = 365;

/** Sends a mail and records it (to, title, status, send time) under the tenant; answers whether it went out. */
export async function sendMail(tenantId: string, mail: Mail): Promise<boolean> {
  const from = sender();
  let error: string | undefined;
  try {
    await transport().send(from, mail);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    log('warn', 'mail not sent', { tenantId, kind: mail.kind, error });
  }
  const sentAt = new Date();
  await mailRecords()
    .create({
      tenantId,
      mailId: newId(),
      sentAt: sentAt.toISOString(),
      kind: mail.kind,
      from,
      to: mail.to,
      title: mail.subject,
      content: recordedText(mail),
      status: error ? 'failed' : 'sent',
      error,
      ttl: epochSeconds(sentAt) + RETENTION_DAYS * 86_400,
    })
    .go();
  return !error;
}
