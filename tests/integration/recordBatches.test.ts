import '../support/localEnv.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { storeRecord, storeRecords, type BatchEntry, type PassRecord } from '@passcloud/functions/data/passRecords';
import { dayCounters } from '@passcloud/functions/data/passCounters';
import { newId } from '@passcloud/functions/lib/crypto';

/**
 * The records of one terminal message are stored together (data/passRecords.ts storeRecords): in
 * transactions of up to 100 items with the counters summed per shard, each record once, and the
 * day's counters exact whatever mix of new, sent-again and repeated records a batch holds.
 */

const DAY = '2026-03-14';

function entry(tenantId: string, deviceKey: string, i: number, over: Partial<PassRecord> = {}): BatchEntry {
  const at = new Date(Date.parse(`${DAY}T08:00:00Z`) + i * 1000);
  const record: PassRecord = {
    tenantId,
    deviceKey,
    recordId: `r${String(i).padStart(4, '0')}`,
    time: new Date().toISOString(),
    verifyTime: at.toISOString(),
    day: DAY,
    type: i % 5 === 0 ? 'stranger' : 'employee',
    measured: true,
    temperature: i % 7 === 0 ? 38.1 : 36.5,
    fever: i % 7 === 0,
    passState: i % 9 === 0 ? 'refused' : 'passed',
    source: 'face',
    ttl: Math.floor(Date.now() / 1000) + 86_400,
    ...over,
  };
  return { record, hour: 8 };
}

/** Cancels the next `times` transactions as DynamoDB does when it throttles one of their items. */
let throttled = 0;
let original: ((command: unknown) => Promise<unknown>) | undefined;
function throttleNext(times: number): void {
  const client = dynamo() as unknown as { send: (command: unknown) => Promise<unknown> };
  original ??= client.send.bind(client);
  throttled = times;
  client.send = async (command: unknown) => {
    if (command instanceof TransactWriteCommand && throttled > 0) {
      throttled--;
      const items = command.input.TransactItems ?? [];
      throw Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons [None, ThrottlingError]'), {
        name: 'TransactionCanceledException',
        CancellationReasons: items.map((_, i) => ({ Code: i === 1 ? 'ThrottlingError' : 'None' })),
      });
    }
    return original!(command);
  };
}
afterEach(() => {
  if (original) (dynamo() as unknown as { send: unknown }).send = original;
  throttled = 0;
});

const totals = async (tenantId: string) => (await dayCounters(tenantId, DAY, DAY))[0]!.counts;

describe('records stored in batches', () => {
  it('stores a message of many records in a few transactions, each once, with exact counters', async () => {
    const tenantId = newId();
    const batch = Array.from({ length: 50 }, (_, i) => entry(tenantId, 'batchdevice00001', i));
    const outcomes = await storeRecords(batch);
    expect(outcomes.map((o) => o.stored)).toEqual(batch.map(() => 'new'));
    const counts = await totals(tenantId);
    expect(counts.total).toBe(50);
    expect(counts.stranger).toBe(batch.filter((e) => e.record.type === 'stranger').length);
    expect(counts.fever).toBe(batch.filter((e) => e.record.fever).length);
    expect(counts.refused).toBe(batch.filter((e) => e.record.passState === 'refused').length);
  });

  it('tells records stored before and records repeated in the message from new ones, and counts each once', async () => {
    const tenantId = newId();
    const device = 'batchdevice00002';
    for (let i = 0; i < 5; i++) await storeRecord(entry(tenantId, device, i).record, 8);
    const batch = [...Array.from({ length: 20 }, (_, i) => entry(tenantId, device, i)), entry(tenantId, device, 12), entry(tenantId, device, 19)];
    const outcomes = await storeRecords(batch);
    expect(outcomes.map((o) => o.stored)).toEqual([...Array(5).fill('duplicate'), ...Array(15).fill('new'), 'duplicate', 'duplicate']);
    expect((await totals(tenantId)).total).toBe(20);
    // The whole message sent again: every record a duplicate, nothing counted.
    const again = await storeRecords(batch);
    expect(again.every((o) => o.stored === 'duplicate')).toBe(true);
    expect((await totals(tenantId)).total).toBe(20);
  });

  it('stores a message that arrives twice at once once: each record new in one copy and a duplicate in the other', async () => {
    const tenantId = newId();
    const batch = Array.from({ length: 40 }, (_, i) => entry(tenantId, 'batchdevice00004', i));
    const copies = await Promise.all([storeRecords(batch), storeRecords(batch), storeRecords(batch)]);
    for (let i = 0; i < batch.length; i++) expect(copies.map((c) => c[i]!.stored).sort()).toEqual(['duplicate', 'duplicate', 'new']);
    expect((await totals(tenantId)).total).toBe(40);
  });

  it('tries a throttled transaction again with back-off, and stores the records once', async () => {
    const tenantId = newId();
    const batch = Array.from({ length: 10 }, (_, i) => entry(tenantId, 'batchdevice00003', i));
    throttleNext(3);
    const outcomes = await storeRecords(batch);
    expect(throttled).toBe(0);
    expect(outcomes.every((o) => o.stored === 'new')).toBe(true);
    expect((await totals(tenantId)).total).toBe(10);
  });

  it('keeps counters exact when messages of several terminals land at once on the same counter shards', async () => {
    const tenantId = newId();
    const messages = Array.from({ length: 6 }, (_, d) => Array.from({ length: 30 }, (_, i) => entry(tenantId, `batchdevice0001${d}`, i)));
    const outcomes = await Promise.all(messages.map((m) => storeRecords(m)));
    expect(outcomes.flat().filter((o) => o.stored === 'new')).toHaveLength(180);
    expect((await totals(tenantId)).total).toBe(180);
  });
});
