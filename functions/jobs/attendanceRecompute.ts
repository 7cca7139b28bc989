import type { Locale } from '#contract/locales';
import { computeAttendance } from '#data/attendanceDays';
import { findRecomputeJob, moveRecomputeJob } from '#data/attendanceJobs';
import { releaseJobSlot } from '#data/jobSlots';
import { translate } from '#lib/i18n';
import { log, logged } from '#lib/log';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'MAIN_TABLE']);

/**
 * Computes a range of attendance days again in the background (`POST /v1/attendance/recompute`):
 * employee by employee, each one's days stored as soon as they are computed, with the progress
 * recorded about once a second. A run that stops midway (an error here; on AWS a timeout or a
 * lost worker, which the on-failure destination reports) is marked failed and leaves every day
 * readable: the employees it reached with new figures, the others with their earlier ones.
 *
 * On AWS `RECOMPUTE_WORKER_FUNCTION` names this worker, invoked asynchronously; elsewhere it runs
 * in the same process after the request has answered.
 */
export interface RecomputeTask {
  tenantId: string;
  jobKey: string;
}

const PROGRESS_EVERY_MS = 1000;

export async function runRecompute({ tenantId, jobKey }: RecomputeTask): Promise<void> {
  const job = await findRecomputeJob(tenantId, jobKey);
  // A task delivered twice finds its job already running or finished.
  if (!job || job.state !== 'queued') return;
  if (!(await moveRecomputeJob(tenantId, jobKey, 'queued', 'running'))) return;
  let progress = { done: 0, total: 0, stored: 0 };
  let reported = 0;
  try {
    const stored = await computeAttendance(tenantId, job.from, job.to, {
      onProgress: async (done, total, storedSoFar) => {
        progress = { done, total, stored: storedSoFar };
        if (done > 0 && done < total && Date.now() - reported < PROGRESS_EVERY_MS) return;
        reported = Date.now();
        await moveRecomputeJob(tenantId, jobKey, 'running', 'running', progress);
      },
    });
    await moveRecomputeJob(tenantId, jobKey, 'running', 'done', { ...progress, done: progress.total, stored });
  } catch (error) {
    log('error', 'attendance recomputation stopped', { jobKey, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    await moveRecomputeJob(tenantId, jobKey, 'running', 'failed', { ...progress, error: translate(job.locale as Locale, 'jobs.stopped') });
  } finally {
    await releaseJobSlot(tenantId, 'recompute', jobKey, job.createdAt);
  }
}

export const handler = logged('attendanceRecompute', runRecompute);
