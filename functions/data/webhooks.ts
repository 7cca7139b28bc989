import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  DELIVERY_RETENTION_DAYS,
  SECRET_OVERLAP_MS,
  WEBHOOK_LIMIT,
  type AnyEventType,
  type DeliveryError,
  type DeliveryQuery,
  type DeliveryStatus,
  type WebhookDeliveryJson,
  type WebhookEventType,
  type WebhookJson,
} from '#contract/webhooks';
import { dynamo } from '#lib/aws';
import type { QueuedEvent } from '#lib/webhookQueue';
import { newId } from '#lib/crypto';
import { ConflictError, NotFoundError, ValidationError } from '#lib/errors';
import { openSecret, sealSecret } from '#lib/secretBox';
import { EVENTS_TABLE, MAIN_TABLE, tableName } from './tables.ts';
import { epochSeconds, isConditionFailure, skPrefix, transactWrite } from './entity.ts';
import { HIGH, decodeCursor, readNewestFirst } from './newestFirst.ts';

/**
 * Webhook subscriptions (main table, `webhook#<key>`, with the company's count of them in
 * `webhookCount`) and their deliveries (events table, `webhookDelivery#<webhookKey>#<eventId>`,
 * kept DELIVERY_RETENTION_DAYS). The secret is stored only sealed (lib/secretBox, purpose
 * `webhook-secret`); the answer that creates or rotates it is the only one that holds it.
 */

export interface WebhookItem {
  pk: string;
  sk: string;
  webhookKey: string;
  url: string;
  events: WebhookEventType[];
  description: string;
  enabled: boolean;
  disabledReason?: 'failing';
  failingSince?: string;
  secretSealed: string;
  previousSecretSealed?: string;
  previousSecretUntil?: string;
  secretRotatedAt?: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

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

const main = () => tableName(MAIN_TABLE);
const events = () => tableName(EVENTS_TABLE);
const PURPOSE = (tenantId: string) => ({ tenantId, purpose: 'webhook-secret' });
const webhookSk = (webhookKey: string) => `webhook#${webhookKey}`;
const COUNT_SK = 'webhookCount';
export const deliverySk = (webhookKey: string, eventId: string) => `webhookDelivery#${webhookKey}#${eventId}`;
const deliveryPrefix = (webhookKey: string) => `webhookDelivery#${webhookKey}#`;

/** A new signing secret: 32 random bytes. */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export function webhookJson(item: WebhookItem, now = Date.now()): WebhookJson {
  const overlap = item.previousSecretUntil && Date.parse(item.previousSecretUntil) > now ? item.previousSecretUntil : null;
  return {
    webhookKey: item.webhookKey,
    url: item.url,
    events: item.events,
    description: item.description,
    enabled: item.enabled,
    disabledReason: item.disabledReason ?? null,
    failingSince: item.failingSince ?? null,
    previousSecretUntil: overlap,
    secretRotateTime: item.secretRotatedAt ?? null,
    createTime: item.createdAt,
    updateTime: item.updatedAt,
    version: item.version,
  };
}

export async function findWebhook(tenantId: string, webhookKey: string, consistent = false): Promise<WebhookItem | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: main(), Key: { pk: tenantId, sk: webhookSk(webhookKey) }, ConsistentRead: consistent }));
  return out.Item as WebhookItem | undefined;
}

export async function requireWebhook(tenantId: string, webhookKey: string): Promise<WebhookItem> {
  const item = await findWebhook(tenantId, webhookKey, true);
  if (!item) throw new NotFoundError();
  return item;
}

/** Every subscription of the company (at most WEBHOOK_LIMIT), oldest first. */
export async function listWebhooks(tenantId: string): Promise<WebhookItem[]> {
  const range = skPrefix('webhook#');
  const out = await dynamo().send(
    new QueryCommand({
      TableName: main(),
      KeyConditionExpression: 'pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#sk': 'sk' },
      ExpressionAttributeValues: { ':pk': tenantId, ...range.values },
      Limit: WEBHOOK_LIMIT * 2,
    }),
  );
  return ((out.Items ?? []) as WebhookItem[]).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The subscriptions' cache of the processes that make events: a change made in this process is seen at once, one made elsewhere within SUBSCRIBERS_TTL_MS. */
const SUBSCRIBERS_TTL_MS = 10_000;
const subscribers = new Map<string, { at: number; items: Promise<WebhookItem[]> }>();

/** The enabled subscriptions of the company that chose `type`. */
export async function subscribersOf(tenantId: string, type: WebhookEventType, now = Date.now()): Promise<WebhookItem[]> {
  let cached = subscribers.get(tenantId);
  if (!cached || now - cached.at > SUBSCRIBERS_TTL_MS) {
    cached = { at: now, items: listWebhooks(tenantId) };
    subscribers.set(tenantId, cached);
    if (subscribers.size > 5000) subscribers.delete(subscribers.keys().next().value!);
    cached.items.catch(() => subscribers.delete(tenantId));
  }
  return (await cached.items).filter((item) => item.enabled && item.events.includes(type));
}

/** The sender's cache of subscriptions, by tenant and key: a change is seen within SENDING_TTL_MS (at once in this process). */
const SENDING_TTL_MS = 2_000;
const sending = new Map<string, { at: number; item: Promise<WebhookItem | undefined> }>();

/** The subscription a delivery goes to, as the sender reads it (fresh within SENDING_TTL_MS). */
export async function webhookForSending(tenantId: string, webhookKey: string, now = Date.now()): Promise<WebhookItem | undefined> {
  const key = `${tenantId}#${webhookKey}`;
  let cached = sending.get(key);
  if (!cached || now - cached.at > SENDING_TTL_MS) {
    cached = { at: now, item: findWebhook(tenantId, webhookKey, true) };
    sending.set(key, cached);
    if (sending.size > 5000) sending.delete(sending.keys().next().value!);
    cached.item.catch(() => sending.delete(key));
  }
  return cached.item;
}

/** A change of the company's subscriptions: this process's caches forget them. */
export function forgetSubscribers(tenantId: string): void {
  subscribers.delete(tenantId);
  for (const key of sending.keys()) if (key.startsWith(`${tenantId}#`)) sending.delete(key);
}

export interface NewWebhook {
  url: string;
  events: WebhookEventType[];
  description: string;
  enabled: boolean;
}

/**
 * Creates a subscription with a new secret, within the company's WEBHOOK_LIMIT: the count and the
 * subscription are written in one transaction, the count conditioned on staying within the limit.
 */
export async function createWebhook(tenantId: string, input: NewWebhook): Promise<{ item: WebhookItem; secret: string }> {
  const secret = newSecret();
  const now = new Date().toISOString();
  const webhookKey = newId(16);
  const item: WebhookItem = {
    pk: tenantId,
    sk: webhookSk(webhookKey),
    webhookKey,
    ...input,
    secretSealed: await sealSecret(secret, PURPOSE(tenantId)),
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
  try {
    await transactWrite([
      {
        Update: {
          TableName: main(),
          Key: { pk: tenantId, sk: COUNT_SK },
          UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one',
          ConditionExpression: 'attribute_not_exists(#c) OR #c < :limit',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': WEBHOOK_LIMIT },
        },
      },
      { Put: { TableName: main(), Item: item, ConditionExpression: 'attribute_not_exists(sk)' } },
    ]);
  } catch (error) {
    if (isConditionFailure(error)) throw new ValidationError([{ path: 'url', message: 'webhook.limitReached', params: { limit: WEBHOOK_LIMIT } }]);
    throw error;
  }
  forgetSubscribers(tenantId);
  return { item, secret };
}

export interface WebhookChanges {
  url?: string | undefined;
  events?: WebhookEventType[] | undefined;
  description?: string | undefined;
  enabled?: boolean | undefined;
}

/** Changes a subscription at `version`: a stale version answers 409, a missing one 404. Turning it on again clears why the service turned it off. */
export async function updateWebhook(tenantId: string, webhookKey: string, version: number, changes: WebhookChanges): Promise<WebhookItem> {
  const sets: string[] = ['#updatedAt = :now', '#version = :next'];
  const removes: string[] = [];
  const names: Record<string, string> = { '#updatedAt': 'updatedAt', '#version': 'version' };
  const values: Record<string, unknown> = { ':now': new Date().toISOString(), ':next': version + 1, ':version': version };
  for (const field of ['url', 'events', 'description', 'enabled'] as const) {
    if (changes[field] === undefined) continue;
    sets.push(`#${field} = :${field}`);
    names[`#${field}`] = field;
    values[`:${field}`] = changes[field];
  }
  if (changes.enabled === true || changes.url !== undefined) {
    removes.push('#disabledReason', '#failingSince');
    names['#disabledReason'] = 'disabledReason';
    names['#failingSince'] = 'failingSince';
  }
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: webhookSk(webhookKey) },
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'attribute_exists(sk) AND #version = :version',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    forgetSubscribers(tenantId);
    return out.Attributes as WebhookItem;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findWebhook(tenantId, webhookKey, true)) ? new ConflictError() : new NotFoundError();
  }
}

/** Removes a subscription at `version` and gives its place back; its deliveries stay in the log until they expire, and none is attempted again. */
export async function deleteWebhook(tenantId: string, webhookKey: string, version: number): Promise<void> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: main(),
          Key: { pk: tenantId, sk: webhookSk(webhookKey) },
          ConditionExpression: 'attribute_exists(sk) AND #version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': version },
        },
      },
      {
        Update: {
          TableName: main(),
          Key: { pk: tenantId, sk: COUNT_SK },
          UpdateExpression: 'SET #c = #c - :one',
          ConditionExpression: '#c > :zero',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
        },
      },
    ]);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findWebhook(tenantId, webhookKey, true)) ? new ConflictError() : new NotFoundError();
  }
  forgetSubscribers(tenantId);
}

/** A new secret at `version`; the one it replaces still signs for SECRET_OVERLAP_MS (an older one no longer). */
export async function rotateSecret(tenantId: string, webhookKey: string): Promise<{ item: WebhookItem; secret: string }> {
  const current = await requireWebhook(tenantId, webhookKey);
  const secret = newSecret();
  const now = Date.now();
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: webhookSk(webhookKey) },
        UpdateExpression:
          'SET secretSealed = :sealed, previousSecretSealed = :previous, previousSecretUntil = :until, secretRotatedAt = :now, updatedAt = :now, #version = :next',
        ConditionExpression: 'attribute_exists(sk) AND #version = :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: {
          ':sealed': await sealSecret(secret, PURPOSE(tenantId)),
          ':previous': current.secretSealed,
          ':until': new Date(now + SECRET_OVERLAP_MS).toISOString(),
          ':now': new Date(now).toISOString(),
          ':version': current.version,
          ':next': current.version + 1,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    forgetSubscribers(tenantId);
    return { item: out.Attributes as WebhookItem, secret };
  } catch (error) {
    if (isConditionFailure(error)) throw new ConflictError();
    throw error;
  }
}

/** Opened secrets, by their sealed text: opening one on AWS is a KMS call. */
const opened = new Map<string, string>();
async function open(tenantId: string, sealed: string): Promise<string> {
  let plain = opened.get(sealed);
  if (plain === undefined) {
    plain = await openSecret(sealed, PURPOSE(tenantId));
    if (opened.size > 1000) opened.delete(opened.keys().next().value!);
    opened.set(sealed, plain);
  }
  return plain;
}

/** The secrets that sign now: the current one, and the one a rotation replaced while it still may. */
export async function signingSecrets(item: WebhookItem, now = Date.now()): Promise<string[]> {
  const secrets = [await open(item.pk, item.secretSealed)];
  if (item.previousSecretSealed && item.previousSecretUntil && Date.parse(item.previousSecretUntil) > now)
    secrets.push(await open(item.pk, item.previousSecretSealed));
  return secrets;
}

/** Notes a failed delivery: the subscription fails since now unless it already did. Answers since when it fails. */
export async function noteFailing(tenantId: string, webhookKey: string, now: Date): Promise<string | undefined> {
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: webhookSk(webhookKey) },
        UpdateExpression: 'SET failingSince = if_not_exists(failingSince, :now)',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (out.Attributes as WebhookItem).failingSince;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** A delivery went through: the subscription no longer fails. */
export async function noteDelivered(tenantId: string, webhookKey: string): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: webhookSk(webhookKey) },
        UpdateExpression: 'REMOVE failingSince',
        ConditionExpression: 'attribute_exists(failingSince)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Turns off a subscription that has failed since `failingSince`; true for the one call that did (one conditional write), which then tells the owner. */
export async function disableFailing(tenantId: string, webhookKey: string, failingSince: string): Promise<WebhookItem | undefined> {
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: webhookSk(webhookKey) },
        UpdateExpression: 'SET enabled = :off, disabledReason = :failing, updatedAt = :now, #version = #version + :one',
        ConditionExpression: 'enabled = :on AND failingSince = :since',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':off': false, ':on': true, ':failing': 'failing', ':now': new Date().toISOString(), ':one': 1, ':since': failingSince },
        ReturnValues: 'ALL_NEW',
      }),
    );
    forgetSubscribers(tenantId);
    return out.Attributes as WebhookItem;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

// Deliveries

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
