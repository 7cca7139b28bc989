import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { AppError } from '#lib/errors';
import { isConditionFailure } from './entity.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { env, type EnvName } from '#lib/env';
import { JOB_SLOTS } from './keys/events.ts';

/**
 * Background work a company may have running at once, per kind. One item per tenant and kind
 * (`jobSlots#<kind>` on the events table) holds its running jobs as a string set of
 * `<start time>#<jobKey>`; a start takes a slot with one conditional `ADD` (refused when the set
 * is full), so parallel starts can never pass the limit. A job gives its slot back when it ends,
 * done or failed; a slot held longer than any run of its kind can last (a worker that died
 * without a word) is taken back by the next start that finds the set full.
 */
export type JobKind = 'grant' | 'export' | 'recompute';

/** Jobs of a kind one company may have running at once (`JOB_LIMIT_GRANT`, `JOB_LIMIT_EXPORT`, `JOB_LIMIT_RECOMPUTE`). */
export function jobLimit(kind: JobKind): number {
  const configured = Number(env(LIMIT_VARIABLES[kind]));
  return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_LIMITS[kind];
}
const DEFAULT_LIMITS: Record<JobKind, number> = { grant: 2, export: 3, recompute: 1 };
const LIMIT_VARIABLES: Record<JobKind, EnvName> = { grant: 'JOB_LIMIT_GRANT', export: 'JOB_LIMIT_EXPORT', recompute: 'JOB_LIMIT_RECOMPUTE' };
const RUNNING_MESSAGES = { grant: 'jobs.grantRunning', export: 'jobs.exportRunning', recompute: 'jobs.recomputeRunning' } as const satisfies Record<
  JobKind,
  string
>;

/**
 * Longer than a job of the kind can run, with a margin: a worker stops at 15 minutes; a grant is
 * cut into pieces that may wait in the worker's queue up to its maximum event age (6 hours).
 */
const HOLD_MS: Record<JobKind, number> = { grant: 6 * 3600_000 + 20 * 60_000, export: 20 * 60_000, recompute: 20 * 60_000 };

const key = (tenantId: string, kind: JobKind) => ({ pk: tenantId, sk: JOB_SLOTS.of(kind) });
const member = (jobKey: string, startedAt: string): string => `${startedAt}#${jobKey}`;
const parse = (text: string): { startedAt: string; jobKey: string } => {
  const at = text.indexOf('#');
  return { startedAt: text.slice(0, at), jobKey: text.slice(at + 1) };
};

/** The company already runs as many jobs of the kind as it may: 429 naming the one running longest. */
export class JobsRunningError extends AppError {
  constructor(kind: JobKind, running: { startedAt: string; jobKey: string }, limit: number) {
    super(
      429,
      RUNNING_MESSAGES[kind],
      { job: running.jobKey, since: running.startedAt, limit },
      {
        jobKey: running.jobKey,
        startTime: running.startedAt,
        limit,
      },
    );
  }
}

async function add(tenantId: string, kind: JobKind, slot: string, limit: number): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(EVENTS_TABLE),
        Key: key(tenantId, kind),
        UpdateExpression: 'ADD #jobs :slot',
        ConditionExpression: 'attribute_not_exists(#jobs) OR size(#jobs) < :limit',
        ExpressionAttributeNames: { '#jobs': 'jobs' },
        ExpressionAttributeValues: { ':slot': new Set([slot]), ':limit': limit },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

async function running(tenantId: string, kind: JobKind): Promise<string[]> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: key(tenantId, kind), ConsistentRead: true }));
  return [...((out.Item?.jobs as Set<string> | undefined) ?? [])].sort();
}

async function remove(tenantId: string, kind: JobKind, slots: string[]): Promise<void> {
  if (slots.length === 0) return;
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(EVENTS_TABLE),
      Key: key(tenantId, kind),
      UpdateExpression: 'DELETE #jobs :slots',
      ExpressionAttributeNames: { '#jobs': 'jobs' },
      ExpressionAttributeValues: { ':slots': new Set(slots) },
    }),
  );
}

/**
 * Takes a slot for the job `jobKey` starting at `startedAt` (the job's own creation time), or
 * throws JobsRunningError. Slots held past their kind's HOLD_MS are given back first when the set is full.
 */
export async function takeJobSlot(tenantId: string, kind: JobKind, jobKey: string, startedAt: string, now = Date.now()): Promise<void> {
  const limit = jobLimit(kind);
  const slot = member(jobKey, startedAt);
  if (await add(tenantId, kind, slot, limit)) return;
  const held = await running(tenantId, kind);
  const stale = held.filter((s) => Date.parse(parse(s).startedAt) < now - HOLD_MS[kind]);
  if (stale.length > 0) {
    await remove(tenantId, kind, stale);
    if (await add(tenantId, kind, slot, limit)) return;
  }
  const oldest = (await running(tenantId, kind))[0] ?? held[0];
  throw new JobsRunningError(kind, oldest ? parse(oldest) : { jobKey, startedAt }, limit);
}

/** Gives the slot of a job back: when it ends, whichever way. Giving it back twice is harmless. */
export async function releaseJobSlot(tenantId: string, kind: JobKind, jobKey: string, startedAt: string): Promise<void> {
  await remove(tenantId, kind, [member(jobKey, startedAt)]);
}
