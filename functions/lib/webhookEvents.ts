import { createHash, randomBytes } from 'node:crypto';
import { eventEnvelope, type AnyEventType, type EventData, type WebhookEventType } from '#contract/webhooks';
import { subscribersOf, type WebhookItem } from '#data/webhooks';
import { log } from './log.ts';
import { queueDeliveries, type QueuedEvent } from './webhookQueue.ts';

/**
 * Events for webhooks: what happened, made once into the body every subscription that chose it
 * receives. An event's id starts with its time in milliseconds (the delivery log's order) and
 * ends with a hash of the company, the type and what it is about (`source`: a record's key, a
 * call's): the same event made twice has the same id, which receivers deduplicate by. The makers
 * give an event once (a record sent again is not new; a presence change is taken once).
 */
export function eventId(tenantId: string, type: AnyEventType, source: string, created: string): string {
  const ms = String(Math.max(0, Date.parse(created))).padStart(13, '0').slice(-13);
  return `evt_${ms}${createHash('sha256').update(`${tenantId}\u0000${type}\u0000${source}`).digest('hex').slice(0, 16)}`;
}

/** The body of an event, checked against its schema (docs/webhooks.md is written from the same). */
export function eventBody<T extends AnyEventType>(id: string, type: T, created: string, data: EventData<T>): string {
  return JSON.stringify(eventEnvelope(type).parse({ id, type, created, data }));
}

async function deliverTo(tenantId: string, targets: readonly WebhookItem[], id: string, event: QueuedEvent): Promise<void> {
  await queueDeliveries(targets.map((target) => ({ tenantId, webhookKey: target.webhookKey, eventId: id, event })));
}

/** The person an event's data names, if any. */
function personOf(data: unknown): string | undefined {
  const person = (data as { person?: { personKey?: unknown } | null }).person;
  return typeof person?.personKey === 'string' ? person.personKey : undefined;
}

/**
 * Gives an event to every enabled subscription of the company that chose its type. It costs the
 * caller a cached read of the subscriptions, and with subscribers a queued message each (the
 * sender writes the delivery with its first attempt); it never throws (an event not given is
 * logged), so nothing that makes events fails by it.
 */
export async function emitEvent<T extends WebhookEventType>(tenantId: string, type: T, source: string, created: string, data: () => EventData<T> | Promise<EventData<T>>): Promise<void> {
  try {
    const targets = await subscribersOf(tenantId, type);
    if (targets.length === 0) return;
    const id = eventId(tenantId, type, source, created);
    const made = await data();
    const personKey = personOf(made);
    await deliverTo(tenantId, targets, id, { type, created, body: eventBody(id, type, created, made), ...(personKey ? { personKey } : {}) });
  } catch (error) {
    log('error', 'webhook event not given', { tenantId, type, source, error: String(error) });
  }
}

/** "Send a test event": to one subscription, whatever it chose, with an id of its own. Answers the delivery's key. */
export async function emitTestEvent(tenantId: string, target: WebhookItem, message: string): Promise<string> {
  const created = new Date().toISOString();
  const id = eventId(tenantId, 'webhook.test', randomBytes(12).toString('hex'), created);
  await deliverTo(tenantId, [target], id, { type: 'webhook.test', created, body: eventBody(id, 'webhook.test', created, { message }) });
  return id;
}
