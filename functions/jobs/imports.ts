import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locale } from '#contract/locales';
import { findImportJob, moveImportJob, recordImportProgress, uploadKey } from '#data/importJobs';
import { AppError } from '#lib/errors';
import { translate } from '#lib/i18n';
import { log, logged } from '#lib/log';
import { deleteObject, getObjectBytes, saveObjectTo } from '#lib/storage';
import { importArchive, importRows, reasonsOf, type Progress } from '#flows/peopleImport';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'MAIN_TABLE',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/**
 * The background import worker: reads the uploaded workbook or photo archive of a queued import
 * job, imports it, records its progress about once a second and its report at the end, and
 * removes the upload. On AWS it is a Lambda function invoked asynchronously; the local host runs
 * it in-process (lib/jobs.ts).
 */
export interface ImportTask {
  tenantId: string;
  jobKey: string;
}

/** A report keeps this many of the rows or entries that went wrong; its counts cover them all. */
const PROBLEMS_KEPT = 1000;
const PROGRESS_EVERY_MS = 1000;

export async function runImport({ tenantId, jobKey }: ImportTask): Promise<void> {
  const job = await findImportJob(tenantId, jobKey);
  // A task delivered twice finds its job already running or finished.
  if (!job || job.state !== 'queued') return;
  await moveImportJob(tenantId, jobKey, 'queued', 'running');
  const locale = job.locale as Locale;
  const key = uploadKey(job);
  const counted = { processed: 0, total: 0, at: 0 };
  const progress: Progress = (processed, total) => {
    Object.assign(counted, { processed, total });
    if (Date.now() - counted.at < PROGRESS_EVERY_MS) return;
    counted.at = Date.now();
    recordImportProgress(tenantId, jobKey, processed, total).catch((error: unknown) =>
      log('warn', 'import progress not recorded', { jobKey, error: String(error) }),
    );
  };
  const dir = await mkdtemp(join(tmpdir(), 'passcloud-import-'));
  // The uploaded file goes as soon as it has been read, and in any case before the job says it is
  // over: whoever sees the job finished (and uploads the next file) finds storage settled.
  const release = () => deleteObject('imports', tenantId, key).catch(() => undefined);
  try {
    let report: Record<string, unknown>;
    if (job.step === 'info') {
      const bytes = await getObjectBytes('imports', tenantId, key);
      await release();
      const { rows, ...counts } = await importRows(tenantId, job.kind, bytes, locale, progress);
      report = { ...counts, rows: rows.filter((r) => r.status === 'rejected').slice(0, PROBLEMS_KEPT) };
    } else {
      const path = join(dir, 'photos.zip');
      await saveObjectTo('imports', tenantId, key, path);
      await release();
      const { entries, ...counts } = await importArchive(tenantId, job.kind, path, locale, progress);
      report = { ...counts, entries: entries.filter((e) => e.status === 'skipped').slice(0, PROBLEMS_KEPT) };
    }
    await moveImportJob(tenantId, jobKey, 'running', 'done', { report, processed: counted.processed, total: counted.total });
  } catch (error) {
    let message: string;
    if (error instanceof AppError) message = reasonsOf(error, locale).join(translate(locale, 'issue.separator'));
    else {
      log('error', 'import stopped', { jobKey, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      message = translate(locale, 'import.stopped');
    }
    await release();
    await moveImportJob(tenantId, jobKey, 'running', 'failed', { error: message });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const handler = logged('imports', runImport);
