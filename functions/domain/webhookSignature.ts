import { createHmac, timingSafeEqual } from 'node:crypto';
import { RETRY_STEPS, RETRY_UNIT_MS, RETRY_WINDOW_MS, SIGNATURE_TOLERANCE_SECONDS } from '#contract/webhooks';

/**
 * The signature of a delivery: `v1=` and the hex HMAC-SHA256, under the subscription's secret, of
 * the timestamp (Unix seconds), a full stop and the body exactly as sent. With a secret replaced
 * less than 24 hours ago there is one `v1=` per secret, separated by commas.
 */
export function signature(secrets: readonly string[], timestamp: number, body: string): string {
  return secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`).join(',');
}

/**
 * What a receiver does (docs/webhooks.md): the timestamp within SIGNATURE_TOLERANCE_SECONDS of
 * its clock, and one of the header's signatures that of the body under its secret.
 */
export function verifySignature(secret: string, header: string, timestamp: string, body: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const t = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds - t) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
  return header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** What `Retry-After` asks for, in milliseconds: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month (`Wed, 21 Oct 2015 07:28:00 GMT`); nothing else is one.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * When the attempt after `attempts` failed ones is due, or undefined when there is none: the
 * RETRY_STEPS wait (in units of `unitMs`), within ±10 % so that deliveries failing together do
 * not come back together, made longer by `Retry-After`, and never past the window that began
 * at `windowStart`.
 */
export function nextAttemptAt(attempts: number, windowStart: number, now: number, retryAfter: number | undefined, unitMs = RETRY_UNIT_MS, random = Math.random): number | undefined {
  const step = RETRY_STEPS[attempts - 1];
  if (step === undefined) return undefined;
  const wait = Math.max(step * unitMs * (0.9 + 0.2 * random()), retryAfter ?? 0);
  const at = now + Math.round(wait);
  return at - windowStart > RETRY_WINDOW_MS * (unitMs / RETRY_UNIT_MS) ? undefined : at;
}
