import type { AnyEventType } from '#contract/webhooks';
import { sqs } from './aws.ts';
import { env } from './env.ts';
import { log } from './log.ts';
import { startLocalWork } from './localWork.ts';
import { checkLocalCall } from './localRole.ts';

/**
 * The queue between what makes webhook events (ingest, device sync, the console) and the sender
 * (functions/jobs/webhookSender.ts). On AWS it is the SQS queue `WEBHOOK_QUEUE_URL` names: a
 * message waits at most 15 minutes (SQS's longest delay), so a later attempt is queued again
 * until it is due; a message the sender fails on three times goes to the dead-letter queue, whose
 * messages the sender marks dead. On one machine it is an in-process queue with the same rules.
 * Either way a producer only writes a message: a slow receiver never holds it up.
 */
export interface DeliveryMessage {
  tenantId: string;
  webhookKey: string;
  eventId: string;
  /**
   * A new event's first attempt carries the event itself: its delivery is written once, with the
   * attempt's outcome. Later attempts and replays carry the keys only and read the delivery.
   */
  event?: QueuedEvent;
}

/** A new event as its first message carries it. */
export interface QueuedEvent {
  type: AnyEventType;
  created: string;
  body: string;
  /** The person the event names, kept beside the delivery so that erasing the person finds it. */
  personKey?: string;
}

/** SQS's longest delay. */
export const MAX_DELAY_MS = 900_000;

async function sendToSqs(queueUrl: string, messages: readonly DeliveryMessage[], delayMs: number): Promise<void> {
  const { client, sdk } = await sqs();
  const delaySeconds = Math.min(MAX_DELAY_MS, Math.max(0, delayMs)) / 1000;
  for (let i = 0; i < messages.length; i += 10) {
    const part = messages.slice(i, i + 10);
    const out = await client.send(
      new sdk.SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: part.map((message, n) => ({ Id: String(n), MessageBody: JSON.stringify(message), DelaySeconds: Math.ceil(delaySeconds) })),
      }),
    );
    if (out.Failed?.length) throw new Error(`${out.Failed.length} webhook messages not queued: ${out.Failed[0]!.Code ?? ''}`);
  }
}

// The in-process queue of the local host.

type Consumer = (message: DeliveryMessage) => Promise<void>;
type DeadLetter = (message: DeliveryMessage) => Promise<void>;
let localConsumer: { consume: Consumer; deadLetter: DeadLetter } | undefined;
/** Receipts of a message before it goes to the dead letters, as the queue's redrive policy has it. */
export const MAX_RECEIVES = 3;
/** Messages the local sender works on at once (the stand-in for the event source's concurrency). */
const LOCAL_AT_ONCE = 32;
/** Messages due now; each is counted as local work (lib/localWork.ts) until its receipt ends. */
const waiting: { message: DeliveryMessage; receives: number; ended: () => void }[] = [];
let running = 0;
const timers = new Set<NodeJS.Timeout>();

/** The local host hands its sender here. */
export function consumeWebhooksInProcess(consume: Consumer, deadLetter: DeadLetter): void {
  localConsumer = { consume, deadLetter };
}

/** Stops the local queue's timers (the host is closing); queued messages are dropped. */
export function stopLocalWebhookQueue(): void {
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
  for (const entry of waiting.splice(0)) entry.ended();
}

function later(delayMs: number, run: () => void): void {
  const timer = setTimeout(() => {
    timers.delete(timer);
    run();
  }, delayMs);
  timer.unref();
  timers.add(timer);
}

function drain(): void {
  const consumer = localConsumer;
  if (!consumer) return;
  while (running < LOCAL_AT_ONCE && waiting.length > 0) {
    const entry = waiting.shift()!;
    entry.receives++;
    running++;
    void consumer
      .consume(entry.message)
      .catch(async (error: unknown) => {
        if (entry.receives < MAX_RECEIVES) {
          log('warn', 'webhook delivery failed in its worker; it is received again', { error: String(error), receives: entry.receives });
          later(1000 * entry.receives, () => {
            waiting.push({ ...entry, ended: startLocalWork() });
            drain();
          });
          return;
        }
        log('error', 'webhook delivery failed in its worker; it goes to the dead letters', { error: String(error), ...entry.message });
        await consumer.deadLetter(entry.message).catch((e: unknown) => log('error', 'webhook dead letter not recorded', { error: String(e) }));
      })
      .finally(() => {
        running--;
        entry.ended();
        drain();
      });
  }
}

/** Queues deliveries, each to be tried `delayMs` from now (at most MAX_DELAY_MS; the sender queues a later one again). */
export async function queueDeliveries(messages: readonly DeliveryMessage[], delayMs = 0): Promise<void> {
  if (messages.length === 0) return;
  const queueUrl = env('WEBHOOK_QUEUE_URL');
  if (queueUrl) return sendToSqs(queueUrl, messages, delayMs);
  if (!localConsumer) {
    log('warn', 'no webhook sender is configured; deliveries wait', { count: messages.length });
    return;
  }
  checkLocalCall('sqs:SendMessage', 'WEBHOOK_QUEUE_URL');
  const push = () => {
    for (const message of messages) waiting.push({ message, receives: 0, ended: startLocalWork() });
    drain();
  };
  if (delayMs > 0) later(Math.min(delayMs, MAX_DELAY_MS), push);
  else push();
}
