import { randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SECRET_OVERLAP_MS, WEBHOOK_LIMIT, type WebhookEventType, type WebhookJson } from '#contract/webhooks';
import { dynamo } from '#lib/aws';
import { newId } from '#lib/crypto';
import { ConflictError, NotFoundError, ValidationError } from '#lib/errors';
import { openSecret, sealSecret } from '#lib/secretBox';
import { MAIN_TABLE, tableName } from './tables.ts';
import { deleteCounted, fewItems, isConditionFailure, putCounted } from './entity.ts';
import { WEBHOOK, WEBHOOK_COUNT_SK } from './keys/main.ts';

/**
 * Webhook subscriptions (main table, `webhook#<key>`, with the company's count of them in
 * `webhookCount`); their deliveries are data/webhookDeliveries.ts. The secret is stored only
 * sealed (lib/secretBox, purpose `webhook-secret`); the answer that creates or rotates it is the
 * only one that holds it.
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

const main = () => tableName(MAIN_TABLE);
const PURPOSE = (tenantId: string) => ({ tenantId, purpose: 'webhook-secret' });
const webhookSk = (webhookKey: string) => WEBHOOK.of(webhookKey);
const COUNT_SK = WEBHOOK_COUNT_SK;

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
  return fewItems<WebhookItem>(main(), tenantId, WEBHOOK.prefix(), WEBHOOK_LIMIT * 2);
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
  if (!(await putCounted(main(), COUNT_SK, WEBHOOK_LIMIT, item))) {
    throw new ValidationError([{ path: 'url', message: 'webhook.limitReached', params: { limit: WEBHOOK_LIMIT } }]);
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
  if (!(await deleteCounted(main(), COUNT_SK, { pk: tenantId, sk: webhookSk(webhookKey) }, version))) {
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
