import { Entity, type EntityItem } from 'electrodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { MailStatus } from '#contract/mail';
import { dynamo } from '#lib/aws';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { SERVICE, entityConfig, isConditionFailure, lazy, tenantPartition } from './entity.ts';
import { MAIL, MAIL_RETRY_QUEUE } from './keys/events.ts';
import { personItemsPage } from './erasures.ts';

/**
 * Every mail the product sends, newest last in key order (`mail#<sentAt>#<mailId>`), with a TTL.
 * A mail waiting for another attempt also sits in the retry queue: the events table's `gsi1`
 * under `_system#mailRetry`, sorted by when it is due; the attributes leave when it is done.
 */
export const mailRecords = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'mailRecord', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          mailId: { type: 'string', required: true },
          sentAt: { type: 'string', required: true },
          /** What the mail is for (shown as its group). */
          kind: { type: 'string', required: true },
          /** Whom or what the mail is about, when it is about someone: the person of an alert, the account of an invitation, the licence of a reminder. */
          name: { type: 'string' },
          /** The person an alert is about; erasing them scrubs this record. */
          personKey: { type: 'string' },
          /** Scrubbed: the person it was about was erased, and its name, subject and text went with them. */
          erased: { type: 'boolean' },
          from: { type: 'string', required: true },
          to: { type: 'string', required: true },
          title: { type: 'string', required: true },
          content: { type: 'string', required: true },
          status: { type: ['queued', 'sent', 'failed', 'retrying'] as const, required: true },
          /** Why it was not sent: a category of contract/mail.ts MAIL_FAILURES. */
          error: { type: 'string' },
          /** The SMTP reply code of a refusal. */
          errorCode: { type: 'number' },
          attempts: { type: 'number' },
          lastAttemptAt: { type: 'string' },
          /** The content had secrets masked: it cannot be sent again. */
          masked: { type: 'boolean' },
          /** Mail key of the resend made by hand of this failed mail, and of the mail this one resends. */
          resentAs: { type: 'string' },
          resendOf: { type: 'string' },
          retryQueue: { type: 'string', field: 'gsi1pk' },
          /** When the next attempt is due (ISO); the retry queue's sort key. */
          retryAt: { type: 'string', field: 'gsi1sk' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['sentAt', 'mailId'], template: MAIL.template, casing: 'none' } },
        },
      },
      entityConfig(EVENTS_TABLE),
    ),
);
export type MailRecord = EntityItem<ReturnType<typeof mailRecords>>;

export const RETRY_QUEUE = MAIL_RETRY_QUEUE;

/** `<send time in ms>-<mail id>`: the record's key in URLs and page links. */
export const mailKeyOf = (record: Pick<MailRecord, 'sentAt' | 'mailId'>): string => `${Date.parse(record.sentAt)}-${record.mailId}`;
export function parseMailKey(mailKey: string): { sentAt: string; mailId: string } {
  const [ms, mailId] = mailKey.split('-') as [string, string];
  return { sentAt: new Date(Number(ms)).toISOString(), mailId };
}

export async function createMailRecord(record: MailRecord): Promise<void> {
  await mailRecords().create(record).go();
}

export async function findMailRecord(tenantId: string, mailKey: string): Promise<MailRecord | undefined> {
  return (
    (
      await mailRecords()
        .get({ tenantId, ...parseMailKey(mailKey) })
        .go()
    ).data ?? undefined
  );
}

export interface MailFilter {
  from?: string;
  to?: string;
  status?: MailStatus;
  group?: string;
  pageSize: number;
  cursor?: string;
}

/** Reads at most this many pages of 200 per request when filters skip most records. */
const MAX_READS = 10;

/**
 * Newest first. The key range is `mail#<from>` to `mail#<to>`, capped by the cursor's own key,
 * all inside the tenant's partition and its mail records; status and group filter the range.
 */
export async function listMailRecords(tenantId: string, filter: MailFilter): Promise<{ items: MailRecord[]; nextCursor: string | null }> {
  const lower = filter.from ? MAIL.head(new Date(filter.from).toISOString()) : MAIL.prefix();
  let upper = filter.to ? MAIL.end(new Date(filter.to).toISOString()) : MAIL.end();
  const after = filter.cursor ? MAIL.of(parseMailKey(filter.cursor).sentAt, parseMailKey(filter.cursor).mailId) : undefined;
  if (after && after < upper) upper = after;
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk', '#e': '__edb_e__' };
  const values: Record<string, unknown> = { ':pk': tenantId, ':lo': lower, ':hi': upper, ':e': 'mailRecord' };
  const filters = ['#e = :e'];
  if (filter.status) {
    Object.assign(names, { '#status': 'status' });
    Object.assign(values, { ':status': filter.status });
    filters.push('#status = :status');
  }
  if (filter.group) {
    Object.assign(names, { '#kind': 'kind' });
    Object.assign(values, { ':kind': filter.group });
    filters.push('#kind = :kind');
  }
  const items: MailRecord[] = [];
  let start: Record<string, unknown> | undefined;
  for (let reads = 0; reads < MAX_READS && items.length <= filter.pageSize; reads++) {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(EVENTS_TABLE),
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: 200,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []).filter((item) => item.sk !== after).map(fromRaw));
    start = page.LastEvaluatedKey;
    if (!start) break;
  }
  if (items.length > filter.pageSize) {
    items.length = filter.pageSize;
    return { items, nextCursor: mailKeyOf(items.at(-1)!) };
  }
  // Stopped reading before the range ended: the next page goes on from the last key read.
  if (start) {
    const [, sentAt, mailId] = String(start.sk).split('#') as [string, string, string];
    return { items, nextCursor: mailKeyOf({ sentAt, mailId }) };
  }
  return { items, nextCursor: null };
}

/** Mails whose next attempt is due, oldest due first, across tenants: at most `limit`. */
export async function dueRetries(now: Date, limit: number): Promise<MailRecord[]> {
  const items: MailRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(EVENTS_TABLE),
        IndexName: EVENTS_TABLE.indexes[0]!.name,
        KeyConditionExpression: 'gsi1pk = :q AND gsi1sk <= :now',
        ExpressionAttributeValues: { ':q': RETRY_QUEUE, ':now': now.toISOString() },
        Limit: limit - items.length,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []).map(fromRaw));
    start = page.LastEvaluatedKey;
  } while (start && items.length < limit);
  return items;
}

/** A raw item as the entity names its attributes (the queue's fields are the index's key names). */
function fromRaw(item: Record<string, unknown>): MailRecord {
  const { gsi1pk, gsi1sk, ...rest } = item;
  return { ...(rest as MailRecord), ...(gsi1pk ? { retryQueue: gsi1pk as string, retryAt: gsi1sk as string } : {}) };
}

const keyOf = (r: Pick<MailRecord, 'tenantId' | 'sentAt' | 'mailId'>) => ({ tenantId: r.tenantId, sentAt: r.sentAt, mailId: r.mailId });

/**
 * Takes a due mail for one attempt: its due time moves to `leaseUntil`, on the condition that
 * nobody took it since it was read, so two runners never send it twice at once.
 */
export async function claimRetry(record: MailRecord, leaseUntil: Date): Promise<boolean> {
  try {
    await mailRecords()
      .patch(keyOf(record))
      .set({ retryAt: leaseUntil.toISOString() })
      .where((attr, op) => `(${op.eq(attr.status, 'retrying')} OR ${op.eq(attr.status, 'queued')}) AND ${op.eq(attr.retryAt, record.retryAt!)}`)
      .go();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export interface AttemptResult {
  status: MailStatus;
  error?: string;
  errorCode?: number;
  attempts: number;
  at: string;
  nextAttemptAt?: string;
}

/** Records the outcome of an attempt; a mail no longer waiting leaves the retry queue. */
export async function recordAttempt(record: Pick<MailRecord, 'tenantId' | 'sentAt' | 'mailId'>, result: AttemptResult): Promise<void> {
  const patch = mailRecords()
    .patch(keyOf(record))
    .set({
      status: result.status,
      attempts: result.attempts,
      lastAttemptAt: result.at,
      ...(result.error ? { error: result.error } : {}),
      ...(result.errorCode ? { errorCode: result.errorCode } : {}),
      ...(result.nextAttemptAt ? { retryQueue: RETRY_QUEUE, retryAt: result.nextAttemptAt } : {}),
    });
  const removed = [
    ...(result.nextAttemptAt ? [] : (['retryQueue', 'retryAt'] as const)),
    ...(result.error ? [] : (['error'] as const)),
    ...(result.errorCode ? [] : (['errorCode'] as const)),
  ];
  await (removed.length ? patch.remove([...removed]) : patch).go();
}

/**
 * Takes a failed mail for its one resend, naming the record the resend will be: one conditional
 * write, so of parallel requests to resend the same mail only one gets it. False when the mail
 * was resent already (or is not failed any more).
 */
export async function claimResend(record: MailRecord, resentAs: string): Promise<boolean> {
  try {
    await mailRecords()
      .patch(keyOf(record))
      .set({ resentAs })
      .where((attr, op) => `${op.eq(attr.status, 'failed')} AND ${op.notExists(attr.resentAs)}`)
      .go();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * One page of the tenant's mail records about `personKey` (alerts), scrubbed: the name, subject
 * and text go, the record stays (when, to whom, the outcome) marked `erased`, and a mail still
 * waiting for another attempt is not sent. Answers how many and where to go on.
 */
export async function scrubPersonMails(
  tenantId: string,
  personKey: string,
  cursor: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ scrubbed: number; next: Record<string, unknown> | null }> {
  const table = tableName(EVENTS_TABLE);
  const page = await personItemsPage(tenantId, MAIL.prefix(), personKey, cursor, limit, ['status']);
  for (const item of page.items) {
    const waiting = item.status === 'queued' || item.status === 'retrying';
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: `SET title = :empty, content = :empty, erased = :true, masked = :true${waiting ? ', #status = :failed, #error = :other' : ''} REMOVE #name, personKey, gsi1pk, gsi1sk`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#name': 'name', ...(waiting ? { '#status': 'status', '#error': 'error' } : {}) },
          ExpressionAttributeValues: { ':empty': '', ':true': true, ...(waiting ? { ':failed': 'failed', ':other': 'other' } : {}) },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }
  return { scrubbed: page.items.length, next: page.next };
}
