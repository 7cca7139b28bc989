import { Entity, type EntityItem } from 'electrodb';
import { EVENTS_TABLE } from './tables.ts';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, nowIso, tenantPartition } from './entity.ts';
import { releaseJobSlot } from './jobSlots.ts';
import { ATTENDANCE_RECOMPUTE } from './keys/events.ts';

/** How long a finished recomputation is kept (the statistics screen shows the last one). */
const RETENTION_SECONDS = 30 * 24 * 3600;

/**
 * A range of attendance days computed again in the background, after rules, holidays, staff or
 * punches changed: queued → running → done | failed. `done` counts the employees computed of
 * `total`; each employee's days are stored as they are computed, so a run that stops midway
 * leaves every day readable, the ones it reached new and the others as they were before (each
 * says when it was computed). Keys sort by creation, so the newest is one read.
 */
export const recomputeJobs = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'attendanceRecompute', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          jobKey: { type: 'string', required: true },
          from: { type: 'string', required: true },
          to: { type: 'string', required: true },
          state: { type: ['queued', 'running', 'done', 'failed'] as const, required: true },
          /** The language of the error: the caller's when the job was started. */
          locale: { type: 'string', required: true },
          done: { type: 'number', required: true, default: 0 },
          total: { type: 'number', required: true, default: 0 },
          /** Employee-days stored. */
          stored: { type: 'number', required: true, default: 0 },
          error: { type: 'string' },
          createdAt: { type: 'string', required: true },
          startedAt: { type: 'string' },
          finishedAt: { type: 'string' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['jobKey'], template: ATTENDANCE_RECOMPUTE.template, casing: 'none' } },
        },
      },
      entityConfig(EVENTS_TABLE),
    ),
);

export type RecomputeJob = EntityItem<ReturnType<typeof recomputeJobs>>;
export type RecomputeState = RecomputeJob['state'];

/** The job `jobKey` (a key from newTimeId, so the newest sorts last), queued. */
export async function createRecomputeJob(tenantId: string, jobKey: string, from: string, to: string, locale: string, now = new Date()): Promise<RecomputeJob> {
  const job: RecomputeJob = {
    tenantId,
    jobKey,
    from,
    to,
    state: 'queued',
    locale,
    done: 0,
    total: 0,
    stored: 0,
    createdAt: now.toISOString(),
    ttl: epochSeconds(now) + RETENTION_SECONDS,
  };
  await recomputeJobs().create(job).go();
  return job;
}

export async function findRecomputeJob(tenantId: string, jobKey: string): Promise<RecomputeJob | undefined> {
  return (await recomputeJobs().get({ tenantId, jobKey }).go({ consistent: true })).data ?? undefined;
}

/** The company's newest recomputation, if any. */
export async function latestRecomputeJob(tenantId: string): Promise<RecomputeJob | undefined> {
  const found = await recomputeJobs().query.primary({ tenantId }).go({ order: 'desc', limit: 1 });
  return found.data[0];
}

/**
 * Moves a job from `from` to `to` with `fields` (finishing stamps the time); false when it was not
 * in `from` (a task delivered twice, or a job already marked failed).
 */
export async function moveRecomputeJob(
  tenantId: string,
  jobKey: string,
  from: RecomputeState,
  to: RecomputeState,
  fields: Partial<Pick<RecomputeJob, 'done' | 'total' | 'stored' | 'error'>> = {},
): Promise<boolean> {
  try {
    await recomputeJobs()
      .patch({ tenantId, jobKey })
      .set({
        ...fields,
        state: to,
        ...(to === 'running' && from === 'queued' ? { startedAt: nowIso() } : {}),
        ...(to === 'done' || to === 'failed' ? { finishedAt: nowIso() } : {}),
      })
      .where((attr, op) => op.eq(attr.state, from))
      .go();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Marks a job still queued or running as failed with `error` and gives its slot back; answers the job as it now stands. */
export async function failRecomputeJob(job: RecomputeJob, error: string): Promise<RecomputeJob> {
  if (job.state !== 'queued' && job.state !== 'running') return job;
  if (await moveRecomputeJob(job.tenantId, job.jobKey, job.state, 'failed', { error })) {
    await releaseJobSlot(job.tenantId, 'recompute', job.jobKey, job.createdAt);
    return { ...job, state: 'failed', error };
  }
  return (await findRecomputeJob(job.tenantId, job.jobKey)) ?? job;
}
