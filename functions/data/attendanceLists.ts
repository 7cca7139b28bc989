import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { ATTENDANCE_DAY, ATTENDANCE_MONTH } from './keys/events.ts';
import { type MonthTotals, type StoredDay } from './attendanceDays.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';

const table = () => tableName(EVENTS_TABLE);

/**
 * The attendance lists: stored days of a date range and month totals, newest first, filtered by
 * department, group, status and keyword, read within a budget and answered with a cursor.
 */

export interface DayFilter {
  from: string;
  to: string;
  departmentKey?: string | undefined;
  attendanceGroupKey?: string | undefined;
  status?: string | undefined;
  keyword?: string | undefined;
}

/** Most items one page reads before it answers (with a cursor where reading stopped). */
const READ_BUDGET = 3000;
const encodeCursor = (sk: string): string => Buffer.from(sk, 'utf8').toString('base64url');
const decodeCursor = (cursor: string): string | undefined => {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  return ATTENDANCE_DAY.owns(sk) || ATTENDANCE_MONTH.owns(sk) ? sk : undefined;
};

function matches(item: StoredDay | MonthTotals, filter: Omit<DayFilter, 'from' | 'to'>): boolean {
  if (filter.departmentKey && item.departmentKey !== filter.departmentKey) return false;
  if (filter.attendanceGroupKey && item.attendanceGroupKey !== filter.attendanceGroupKey) return false;
  if (filter.status && !('status' in item && item.status.includes(filter.status as never))) return false;
  if (filter.keyword) {
    const k = filter.keyword.toLocaleLowerCase();
    if (!item.name.toLocaleLowerCase().includes(k) && !item.personId.toLocaleLowerCase().includes(k)) return false;
  }
  return true;
}

/** Reads a key range newest first, keeping what `keep` keeps, within the read budget. */
async function readRange<T>(
  tenantId: string,
  lo: string,
  hi: string,
  pageSize: number,
  keep: ((item: T) => boolean) | undefined,
  cursor?: string,
): Promise<{ items: T[]; nextCursor: string | null }> {
  let upper = hi;
  const after = cursor ? decodeCursor(cursor) : undefined;
  if (after && after < upper) upper = after;
  const items: T[] = [];
  let start: Record<string, unknown> | undefined;
  let read = 0;
  for (;;) {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':pk': tenantId, ':lo': lo, ':hi': upper },
        ScanIndexForward: false,
        // Unfiltered, a page reads what it shows (and one more, to know there is more).
        Limit: keep ? Math.min(500, READ_BUDGET - read + 1) : pageSize + 2,
        ExclusiveStartKey: start,
      }),
    );
    const found = page.Items ?? [];
    for (const [i, item] of found.entries()) {
      read++;
      if (item.sk === after) continue;
      if (!keep || keep(item as T)) items.push(item as T);
      if (items.length === pageSize) {
        const more = !!page.LastEvaluatedKey || i < found.length - 1;
        return { items, nextCursor: more ? encodeCursor(String(item.sk)) : null };
      }
    }
    start = page.LastEvaluatedKey;
    if (!start) return { items, nextCursor: null };
    if (read >= READ_BUDGET) return { items, nextCursor: encodeCursor(String(start.sk)) };
  }
}

/** Stored days of a date range, newest date first, filtered. */
export function listDays(tenantId: string, filter: DayFilter, pageSize: number, cursor?: string) {
  const filtered = !!(filter.departmentKey || filter.attendanceGroupKey || filter.status || filter.keyword);
  return readRange<StoredDay>(
    tenantId,
    ATTENDANCE_DAY.head(filter.from),
    ATTENDANCE_DAY.end(filter.to),
    pageSize,
    filtered ? (item) => matches(item, filter) : undefined,
    cursor,
  );
}

/** Month totals of a month, filtered. */
export function listMonths(tenantId: string, month: string, filter: Omit<DayFilter, 'from' | 'to' | 'status'>, pageSize: number, cursor?: string) {
  const filtered = !!(filter.departmentKey || filter.attendanceGroupKey || filter.keyword);
  return readRange<MonthTotals>(
    tenantId,
    ATTENDANCE_MONTH.prefix(month),
    ATTENDANCE_MONTH.end(month),
    pageSize,
    filtered ? (item) => matches(item, filter) : undefined,
    cursor,
  );
}
