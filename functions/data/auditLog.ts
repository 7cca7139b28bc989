import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AUDIT_RETENTION_DAYS, type AuditKind } from '#contract/audit';
import { dynamo } from '#lib/aws';
import { newId } from '#lib/crypto';
import { AUDIT_TABLE, SYSTEM_SCOPE, tableName } from './tables.ts';
import { epochSeconds } from './entity.ts';
import { AUDIT_ENTRY, auditPartition } from './keys/audit.ts';
import type { AuditItem } from './auditItems.ts';

/**
 * The audit log, in its own table (tables.ts AUDIT_TABLE): one partition per company,
 * `<tenantId>#audit`, newest last in key order (`audit#<ISO time>#<id>`). An entry is written once
 * (conditioned on its key being new) and never changed; TTL removes it after 400 days. A failed
 * login under a name no company knows goes to `_system#audit`, which no company reads.
 */
export interface AuditEntry {
  tenantId: string;
  auditId: string;
  at: string;
  kind: AuditKind;
  accountId: string | null;
  username: string;
  action: string | null;
  target: Record<string, string>;
  /** The item acted on, named as it was then (absent from entries written before items were named). */
  item?: AuditItem | null;
  fields: string[];
  code: number;
  reason: string | null;
  sourceIp: string;
  userAgent: string | null;
  requestId: string;
}

/** An entry to add; its time and id are given when it is queued, so a message received twice adds it once. */
export type NewAuditEntry = Omit<AuditEntry, 'auditId' | 'at'> & { at?: string; auditId?: string };

const partition = auditPartition;
const sortKey = (at: string, auditId: string): string => AUDIT_ENTRY.of(at, auditId);

/** `<time in ms>-<id>`: an entry's key in URLs and cursors. */
export const auditKeyOf = (entry: Pick<AuditEntry, 'at' | 'auditId'>): string => `${Date.parse(entry.at)}-${entry.auditId}`;
function parseAuditKey(auditKey: string): { at: string; auditId: string } {
  const [ms, auditId] = auditKey.split('-') as [string, string];
  return { at: new Date(Number(ms)).toISOString(), auditId };
}

/**
 * Adds an entry (the writer's, functions/jobs/auditWriter.ts). The condition makes sure no entry is
 * ever replaced: an entry whose key is taken was added already (the same message received again)
 * and is left as it is.
 */
export async function appendAudit(input: NewAuditEntry): Promise<AuditEntry> {
  const entry: AuditEntry = { ...input, at: input.at ?? new Date().toISOString(), auditId: input.auditId ?? newId() };
  const ttl = epochSeconds(new Date(Date.parse(entry.at) + AUDIT_RETENTION_DAYS * 86_400_000));
  await dynamo()
    .send(
      new PutCommand({
        TableName: tableName(AUDIT_TABLE),
        Item: { pk: partition(entry.tenantId), sk: sortKey(entry.at, entry.auditId), ...entry, ttl },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    )
    .catch((error: unknown) => {
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    });
  return entry;
}

/** Where a failed login under an unknown name is written. */
export const UNKNOWN_TENANT = SYSTEM_SCOPE;

export interface AuditFilter {
  from?: string | undefined;
  to?: string | undefined;
  kind?: AuditKind | undefined;
  username?: string | undefined;
  cursor?: string | undefined;
}

/** Reads at most this many pages of 200 per call when the filters skip most entries. */
const MAX_READS = 10;

/**
 * Newest first, `pageSize` at most, within the range `from`..`to` and after the cursor; kind and
 * name filter the range. When the reads run out before the page is full, the cursor goes on
 * from the last entry read.
 */
export async function listAudit(tenantId: string, filter: AuditFilter, pageSize: number): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  const lower = filter.from ? AUDIT_ENTRY.head(new Date(filter.from).toISOString()) : AUDIT_ENTRY.prefix();
  let upper = filter.to ? AUDIT_ENTRY.end(new Date(filter.to).toISOString()) : AUDIT_ENTRY.end();
  const cursor = filter.cursor ? parseAuditKey(filter.cursor) : undefined;
  const after = cursor ? sortKey(cursor.at, cursor.auditId) : undefined;
  if (after && after < upper) upper = after;
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
  const values: Record<string, unknown> = { ':pk': partition(tenantId), ':lo': lower, ':hi': upper };
  const filters: string[] = [];
  if (filter.kind) {
    names['#kind'] = 'kind';
    values[':kind'] = filter.kind;
    filters.push('#kind = :kind');
  }
  if (filter.username) {
    names['#username'] = 'username';
    values[':username'] = filter.username;
    filters.push('#username = :username');
  }
  const items: AuditEntry[] = [];
  let start: Record<string, unknown> | undefined;
  for (let reads = 0; reads < MAX_READS && items.length <= pageSize; reads++) {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(AUDIT_TABLE),
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lo AND :hi',
        ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
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
  if (items.length > pageSize) {
    items.length = pageSize;
    return { items, nextCursor: auditKeyOf(items.at(-1)!) };
  }
  if (start) {
    const [, at, auditId] = String(start.sk).split('#') as [string, string, string];
    return { items, nextCursor: auditKeyOf({ at, auditId }) };
  }
  return { items, nextCursor: null };
}

/** Pages an export reads at most (each up to MAX_READS queries of 200): with filters that skip most entries, a range is searched this far. */
export const EXPORT_PAGE_BUDGET = 25;

/**
 * Every entry the filters select, newest first; `tooMany` when more than `limit` match, `tooWide`
 * when the range holds more entries than EXPORT_PAGE_BUDGET pages read before the search ends
 * (filters that match few entries of a long range): either way the range is to be narrowed.
 */
export async function readAuditForExport(
  tenantId: string,
  filter: Omit<AuditFilter, 'cursor'>,
  limit: number,
  pageBudget = EXPORT_PAGE_BUDGET,
): Promise<{ entries: AuditEntry[] } | { refused: 'tooMany' | 'tooWide' }> {
  const all: AuditEntry[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    if (pages >= pageBudget) return { refused: 'tooWide' };
    const page = await listAudit(tenantId, { ...filter, cursor }, 200);
    all.push(...page.items);
    if (all.length > limit) return { refused: 'tooMany' };
    cursor = page.nextCursor ?? undefined;
    if (!cursor) return { entries: all };
  }
}

function fromRaw(item: Record<string, unknown>): AuditEntry {
  const { pk: _pk, sk: _sk, ttl: _ttl, ...rest } = item;
  return rest as unknown as AuditEntry;
}
