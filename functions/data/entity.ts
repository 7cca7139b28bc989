import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '#lib/errors';
import { dynamo } from '#lib/aws';
import { tableName, type TableDef } from './tables.ts';

export const SERVICE = 'passcloud';

/** Entities are built on first use, so the table names and endpoints are read from the environment then. */
export function lazy<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

export function entityConfig(table: TableDef) {
  return { client: dynamo(), table: tableName(table) };
}

/** Partition key: the tenant id itself, so every key of a tenant starts with it. */
export const tenantPartition = { field: 'pk', composite: ['tenantId'], template: '${tenantId}', casing: 'none' } as const;

export const nowIso = (): string => new Date().toISOString();
export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** True when DynamoDB refused a write because its condition (a version, an absent key) failed. */
export function isConditionFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const name = (e as { name?: string }).name;
    if (name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException') return true;
    if (/conditional request failed|ConditionalCheckFailed/i.test((e as { message?: string }).message ?? '')) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Cancellations of a transaction worth trying again: a conflict with another transaction on one of its items (a shared counter), or throttling. */
const RETRIED_CANCELLATIONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);
const TRANSACTION_ATTEMPTS = 8;

/**
 * Writes a transaction, trying it again (with a growing, jittered wait) while DynamoDB cancels it
 * only for a conflict with another transaction or for throttling: parallel requests on one
 * counter then each get the answer of their own condition. Any other refusal is thrown.
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
 */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      const retried = reasons.some((r) => r.Code && RETRIED_CANCELLATIONS.has(r.Code)) && !reasons.some((r) => r.Code === 'ConditionalCheckFailed');
      if (!retried || attempt >= TRANSACTION_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}
/** An ElectroDB `.params()` put, as one item of a DynamoDB transaction. */
export const transactPut = (params: Record<string, unknown>): TransactItem => ({ Put: params as TransactItem['Put'] });

/**
 * Runs a write conditioned on the record's `version` (and, for patches, on its existence). When
 * the condition fails, the record is looked up once more: gone answers 404, changed answers 409;
 * either way nothing was written.
 */
export async function versionedWrite<T>(write: () => Promise<T>, exists: () => Promise<boolean>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await exists()) ? new ConflictError() : new NotFoundError();
  }
}

/**
 * A sort-key condition for "starts with `prefix`", as a range: `#sk BETWEEN :from AND :to`. It
 * reads the same items as `begins_with`, and DynamoDB Local answers it from its index instead of
 * scanning the partition. U+10FFFF sorts after every character in UTF-8 byte order.
 */
export function skPrefix(prefix: string): { condition: string; values: { ':from': string; ':to': string } } {
  return { condition: '#sk BETWEEN :from AND :to', values: { ':from': prefix, ':to': `${prefix}\u{10FFFF}` } };
}

/** How often the unprocessed part of a batch is tried again before the batch fails. */
const BATCH_ATTEMPTS = 8;
const BATCH_BACKOFF_MS = 50;

/** A batch that DynamoDB could not finish, after every retry: the operation it belongs to must fail. */
export class UnfinishedBatchError extends Error {
  constructor(
    readonly what: string,
    readonly left: number,
  ) {
    super(`${what}: ${left} item(s) left unprocessed after ${BATCH_ATTEMPTS} attempts`);
    this.name = 'UnfinishedBatchError';
  }
}

/**
 * Runs an ElectroDB batch get, put or delete to the end. DynamoDB may leave part of a batch
 * unprocessed (throttling, size limits) and ElectroDB answers that part without retrying it: it is
 * sent again with exponential back-off and jitter, and when part is still left after the last
 * attempt the batch throws, so a caller (a request, a background job) fails instead of reporting
 * work it did not do. Answers the items read (batch gets).
 */
export async function finishBatch<K, R = never>(what: string, items: K[], run: (part: K[]) => Promise<{ data?: R[]; unprocessed: unknown[] }>): Promise<R[]> {
  const out: R[] = [];
  let left = items;
  for (let attempt = 0; left.length > 0; attempt++) {
    if (attempt === BATCH_ATTEMPTS) throw new UnfinishedBatchError(what, left.length);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, BATCH_BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random())));
    const answer = await run(left);
    if (answer.data) out.push(...answer.data);
    left = answer.unprocessed as K[];
  }
  return out;
}
