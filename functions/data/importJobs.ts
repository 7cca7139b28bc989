import { Entity, type EntityItem } from 'electrodb';
import type { ImportStep, PersonKind } from '#contract/people';
import { newTimeId } from '#lib/crypto';
import { ConflictError, NotFoundError } from '#lib/errors';
import { EVENTS_TABLE } from './tables.ts';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, nowIso, tenantPartition } from './entity.ts';
import { IMPORT_JOB } from './keys/events.ts';

/** How long a finished import and its report are kept. */
const RETENTION_SECONDS = 7 * 24 * 3600;

/**
 * Imports that run in the background: the file is uploaded straight to storage, then a worker
 * reads it and records its progress and report here. uploading → queued → running → done | failed.
 */
export const importJobs = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'importJob', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          jobKey: { type: 'string', required: true },
          kind: { type: ['employee', 'visitor'] as const, required: true },
          step: { type: ['info', 'avatars'] as const, required: true },
          state: { type: ['uploading', 'queued', 'running', 'done', 'failed'] as const, required: true },
          filename: { type: 'string', required: true },
          /** The language the report is written in: the caller's when the import was created. */
          locale: { type: 'string', required: true },
          processed: { type: 'number', required: true, default: 0 },
          total: { type: 'number', required: true, default: 0 },
          /** Counts and the rows or entries that went wrong (the first 1,000: jobs/imports.ts). */
          report: { type: 'any' },
          error: { type: 'string' },
          createdAt: { type: 'string', required: true },
          /** When the job was started (queued): the upload before it may take a long while. */
          startedAt: { type: 'string' },
          finishedAt: { type: 'string' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['jobKey'], template: IMPORT_JOB.template, casing: 'none' } },
        },
      },
      entityConfig(EVENTS_TABLE),
    ),
);

export type ImportJob = EntityItem<ReturnType<typeof importJobs>>;
export type JobState = ImportJob['state'];

/** Where the file of an import job is uploaded, under the tenant's prefix of the imports bucket. */
export const uploadKey = (job: Pick<ImportJob, 'jobKey' | 'step'>): string => `import/${job.jobKey}.${job.step === 'info' ? 'xlsx' : 'zip'}`;

export async function createImportJob(tenantId: string, kind: PersonKind, step: ImportStep, filename: string, locale: string): Promise<ImportJob> {
  const job = {
    tenantId,
    jobKey: newTimeId(),
    kind,
    step,
    state: 'uploading' as const,
    filename,
    locale,
    processed: 0,
    total: 0,
    createdAt: nowIso(),
    ttl: epochSeconds(new Date()) + RETENTION_SECONDS,
  };
  await importJobs().create(job).go();
  return job;
}

export async function findImportJob(tenantId: string, jobKey: string): Promise<ImportJob | undefined> {
  return (await importJobs().get({ tenantId, jobKey }).go()).data ?? undefined;
}

/** The job of this list (employees or visitors); another list's job is as unknown as another tenant's. */
export async function requireImportJob(tenantId: string, kind: PersonKind, jobKey: string): Promise<ImportJob> {
  const job = await findImportJob(tenantId, jobKey);
  if (!job || job.kind !== kind) throw new NotFoundError();
  return job;
}

/** Moves a job from one state to the next; a job not in `from` answers 409 and is left alone. */
export async function moveImportJob(
  tenantId: string,
  jobKey: string,
  from: JobState,
  to: JobState,
  fields: Partial<Pick<ImportJob, 'total' | 'processed' | 'report' | 'error'>> = {},
): Promise<ImportJob> {
  try {
    const result = await importJobs()
      .patch({ tenantId, jobKey })
      .set({
        state: to,
        ...fields,
        ...(to === 'queued' ? { startedAt: nowIso() } : {}),
        ...(to === 'done' || to === 'failed' ? { finishedAt: nowIso() } : {}),
      })
      .where((attr, op) => op.eq(attr.state, from))
      .go({ response: 'all_new' });
    return result.data as ImportJob;
  } catch (error) {
    if (isConditionFailure(error)) throw new ConflictError('import.notWaiting');
    throw error;
  }
}

export async function recordImportProgress(tenantId: string, jobKey: string, processed: number, total: number): Promise<void> {
  await importJobs().patch({ tenantId, jobKey }).set({ processed, total }).go();
}
