import type { RecordExportJob } from '#contract/passRecords';
import type { Locale } from '#contract/locales';
import { createExportJob, failExportJob, findExportJob, type ExportJob } from '#data/exportJobs';
import { releaseJobSlot, takeJobSlot } from '#data/jobSlots';
import { newId } from '#lib/crypto';
import { NotFoundError } from '#lib/errors';
import { queued } from '#lib/http';
import { translate } from '#lib/i18n';
import { lostWorker, startWorker } from '#lib/jobs';
import { presignedGet } from '#lib/storage';

/**
 * Exports of lists (pass records, blacklist records, intercom calls) made in the background by
 * the export worker (jobs/recordExports.ts), a few at a time per company, and the job as the
 * console follows it.
 */

export async function exportJson(job: ExportJob): Promise<RecordExportJob> {
  return {
    jobKey: job.jobKey,
    state: job.state,
    done: job.done,
    total: job.total ?? null,
    truncated: job.truncated ?? false,
    // Saved under its own name, never shown in the browser (ASVS V5.4.1).
    url:
      job.state === 'done' && job.fileKey
        ? await presignedGet('imports', job.tenantId, job.fileKey, undefined, { downloadAs: job.fileKey.split('/').pop()! })
        : null,
    error: job.error ?? null,
  };
}

export async function startExport(tenantId: string, list: ExportJob['list'], query: object, locale: string, check: () => Promise<void>) {
  // Checked now, so a bad filter answers 422 here rather than failing in the background.
  await check();
  // A company runs a few exports at a time; the slot is given back when the export ends.
  const jobKey = newId();
  const now = new Date();
  await takeJobSlot(tenantId, 'export', jobKey, now.toISOString());
  try {
    await createExportJob({ tenantId, jobKey, list, query: { ...query }, locale }, now);
    await startWorker('EXPORT_WORKER_FUNCTION', { tenantId, jobKey }, (task) => import('../jobs/recordExports.ts').then((m) => m.runExport(task)), 'export');
  } catch (error) {
    await releaseJobSlot(tenantId, 'export', jobKey, now.toISOString());
    throw error;
  }
  return queued({ jobKey });
}

export async function requireExport(tenantId: string, list: ExportJob['list'], jobKey: string): Promise<ExportJob> {
  const job = await findExportJob(tenantId, jobKey);
  if (!job || job.list !== list) throw new NotFoundError();
  // A job whose worker was lost says so (lib/jobs.ts), and the dialog stops waiting for it.
  if (lostWorker(job.state, job.startedAt ?? job.createdAt))
    return failExportJob(job, translate(job.locale as Locale, job.state === 'queued' ? 'jobs.notStarted' : 'jobs.stopped'));
  return job;
}
