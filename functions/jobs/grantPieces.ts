import { completeGrantJob, findGrantJob, finishGrantPiece, grantPieceDone } from '#data/grantJobs';
import { grantPairs } from '#data/authorityGrants';
import { peopleAsTheyAre, reapplyChanges, resolvePeople } from '#data/grantSelection';
import { declareEnvironment } from '#lib/env';
import { logged } from '#lib/log';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE']);

/**
 * One device's share of a large grant (jobs/grants.ts cuts a job into one piece per device):
 * the people of the selection are resolved again and read as they are, the share written for
 * them (functions/data/authorities.ts) and the device told, a change to a person made meanwhile
 * applied again, then the piece counted once. A piece is short (one device), may run more than
 * once (Lambda retries a failed one twice; a finished one does nothing the second time), and the
 * piece that finishes the last marks the job done.
 */
export interface GrantPiece {
  tenantId: string;
  jobKey: string;
  deviceKey: string;
}

export async function runGrantPiece(piece: GrantPiece): Promise<void> {
  const { tenantId, jobKey, deviceKey } = piece;
  const job = await findGrantJob(tenantId, jobKey);
  if (!job || job.state !== 'running') return;
  if (await grantPieceDone(tenantId, jobKey, deviceKey)) {
    await completeGrantJob(job);
    return;
  }
  const persons = await resolvePeople(tenantId, job.body);
  const { count, written } = await grantPairs(tenantId, job.body.setType, persons, [deviceKey], job.bounds, {
    refresh: (list) => peopleAsTheyAre(tenantId, list),
  });
  await reapplyChanges(tenantId, written);
  await finishGrantPiece(job, deviceKey, count);
}

export const handler = logged('grantPieces', (piece: GrantPiece): Promise<void> => runGrantPiece(piece));
