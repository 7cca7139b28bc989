import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  DELIVERY_RETENTION_DAYS,
  type AnyEventType,
  type DeliveryError,
  type DeliveryQuery,
  type DeliveryStatus,
  type WebhookDeliveryJson,
} from '#contract/webhooks';
import { dynamo } from '#lib/aws';
import type { QueuedEvent } from '#lib/webhookQueue';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { epochSeconds, isConditionFailure } from './entity.ts';
import { HIGH, decodeCursor, readNewestFirst } from './newestFirst.ts';
import { WEBHOOK_DELIVERY } from './keys/events.ts';

/**
 * The deliveries of webhook events (events table, `webhookDelivery#<webhookKey>#<eventId>`, kept
 * DELIVERY_RETENTION_DAYS): one per event and subscription, each attempt and its outcome, the
 * dead-letter list and replays. The subscriptions are data/webhooks.ts.
 */

export interface DeliveryItem {
  pk: string;
  sk: string;
  webhookKey: string;
  eventId: string;
  eventType: AnyEventType;
  created: string;
  /** The body every attempt sends, as the event was made. */
  body: string;
  /** The person the event names (`data.person`): erasing them removes the delivery (flows/erasure.ts). */
  personKey?: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the attempts of this round began (the first, or the last replay): none is made 24 hours later. */
  windowStart: number;
  /** Attempts made before this round (a replay's round has its own retry schedule); absent before a replay. */
  roundBase?: number;
  nextAttemptAt?: number;
  lastAttemptAt?: string;
  latencyMs?: number;
  responseCode?: number;
  error?: DeliveryError;
  excerpt?: string;
  replays: number;
  ttl: number;
}

const events = () => tableName(EVENTS_TABLE);
export const deliverySk = (webhookKey: string, eventId: string) => WEBHOOK_DELIVERY.of(webhookKey, eventId);
const deliveryPrefix = (webhookKey: string) => WEBHOOK_DELIVERY.prefix(webhookKey);

export const deliveryTtl = (now = Date.now()): number => epochSeconds(new Date(now + DELIVERY_RETENTION_DAYS * 86_400_000));

/** A new event's delivery to one subscription, before its first attempt. */
export function newDelivery(tenantId: string, webhookKey: string, eventId: string, event: QueuedEvent, now: number): DeliveryItem {
  return {
    ...(event.personKey ? { personKey: event.personKey } : {}),
    pk: tenantId,
    sk: deliverySk(webhookKey, eventId),
    webhookKey,
    eventId,
    eventType: event.type,
    created: event.created,
    body: event.body,
    status: 'pending',
    attempts: 0,
    windowStart: now,
    nextAttemptAt: now,
    replays: 0,
    ttl: deliveryTtl(now),
  };
}

/** Adds a delivery unless the same event was already given to this subscription (at-least-once, never twice from one event). */
export async function addDelivery(item: DeliveryItem): Promise<boolean> {
  try {
    await dynamo().send(new PutCommand({ TableName: events(), Item: item, ConditionExpression: 'attribute_not_exists(sk)' }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function findDelivery(tenantId: string, webhookKey: string, eventId: string): Promise<DeliveryItem | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: events(), Key: { pk: tenantId, sk: deliverySk(webhookKey, eventId) }, ConsistentRead: true }));
  return out.Item as DeliveryItem | undefined;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  at: Date;
  latencyMs?: number | undefined;
  responseCode?: number | undefined;
  error?: DeliveryError | undefined;
  excerpt?: string | undefined;
  nextAttemptAt?: number | undefined;
  /** Whether this was an attempt (false: the delivery ended without one, the subscription being gone or off). */
  attempted: boolean;
}

/**
 * Records the first attempt of a new event's delivery: the delivery is written once, with its
 * outcome. False when it was already written (the same message taken twice).
 */
export async function recordFirstAttempt(delivery: DeliveryItem, outcome: AttemptOutcome): Promise<boolean> {
  const item: DeliveryItem = { ...delivery, status: outcome.status, attempts: outcome.attempted ? 1 : 0, lastAttemptAt: outcome.at.toISOString() };
  delete item.nextAttemptAt;
  const optional = {
    latencyMs: outcome.latencyMs,
    responseCode: outcome.responseCode,
    error: outcome.error,
    excerpt: outcome.excerpt,
    nextAttemptAt: outcome.nextAttemptAt,
  };
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) Object.assign(item, { [name]: value });
  return addDelivery(item);
}

/**
 * Records an attempt's outcome, conditioned on the delivery still being at `attempts` and not
 * ended: of two workers given the same message, one records. False when the other did.
 */
export async function recordAttempt(delivery: DeliveryItem, outcome: AttemptOutcome): Promise<boolean> {
  const sets = ['#status = :status', 'lastAttemptAt = :at', 'attempts = :attempts'];
  const removes: string[] = [];
  const values: Record<string, unknown> = {
    ':status': outcome.status,
    ':at': outcome.at.toISOString(),
    ':attempts': delivery.attempts + (outcome.attempted ? 1 : 0),
    ':before': delivery.attempts,
    ':done': 'delivered',
    ':dead': 'dead',
  };
  const optional = {
    latencyMs: outcome.latencyMs,
    responseCode: outcome.responseCode,
    error: outcome.error,
    excerpt: outcome.excerpt,
    nextAttemptAt: outcome.nextAttemptAt,
  };
  for (const [name, value] of Object.entries(optional)) {
    if (value === undefined) removes.push(`#${name}`);
    else {
      sets.push(`#${name} = :${name}`);
      values[`:${name}`] = value;
    }
  }
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: events(),
        Key: { pk: delivery.pk, sk: delivery.sk },
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'attempts = :before AND #status <> :done AND #status <> :dead',
        ExpressionAttributeNames: { '#status': 'status', ...Object.fromEntries(Object.keys(optional).map((name) => [`#${name}`, name])) },
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * A delivery whose message its worker could not finish (it failed on every receipt): dead, unless
 * it already ended. A new event's delivery not yet written is written dead, so it can be replayed.
 */
export async function markWorkerFailed(tenantId: string, webhookKey: string, eventId: string, event?: QueuedEvent): Promise<void> {
  if (event && !(await findDelivery(tenantId, webhookKey, eventId))) {
    const now = Date.now();
    await recordFirstAttempt(newDelivery(tenantId, webhookKey, eventId, event, now), {
      status: 'dead',
      at: new Date(now),
      error: 'workerFailed',
      attempted: false,
    });
    return;
  }
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: events(),
        Key: { pk: tenantId, sk: deliverySk(webhookKey, eventId) },
        UpdateExpression: 'SET #status = :dead, #error = :error REMOVE nextAttemptAt',
        ConditionExpression: 'attribute_exists(sk) AND #status <> :done AND #status <> :dead',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
        ExpressionAttributeValues: { ':dead': 'dead', ':done': 'delivered', ':error': 'workerFailed' },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Queues a delivery again from its current state (`from`): a new round of attempts starting now.
 * False when it changed meanwhile, or is waiting for an attempt already.
 */
export async function restartDelivery(delivery: DeliveryItem, now = Date.now()): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: events(),
        Key: { pk: delivery.pk, sk: delivery.sk },
        UpdateExpression: 'SET #status = :pending, windowStart = :now, nextAttemptAt = :now, roundBase = :attempts, replays = replays + :one',
        ConditionExpression: '#status = :from AND attempts = :attempts',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':now': now, ':one': 1, ':from': delivery.status, ':attempts': delivery.attempts },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * A delivery waiting for an attempt that is this overdue has lost its message (SQS holds one at
 * most 15 minutes between receipts; the local host's queue is lost with the process): it is shown
 * as a dead letter of the worker, and may be replayed.
 */
export const LOST_AFTER_MS = 20 * 60_000;
export const lostDelivery = (item: DeliveryItem, now = Date.now()): boolean =>
  (item.status === 'pending' || item.status === 'retrying') && item.nextAttemptAt !== undefined && now - item.nextAttemptAt > LOST_AFTER_MS;

export function deliveryJson(item: DeliveryItem, now = Date.now()): WebhookDeliveryJson {
  if (lostDelivery(item, now)) return { ...deliveryJson({ ...item, status: 'dead', error: 'workerFailed' }, now), nextAttemptTime: null };
  return {
    deliveryKey: item.eventId,
    eventId: item.eventId,
    eventType: item.eventType,
    created: item.created,
    status: item.status,
    attempts: item.attempts,
    lastAttemptTime: item.lastAttemptAt ?? null,
    nextAttemptTime:
      item.nextAttemptAt !== undefined && (item.status === 'retrying' || item.status === 'pending') ? new Date(item.nextAttemptAt).toISOString() : null,
    latencyMs: item.latencyMs ?? null,
    responseCode: item.responseCode ?? null,
    error: item.error ?? null,
    excerpt: item.excerpt ?? null,
    replays: item.replays,
  };
}

/** Items one list request reads at most when its filters skip most of them. */
export const DELIVERY_READ_BUDGET = 2000;

/** The event-id bounds of a time range: ids start with the event's time in milliseconds. */
function idBounds(webhookKey: string, from: string | undefined, to: string | undefined): { lower: string; upper: string } {
  const ms = (iso: string) => String(Math.max(0, Date.parse(iso))).padStart(13, '0');
  const prefix = deliveryPrefix(webhookKey);
  return { lower: from ? `${prefix}evt_${ms(from)}` : prefix, upper: to ? `${prefix}evt_${ms(to)}${HIGH}` : `${prefix}${HIGH}` };
}

/** A page of a subscription's deliveries, newest event first, filtered by time, status and event. */
export async function listDeliveries(
  tenantId: string,
  webhookKey: string,
  query: Pick<DeliveryQuery, 'from' | 'to' | 'status' | 'event' | 'cursor'>,
  pageSize: number,
  budget = DELIVERY_READ_BUDGET,
) {
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (query.status) {
    conditions.push('#st = :st');
    names['#st'] = 'status';
    values[':st'] = query.status;
  }
  if (query.event) {
    conditions.push('#et = :et');
    names['#et'] = 'eventType';
    values[':et'] = query.event;
  }
  const { lower, upper } = idBounds(webhookKey, query.from, query.to);
  return readNewestFirst<DeliveryItem>({
    table: events(),
    partition: { name: 'pk', value: tenantId },
    sortKey: 'sk',
    lower,
    upper,
    after: query.cursor ? decodeCursor(query.cursor, deliveryPrefix(webhookKey)) : undefined,
    filter: { conditions, names, values },
    pageSize,
    budget,
    keyOf: (item) => item.sk,
  });
}
