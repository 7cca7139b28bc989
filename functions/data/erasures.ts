import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { EMPTY_COUNTS, RECEIPT_DAYS, type ErasureCounts, type ErasurePhase, type ErasureReceipt } from '#contract/erasures';
import type { PersonKind } from '#contract/people';
import { dynamo } from '#lib/aws';
import { finishBatch } from './entity.ts';
import { EVENTS_TABLE, MAIN_TABLE, tableName } from './tables.ts';
import { ERASURE } from './keys/main.ts';

/**
 * Erasure receipts, in the main table under the tenant: `erasure#<kind>#<personKey>`, kept
 * RECEIPT_DAYS days (TTL). The receipt is also the erasure's progress: its phase, the cursor of
 * the phase and a lease that lets one request at a time work on it, so an erasure that ran out of
 * time goes on where it stopped when asked again.
 */
export interface StoredErasure extends ErasureReceipt {
  tenantId: string;
  /** Where the phase stopped (a DynamoDB key), absent at its start. */
  cursor?: Record<string, unknown>;
  /** Epoch milliseconds until which one request works on it. */
  leaseUntil: number;
  ttl: number;
}

const key = (tenantId: string, kind: PersonKind, personKey: string) => ({ pk: tenantId, sk: ERASURE.of(kind, personKey) });
const isConditionFailure = (error: unknown) => (error as { name?: string }).name === 'ConditionalCheckFailedException';

export async function findErasure(tenantId: string, kind: PersonKind, personKey: string): Promise<StoredErasure | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(MAIN_TABLE), Key: key(tenantId, kind, personKey), ConsistentRead: true }));
  return out.Item as StoredErasure | undefined;
}

/** The kind of person the key was, when that person was erased (their key is a tombstone); undefined otherwise. */
export async function erasedKind(tenantId: string, personKey: string): Promise<PersonKind | undefined> {
  const [employee, visitor] = await Promise.all([findErasure(tenantId, 'employee', personKey), findErasure(tenantId, 'visitor', personKey)]);
  return employee ? 'employee' : visitor ? 'visitor' : undefined;
}

/** Starts an erasure, leased to the caller for `leaseMs`; undefined when one was started before (read it instead). */
export async function startErasure(
  tenantId: string,
  kind: PersonKind,
  personKey: string,
  erasedBy: string,
  leaseMs: number,
  now = new Date(),
): Promise<StoredErasure | undefined> {
  const keptUntil = new Date(now.getTime() + RECEIPT_DAYS * 86_400_000);
  const ttl = Math.ceil(keptUntil.getTime() / 1000);
  const item: StoredErasure = {
    tenantId,
    personKind: kind,
    personKey,
    state: 'running',
    phase: 'person',
    counts: { ...EMPTY_COUNTS },
    erasedBy,
    startedAt: now.toISOString(),
    finishedAt: null,
    keptUntil: keptUntil.toISOString(),
    leaseUntil: now.getTime() + leaseMs,
    ttl,
  };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: tableName(MAIN_TABLE),
        Item: { ...key(tenantId, kind, personKey), kind: 'erasure', ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return item;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Takes the lease of a running erasure whose lease ran out; false when another request holds it or it is done. */
export async function leaseErasure(erasure: StoredErasure, leaseMs: number, now = Date.now()): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(MAIN_TABLE),
        Key: key(erasure.tenantId, erasure.personKind, erasure.personKey),
        UpdateExpression: 'SET leaseUntil = :until',
        ConditionExpression: '#state = :running AND leaseUntil < :now',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':until': now + leaseMs, ':running': 'running', ':now': now },
      }),
    );
    erasure.leaseUntil = now + leaseMs;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Takes a done erasure up again, leased to the caller, at its passes: something of the person
 * came back after it ended. False when another request did so first.
 */
export async function reopenErasure(erasure: StoredErasure, leaseMs: number, now = Date.now()): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(MAIN_TABLE),
        Key: key(erasure.tenantId, erasure.personKind, erasure.personKey),
        UpdateExpression: 'SET #state = :running, phase = :passes, finishedAt = :null, leaseUntil = :until REMOVE #cursor',
        ConditionExpression: '#state = :done',
        ExpressionAttributeNames: { '#state': 'state', '#cursor': 'cursor' },
        ExpressionAttributeValues: { ':running': 'running', ':passes': 'passes', ':null': null, ':until': now + leaseMs, ':done': 'done' },
      }),
    );
    Object.assign(erasure, { state: 'running', phase: 'passes', finishedAt: null, leaseUntil: now + leaseMs });
    delete erasure.cursor;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Saves the progress of a leased erasure: its phase, cursor and counts (the whole set, as the
 * holder of the lease counted them). `release` gives the lease back.
 */
export async function saveErasure(erasure: StoredErasure, release: boolean): Promise<void> {
  const done = erasure.phase === 'done';
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(MAIN_TABLE),
      Key: key(erasure.tenantId, erasure.personKind, erasure.personKey),
      UpdateExpression: `SET phase = :phase, counts = :counts, #state = :state, finishedAt = :finished, leaseUntil = :lease${erasure.cursor ? ', #cursor = :cursor' : ''}${erasure.cursor ? '' : ' REMOVE #cursor'}`,
      ExpressionAttributeNames: { '#state': 'state', '#cursor': 'cursor' },
      ExpressionAttributeValues: {
        ':phase': erasure.phase,
        ':counts': erasure.counts,
        ':state': done ? 'done' : 'running',
        ':finished': erasure.finishedAt,
        ':lease': release ? 0 : erasure.leaseUntil,
        ...(erasure.cursor ? { ':cursor': erasure.cursor } : {}),
      },
    }),
  );
  erasure.state = done ? 'done' : 'running';
}

/** The receipt as the API answers it: without the tenant, cursor, lease and TTL. */
export function receiptOf(erasure: StoredErasure): ErasureReceipt {
  const { personKind, personKey, state, phase, counts, erasedBy, startedAt, finishedAt, keptUntil } = erasure;
  return { personKind, personKey, state, phase, counts: { ...EMPTY_COUNTS, ...counts }, erasedBy, startedAt, finishedAt, keptUntil };
}

export type { ErasureCounts, ErasurePhase };

/**
 * One page of the tenant's items in the events table under `prefix` that name `personKey`: their
 * keys and the attributes asked for, and where the next page starts (null at the end). Filtered
 * pages may hold fewer than `limit` items.
 */
export async function personItemsPage(
  tenantId: string,
  prefix: string,
  personKey: string,
  cursor: Record<string, unknown> | undefined,
  limit: number,
  attributes: readonly string[] = [],
): Promise<{ items: Record<string, unknown>[]; next: Record<string, unknown> | null }> {
  const names = Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a]));
  const out = await dynamo().send(
    new QueryCommand({
      TableName: tableName(EVENTS_TABLE),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: 'personKey = :person',
      ExpressionAttributeValues: { ':pk': tenantId, ':prefix': prefix, ':person': personKey },
      ProjectionExpression: ['pk', 'sk', ...Object.keys(names)].join(', '),
      ...(attributes.length ? { ExpressionAttributeNames: names } : {}),
      Limit: limit,
      ...(cursor ? { ExclusiveStartKey: cursor } : {}),
    }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey ?? null };
}

/**
 * One page of the tenant's items in the events table under `prefix` that belong to `personKey`
 * (questionnaire answers, attendance days and months), removed; answers how many and where to go on.
 */
export async function removePersonItems(
  tenantId: string,
  prefix: string,
  personKey: string,
  cursor: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ removed: number; next: Record<string, unknown> | null }> {
  const table = tableName(EVENTS_TABLE);
  const page = await personItemsPage(tenantId, prefix, personKey, cursor, limit);
  const keys = page.items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
  for (let i = 0; i < keys.length; i += 25) {
    await finishBatch('erasure removal', keys.slice(i, i + 25), async (part) => {
      const result = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: part.map((Key) => ({ DeleteRequest: { Key } })) } }));
      const left = (result.UnprocessedItems?.[table] ?? []).map((r) => r.DeleteRequest!.Key as { pk: string; sk: string });
      return { data: [], unprocessed: left };
    });
  }
  return { removed: keys.length, next: page.next };
}
