import '../support/localEnv.ts';
import { describe, expect, it } from 'vitest';
import { EVENTS_TABLE } from '@passcloud/functions/data/tables';
import { owned } from '../support/tenantItems.ts';
import { recordKeyOf, storeRecords, type BatchEntry, type PassRecord } from '@passcloud/functions/data/passRecords';
import { dayCounters } from '@passcloud/functions/data/passCounters';
import { findRecord, listRecords, type RecordFilter } from '@passcloud/functions/data/passRecordLists';
import { SPREAD_QUERY_BUDGET } from '@passcloud/functions/data/newestFirst';
import { newId } from '@passcloud/functions/lib/crypto';

/**
 * A company's pass records are spread over partitions by UTC day and device shard, their markers
 * by device and their counters by day and shard (data/passRecords.ts). Lists merge the shards
 * newest first: every record once, in order, whatever the page size, filter or read budget.
 */

const DAYS = ['2026-05-01', '2026-05-02', '2026-05-03'];
const DEVICES = Array.from({ length: 12 }, (_, i) => `spreaddevice${String(i).padStart(4, '0')}`);

function recordsOf(tenantId: string, perDay: number): BatchEntry[] {
  const entries: BatchEntry[] = [];
  for (const day of DAYS)
    for (let i = 0; i < perDay; i++) {
      const deviceKey = DEVICES[i % DEVICES.length]!;
      const at = new Date(Date.parse(`${day}T00:00:00Z`) + i * 137_000);
      const name = `Person ${i % 10}`;
      const record: PassRecord = {
        tenantId,
        deviceKey,
        recordId: `${day.replace(/-/g, '')}r${String(i).padStart(4, '0')}`,
        time: at.toISOString(),
        verifyTime: at.toISOString(),
        day,
        type: i % 6 === 0 ? 'stranger' : 'employee',
        ...(i % 6 === 0 ? {} : { name, nameLower: name.toLowerCase() }),
        measured: true,
        temperature: 36.5,
        fever: false,
        passState: 'passed',
        source: 'face',
        ttl: Math.floor(Date.now() / 1000) + 86_400,
      };
      entries.push({ record, hour: at.getUTCHours() });
    }
  return entries;
}

async function store(entries: BatchEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 50) {
    const outcomes = await storeRecords(entries.slice(i, i + 50));
    expect(outcomes.every((o) => o.stored === 'new')).toBe(true);
  }
}

/** Every page of a list, as the console walks the cursor. */
async function walk(tenantId: string, filter: RecordFilter, pageSize: number, budget?: number): Promise<{ keys: string[]; pages: number; times: string[] }> {
  const keys: string[] = [];
  const times: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listRecords(tenantId, filter, pageSize, cursor, budget);
    expect(page.items.length).toBeLessThanOrEqual(pageSize);
    for (const item of page.items) {
      keys.push(recordKeyOf(item));
      times.push(`${item.verifyTime}#${item.deviceKey}#${item.recordId}`);
    }
    cursor = page.nextCursor ?? undefined;
    pages++;
    expect(pages).toBeLessThan(500);
  } while (cursor);
  return { keys, pages, times };
}

const newestFirst = (entries: BatchEntry[]) =>
  entries
    .map((e) => e.record)
    .sort((a, b) => (`${a.verifyTime}#${a.deviceKey}#${a.recordId}` < `${b.verifyTime}#${b.deviceKey}#${b.recordId}` ? 1 : -1))
    .map(recordKeyOf);

/** Every item of the company in the events table: each partition it was written to, read by its key (tests/support/tenantItems.ts). */
const itemsOf = (tenantId: string) => owned(EVENTS_TABLE, tenantId);

const range: RecordFilter = { fromIso: `${DAYS[0]}T00:00:00.000Z`, toIso: `${DAYS.at(-1)}T23:59:59.999Z` };

describe('pass records spread over partitions', () => {
  it('keys every item under the tenant, spreads a day over shards, and counts each day exactly', async () => {
    const tenantId = newId();
    const entries = recordsOf(tenantId, 60);
    await store(entries);
    const items = await itemsOf(tenantId);
    expect(items.every((item) => String(item.pk).startsWith(`${tenantId}#`))).toBe(true);
    const recordPartitions = new Set(items.filter((i) => i.kind === 'passRecord' && String(i.sk).startsWith('rec#')).map((i) => String(i.pk)));
    // Three days, each over more than one shard.
    for (const day of DAYS) expect([...recordPartitions].filter((pk) => pk.includes(`#rec#${day}#`)).length).toBeGreaterThan(1);
    expect(new Set(items.filter((i) => i.kind === 'passRecordId').map((i) => String(i.pk))).size).toBe(DEVICES.length);
    const counters = await dayCounters(tenantId, DAYS[0]!, DAYS.at(-1)!);
    expect(counters.map((d) => d.counts.total)).toEqual([60, 60, 60]);
    expect(counters.map((d) => d.hours.reduce((a, b) => a + b, 0))).toEqual([60, 60, 60]);
    // A record is found by its key through its marker.
    const one = entries[17]!.record;
    expect((await findRecord(tenantId, recordKeyOf(one)))?.verifyTime).toBe(one.verifyTime);
  });

  it('merges the shards newest first, every record once, at every page size', async () => {
    const tenantId = newId();
    const entries = recordsOf(tenantId, 70);
    await store(entries);
    const expected = newestFirst(entries);
    for (const size of [1, 7, 20, 200]) {
      const { keys } = await walk(tenantId, range, size);
      expect(keys).toEqual(expected);
    }
  });

  it('keeps the order under a filter and a small read budget, answering short pages with a cursor', async () => {
    const tenantId = newId();
    const entries = recordsOf(tenantId, 90);
    await store(entries);
    const wanted = entries.filter((e) => e.record.nameLower === 'person 3');
    const { keys, pages } = await walk(tenantId, { ...range, keyword: 'person 3' }, 5, 24);
    expect(keys).toEqual(newestFirst(wanted));
    // The budget cut the walk into more pages than the matches alone need.
    expect(pages).toBeGreaterThan(Math.ceil(wanted.length / 5));
    const strangers = entries.filter((e) => e.record.type === 'stranger');
    expect((await walk(tenantId, { ...range, type: 'stranger' }, 4)).keys).toEqual(newestFirst(strangers));
    const oneDay = entries.filter((e) => e.record.day === DAYS[1]);
    expect((await walk(tenantId, { fromIso: `${DAYS[1]}T00:00:00.000Z`, toIso: `${DAYS[1]}T23:59:59.999Z` }, 9)).keys).toEqual(newestFirst(oneDay));
  });

  it('answers a long empty range in steps, with a cursor, and finds what lies at its far end', async () => {
    const tenantId = newId();
    const entries = recordsOf(tenantId, 5).filter((e) => e.record.day === DAYS[0]);
    await store(entries);
    const far: RecordFilter = { fromIso: `${DAYS[0]}T00:00:00.000Z`, toIso: '2026-07-31T23:59:59.999Z' };
    const first = await listRecords(tenantId, far, 20);
    // 92 days of four shards are more queries than one request sends.
    expect(first.items).toHaveLength(0);
    expect(first.nextCursor).not.toBeNull();
    expect(SPREAD_QUERY_BUDGET).toBeLessThan(92 * 4);
    const { keys, pages } = await walk(tenantId, far, 20);
    expect(keys).toEqual(newestFirst(entries));
    expect(pages).toBeGreaterThan(1);
  });
});
