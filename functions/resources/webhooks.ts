import * as z from 'zod';
import {
  REPLAY_LIMIT,
  deliveryKeyParams,
  deliveryQuery,
  deliveryQueued,
  replayAnswer,
  replayRangeBody,
  rotateBody,
  webhookAnswer,
  webhookCreateBody,
  webhookCreated,
  webhookDeliveryPage,
  webhookKeyParams,
  webhookList,
  webhookPatchBody,
  webhookSecret,
  webhookVersionQuery,
  type ReplayAnswer,
  type WebhookCreated,
  type WebhookSecret,
} from '#contract/webhooks';
import { createWebhook, deleteWebhook, listWebhooks, requireWebhook, rotateSecret, updateWebhook, webhookJson, type WebhookItem } from '#data/webhooks';
import { deliveryJson, findDelivery, listDeliveries, lostDelivery, restartDelivery, type DeliveryItem } from '#data/webhookDeliveries';
import { HostRefused, pinHost, privateHostsAllowed } from '#lib/addresses';
import { countAttempt } from '#data/throttles';
import { declareEnvironment } from '#lib/env';
import { AppError, ConflictError, NotFoundError, ValidationError } from '#lib/errors';
import { created, deleted, defineResource, ok, queued, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { pool } from '#lib/pool';
import { emitTestEvent } from '#lib/webhookEvents';
import { queueDeliveries } from '#lib/webhookQueue';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'EVENTS_TABLE',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'SETTINGS_KMS_KEY_ID',
  'WEBHOOK_QUEUE_URL',
]);

/**
 * The receiver's host must resolve, and only to public addresses (private ones too with the local
 * switch): checked at every save that names an address, and again by the sender at every attempt.
 */
async function checkReceiver(url: string): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    await pinHost(host, { allowPrivate: privateHostsAllowed() });
  } catch (error) {
    if (!(error instanceof HostRefused)) throw error;
    if (error.reason === 'notPublic')
      throw new ValidationError([{ path: 'url', message: 'webhook.urlNotPublic', params: { host, address: error.address ?? '' } }]);
    throw new ValidationError([{ path: 'url', message: error.reason === 'notFound' ? 'webhook.urlNotFound' : 'webhook.urlLookupFailed', params: { host } }]);
  }
}

/** A delivery waiting for an attempt cannot be replayed; one of a subscription that is off could not be sent. */
function replayable(webhook: WebhookItem, delivery: DeliveryItem): void {
  if (!webhook.enabled) throw new AppError(409, 'webhook.replayDisabled');
  if ((delivery.status === 'pending' || delivery.status === 'retrying') && !lostDelivery(delivery)) throw new AppError(409, 'webhook.replayWaiting');
}

/** Deliveries one replay of a range reads at most before it answers `more`. */
const REPLAY_READ_BUDGET = 5000;

/**
 * `/v1/webhooks`: a company's subscriptions (at most WEBHOOK_LIMIT), their secrets (shown once, at
 * creation and rotation), the delivery log of each, a test event, and deliveries sent again.
 */
export const webhooks = defineResource('webhooks', {
  'GET /v1/webhooks': sessionRoute({
    answer: webhookList,
    async handle({ auth }) {
      return ok({ items: (await listWebhooks(auth.tenantId)).map((item) => webhookJson(item)) });
    },
  }),
  'POST /v1/webhooks': sessionRoute({
    answer: webhookCreated,
    body: webhookCreateBody,
    async handle({ auth, body }) {
      await checkReceiver(body.url);
      const { item, secret } = await createWebhook(auth.tenantId, body);
      return created({ webhook: webhookJson(item), secret } satisfies WebhookCreated);
    },
  }),
  'GET /v1/webhooks/{webhookKey}': sessionRoute({
    answer: webhookAnswer,
    params: webhookKeyParams,
    async handle({ auth, params }) {
      return ok(webhookJson(await requireWebhook(auth.tenantId, params.webhookKey)));
    },
  }),
  'PATCH /v1/webhooks/{webhookKey}': sessionRoute({
    answer: webhookAnswer,
    params: webhookKeyParams,
    body: webhookPatchBody,
    async handle({ auth, params, body }) {
      const { version, ...changes } = body;
      if (changes.url !== undefined) await checkReceiver(changes.url);
      return created(webhookJson(await updateWebhook(auth.tenantId, params.webhookKey, version, changes)));
    },
  }),
  'DELETE /v1/webhooks/{webhookKey}': sessionRoute({
    answer: z.null(),
    params: webhookKeyParams,
    query: webhookVersionQuery,
    async handle({ auth, params, query }) {
      await deleteWebhook(auth.tenantId, params.webhookKey, query.version);
      return deleted();
    },
  }),
  'POST /v1/webhooks/{webhookKey}/secret': sessionRoute({
    answer: webhookSecret,
    params: webhookKeyParams,
    body: rotateBody,
    async handle({ auth, params, body }) {
      const current = await requireWebhook(auth.tenantId, params.webhookKey);
      if (current.version !== body.version) throw new ConflictError();
      const { item, secret } = await rotateSecret(auth.tenantId, params.webhookKey);
      return created({ secret, previousSecretUntil: item.previousSecretUntil!, webhook: webhookJson(item) } satisfies WebhookSecret);
    },
  }),
  'POST /v1/webhooks/{webhookKey}/test': sessionRoute({
    answer: deliveryQueued,
    params: webhookKeyParams,
    async handle({ auth, params, locale }) {
      const webhook = await requireWebhook(auth.tenantId, params.webhookKey);
      if (!webhook.enabled) throw new AppError(409, 'webhook.replayDisabled');
      await countAttempt('webhookTests', auth.tenantId, 'webhook.testLimit', auth.tenantId);
      const deliveryKey = await emitTestEvent(auth.tenantId, webhook, translate(locale, 'webhook.testMessage'));
      return queued({ deliveryKey });
    },
  }),
  'GET /v1/webhooks/{webhookKey}/deliveries': sessionRoute({
    answer: webhookDeliveryPage,
    params: webhookKeyParams,
    query: deliveryQuery,
    async handle({ auth, params, query }) {
      await requireWebhook(auth.tenantId, params.webhookKey);
      const page = await listDeliveries(auth.tenantId, params.webhookKey, query, query.pageSize);
      return ok({ items: page.items.map((item) => deliveryJson(item)), nextCursor: page.nextCursor });
    },
  }),
  'POST /v1/webhooks/{webhookKey}/deliveries/{deliveryKey}/replay': sessionRoute({
    answer: deliveryQueued,
    params: deliveryKeyParams,
    async handle({ auth, params }) {
      const webhook = await requireWebhook(auth.tenantId, params.webhookKey);
      const delivery = await findDelivery(auth.tenantId, params.webhookKey, params.deliveryKey);
      if (!delivery) throw new NotFoundError();
      replayable(webhook, delivery);
      // Every replay is a request to the company's receiver: a few an hour per company, with the ranges'.
      await countAttempt('webhookReplays', auth.tenantId, 'webhook.replayLimit', auth.tenantId);
      if (!(await restartDelivery(delivery))) throw new AppError(409, 'webhook.replayWaiting');
      await queueDeliveries([{ tenantId: auth.tenantId, webhookKey: params.webhookKey, eventId: delivery.eventId }]);
      return queued({ deliveryKey: delivery.eventId });
    },
  }),
  'POST /v1/webhooks/{webhookKey}/replay': sessionRoute({
    answer: replayAnswer,
    params: webhookKeyParams,
    body: replayRangeBody,
    async handle({ auth, params, body }) {
      const webhook = await requireWebhook(auth.tenantId, params.webhookKey);
      if (!webhook.enabled) throw new AppError(409, 'webhook.replayDisabled');
      // Dead letters include deliveries whose message was lost (still waiting in the log), so they are picked here, not by the query.
      const status = body.status === 'delivered' ? 'delivered' : undefined;
      const wanted = (d: DeliveryItem) =>
        body.status === 'dead'
          ? d.status === 'dead' || lostDelivery(d)
          : body.status === 'delivered'
            ? d.status === 'delivered'
            : d.status === 'dead' || d.status === 'delivered' || lostDelivery(d);
      const found: DeliveryItem[] = [];
      let more = false;
      let cursor: string | undefined;
      // Newest first, REPLAY_LIMIT at most; a range holding more answers where to go on.
      for (;;) {
        const page = await listDeliveries(
          auth.tenantId,
          params.webhookKey,
          { from: body.from, to: body.to, status, event: undefined, cursor },
          Math.min(100, REPLAY_LIMIT - found.length),
          REPLAY_READ_BUDGET,
        );
        found.push(...page.items.filter(wanted));
        if (!page.nextCursor) break;
        if (found.length >= REPLAY_LIMIT) {
          more = true;
          break;
        }
        cursor = page.nextCursor;
      }
      // The whole range counts against the company's replays of the hour before any of it is sent.
      if (found.length > 0) await countAttempt('webhookReplays', auth.tenantId, 'webhook.replayLimit', auth.tenantId, found.length);
      const restarted = (await pool(found, 8, async (delivery) => ((await restartDelivery(delivery)) ? delivery : undefined))).filter(
        (d): d is DeliveryItem => !!d,
      );
      await queueDeliveries(restarted.map((d) => ({ tenantId: auth.tenantId, webhookKey: params.webhookKey, eventId: d.eventId })));
      const oldest = found.at(-1);
      return queued({
        replayed: restarted.length,
        more,
        continueTo: more && oldest ? new Date(Date.parse(oldest.created) - 1).toISOString() : null,
      } satisfies ReplayAnswer);
    },
  }),
});

export const handler = webhooks.handler;
