import type { RetentionKind } from '#contract/settings';
import { privacySettings } from '#data/settings';
import { log, logged } from '#lib/log';
import { deleteKeys, listObjects, listPrefixes, type BucketName } from '#lib/storage';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['CAPTURES_BUCKET', 'IMPORTS_BUCKET', 'MAIN_TABLE', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * The retention sweep: deletes each company's captured photos and call recordings older than its
 * retention period (privacy settings). It runs once a day (AWS: a scheduled rule; on one machine:
 * the local host's timer).
 *
 * Why a sweep: the period is each company's own (1 to 180 or 365 days) and every object key
 * starts with the company's tenant id. An S3 lifecycle rule matches a fixed prefix or tag with a
 * fixed age, and a bucket holds at most 1,000 rules, so rules cannot follow every company's
 * choice, and a change of the period would not reach objects already written. The sweep reads
 * the period in force when it runs, so a shorter period applies to everything already stored.
 * The buckets' own lifecycle rules (180 days for captures, 365 for recordings) remain the
 * ceiling, which is why the periods are bounded by them.
 *
 * Keys carry the UTC day they were written (`<tenantId>/capture/<YYYY-MM-DD>/…`,
 * `<tenantId>/recording/<YYYY-MM-DD>/…`), so the sweep never lists what it keeps: per company it
 * lists the day folders (at most the bucket's ceiling of them), deletes every object of the days
 * wholly past the period, and reads the ages only on the one day the period ends in. Keys written
 * before days were part of them are judged one by one by their age.
 */
const SWEPT: Partial<Record<BucketName, { kind: RetentionKind; folder: string }>> = {
  captures: { kind: 'captures', folder: 'capture' },
  recordings: { kind: 'recordings', folder: 'recording' },
};

export interface SweepResult {
  bucket: BucketName;
  deleted: number;
  kept: number;
  /** Objects whose age was read (the day the period ends in, and keys without a day). */
  judged: number;
}

const DAY_FOLDER = /\/(\d{4}-\d{2}-\d{2})\/$/;
const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Sweeps every company's objects in the captures and recordings buckets, as of `now` (a later
 * `now` is how a test moves time forward); `tenantIds` limits the sweep to those companies.
 */
export async function sweepRetention(now = Date.now(), tenantIds?: readonly string[]): Promise<SweepResult[]> {
  const results: SweepResult[] = [];
  for (const [bucket, { kind, folder }] of Object.entries(SWEPT) as [BucketName, { kind: RetentionKind; folder: string }][]) {
    const result: SweepResult = { bucket, deleted: 0, kept: 0, judged: 0 };
    for await (const tenants of listPrefixes(bucket)) {
      for (const tenantPrefix of tenants) {
        const tenantId = tenantPrefix.slice(0, -1);
        if (tenantIds && !tenantIds.includes(tenantId)) continue;
        const cutoff = now - (await privacySettings(tenantId)).retentionDays[kind] * 86_400_000;
        const lastDay = utcDay(cutoff);
        for await (const folders of listPrefixes(bucket, `${tenantPrefix}${folder}/`)) {
          for (const dayPrefix of folders) {
            const day = DAY_FOLDER.exec(dayPrefix)?.[1];
            // A whole day before the one the period ends in: everything goes, unread.
            if (day && day < lastDay) {
              result.deleted += await deleteAll(bucket, dayPrefix);
              continue;
            }
            // A later day is kept whole, unlisted.
            if (day && day > lastDay) continue;
            // The day the period ends in, or keys without a day: by each object's age.
            for await (const page of listObjects(bucket, dayPrefix)) {
              const expired = page.filter((o) => o.lastModified.getTime() < cutoff).map((o) => o.key);
              result.judged += page.length;
              result.kept += page.length - expired.length;
              if (expired.length) await deleteKeys(bucket, expired);
              result.deleted += expired.length;
            }
          }
        }
      }
    }
    results.push(result);
  }
  log('info', 'retention sweep', { results });
  return results;
}

/** Deletes every object under a prefix; answers how many. */
async function deleteAll(bucket: BucketName, prefix: string): Promise<number> {
  let count = 0;
  for await (const page of listObjects(bucket, prefix)) {
    if (page.length)
      await deleteKeys(
        bucket,
        page.map((o) => o.key),
      );
    count += page.length;
  }
  return count;
}

/** The scheduled Lambda's entry point. */
export const handler = logged('retention', async (): Promise<SweepResult[]> => sweepRetention());
