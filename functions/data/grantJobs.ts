import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { GrantBody } from '#contract/authorities';
import { dynamo } from '#lib/aws';
import { lostWorker } from '#lib/jobs';
import { releaseJobSlot } from './jobSlots.ts';
import { letGoSchedule } from './schedules.ts';
import { epochSeconds, nowIso } from './entity.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';
import type { Bounds } from './authorities.ts';
import { GRANT_JOB, GRANT_PIECE } from './keys/events.ts';

/**
 * A grant too large to write within one request: the selection as it was checked, its bounds,
 * and how far the workers have come (pairs written of the total). Its work is one piece per
 * device (jobs/grantPieces.ts); each finished piece leaves a marker (`grantPiece#<jobKey>#<deviceKey>`)
 * written in the same transaction that counts it, so a piece run again is counted once, and the
 * piece that finishes the last marks the job done. Kept a week.
 */
export type GrantJobState = 'queued' | 'running' | 'done' | 'failed';
export interface GrantJob {
  tenantId: string;
  jobKey: string;
  body: GrantBody;
  bounds: Bounds;
  state: GrantJobState;
  done: number;
  total: number;
  createdAt: string;
  /** When the worker took the job. */
  startedAt?: string;
  /** Pieces (devices) the job was cut into, and how many have finished. */
  pieces?: number;
  piecesDone?: number;
  /** When the last piece finished: a job without progress for a worker's run is lost (lib/jobs.ts). */
  progressAt?: string;
  finishedAt?: string;
  /** Why a failed job stopped: `stopped` (its worker failed or timed out) or `notStarted` (no worker ever took it). */
  failure?: 'stopped' | 'notStarted';
}

const sk = (jobKey: string) => GRANT_JOB.of(jobKey);
const KEEP_SECONDS = 7 * 86_400;

export async function createGrantJob(job: Omit<GrantJob, 'state' | 'done' | 'createdAt'>, createdAt = nowIso()): Promise<GrantJob> {
  const item: GrantJob = { ...job, state: 'queued', done: 0, createdAt };
  await dynamo().send(
    new PutCommand({
      TableName: tableName(EVENTS_TABLE),
      Item: { pk: job.tenantId, sk: sk(job.jobKey), ...item, ttl: epochSeconds(new Date()) + KEEP_SECONDS },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return item;
}

export async function findGrantJob(tenantId: string, jobKey: string): Promise<GrantJob | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: sk(jobKey) }, ConsistentRead: true }));
  return out.Item as GrantJob | undefined;
}

/** Moves a job on; `from` guards the start, so a job runs once. Answers false when it was not in `from`. */
export async function updateGrantJob(
  tenantId: string,
  jobKey: string,
  changes: Partial<Pick<GrantJob, 'state' | 'done' | 'startedAt' | 'finishedAt' | 'failure' | 'pieces' | 'piecesDone' | 'progressAt'>>,
  from?: GrantJobState,
): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(changes).map(([k, v]) => {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    return `#${k} = :${k}`;
  });
  if (from) {
    names['#from'] = 'state';
    values[':from'] = from;
  }
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(EVENTS_TABLE),
        Key: { pk: tenantId, sk: sk(jobKey) },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: from ? 'attribute_exists(pk) AND #from = :from' : 'attribute_exists(pk)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Marks a job that is still queued or running as failed (its worker failed, timed out or never
 * started) and gives its slot back; answers the job as it now stands.
 */
export async function failGrantJob(job: GrantJob): Promise<GrantJob> {
  if (job.state !== 'queued' && job.state !== 'running') return job;
  const failure = job.state === 'queued' ? 'notStarted' : 'stopped';
  const finishedAt = nowIso();
  if (await updateGrantJob(job.tenantId, job.jobKey, { state: 'failed', failure, finishedAt }, job.state)) {
    await releaseJobSlot(job.tenantId, 'grant', job.jobKey, job.createdAt);
    if (job.bounds.scheduleKey) await letGoSchedule(job.tenantId, job.bounds.scheduleKey);
    return { ...job, state: 'failed', failure, finishedAt };
  }
  return (await findGrantJob(job.tenantId, job.jobKey)) ?? job;
}

/** Fails the job a piece given up after its last run belongs to (the pieces finished keep what they wrote). */
export async function failGrantJobOf(tenantId: string, jobKey: string): Promise<void> {
  const job = await findGrantJob(tenantId, jobKey);
  if (job) await failGrantJob(job);
}

/** The job as it stands: one whose worker was lost (lib/jobs.ts) is marked failed first. */
export async function settledGrantJob(job: GrantJob): Promise<GrantJob> {
  return lostWorker(job.state, job.progressAt ?? job.startedAt ?? job.createdAt) ? failGrantJob(job) : job;
}

const pieceSk = (jobKey: string, deviceKey: string) => GRANT_PIECE.of(jobKey, deviceKey);

/** Whether a job's piece for a device has finished (a piece run again after it did does nothing). */
export async function grantPieceDone(tenantId: string, jobKey: string, deviceKey: string): Promise<boolean> {
  const out = await dynamo().send(
    new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: pieceSk(jobKey, deviceKey) }, ConsistentRead: true }),
  );
  return out.Item !== undefined;
}

/**
 * Counts a finished piece once: its marker (only if absent) and the job's progress in one
 * transaction, conditioned on the job still running. The piece that brings the count to the
 * number of pieces marks the job done (one conditional update wins) and gives its slot back.
 * Answers the job as it stands after.
 */
export async function finishGrantPiece(job: GrantJob, deviceKey: string, pairs: number): Promise<GrantJob | undefined> {
  const { tenantId, jobKey } = job;
  const now = nowIso();
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(EVENTS_TABLE),
              Item: { pk: tenantId, sk: pieceSk(jobKey, deviceKey), kind: 'grantPiece', pairs, at: now, ttl: epochSeconds(new Date()) + KEEP_SECONDS },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: {
              TableName: tableName(EVENTS_TABLE),
              Key: { pk: tenantId, sk: sk(jobKey) },
              UpdateExpression: 'ADD #done :pairs, #piecesDone :one SET #progressAt = :now',
              ConditionExpression: '#state = :running',
              ExpressionAttributeNames: { '#done': 'done', '#piecesDone': 'piecesDone', '#progressAt': 'progressAt', '#state': 'state' },
              ExpressionAttributeValues: { ':pairs': pairs, ':one': 1, ':now': now, ':running': 'running' },
            },
          },
        ],
      }),
    );
  } catch (error) {
    // Counted before (a piece run again), or the job ended meanwhile (failed): nothing to add.
    if ((error as { name?: string }).name !== 'TransactionCanceledException') throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (!reasons.some((r) => r.Code === 'ConditionalCheckFailed')) throw error;
  }
  const after = await findGrantJob(tenantId, jobKey);
  if (!after) return undefined;
  await completeGrantJob(after);
  return findGrantJob(tenantId, jobKey);
}

/**
 * Gives the slot of a running job whose pieces have all finished back and marks it done (once):
 * the slot first, so a job seen done no longer holds one (giving it back twice is harmless).
 */
export async function completeGrantJob(job: GrantJob): Promise<void> {
  if (job.state !== 'running' || job.pieces === undefined || (job.piecesDone ?? 0) < job.pieces) return;
  await releaseJobSlot(job.tenantId, 'grant', job.jobKey, job.createdAt);
  // Its schedule (if any) is let go once, by the call that marked it done.
  if ((await updateGrantJob(job.tenantId, job.jobKey, { state: 'done', finishedAt: nowIso() }, 'running')) && job.bounds.scheduleKey) {
    await letGoSchedule(job.tenantId, job.bounds.scheduleKey);
  }
}
