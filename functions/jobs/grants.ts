import { completeGrantJob, failGrantJob, failGrantJobOf, findGrantJob, updateGrantJob } from '#data/grantJobs';
import { log, logged } from '#lib/log';
import { resolveSelection } from '#data/grantSelection';
import { declareEnvironment } from '#lib/env';
import { inProcess, startWorkers } from '#lib/jobs';
import type { GrantPiece } from './grantPieces.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'GRANT_PIECE_FUNCTION', 'MAIN_TABLE']);

/**
 * Starts a large grant in the background: the selection is resolved again (devices added to a
 * chosen group since are included, keys checked at the request stay checked) and the job is cut
 * into one piece per device, each written by the piece worker (jobs/grantPieces.ts): on AWS an
 * asynchronous invocation of `GRANT_PIECE_FUNCTION` each, elsewhere the in-process queue. The
 * job counts the pieces and pairs done; the last piece marks it done and gives its slot back.
 * Run again (Lambda retries a failed start), it starts only the pieces not yet finished.
 */
export interface GrantTask {
  tenantId: string;
  jobKey: string;
}

export async function runGrant(task: GrantTask): Promise<void> {
  const { tenantId, jobKey } = task;
  const job = await findGrantJob(tenantId, jobKey);
  if (!job || (job.state !== 'queued' && job.state !== 'running')) return;
  const now = new Date().toISOString();
  if (job.state === 'queued' && !(await updateGrantJob(tenantId, jobKey, { state: 'running', startedAt: now, progressAt: now }, 'queued'))) return;
  try {
    const { devices } = await resolveSelection(tenantId, job.body);
    await updateGrantJob(tenantId, jobKey, { pieces: devices.length, progressAt: now }, 'running');
    const pieces: GrantPiece[] = devices.map((d) => ({ tenantId, jobKey, deviceKey: d.deviceKey }));
    await startWorkers('GRANT_PIECE_FUNCTION', pieces, inProcess<GrantPiece>('GRANT_PIECE_FUNCTION'), 'grant piece', (piece) =>
      failGrantJobOf(piece.tenantId, piece.jobKey),
    );
    const started = await findGrantJob(tenantId, jobKey);
    if (started) await completeGrantJob(started);
  } catch (error) {
    log('error', 'grant failed', { tenantId, jobKey, error: String(error) });
    const current = await findGrantJob(tenantId, jobKey);
    if (current) await failGrantJob(current);
  }
}

export const handler = logged('grants', (task: GrantTask): Promise<void> => runGrant(task));
