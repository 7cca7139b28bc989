import type { RetentionKind } from '#contract/settings';
import { privacySettings } from '#data/settings';
import { log } from '#lib/log';
import { deleteKeys, listObjects, type BucketName } from '#lib/storage';
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
 */
const SWEPT: Partial<Record<BucketName, RetentionKind>> = { captures: 'captures', recordings: 'recordings' };

export interface SweepResult {
  bucket: BucketName;
  deleted: number;
  kept: number;
}

/** Sweeps every company's objects in the captures and recordings buckets, as of `now`. */
export async function sweepRetention(now = Date.now()): Promise<SweepResult[]> {
  const periods = new Map<string, Promise<Awaited<ReturnType<typeof privacySettings>>>>();
  const settingsOf = (tenantId: string) => {
    let found = periods.get(tenantId);
    if (!found) periods.set(tenantId, (found = privacySettings(tenantId)));
    return found;
  };
  const results: SweepResult[] = [];
  for (const [bucket, kind] of Object.entries(SWEPT) as [BucketName, RetentionKind][]) {
    const result: SweepResult = { bucket, deleted: 0, kept: 0 };
    for await (const page of listObjects(bucket)) {
      const expired: string[] = [];
      for (const object of page) {
        const tenantId = object.key.slice(0, object.key.indexOf('/'));
        if (!tenantId) continue;
        const days = (await settingsOf(tenantId)).retentionDays[kind];
        if (now - object.lastModified.getTime() > days * 86_400_000) expired.push(object.key);
        else result.kept++;
      }
      if (expired.length) await deleteKeys(bucket, expired);
      result.deleted += expired.length;
    }
    results.push(result);
  }
  log('info', 'retention sweep', { results });
  return results;
}

/** The scheduled Lambda's entry point. */
export const handler = async (): Promise<SweepResult[]> => sweepRetention();
