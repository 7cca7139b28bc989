import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contract/locales';
import { computeAttendance, type StoredDay } from '#data/attendanceDays';
import { listDays } from '#data/attendanceLists';
import { attendanceTenants } from '#data/attendanceRules';
import { isConditionFailure } from '#data/entity';
import { findTenant } from '#data/identity';
import { readEmailSettings } from '#data/mailSettings';
import { EVENTS_TABLE, tableName } from '#data/tables';
import { companyTimezone } from '#data/tenants';
import { clockOf, dayOf } from '#domain/time';
import { dynamo } from '#lib/aws';
import { translate } from '#lib/i18n';
import { log, logged } from '#lib/log';
import { deliver } from '#lib/mail';
import { declareEnvironment } from '#lib/env';
import { ATTENDANCE_MAIL_SENT } from '#data/keys/events';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'MAIL_FROM', 'MAIN_TABLE']);

/** Names a summary lists per status before it says how many more. */
const NAMES_LISTED = 50;
/** Employee-days one summary reads at most (the company's staff for one day). */
const DAYS_READ = 10_000;

/**
 * The daily attendance summary (email settings' "attendance summary"), every few minutes (AWS: a
 * scheduled rule; one machine: the local host's timer): a company whose summary time has come in
 * its time zone and which has not had today's summary gets today's attendance computed for all its
 * staff, then one mail per recipient with the counts by status and who was absent, late, left
 * early or is missing a punch, recorded in the mail records. The day is marked sent by a
 * conditional write before the mails go, so two runs never send one day twice.
 */
export async function sendAttendanceSummaries(now = new Date()): Promise<number> {
  let sent = 0;
  for (const tenantId of await attendanceTenants()) {
    try {
      const settings = await readEmailSettings(tenantId);
      if (!settings.attendanceSummary || settings.recipients.length === 0) continue;
      const timezone = await companyTimezone(tenantId);
      if (clockOf(now, timezone) < settings.attendanceSummaryTime) continue;
      const day = dayOf(now, timezone);
      if (!(await markSent(tenantId, day))) continue;
      await computeAttendance(tenantId, day, day);
      const days: StoredDay[] = [];
      let cursor: string | undefined;
      do {
        const page = await listDays(tenantId, { from: day, to: day }, 200, cursor);
        days.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor && days.length < DAYS_READ);
      const stored = (await findTenant(tenantId))?.locale;
      const locale: Locale = stored && isLocale(stored) ? stored : DEFAULT_LOCALE;
      const subject = translate(locale, 'mail.attendanceSummarySubject', { date: day });
      const text = summaryText(days, day, locale);
      for (const to of settings.recipients) await deliver(tenantId, { to, kind: 'attendanceSummary', about: day, subject, text });
      sent++;
    } catch (error) {
      log('error', 'attendance summary not sent', { tenantId, error: String(error) });
    }
  }
  return sent;
}

/** The summary's text: the counts, then the names under each status that needs a look. */
export function summaryText(days: StoredDay[], day: string, locale: Locale): string {
  const having = (status: string) => days.filter((d) => d.status.includes(status as never));
  const count = (status: string) => having(status).length;
  const lines = [
    translate(locale, 'mail.attendanceSummaryCounts', {
      date: day,
      total: days.length,
      normal: count('normal'),
      late: count('late'),
      earlyLeave: count('earlyLeave'),
      missing: days.filter((d) => d.status.includes('missingIn') || d.status.includes('missingOut')).length,
      absence: count('absence'),
    }),
  ];
  const sections: [string, StoredDay[]][] = [
    ['mail.attendanceSummaryAbsent', having('absence')],
    ['mail.attendanceSummaryLate', having('late')],
    ['mail.attendanceSummaryEarly', having('earlyLeave')],
    ['mail.attendanceSummaryMissing', days.filter((d) => d.status.includes('missingIn') || d.status.includes('missingOut'))],
  ];
  for (const [id, list] of sections) {
    if (!list.length) continue;
    const names = list
      .slice(0, NAMES_LISTED)
      .map((d) => `${d.name} (${d.personId})${d.late && id === 'mail.attendanceSummaryLate' ? ` ${d.late} min` : ''}`)
      .join('\n  ');
    const more = list.length > NAMES_LISTED ? `\n  ${translate(locale, 'mail.attendanceSummaryMore', { count: list.length - NAMES_LISTED })}` : '';
    lines.push('', `${translate(locale, id as 'mail.attendanceSummaryAbsent', { count: list.length })}\n  ${names}${more}`);
  }
  if (days.some((d) => d.open)) lines.push('', translate(locale, 'mail.attendanceSummaryOpen'));
  return lines.join('\n');
}

/** Marks the company's summary of `day` sent; false when a run marked it before. */
async function markSent(tenantId: string, day: string): Promise<boolean> {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(EVENTS_TABLE),
        Item: {
          pk: tenantId,
          sk: ATTENDANCE_MAIL_SENT.of(day),
          kind: 'attendanceSummarySent',
          at: new Date().toISOString(),
          ttl: Math.floor(Date.now() / 1000) + 40 * 86_400,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The scheduled Lambda's entry point. */
export const handler = logged('attendanceMail', async (): Promise<number> => sendAttendanceSummaries());
