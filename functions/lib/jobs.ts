import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { ImportTask } from '../jobs/imports.ts';
import { log } from './log.ts';
import { env, type EnvName } from './env.ts';

/**
 * Imports run on AWS in the worker `IMPORT_WORKER_FUNCTION` names (see `startWorker`); the local
 * host registers an in-process runner instead.
 */
let runLocally: ((task: ImportTask) => Promise<void>) | undefined;
let client: LambdaClient | undefined;

export function runImportsInProcess(runner: (task: ImportTask) => Promise<void>): void {
  runLocally = runner;
}

/** Runs an import in this process (the local host); with no runner registered, no worker was configured. */
export function runImportHere(task: ImportTask): Promise<void> {
  if (!runLocally) throw new Error('no import worker is configured');
  return runLocally(task);
}

/**
 * A worker waits at most 15 minutes to start (its asynchronous invocation's maximum event age)
 * and runs at most 15 minutes (its timeout). A job still queued this long after it was created,
 * or still running this long after it started, has lost its worker (throttled past the event age,
 * out of memory, timed out): it is marked failed when it is next read, so nothing waits on it for
 * ever. On AWS the workers' on-failure destination (functions/jobs/jobFailures.ts) marks it at once.
 */
export const WORKER_STALE_MS = 16 * 60_000;

/** True when a job in `state` since `since` (ISO) can no longer be going on. */
export function lostWorker(state: string, since: string, now = Date.now()): boolean {
  return (state === 'queued' || state === 'running') && now - Date.parse(since) > WORKER_STALE_MS;
}

/**
 * Starts background work without waiting for it: on AWS the function named by the environment
 * variable `workerEnv`, invoked asynchronously (a run may take 15 minutes; a failed run is not
 * retried, the job says it failed); elsewhere `runHere` in this process, after the request has
 * answered, as the Lambda invocation would.
 */
export async function startWorker<T>(workerEnv: EnvName, task: T, runHere: (task: T) => Promise<void>, what: string): Promise<void> {
  const worker = env(workerEnv);
  if (worker) {
    client ??= new LambdaClient({ region: env('AWS_REGION') ?? 'us-east-1' });
    await client.send(new InvokeCommand({ FunctionName: worker, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(task)) }));
    return;
  }
  setImmediate(() => void runHere(task).catch((error: unknown) => log('error', `${what} worker failed`, { error: String(error) })));
}
