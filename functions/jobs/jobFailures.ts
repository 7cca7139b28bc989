import type { Locale } from '#contract/locales';
import { failRecomputeJob, findRecomputeJob } from '#data/attendanceJobs';
import { failGrantJob, findGrantJob } from '#data/grantJobs';
import { findImportJob, moveImportJob } from '#data/importJobs';
import { failExportJob, findExportJob } from '#data/exportJobs';
import { translate } from '#lib/i18n';
import { log, logged } from '#lib/log';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'MAIN_TABLE']);

/**
 * The background workers' on-failure destination on AWS: Lambda hands it every asynchronous
 * invocation of an import, export, grant or attendance recomputation worker that failed (an error, a timeout, running out
 * of memory) or expired before it started (throttled past the maximum event age). The job the
 * invocation was for is marked failed at once, with its slot given back, so the console stops
 * waiting for it. Elsewhere, and as a second line on AWS, a job whose worker was lost is marked
 * failed when it is next read (`lostWorker` in lib/jobs.ts).
 */
export interface FailedInvocation {
  requestContext?: { condition?: string; functionArn?: string };
  requestPayload?: { tenantId?: unknown; jobKey?: unknown };
  responseContext?: { functionError?: string };
}

export async function failJobOf(event: FailedInvocation): Promise<'grant' | 'export' | 'import' | 'recompute' | undefined> {
  const { tenantId, jobKey } = event.requestPayload ?? {};
  if (typeof tenantId !== 'string' || typeof jobKey !== 'string') return undefined;
  // Never started: the event expired or ran out of retries before a worker took it.
  const notStarted = event.requestContext?.condition === 'EventAgeExceeded';
  const grant = await findGrantJob(tenantId, jobKey);
  if (grant) {
    await failGrantJob(grant);
    return 'grant';
  }
  const exported = await findExportJob(tenantId, jobKey);
  if (exported) {
    await failExportJob(exported, translate(exported.locale as Locale, notStarted || exported.state === 'queued' ? 'jobs.notStarted' : 'jobs.stopped'));
    return 'export';
  }
  const recompute = await findRecomputeJob(tenantId, jobKey);
  if (recompute) {
    await failRecomputeJob(recompute, translate(recompute.locale as Locale, notStarted || recompute.state === 'queued' ? 'jobs.notStarted' : 'jobs.stopped'));
    return 'recompute';
  }
  const imported = await findImportJob(tenantId, jobKey);
  if (imported && (imported.state === 'queued' || imported.state === 'running')) {
    const error = translate(imported.locale as Locale, 'import.stopped');
    await moveImportJob(tenantId, jobKey, imported.state, 'failed', { error }).catch(() => undefined);
    return 'import';
  }
  return undefined;
}

async function handle(event: FailedInvocation): Promise<void> {
  const kind = await failJobOf(event);
  log(kind ? 'warn' : 'error', kind ? 'background job failed' : 'failed invocation names no job', {
    condition: event.requestContext?.condition,
    error: event.responseContext?.functionError,
    kind,
    jobKey: String(event.requestPayload?.jobKey ?? ''),
  });
}

export const handler = logged('jobFailures', handle);
