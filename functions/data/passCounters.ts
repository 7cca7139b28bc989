import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { finishBatch } from './entity.ts';
import { COUNTER_SHARDS, MARKER_READS, counterKey } from './passRecords.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';

const table = () => tableName(EVENTS_TABLE);

/**
 * A company day's pass counters: added to atomically with every record stored (data/passRecords.ts),
 * spread over COUNTER_SHARDS items, and summed here for the dashboard and list totals.
 */

// Counters

export const COUNTER_NAMES = ['total', 'passed', 'refused', 'fever', 'normal', 'employee', 'visitor', 'stranger', 'blacklist'] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];
export interface DayCounters {
  day: string;
  counts: Record<CounterName, number>;
  /** Records by hour of the company day (24 entries). */
  hours: number[];
}

/** The counters of each day from `fromDay` to `toDay` (company days, `YYYY-MM-DD`), days without records included. */
export async function dayCounters(tenantId: string, fromDay: string, toDay: string): Promise<DayCounters[]> {
  const days: string[] = [];
  for (let day = fromDay; day <= toDay; day = nextDay(day)) days.push(day);
  const keys = days.flatMap((day) => Array.from({ length: COUNTER_SHARDS }, (_, shard) => counterKey(tenantId, day, shard)));
  const parts: (typeof keys)[] = [];
  for (let i = 0; i < keys.length; i += MARKER_READS) parts.push(keys.slice(i, i + MARKER_READS));
  const found = (
    await Promise.all(
      parts.map((part) =>
        finishBatch('pass counters', part, async (left) => {
          const out = await dynamo().send(new BatchGetCommand({ RequestItems: { [table()]: { Keys: left } } }));
          return { data: out.Responses?.[table()] ?? [], unprocessed: out.UnprocessedKeys?.[table()]?.Keys ?? [] };
        }),
      ),
    )
  ).flat();
  const byDay = new Map<string, DayCounters>(days.map((day) => [day, emptyDay(day)]));
  for (const item of found) {
    const entry = byDay.get(String(item.day));
    if (!entry) continue;
    for (const name of COUNTER_NAMES) entry.counts[name] += Number(item[name] ?? 0);
    for (let h = 0; h < 24; h++) entry.hours[h]! += Number(item[`h${String(h).padStart(2, '0')}`] ?? 0);
  }
  return days.map((day) => byDay.get(day)!);
}

const nextDay = (day: string): string => {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
};
export const previousDay = (day: string): string => {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
};
const emptyDay = (day: string): DayCounters => ({
  day,
  counts: Object.fromEntries(COUNTER_NAMES.map((n) => [n, 0])) as Record<CounterName, number>,
  hours: Array(24).fill(0) as number[],
});
