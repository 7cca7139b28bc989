import { QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
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
/**
 * Puts a company's item (`pk` is the tenant id) and adds one to the company's count of such items
 * at `countSk`, in one transaction whose condition keeps the count within `limit`: parallel
 * requests cannot pass it. False when the limit (or an item of the same key) refused it.
 */
export async function putCounted(table: string, countSk: string, limit: number, item: { pk: string; sk: string }): Promise<boolean> {
  try {
    await transactWrite([
      {
        Update: {
          TableName: table,
          Key: { pk: item.pk, sk: countSk },
          UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(#c) OR #c < :limit',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
        },
      },
      { Put: { TableName: table, Item: item, ConditionExpression: 'attribute_not_exists(sk)' } },
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** A further condition on the item a write changes: its expression, with the names and values it uses. */
export interface ExtraCondition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * Deletes a company's item at `version` (and meeting `extra`, when given) and gives its place in
 * the count at `countSk` back, in one transaction. False when the item is gone, at another version
 * or failing `extra`: nothing was changed.
 */
export async function deleteCounted(table: string, countSk: string, key: { pk: string; sk: string }, version: number, extra?: ExtraCondition): Promise<boolean> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: table,
          Key: key,
          ConditionExpression: `attribute_exists(sk) AND #version = :version${extra ? ` AND (${extra.expression})` : ''}`,
          ExpressionAttributeNames: { '#version': 'version', ...extra?.names },
          ExpressionAttributeValues: { ':version': version, ...extra?.values },
        },
      },
      {
        Update: {
          TableName: table,
          Key: { pk: key.pk, sk: countSk },
          UpdateExpression: 'SET #c = #c - :one',
          ConditionExpression: '#c > :zero',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        },
      },
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * An ElectroDB `.params()` write as one item of a DynamoDB transaction: the one place where
 * ElectroDB's parameters meet the transaction's types, so entities and raw items (counters,
 * claims) go into one TransactWriteItems.
 */
export const transactPut = (params: Record<string, unknown>): TransactItem => ({ Put: params as TransactItem['Put'] });
export const transactUpdate = (params: Record<string, unknown>): TransactItem => ({ Update: params as TransactItem['Update'] });
export const transactDelete = (params: Record<string, unknown>): TransactItem => ({ Delete: params as TransactItem['Delete'] });

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

/**
 * The few items of a company whose key starts with `prefix` (its webhooks, its API keys: each held
 * to a limit), read at most `max` of them in one query, oldest first by `createdAt`.
 */
export async function fewItems<T extends { createdAt: string }>(table: string, tenantId: string, prefix: string, max: number): Promise<T[]> {
  const range = skPrefix(prefix);
  const out = await dynamo().send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: `pk = :pk AND ${range.condition}`,
      ExpressionAttributeNames: { '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': tenantId, ...range.values },
      Limit: max,
    }),
  );
  return ((out.Items ?? []) as T[]).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
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
