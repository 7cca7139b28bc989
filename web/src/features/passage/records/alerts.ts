import dayjs from 'dayjs';
import type { PassRecordItem } from '@passcloud/functions/contract/passRecords';

/*
 * What the console shell needs of pass records for its blacklist alerts. It loads with the
 * shell, so it takes only types from the contract (whose schemas stay with the record screens).
 */

export const BLACKLIST_RECORDS_SCREEN = '/pass-platform/passage/blacklist/record';

/** Today as a day of the record filters (`YYYY-MM-DD`). */
export const today = (now: Date = new Date()): string => dayjs(now).format('YYYY-MM-DD');

/** What the alerts have seen: the newest stored time, and the records stored at that very time. */
export interface SeenRecords {
  time: number;
  keys: Set<string>;
}

/**
 * Splits the latest records into those not seen before (oldest first) and the new watermark.
 * Without a watermark (the first answer) nothing is new: records made before the console
 * opened are not alerts. Records are stored in time order, so one older than the watermark
 * has been seen.
 */
export function unseenRecords(seen: SeenRecords | null, items: readonly PassRecordItem[]): { fresh: PassRecordItem[]; seen: SeenRecords } {
  const at = (item: PassRecordItem) => Date.parse(item.time);
  const fresh = seen ? items.filter((item) => at(item) > seen.time || (at(item) === seen.time && !seen.keys.has(item.recordKey))) : [];
  const time = Math.max(seen?.time ?? 0, ...items.map(at));
  const keys = new Set(items.filter((item) => at(item) === time).map((item) => item.recordKey));
  if (seen && seen.time === time) for (const key of seen.keys) keys.add(key);
  return { fresh: fresh.sort((a, b) => at(a) - at(b)), seen: { time, keys } };
}
