import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_STEPS, RETRY_UNIT_MS, RETRY_WINDOW_MS } from '@passcloud/functions/contract/webhooks';
import { nextAttemptAt, retryAfterMs, signature, verifySignature } from '@passcloud/functions/domain/webhookSignature';
import { MAX_RECEIVES, consumeWebhooksInProcess, queueDeliveries, stopLocalWebhookQueue, type DeliveryMessage } from '@passcloud/functions/lib/webhookQueue';
import { eventId } from '@passcloud/functions/lib/webhookEvents';

describe('webhook retries', () => {
  const middle = () => 0.5;

  it('wait 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h and 12 h, then give up within 24 hours of the first attempt', () => {
    const start = 1_700_000_000_000;
    let now = start;
    const waits: number[] = [];
    for (let attempts = 1; ; attempts++) {
      const next = nextAttemptAt(attempts, start, now, undefined, RETRY_UNIT_MS, middle);
      if (next === undefined) break;
      waits.push(next - now);
      now = next;
    }
    expect(waits).toEqual(RETRY_STEPS.map((step) => step * RETRY_UNIT_MS));
    expect(waits.map((ms) => ms / 60_000)).toEqual([0.5, 2, 10, 30, 60, 180, 360, 720]);
    expect(now - start).toBeLessThan(RETRY_WINDOW_MS);
  });

  it('spread each wait within ±10 %', () => {
    expect(nextAttemptAt(1, 0, 0, undefined, RETRY_UNIT_MS, () => 0)).toBe(27_000);
    expect(nextAttemptAt(1, 0, 0, undefined, RETRY_UNIT_MS, () => 1)).toBe(33_000);
  });

  it('wait longer when Retry-After asks, never shorter, and not past the window', () => {
    expect(nextAttemptAt(1, 0, 0, 120_000, RETRY_UNIT_MS, middle)).toBe(120_000);
    expect(nextAttemptAt(1, 0, 0, 1_000, RETRY_UNIT_MS, middle)).toBe(30_000);
    expect(nextAttemptAt(1, 0, 0, RETRY_WINDOW_MS + 1, RETRY_UNIT_MS, middle)).toBeUndefined();
    expect(nextAttemptAt(2, 0, RETRY_WINDOW_MS - 60_000, undefined, RETRY_UNIT_MS, middle)).toBeUndefined();
  });

  it('read Retry-After as seconds or as an HTTP date, and ignore anything else', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Wed, 25 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Wed, 25 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('-5', now)).toBeUndefined();
  });
});

describe('webhook signatures', () => {
  const body = '{"id":"evt_1","type":"webhook.test"}';

  it('verify with the secret, over the timestamp and the body exactly, within 5 minutes', () => {
    const t = 1_800_000_000;
    const header = signature(['whsec_a'], t, body);
    expect(header).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifySignature('whsec_a', header, String(t), body, t)).toBe(true);
    expect(verifySignature('whsec_a', header, String(t), body, t + 300)).toBe(true);
    expect(verifySignature('whsec_a', header, String(t), body, t + 301)).toBe(false);
    expect(verifySignature('whsec_a', header, String(t), `${body} `, t)).toBe(false);
    expect(verifySignature('whsec_b', header, String(t), body, t)).toBe(false);
    expect(verifySignature('whsec_a', header, String(t + 1), body, t)).toBe(false);
    expect(verifySignature('whsec_a', header, 'x', body, t)).toBe(false);
  });

  it('carry one signature per secret during a rotation, each valid on its own', () => {
    const t = 1_800_000_000;
    const header = signature(['whsec_new', 'whsec_old'], t, body);
    expect(header.split(',')).toHaveLength(2);
    for (const secret of ['whsec_new', 'whsec_old']) expect(verifySignature(secret, header, String(t), body, t)).toBe(true);
  });

  it('name an event by its time and what it is about: the same event twice has one id', () => {
    const a = eventId('t1', 'pass.record', 'dev.r1', '2026-11-25T12:00:00.000Z');
    expect(a).toMatch(/^evt_1795\d{9}[0-9a-f]{16}$/);
    expect(eventId('t1', 'pass.record', 'dev.r1', '2026-11-25T12:00:00.000Z')).toBe(a);
    expect(eventId('t2', 'pass.record', 'dev.r1', '2026-11-25T12:00:00.000Z')).not.toBe(a);
    expect(eventId('t1', 'fever.detected', 'dev.r1', '2026-11-25T12:00:00.000Z')).not.toBe(a);
  });
});

describe('the in-process webhook queue', () => {
  afterEach(() => stopLocalWebhookQueue());

  it(`gives a message again when its worker fails, and after ${MAX_RECEIVES} receipts to the dead letters, once`, async () => {
    const receipts: DeliveryMessage[] = [];
    const dead: DeliveryMessage[] = [];
    consumeWebhooksInProcess(
      async (message) => {
        receipts.push(message);
        throw new Error('worker failed');
      },
      async (message) => void dead.push(message),
    );
    const message = { tenantId: 't', webhookKey: 'w', eventId: 'evt_x' };
    await queueDeliveries([message]);
    const end = Date.now() + 10_000;
    while (dead.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(receipts).toHaveLength(MAX_RECEIVES);
    expect(dead).toEqual([message]);
  });

  it('holds a delayed message until it is due', async () => {
    const receipts: number[] = [];
    consumeWebhooksInProcess(
      async () => void receipts.push(Date.now()),
      async () => undefined,
    );
    const queued = Date.now();
    await queueDeliveries([{ tenantId: 't', webhookKey: 'w', eventId: 'evt_y' }], 300);
    await new Promise((r) => setTimeout(r, 500));
    expect(receipts).toHaveLength(1);
    expect(receipts[0]! - queued).toBeGreaterThanOrEqual(290);
  });
});
