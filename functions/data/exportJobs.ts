import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { releaseJobSlot } from './jobSlots.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { epochSeconds } from './entity.ts';
import { EXPORT_JOB } from './keys/events.ts';

const table = () => tableName(EVENTS_TABLE);

/**
 * Background exports of every list (pass and blacklist records, calls, questionnaire results,
 * employees, visitors): one item per job in the events table, kept a day; the worker is
 * jobs/recordExports.ts and starting one is flows/exportJobs.ts.
 */

export type ExportState = 'queued' | 'running' | 'done' | 'failed';
export interface ExportJob {
  tenantId: string;
  jobKey: string;
  list: 'pass' | 'blacklist' | 'calls' | 'questionnaireResults' | 'employees' | 'visitors';
  /** The filter as the caller gave it (days, not moments: the worker resolves them). */
  query: Record<string, unknown>;
  locale: string;
  state: ExportState;
  done: number;
  total?: number;
  /** Where the finished workbook is (imports bucket, under the tenant's prefix). */
  fileKey?: string;
  /** True when the range held more rows than one workbook takes. */
  truncated?: boolean;
  error?: string;
  createdAt: string;
  /** When the worker took the job. */
  startedAt?: string;
  ttl: number;
}

const EXPORT_RETENTION_SECONDS = 24 * 3600;
const exportSk = (jobKey: string): string => EXPORT_JOB.of(jobKey);

export async function createExportJob(job: Omit<ExportJob, 'state' | 'done' | 'createdAt' | 'ttl'>, now = new Date()): Promise<ExportJob> {
  const item: ExportJob = { ...job, state: 'queued', done: 0, createdAt: now.toISOString(), ttl: epochSeconds(now) + EXPORT_RETENTION_SECONDS };
  await dynamo().send(
    new PutCommand({
      TableName: table(),
      Item: { pk: job.tenantId, sk: exportSk(job.jobKey), kind: 'recordExport', ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return item;
}

/** One page of the tenant's export jobs (every list), oldest key first; answers where to go on. */
export async function exportJobsPage(
  tenantId: string,
  cursor: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ jobs: ExportJob[]; next: Record<string, unknown> | null }> {
  const out = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': tenantId, ':prefix': exportSk('') },
      Limit: limit,
      ...(cursor ? { ExclusiveStartKey: cursor } : {}),
    }),
  );
  return { jobs: (out.Items ?? []) as ExportJob[], next: out.LastEvaluatedKey ?? null };
}

export async function findExportJob(tenantId: string, jobKey: string): Promise<ExportJob | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: exportSk(jobKey) }, ConsistentRead: true }));
  return out.Item as ExportJob | undefined;
}

/** Moves the job from `from` to `to` with `fields`; false when it was not in `from` (a task delivered twice). */
export async function updateExportJob(
  tenantId: string,
  jobKey: string,
  from: ExportState,
  to: ExportState,
  fields: Partial<Pick<ExportJob, 'done' | 'total' | 'fileKey' | 'truncated' | 'error' | 'startedAt'>> = {},
): Promise<boolean> {
  const entries = Object.entries({ ...fields, state: to }).filter(([, v]) => v !== undefined);
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: tenantId, sk: exportSk(jobKey) },
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: '#state = :from',
        ExpressionAttributeNames: { '#state': 'state', ...Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])) },
        ExpressionAttributeValues: { ':from': from, ...Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])) },
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Marks an export that is still queued or running as failed (its worker failed, timed out or never
 * started) with `error`, and gives its slot back; answers the job as it now stands.
 */
export async function failExportJob(job: ExportJob, error: string): Promise<ExportJob> {
  if (job.state !== 'queued' && job.state !== 'running') return job;
  if (await updateExportJob(job.tenantId, job.jobKey, job.state, 'failed', { error })) {
    await releaseJobSlot(job.tenantId, 'export', job.jobKey, job.createdAt);
    return { ...job, state: 'failed', error };
  }
  return (await findExportJob(job.tenantId, job.jobKey)) ?? job;
}
