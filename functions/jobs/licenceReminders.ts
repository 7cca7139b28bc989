import { claims } from '#data/claims';
import { findTenant, listAccounts } from '#data/identity';
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contract/locales';
import { licences, reminderDays } from '#data/licences';
import { readEmailSettings } from '#data/mailSettings';
import { SYSTEM_SCOPE } from '#data/tables';
import { isConditionFailure } from '#data/entity';
import { shortCode } from '#domain/licence';
import { translate } from '#lib/i18n';
import { log, logged } from '#lib/log';
import { deliver } from '#lib/mail';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'MAIL_FROM', 'MAIN_TABLE']);

const DAY_MS = 86_400_000;

/**
 * Licence reminders, once a day (AWS: a scheduled rule; one machine: the local host's timer):
 * a licence that expires within its company's reminder days gets one mail per threshold to the
 * recipients of the email settings (the owner when there are none), in the language the company
 * registered in, recorded in the mail records.
 * The threshold is marked on the licence by a conditional write before the mail goes, so two
 * runs never send the same reminder.
 */
export async function sendLicenceReminders(now = Date.now()): Promise<number> {
  // Every activated licence is claimed under the system scope: the claims name the companies to look at.
  const activated = (await claims().query.primary({ tenantId: SYSTEM_SCOPE }).begins({ kind: 'licence' }).go({ pages: 'all' })).data;
  let reminded = 0;
  for (const claim of activated) {
    const tenantId = claim.ownerTenantId;
    const licence = (await licences().get({ tenantId, licenceId: claim.value }).go()).data;
    if (!licence) continue;
    const days = await reminderDays(tenantId);
    const left = Date.parse(licence.expiresAt) - now;
    if (left <= 0 || left > days * DAY_MS || (licence.remindedAt ?? []).includes(days)) continue;
    try {
      await licences()
        .patch({ tenantId, licenceId: licence.licenceId })
        .set({ remindedAt: [...(licence.remindedAt ?? []), days] })
        .where((attr, op) => op.notContains(attr.remindedAt, days))
        .go();
    } catch (error) {
      if (isConditionFailure(error)) continue;
      throw error;
    }
    const stored = (await findTenant(tenantId))?.locale;
    const locale: Locale = stored && isLocale(stored) ? stored : DEFAULT_LOCALE;
    const recipients = (await readEmailSettings(tenantId)).recipients;
    const owner = recipients.length ? undefined : (await listAccounts(tenantId)).find((a) => a.owner)?.email;
    const params = { code: shortCode(licence.code), seats: licence.seats, date: licence.expiresAt.slice(0, 10), days: Math.ceil(left / DAY_MS) };
    for (const to of recipients.length ? recipients : owner ? [owner] : []) {
      await deliver(tenantId, {
        to,
        kind: 'licenceReminder',
        about: params.code,
        subject: translate(locale, 'mail.licenceReminderSubject', params),
        text: translate(locale, 'mail.licenceReminderBody', params),
      });
    }
    reminded++;
  }
  log('info', 'licence reminders', { reminded });
  return reminded;
}

/** The scheduled Lambda's entry point. */
export const handler = logged('licenceReminders', async (): Promise<number> => sendLicenceReminders());
