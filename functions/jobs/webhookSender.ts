import { Agent, request } from 'node:https';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { isLocale, type Locale } from '#contract/locales';
import { DELIVERY_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS, EXCERPT_MAX, RETRY_UNIT_MS, WEBHOOK_HEADERS, type DeliveryError } from '#contract/webhooks';
import { findTenant, listAccounts } from '#data/identity';
import { companyTimezone } from '#data/tenants';
import { disableFailing, noteDelivered, noteFailing, webhookForSending, signingSecrets, type WebhookItem } from '#data/webhooks';
import {
  findDelivery,
  markWorkerFailed,
  newDelivery,
  recordAttempt,
  recordFirstAttempt,
  type AttemptOutcome,
  type DeliveryItem,
} from '#data/webhookDeliveries';
import { nextAttemptAt, retryAfterMs, signature } from '#domain/webhookSignature';
import { HostRefused, pinHost, privateHostsAllowed, type PinnedHost } from '#lib/addresses';
import { consoleLink } from '#lib/consoleLinks';
import { declareEnvironment, env } from '#lib/env';
import { translate } from '#lib/i18n';
import { startWorker } from '#lib/jobs';
import { log, logged } from '#lib/log';
import { enqueue, retryDueMails } from '#lib/mail';
import { pool } from '#lib/pool';
import { MAX_DELAY_MS, queueDeliveries, type DeliveryMessage } from '#lib/webhookQueue';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'CONSOLE_URL',
  'EVENTS_TABLE',
  'MAIL_FROM',
  'MAIL_WORKER_FUNCTION',
  'MAIN_TABLE',
  'WEBHOOK_DEAD_LETTER_ARN',
  'WEBHOOK_QUEUE_URL',
]);

/**
 * The webhook sender: takes a delivery from the queue (lib/webhookQueue.ts), sends its event to
 * the subscription's address, records the attempt in the delivery log and queues the next one.
 *
 * - The address is looked up at every attempt and refused unless public (or private with the
 *   local switch `SMTP_ALLOW_PRIVATE=1`); the connection goes to the address that was checked.
 * - A redirect is not followed; an answer is waited for DELIVERY_TIMEOUT_MS at most.
 * - 2xx delivers; 408, 429, 5xx, timeouts and connection failures are tried again (RETRY_STEPS,
 *   `Retry-After`); another 4xx or a redirect ends the delivery (`dead`, the dead-letter list).
 * - A subscription failing DISABLE_AFTER_FAILING_MS without a delivery is turned off and its
 *   company's owner mailed.
 */

const retryUnitMs = (): number => Number(env('WEBHOOK_RETRY_UNIT_MS')) || RETRY_UNIT_MS;

interface Answer {
  latencyMs: number;
  responseCode?: number;
  excerpt?: string;
  error?: DeliveryError;
  retryAfter?: number;
}

const TLS_ERROR = /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_CERT)/;

/**
 * Kept-alive connections, one pool per checked address, port, name and certificate rule: a
 * connection is only ever reused for the address it was opened to, which the attempt's own
 * lookup has just checked again. At most AGENTS pools are kept; the oldest is closed.
 */
const AGENTS = 64;
const agents = new Map<string, Agent>();
function agentFor(pinned: PinnedHost, port: string, servername: string | undefined, rejectUnauthorized: boolean): Agent {
  const key = `${pinned.address}|${port}|${servername ?? ''}|${rejectUnauthorized}`;
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key);
    agents.set(key, agent);
    return agent;
  }
  const family = isIP(pinned.address);
  const lookup = (_host: string, options: { all?: boolean }, callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    if (options.all) callback(null, [{ address: pinned.address, family }]);
    else callback(null, pinned.address, family);
  };
  agent = new Agent({ keepAlive: true, keepAliveMsecs: 1000, maxSockets: 8, maxFreeSockets: 4, timeout: 30_000, lookup: lookup as never, rejectUnauthorized });
  agents.set(key, agent);
  if (agents.size > AGENTS) {
    const [oldest, old] = agents.entries().next().value!;
    agents.delete(oldest);
    old.destroy();
  }
  return agent;
}

/** One POST to the checked address, with the name for TLS; never follows a redirect, gives up after DELIVERY_TIMEOUT_MS. */
function post(url: URL, pinned: PinnedHost, headers: Record<string, string>, body: string): Promise<Answer> {
  const started = Date.now();
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const servername = isIP(hostname) ? undefined : url.hostname;
  // A developer's own receiver on a private address may use a self-signed certificate (the local switch only).
  const rejectUnauthorized = !(privateHostsAllowed() && pinned.kind !== 'public');
  const port = url.port || '443';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<Answer, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, latencyMs: Date.now() - started });
    };
    const req = request(
      {
        protocol: 'https:',
        hostname,
        port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'PassCloud-Webhooks/1' },
        agent: agentFor(pinned, port, servername, rejectUnauthorized),
        ...(servername ? { servername } : {}),
        rejectUnauthorized,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const code = res.statusCode ?? 0;
        const done = () =>
          finish({
            responseCode: code,
            excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_MAX),
            ...(code >= 200 && code < 300 ? {} : { error: code >= 300 && code < 400 ? 'redirect' : 'status' }),
            ...(code === 429 || code === 503 ? { retryAfter: retryAfterMs(res.headers['retry-after']) } : {}),
          });
        res.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_MAX * 4) chunks.push(chunk);
          size += chunk.length;
          if (size >= EXCERPT_MAX * 4) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: 'timeout' });
      req.destroy();
    }, DELIVERY_TIMEOUT_MS);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ error: TLS_ERROR.test(String(error.code ?? '')) ? 'tls' : 'connection' }));
    req.end(body);
  });
}

/** Whether a failed attempt may be tried again: not after a redirect, a refused address or a 4xx other than 408 and 429. */
function retriable(answer: Answer): boolean {
  if (answer.error === 'redirect' || answer.error === 'addressRefused') return false;
  const code = answer.responseCode;
  if (code !== undefined && code >= 400 && code < 500) return code === 408 || code === 429;
  return true;
}

/** One attempt at a delivery to its subscription's address now. */
export async function attempt(webhook: WebhookItem, delivery: DeliveryItem, now = Date.now()): Promise<Answer> {
  const url = new URL(webhook.url);
  let pinned: PinnedHost;
  try {
    pinned = await pinHost(url.hostname.replace(/^\[(.*)\]$/, '$1'), { allowPrivate: privateHostsAllowed() });
  } catch (error) {
    if (!(error instanceof HostRefused)) throw error;
    return { latencyMs: 0, error: error.reason === 'notPublic' ? 'addressRefused' : 'connection' };
  }
  const timestamp = Math.floor(now / 1000);
  const headers = {
    [WEBHOOK_HEADERS.id]: delivery.eventId,
    [WEBHOOK_HEADERS.type]: delivery.eventType,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signature(await signingSecrets(webhook, now), timestamp, delivery.body),
  };
  return post(url, pinned, headers, delivery.body);
}

/** The owner of a company whose subscription the service turned off is told, in the company's language. */
async function mailOwner(webhook: WebhookItem): Promise<void> {
  const [tenant, accounts, timeZone] = await Promise.all([findTenant(webhook.pk), listAccounts(webhook.pk), companyTimezone(webhook.pk)]);
  const owner = accounts.find((a) => a.owner)?.email;
  if (!owner) return;
  const locale: Locale = tenant?.locale && isLocale(tenant.locale) ? tenant.locale : 'en_US';
  const since = new Intl.DateTimeFormat(locale.replace('_', '-'), { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(webhook.failingSince ?? Date.now()),
  );
  const params = { url: webhook.url, since, link: consoleLink('/settings/webhooks', { webhook: webhook.webhookKey }) };
  const mails = [
    {
      to: owner,
      subject: translate(locale, 'mail.webhookDisabledSubject', params),
      text: translate(locale, 'mail.webhookDisabledBody', params),
      kind: 'webhookDisabled',
      about: webhook.url,
    },
  ];
  if ((await enqueue(webhook.pk, mails)).length > 0) await startWorker('MAIL_WORKER_FUNCTION', {}, async () => void (await retryDueMails()), 'mail');
}

/**
 * After a failed attempt: the subscription fails since its first failure (written once, not at
 * every failure: a busy receiver that is down does not make its subscription a hot item); after
 * DISABLE_AFTER_FAILING_MS of that it is turned off, once.
 */
async function noteFailure(webhook: WebhookItem, now: Date): Promise<void> {
  const since = webhook.failingSince ?? (await noteFailing(webhook.pk, webhook.webhookKey, now));
  if (!since || now.getTime() - Date.parse(since) < DISABLE_AFTER_FAILING_MS) return;
  const disabled = await disableFailing(webhook.pk, webhook.webhookKey, since);
  if (!disabled) return;
  log('warn', 'webhook turned off after failing for days', { tenantId: webhook.pk, webhookKey: webhook.webhookKey, since });
  await mailOwner(disabled);
}

/**
 * Works on one queued delivery: a new event's first attempt, or a later one (read from the log:
 * nothing when it already ended, queued again when its attempt is not yet due). One attempt,
 * recorded, and the next queued when there is one.
 */
export async function processDelivery(message: DeliveryMessage, clock: () => number = Date.now): Promise<void> {
  const first = message.event;
  const delivery = first
    ? newDelivery(message.tenantId, message.webhookKey, message.eventId, first, clock())
    : await findDelivery(message.tenantId, message.webhookKey, message.eventId);
  if (!delivery || delivery.status === 'delivered' || delivery.status === 'dead') return;
  const due = delivery.nextAttemptAt ?? 0;
  if (!first && due - clock() > 1000) return queueDeliveries([message], Math.min(due - clock(), MAX_DELAY_MS));
  const record = (outcome: AttemptOutcome) => (first ? recordFirstAttempt(delivery, outcome) : recordAttempt(delivery, outcome));
  const webhook = await webhookForSending(message.tenantId, message.webhookKey);
  if (!webhook || !webhook.enabled) {
    await record({ status: 'dead', at: new Date(clock()), error: webhook ? 'disabled' : 'gone', attempted: false });
    return;
  }
  const answer = await attempt(webhook, delivery, clock());
  const at = new Date(clock());
  const attempts = delivery.attempts + 1;
  const outcome: AttemptOutcome = {
    status: 'delivered',
    at,
    latencyMs: answer.latencyMs,
    responseCode: answer.responseCode,
    error: answer.error,
    excerpt: answer.excerpt,
    attempted: true,
  };
  if (answer.error) {
    // A replay starts the schedule again: its attempts count from the round's first.
    const next = retriable(answer)
      ? nextAttemptAt(attempts - (delivery.roundBase ?? 0), delivery.windowStart, at.getTime(), answer.retryAfter, retryUnitMs())
      : undefined;
    outcome.status = next === undefined ? 'dead' : 'retrying';
    outcome.nextAttemptAt = next;
  }
  if (!(await record(outcome))) return;
  if (outcome.status === 'delivered') {
    if (webhook.failingSince) await noteDelivered(webhook.pk, webhook.webhookKey);
    return;
  }
  await noteFailure(webhook, at);
  // The later attempt reads the delivery from the log: the message carries its keys only.
  if (outcome.nextAttemptAt !== undefined) {
    await queueDeliveries(
      [{ tenantId: message.tenantId, webhookKey: message.webhookKey, eventId: message.eventId }],
      Math.min(outcome.nextAttemptAt - clock(), MAX_DELAY_MS),
    );
  }
}

function messageOf(body: string): DeliveryMessage | undefined {
  try {
    const value = JSON.parse(body) as Partial<DeliveryMessage>;
    const event = value.event;
    const eventOk =
      event === undefined ||
      (typeof event === 'object' &&
        event !== null &&
        typeof event.type === 'string' &&
        typeof event.created === 'string' &&
        typeof event.body === 'string' &&
        (event.personKey === undefined || typeof event.personKey === 'string'));
    if (typeof value.tenantId === 'string' && typeof value.webhookKey === 'string' && typeof value.eventId === 'string' && eventOk)
      return value as DeliveryMessage;
  } catch {
    // dropped below
  }
  return undefined;
}

/**
 * The SQS handler: the queue's messages, a few at once (one slow receiver does not hold up the
 * rest of the batch beyond DELIVERY_TIMEOUT_MS); a message that failed is reported so SQS gives
 * it again, and after its third receipt moves it to the dead-letter queue, whose messages (the
 * same function reads it) mark their deliveries dead.
 */
async function handle(event: SQSEvent): Promise<SQSBatchResponse> {
  const deadLetters = env('WEBHOOK_DEAD_LETTER_ARN');
  const failures: { itemIdentifier: string }[] = [];
  await pool(event.Records, 10, async (record) => {
    const message = messageOf(record.body);
    if (!message) return log('error', 'webhook queue message dropped: not a delivery', { messageId: record.messageId });
    try {
      if (deadLetters && record.eventSourceARN === deadLetters) await markWorkerFailed(message.tenantId, message.webhookKey, message.eventId, message.event);
      else await processDelivery(message);
    } catch (error) {
      log('error', 'webhook delivery failed in its worker', { ...message, error: String(error) });
      failures.push({ itemIdentifier: record.messageId });
    }
  });
  return { batchItemFailures: failures };
}

export const handler = logged('webhookSender', handle);
