import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { ImportTask } from '../jobs/imports.ts';
import { log } from './log.ts';
import { env, type EnvName } from './env.ts';
import { pool } from './pool.ts';
import { countLocalWork, startLocalWork } from './localWork.ts';
import { asWorker } from './localRole.ts';

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
 * answered, as the Lambda invocation would. The Lambda client is loaded by the first start, so
 * only a function that starts a worker loads it, and only then.
 */
export async function startWorker<T>(workerEnv: EnvName, task: T, runHere: (task: T) => Promise<void>, what: string): Promise<void> {
  const worker = env(workerEnv);
  if (worker) {
    const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
    client ??= new LambdaClient({ region: env('AWS_REGION') ?? 'us-east-1' });
    await client.send(new InvokeCommand({ FunctionName: worker, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(task)) }));
    return;
  }
  const run = asWorker(workerEnv, runHere);
  void countLocalWork(
    new Promise<void>((due) => setImmediate(due))
      .then(() => run(task))
      .catch((error: unknown) => log('error', `${what} worker failed`, { error: String(error) })),
  );
}

/**
 * Workers the local host runs in its own process, by the variable that names them on AWS: a
 * function that starts work hands `inProcess(name)` as its `runHere`, so its bundle holds none
 * of the worker's code (nor reads the worker's variables); the host registers the runners.
 */
const localRunners = new Map<EnvName, (task: never) => Promise<void>>();

export function runInProcess<T>(workerEnv: EnvName, runner: (task: T) => Promise<void>): void {
  localRunners.set(workerEnv, runner as (task: never) => Promise<void>);
}

export function inProcess<T>(workerEnv: EnvName): (task: T) => Promise<void> {
  return (task: T) => {
    const runner = localRunners.get(workerEnv) as ((task: T) => Promise<void>) | undefined;
    if (!runner) return Promise.reject(new Error(`no worker for ${workerEnv} is configured`));
    return runner(task);
  };
}

/** Pieces the in-process queue runs at once (the local stand-in for a worker's reserved concurrency). */
const LOCAL_PIECES_AT_ONCE = 4;
/** Runs of a piece before it is given up: the first and two retries, as Lambda retries an asynchronous invocation. */
const PIECE_RUNS = 3;

interface LocalPiece {
  run: () => Promise<void>;
  failed: (error: unknown) => Promise<void>;
  what: string;
  runs: number;
  /** Ends the piece's count as local work (lib/localWork.ts), once it is done or given up. */
  ended: () => void;
}
const localPieces: LocalPiece[] = [];
let localRunning = 0;

function drainLocal(): void {
  while (localRunning < LOCAL_PIECES_AT_ONCE && localPieces.length > 0) {
    const piece = localPieces.shift()!;
    localRunning++;
    piece.runs++;
    void piece
      .run()
      .then(piece.ended)
      .catch(async (error: unknown) => {
        if (piece.runs < PIECE_RUNS) {
          log('warn', `${piece.what} failed; it runs again`, { error: String(error), runs: piece.runs });
          setTimeout(() => {
            localPieces.push(piece);
            drainLocal();
          }, 200 * 2 ** piece.runs);
          return;
        }
        log('error', `${piece.what} failed`, { error: String(error) });
        await piece.failed(error).catch((e: unknown) => log('error', `${piece.what}: its failure could not be recorded`, { error: String(e) }));
        piece.ended();
      })
      .finally(() => {
        localRunning--;
        drainLocal();
      });
  }
}

/**
 * Starts many short pieces of background work without waiting for them: on AWS one asynchronous
 * invocation each of the function `workerEnv` names (Lambda queues them, runs them within the
 * worker's reserved concurrency, runs a failed one twice more and then hands it to the worker's
 * on-failure destination, functions/jobs/jobFailures.ts); elsewhere an in-process queue with the
 * same rules: LOCAL_PIECES_AT_ONCE at a time, three runs, then `failed`. Pieces must be
 * idempotent: any may run more than once.
 */
export async function startWorkers<T>(workerEnv: EnvName, tasks: readonly T[], runHere: (task: T) => Promise<void>, what: string, failed: (task: T, error: unknown) => Promise<void>): Promise<void> {
  const worker = env(workerEnv);
  if (worker) {
    const { InvokeCommand, LambdaClient } = await import('@aws-sdk/client-lambda');
    client ??= new LambdaClient({ region: env('AWS_REGION') ?? 'us-east-1' });
    const lambda = client;
    await pool([...tasks], 8, (task) => lambda.send(new InvokeCommand({ FunctionName: worker, InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(task)) })).then(() => undefined));
    return;
  }
  const run = asWorker(workerEnv, runHere);
  for (const task of tasks) localPieces.push({ run: () => run(task), failed: (error) => failed(task, error), what, runs: 0, ended: startLocalWork() });
  drainLocal();
}
