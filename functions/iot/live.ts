import { LIVE_ITEMS_PER_MESSAGE, liveTopics, type LiveMessage } from '#contract/live';
import type { PassRecordItem } from '#contract/passRecords';
import type { PassRecord } from '#data/passRecords';
import { publish } from '#lib/iot';
import { log } from '#lib/log';
import { recordItems } from '#views/passRecordItems';

/**
 * Tells the company's open consoles of passes just stored (contract/live.ts): every pass on its
 * `passes` topic, blacklist passes on `blacklist` too, at most LIVE_ITEMS_PER_MESSAGE a message.
 * Nobody listening costs one publish; a broker that cannot be reached loses the announcement,
 * not the records (the consoles read them on their next refresh).
 */
export async function announcePasses(tenantId: string, records: PassRecord[]): Promise<void> {
  if (records.length === 0) return;
  const items = await recordItems(tenantId, [...records].sort((a, b) => a.verifyTime.localeCompare(b.verifyTime)), true);
  const topics = liveTopics(tenantId);
  const send = async (topic: string, list: PassRecordItem[]) => {
    for (let i = 0; i < list.length; i += LIVE_ITEMS_PER_MESSAGE) {
      await publish(topic, { items: list.slice(i, i + LIVE_ITEMS_PER_MESSAGE) } satisfies LiveMessage);
    }
  };
  try {
    await Promise.all([send(topics.passes, items), send(topics.blacklist, items.filter((item) => item.type === 'blacklist'))]);
  } catch (error) {
    log('warn', 'passes not announced to consoles', { tenantId, count: records.length, error: String(error) });
  }
}
