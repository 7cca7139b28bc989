import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { isLocale, type Locale } from '#contract/locales';
import { findDevice } from '#data/devices';
import { epochSeconds, isConditionFailure } from '#data/entity';
import { readEmailSettings } from '#data/mailSettings';
import { recordKeyOf, type PassRecord } from '#data/passRecords';
import { EVENTS_TABLE, tableName } from '#data/tables';
import { countAttempt, findTenant } from '#data/identity';
import { companyTimezone } from '#data/tenants';
import { dynamo } from '#lib/aws';
import { translate } from '#lib/i18n';
import { ThrottledError } from '#lib/errors';
import { log } from '#lib/log';
import { consoleLink } from '#lib/consoleLinks';
import { enqueue, retryDueMails, type Mail } from '#lib/mail';
import { startWorker } from '#lib/jobs';
import type { QuestionnaireResultItem } from '#contract/questionnaires';
import { ALERT_GATE } from '#data/keys/events';

/**
 * Real-time alert mails, sent when a record is stored: a fever (a temperature at or above the
 * device's alarm threshold) and a pass by a person on the device's blacklist. Each goes to the
 * recipients of the company's email settings when that kind is switched on, through the mail
 * service (so it is recorded in the mail records), at most once per person per device per
 * ALERT_INTERVAL_MS. A person is one the company has: a key a terminal sends that names nobody
 * counts as a stranger, so made-up keys cannot open slots of their own. A company gets at most
 * THROTTLES.alertMails alert mails an hour; those past it are logged, not sent.
 */
export const ALERT_INTERVAL_MS = 10 * 60_000;
export type AlertKind = 'feverAlert' | 'blacklistAlert' | 'questionnaireAlert';

/**
 * Takes the alert slot of (kind, device, person) for the next interval: one conditional write, so
 * of records arriving together for the same person only one mails.
 */
export async function takeAlertSlot(tenantId: string, kind: AlertKind, deviceKey: string, who: string, now = Date.now()): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(EVENTS_TABLE),
        Item: {
          pk: tenantId,
          sk: ALERT_GATE.of(kind, deviceKey, who),
          until: now + ALERT_INTERVAL_MS,
          ttl: epochSeconds(new Date(now + ALERT_INTERVAL_MS)) + 3600,
        },
        ConditionExpression: 'attribute_not_exists(sk) OR #until <= :now',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: { ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Where the alert's reader sees the record: its screen in the console, which opens it (after a
 * login) with its capture beside the enrolled photo. A link that lasts, unlike a presigned link
 * to the capture, which dies with the credentials that signed it.
 */
export function recordLink(record: PassRecord, kind: AlertKind): string {
  const path = kind === 'blacklistAlert' ? '/pass-platform/passage/blacklist/record' : '/pass-platform/passage/record';
  return consoleLink(path, { record: recordKeyOf(record) });
}

function formatTime(iso: string, timeZone: string, locale: Locale): string {
  return new Intl.DateTimeFormat(locale.replace('_', '-'), { timeZone, dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));
}

export async function sendAlert(record: PassRecord, kind: AlertKind): Promise<void> {
  const settings = await readEmailSettings(record.tenantId);
  if (!settings[kind] || settings.recipients.length === 0) return;
  // personKind is set only when the key names one of the company's people (iot/records.ts).
  const who = record.personKind && record.personKey ? record.personKey : 'stranger';
  if (!(await takeAlertSlot(record.tenantId, kind, record.deviceKey, who))) return;
  const [tenant, device, timeZone] = await Promise.all([
    findTenant(record.tenantId),
    findDevice(record.tenantId, record.deviceKey),
    companyTimezone(record.tenantId),
  ]);
  const locale: Locale = tenant?.locale && isLocale(tenant.locale) ? tenant.locale : 'en_US';
  const params = {
    name: record.name ?? translate(locale, record.type === 'stranger' ? 'mail.alertStranger' : 'mail.alertUnnamed'),
    device: device?.name ?? record.deviceKey,
    time: formatTime(record.verifyTime, timeZone, locale),
    temperature: record.temperature !== undefined ? record.temperature.toFixed(1) : translate(locale, 'mail.alertNotKept'),
    capture: recordLink(record, kind),
  };
  const subject = translate(locale, kind === 'feverAlert' ? 'mail.feverSubject' : 'mail.blacklistSubject', params);
  const text = translate(locale, kind === 'feverAlert' ? 'mail.feverBody' : 'mail.blacklistBody', params);
  const mails: Mail[] = [];
  for (const to of settings.recipients) {
    if (!(await withinAlertLimit(record.tenantId))) {
      log('warn', 'alert mail over the hourly limit, not sent', { tenantId: record.tenantId, kind, deviceKey: record.deviceKey, recordId: record.recordId });
      continue;
    }
    mails.push({ to, subject, text, kind, about: params.name, ...(record.personKind && record.personKey ? { personKey: record.personKey } : {}) });
  }
  // Recorded now, sent by the mail service: a slow SMTP server holds up neither the terminal's
  // upload nor the other recipients, and a failed send is tried again like any mail.
  if ((await enqueue(record.tenantId, mails)).length > 0) await startWorker('MAIL_WORKER_FUNCTION', {}, async () => void (await retryDueMails()), 'mail');
}

/**
 * A mail about an abnormal questionnaire result, when the email settings ask for it: at most one
 * per person (or, for an anonymous answer, per result) per device per ALERT_INTERVAL_MS, within
 * the company's hourly limit of alert mails.
 */
export async function sendQuestionnaireAlert(item: QuestionnaireResultItem, tenantId: string): Promise<void> {
  const settings = await readEmailSettings(tenantId);
  if (!settings.questionnaireAlert || settings.recipients.length === 0) return;
  if (!(await takeAlertSlot(tenantId, 'questionnaireAlert', item.deviceKey, item.person?.personKey ?? item.resultKey))) return;
  const [tenant, timeZone] = await Promise.all([findTenant(tenantId), companyTimezone(tenantId)]);
  const locale: Locale = tenant?.locale && isLocale(tenant.locale) ? tenant.locale : 'en_US';
  const alarms = item.answers.filter((a) => a.alarm).map((a) => `${a.question}: ${a.choices.join(', ')}`);
  const params = {
    title: item.title,
    name: item.person?.name ?? translate(locale, 'mail.alertAnonymous'),
    device: item.deviceName,
    time: formatTime(item.answerTime, timeZone, locale),
    answers: alarms.join('\n'),
    link: consoleLink('/pass-platform/passage/questionnaire', { questionnaire: item.questionnaireKey }),
  };
  const subject = translate(locale, 'mail.questionnaireSubject', params);
  const text = translate(locale, 'mail.questionnaireBody', params);
  const mails: Mail[] = [];
  for (const to of settings.recipients) {
    if (!(await withinAlertLimit(tenantId))) {
      log('warn', 'alert mail over the hourly limit, not sent', { tenantId, kind: 'questionnaireAlert', deviceKey: item.deviceKey });
      continue;
    }
    mails.push({ to, subject, text, kind: 'questionnaireAlert', about: params.name, ...(item.person?.personKey ? { personKey: item.person.personKey } : {}) });
  }
  if ((await enqueue(tenantId, mails)).length > 0) await startWorker('MAIL_WORKER_FUNCTION', {}, async () => void (await retryDueMails()), 'mail');
}

/** Counts one alert mail of the company; false when its hourly limit is reached. */
async function withinAlertLimit(tenantId: string): Promise<boolean> {
  try {
    await countAttempt('alertMails', tenantId, 'status.429', tenantId);
    return true;
  } catch (error) {
    if (error instanceof ThrottledError) return false;
    throw error;
  }
}

/** The alert mails a newly stored record causes: a fever, a blacklisted person (iot/afterRecords.ts). */
export async function alertsFor(record: PassRecord): Promise<void> {
  const kinds: AlertKind[] = [...(record.fever ? (['feverAlert'] as const) : []), ...(record.type === 'blacklist' ? (['blacklistAlert'] as const) : [])];
  for (const kind of kinds) {
    await sendAlert(record, kind).catch((error: unknown) => log('error', 'alert mail not sent', { tenantId: record.tenantId, kind, error: String(error) }));
  }
}
