import { findGrantJob, updateGrantJob } from '#data/grantJobs';
import { releaseJobSlot } from '#data/jobSlots';
import { log } from '#lib/log';
import { grant, resolveSelection } from '#data/grantSelection';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE']);

/**
 * Writes a large grant in the background: the selection is resolved again (people who joined a
 * chosen group since are included, keys checked at the request stay checked) and each device's
 * share is written in turn, the job counting the pairs done. On AWS `GRANT_WORKER_FUNCTION` names
 * this worker, invoked asynchronously; elsewhere it runs in the same process after the request.
 */
export interface GrantTask {
  tenantId: string;
  jobKey: string;
}

export async function runGrant(task: GrantTask): Promise<void> {
  const { tenantId, jobKey } = task;
  const job = await findGrantJob(tenantId, jobKey);
  if (!job || !(await updateGrantJob(tenantId, jobKey, { state: 'running', startedAt: new Date().toISOString() }, 'queued'))) return;
  try {
    const { persons, devices } = await resolveSelection(tenantId, job.body);
    let done = 0;
    await grant(
      tenantId,
      job.body.setType,
      persons,
      devices.map((d) => d.deviceKey),
      job.bounds,
      async (pairs) => {
        done += pairs;
        await updateGrantJob(tenantId, jobKey, { done });
      },
    );
    await updateGrantJob(tenantId, jobKey, { state: 'done', done, finishedAt: new Date().toISOString() });
  } catch (error) {
    log('error', 'grant failed', { tenantId, jobKey, error: String(error) });
    await updateGrantJob(tenantId, jobKey, { state: 'failed', failure: 'stopped', finishedAt: new Date().toISOString() });
  } finally {
    await releaseJobSlot(tenantId, 'grant', jobKey, job.createdAt);
  }
}

export const handler = (task: GrantTask): Promise<void> => runGrant(task);
