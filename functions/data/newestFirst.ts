import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { fieldError } from '#lib/errors';
import type { MessageId } from '#lib/i18n';

/**
 * The one way the event lists (pass records, intercom calls, questionnaire results) read a key
 * range newest first: a page of `pageSize`, a filter applied by DynamoDB, at most `budget` items
 * read per request when the filter skips most of them (the page is then short, and the cursor goes
 * on where reading stopped), and a cursor that is the sort key last given, opaque to the client.
 */

/** U+10FFFF sorts after every character in UTF-8 byte order: `<prefix><to>#HIGH` ends a range of times. */
export const HIGH = '\u{10FFFF}';

export const encodeCursor = (key: string): string => Buffer.from(key, 'utf8').toString('base64url');

/** The sort key a cursor names; one that is not of this list (`prefix`) answers 422 on `cursor`. */
export function decodeCursor(cursor: string, prefix: string, message: MessageId = 'error.badCursor'): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!key.startsWith(prefix) || key.length > 300) throw fieldError('cursor', message);
  return key;
}

export interface RangeRead<T> {
  table: string;
  /** The index read, when not the table's own keys. */
  index?: string;
  partition: { name: string; value: string };
  /** The sort key's attribute, in the table or index read. */
  sortKey: string;
  /** Inclusive bounds of the sort key. */
  lower: string;
  upper: string;
  /** The decoded cursor: the sort key of the last item given. */
  after?: string | undefined;
  /** DynamoDB filter conditions (joined with AND), with their names and values (which must not use `#p`, `#s`, `:p`, `:lo` or `:hi`). */
  filter?: { conditions: string[]; names: Record<string, string>; values: Record<string, unknown> };
  pageSize: number;
  budget: number;
  /** The cursor of an item that ends a full page: its sort key in the range read. */
  keyOf(item: T): string;
}

export async function readNewestFirst<T>(read: RangeRead<T>): Promise<{ items: T[]; nextCursor: string | null }> {
  const { after, pageSize, budget } = read;
  const upper = after !== undefined && after < read.upper ? after : read.upper;
  const filtered = (read.filter?.conditions.length ?? 0) > 0;
  const names = { '#p': read.partition.name, '#s': read.sortKey, ...(filtered ? read.filter!.names : {}) };
  const values = { ':p': read.partition.value, ':lo': read.lower, ':hi': upper, ...(filtered ? read.filter!.values : {}) };
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  let scanned = 0;
  let lastKey: string | undefined;
  for (;;) {
    const limit = filtered ? Math.min(200, Math.max(pageSize + 1, budget - scanned)) : pageSize + 1 - items.length + (after !== undefined ? 1 : 0);
    const page = await dynamo().send(
      new QueryCommand({
        TableName: read.table,
        ...(read.index ? { IndexName: read.index } : {}),
        KeyConditionExpression: '#p = :p AND #s BETWEEN :lo AND :hi',
        ...(filtered ? { FilterExpression: read.filter!.conditions.join(' AND ') } : {}),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: false,
        Limit: limit,
        ExclusiveStartKey: start,
      }),
    );
    scanned += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) if (item[read.sortKey] !== after) items.push(item as T);
    start = page.LastEvaluatedKey;
    if (start) lastKey = String(start[read.sortKey]);
    if (items.length > pageSize) {
      items.length = pageSize;
      return { items, nextCursor: encodeCursor(read.keyOf(items.at(-1)!)) };
    }
    if (!start) return { items, nextCursor: null };
    if (scanned >= budget) return { items, nextCursor: encodeCursor(lastKey!) };
  }
}

/**
 * A list whose items are spread over several partitions: groups read newest first (days), each
 * holding one or more partitions (shards) whose items are merged by sort key. The sort keys of
 * different groups do not overlap, and every key of a group is above its `floor`.
 */
export interface SpreadRead<T> extends Omit<RangeRead<T>, 'index' | 'partition' | 'sortKey'> {
  groups: { partitions: string[]; floor: string }[];
}

/** Queries one spread read may send before it answers with a cursor at a group's floor. */
export const SPREAD_QUERY_BUDGET = 64;

/**
 * As readNewestFirst, over the partitions of `groups`: within a group every shard is read at once
 * and the results merged; when a shard has more to read, only what every shard has read past is
 * given (the highest place a shard stopped at), and the next round reads below it. The read
 * budget and the cursor work as in readNewestFirst; a request that has sent SPREAD_QUERY_BUDGET
 * queries without filling its page answers with the floor of the last group read as its cursor.
 */
export async function readSpreadNewestFirst<T>(read: SpreadRead<T>): Promise<{ items: T[]; nextCursor: string | null }> {
  const { pageSize, budget, after } = read;
  const filtered = (read.filter?.conditions.length ?? 0) > 0;
  const names = { '#p': 'pk', '#s': 'sk', ...(filtered ? read.filter!.names : {}) };
  const items: T[] = [];
  let scanned = 0;
  let queries = 0;
  for (const [g, group] of read.groups.entries()) {
    // A group wholly newer than the cursor was given before.
    if (after !== undefined && after <= group.floor) continue;
    let upper = after !== undefined && after < read.upper ? after : read.upper;
    let excluded = after;
    for (;;) {
      const room = pageSize + 1 - items.length;
      const limit = filtered ? Math.min(200, Math.max(room, Math.ceil((budget - scanned) / group.partitions.length))) : room + 1;
      const pages = await Promise.all(
        group.partitions.map(async (pk) => {
          const page = await dynamo().send(
            new QueryCommand({
              TableName: read.table,
              KeyConditionExpression: '#p = :p AND #s BETWEEN :lo AND :hi',
              ...(filtered ? { FilterExpression: read.filter!.conditions.join(' AND ') } : {}),
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':p': pk, ':lo': read.lower, ':hi': upper, ...(filtered ? read.filter!.values : {}) },
              ScanIndexForward: false,
              Limit: limit,
            }),
          );
          return page;
        }),
      );
      queries += pages.length;
      // The highest place a shard stopped at: everything above it has been read in every shard.
      let cut: string | undefined;
      for (const page of pages) {
        scanned += page.ScannedCount ?? 0;
        if (page.LastEvaluatedKey) {
          const key = String(page.LastEvaluatedKey.sk);
          if (cut === undefined || key > cut) cut = key;
        }
      }
      const merged = pages
        .flatMap((page) => page.Items ?? [])
        .filter((item) => item.sk !== excluded && (cut === undefined || String(item.sk) >= cut))
        .sort((a, b) => (String(a.sk) < String(b.sk) ? 1 : -1));
      items.push(...(merged as T[]));
      if (items.length > pageSize) {
        items.length = pageSize;
        return { items, nextCursor: encodeCursor(read.keyOf(items.at(-1)!)) };
      }
      if (cut === undefined) break;
      if (scanned >= budget) return { items, nextCursor: encodeCursor(cut) };
      // Read again below the cut, which has been given (or filtered out) already.
      upper = cut;
      excluded = cut;
    }
    const more = g < read.groups.length - 1;
    if (more && (scanned >= budget || queries >= SPREAD_QUERY_BUDGET)) return { items, nextCursor: encodeCursor(group.floor) };
  }
  return { items, nextCursor: null };
}
