import { Entity } from 'electrodb';
import { MAIN_TABLE, SYSTEM_SCOPE } from './tables.ts';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, tenantPartition } from './entity.ts';
import { THROTTLES, THROTTLE_SCOPES, blockedMinutes, throttleLimit, type ThrottleScope } from '#domain/throttle';
import { ThrottledError } from '#lib/errors';
import type { MessageId } from '#lib/i18n';
import { THROTTLE } from './keys/main.ts';

/** Attempt counters per scope and subject, each over a fixed window (domain/throttle.ts). */
export const throttles = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'throttle', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          scope: { type: THROTTLE_SCOPES, required: true },
          subject: { type: 'string', required: true },
          failures: { type: 'number', required: true, default: 0 },
          windowEndsAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['scope', 'subject'], template: THROTTLE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

const throttleKey = (scope: ThrottleScope, subject: string, partition = SYSTEM_SCOPE) => ({ tenantId: partition, scope, subject });

/**
 * Counts one attempt (or `count` at once: a batch of sends) before it is evaluated. Past the scope's limit it throws 429 (the message
 * gets `minutes` and `limit`) and counts nothing; the count is one conditional write, so parallel
 * attempts cannot pass the limit. Counters of a company's own doings (its test mails, say) live
 * under its partition (`partition` = its tenant id), the others under `_system`.
 */
export async function countAttempt(
  scope: ThrottleScope,
  subject: string,
  messageId: MessageId = 'auth.throttled',
  partition = SYSTEM_SCOPE,
  count = 1,
): Promise<void> {
  const key = throttleKey(scope, subject, partition);
  const limit = throttleLimit(scope);
  if (count > limit) throw new ThrottledError(messageId, { minutes: Math.ceil(THROTTLES[scope].windowMs / 60_000), limit });
  for (let round = 0; round < 5; round++) {
    const now = Date.now();
    try {
      await throttles()
        .patch(key)
        .add({ failures: count })
        .where((attr, op) => `${op.gt(attr.windowEndsAt, now)} AND ${op.lte(attr.failures, limit - count)}`)
        .go();
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const counter = (await throttles().get(key).go({ consistent: true })).data ?? undefined;
    // Blocked while the window holds fewer than `count` tries.
    const minutes = blockedMinutes(limit - count + 1, counter, now);
    if (minutes > 0) throw new ThrottledError(messageId, { minutes, limit });
    // No counter yet, or its window is over: open a new window, unless a parallel attempt just did.
    const windowEndsAt = now + THROTTLES[scope].windowMs;
    try {
      await throttles()
        .put({ ...key, failures: count, windowEndsAt, ttl: epochSeconds(new Date(windowEndsAt)) + 60 })
        .where((attr, op) => `${op.notExists(attr.windowEndsAt)} OR ${op.lte(attr.windowEndsAt, now)}`)
        .go();
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new ThrottledError(messageId, { minutes: 1, limit });
}

/** The minutes the subject's tries of a scope are used up for (0 while some are left), without counting one. */
export async function blockedFor(scope: ThrottleScope, subject: string): Promise<number> {
  const counter = (await throttles().get(throttleKey(scope, subject)).go({ consistent: true })).data ?? undefined;
  return blockedMinutes(throttleLimit(scope), counter, Date.now());
}

/** Gives back an attempt that turned out to be good (a right password from a shared address). */
export async function refundAttempt(scope: ThrottleScope, subject: string): Promise<void> {
  try {
    await throttles()
      .patch(throttleKey(scope, subject))
      .subtract({ failures: 1 })
      .where((attr, op) => op.gt(attr.failures, 0))
      .go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

export async function clearAttempts(scope: ThrottleScope, subject: string): Promise<void> {
  await throttles().delete(throttleKey(scope, subject)).go();
}

/**
 * Runs `check` as one counted attempt of the caller's address: a failure stays counted, a
 * success is given back, so only failures use up the address's tries.
 */
export async function addressAttempt<T>(address: string, check: () => Promise<T>): Promise<T> {
  await countAttempt('address', address);
  const result = await check();
  await refundAttempt('address', address);
  return result;
}
