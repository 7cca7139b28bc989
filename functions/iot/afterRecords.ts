import { punchesArrived } from '#data/attendanceDays';
import type { PassRecord } from '#data/passRecords';
import { log } from '#lib/log';
import { alertsFor } from './alerts.ts';
import { announcePasses } from './live.ts';
import { passEvents } from './webhookProducers.ts';

/**
 * Everything that follows pass records newly stored (iot/records.ts, after the terminal's ack),
 * in this one place and all at once:
 * - the open consoles see them on the live channel (iot/live.ts);
 * - employees' punches count towards their attendance days (data/attendanceDays.ts);
 * - a fever or a blacklisted person mails the company's alert recipients (iot/alerts.ts);
 * - the company's webhooks get `pass.record`, `blacklist.hit`, `fever.detected` and
 *   `stranger.detected` (iot/webhookProducers.ts).
 * A failure of one is logged and keeps none of the others from happening; none is tried again.
 */
export async function afterRecordsStored(tenantId: string, deviceKey: string, fresh: PassRecord[]): Promise<void> {
  const failed = (what: string, recordId?: string) => (error: unknown) => log('error', `${what} failed`, { tenantId, deviceKey, recordId, error: String(error) });
  await Promise.all([
    announcePasses(tenantId, fresh).catch(failed('live announcement')),
    punchesArrived(tenantId, fresh).catch(failed('attendance')),
    ...fresh.flatMap((record) => [alertsFor(record).catch(failed('alert mails', record.recordId)), passEvents(record).catch(failed('webhook events', record.recordId))]),
  ]);
}
