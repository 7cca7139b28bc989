import '../support/localEnv.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordKeyOf, storeRecord, type PassRecord } from '@passcloud/functions/data/passRecords';
import { dayCounters } from '@passcloud/functions/data/passCounters';
import { findRecord } from '@passcloud/functions/data/passRecordLists';
import { passesOf } from '@passcloud/functions/data/passErasure';
import { privacySettings, retentionTtl } from '@passcloud/functions/data/settings';
import { sweepRetention } from '@passcloud/functions/jobs/retention';
import { objectExists, putObject } from '@passcloud/functions/lib/storage';
import { reapExpired } from '@passcloud/infra/local/ttlReaper';
import { call, login, newCompany, unique } from '../support/api.ts';

/**
 * Retention, with time moved forward: the sweep (captures, recordings) and DynamoDB's TTL (every
 * record written under a retention period carries `ttl`; on one machine the host's reaper does
 * what DynamoDB does on AWS) remove what is past the company's periods and keep the rest. Both are
 * run for this company only, so other tests' data is untouched.
 */

const DAY_MS = 86_400_000;
let token: string;
let tenantId: string;
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  const current = (await call<Record<string, unknown>>('GET', '/v1/settings/privacy', { token })).body.data;
  const saved = await call('PUT', '/v1/settings/privacy', {
    token,
    body: { ...current, retentionDays: { passRecords: 30, captures: 7, recordings: 14 } },
    confirm: true,
  });
  expect(saved.body.code).toBe(201);
});

/** A pass record of an employee stored `daysAgo` days ago, with the TTL the ingest gives it then. */
async function storedRecord(daysAgo: number): Promise<PassRecord> {
  const at = new Date(Date.now() - daysAgo * DAY_MS);
  const record: PassRecord = {
    tenantId,
    deviceKey: 'retentiondevice01',
    recordId: unique('r'),
    time: at.toISOString(),
    verifyTime: at.toISOString(),
    day: day(at.getTime()),
    personKey: unique('p'),
    personKind: 'employee',
    name: 'Retained Person',
    nameLower: 'retained person',
    type: 'employee',
    temperature: 36.6,
    measured: true,
    fever: false,
    passState: 'passed',
    source: 'face',
    captureKey: `capture/${day(at.getTime())}/retentiondevice01/${unique('c')}.jpg`,
    ttl: retentionTtl(await privacySettings(tenantId), 'passRecords', at),
  };
  expect(await storeRecord(record, at.getUTCHours())).toEqual({ stored: 'new' });
  return record;
}

async function present(record: PassRecord): Promise<{ record: boolean; punch: boolean; counted: number }> {
  const counters = await dayCounters(tenantId, record.day, record.day);
  return {
    record: (await findRecord(tenantId, recordKeyOf(record))) !== undefined,
    punch: (await passesOf(tenantId, record.personKey!, undefined, 10)).passes.length > 0,
    counted: counters[0]!.counts.total,
  };
}

describe('retention with time moved forward', () => {
  it('removes expired captures, recordings and pass records, keeps the unexpired ones, and removes those too once their time comes', async () => {
    const now = Date.now();
    const expired = await storedRecord(40);
    const fresh = await storedRecord(1);
    const oldCapture = `capture/${day(now - 10 * DAY_MS)}/retentiondevice01/${unique('c')}.jpg`;
    const newCapture = `capture/${day(now)}/retentiondevice01/${unique('c')}.jpg`;
    const oldRecording = `recording/${day(now - 20 * DAY_MS)}/door01/${unique('v')}.webm`;
    const newRecording = `recording/${day(now - 5 * DAY_MS)}/door01/${unique('v')}.webm`;
    for (const key of [oldCapture, newCapture]) await putObject('captures', tenantId, key, Buffer.from('jpeg'), 'image/jpeg');
    for (const key of [oldRecording, newRecording]) await putObject('recordings', tenantId, key, Buffer.from('webm'), 'audio/webm');

    // Today: past the periods are the capture of 10 days (7 kept), the recording of 20 (14 kept) and the record stored 40 days ago (30 kept).
    await sweepRetention(now, [tenantId]);
    expect(await reapExpired(now, [tenantId])).toBeGreaterThan(0);
    expect(await objectExists('captures', tenantId, oldCapture)).toBe(false);
    expect(await objectExists('captures', tenantId, newCapture)).toBe(true);
    expect(await objectExists('recordings', tenantId, oldRecording)).toBe(false);
    expect(await objectExists('recordings', tenantId, newRecording)).toBe(true);
    expect(await present(expired)).toEqual({ record: false, punch: false, counted: 0 });
    expect(await present(fresh)).toEqual({ record: true, punch: true, counted: 1 });

    // Ten days on: the new recording (15 days) and capture (10 days) are past their periods; the record (11 days) is not.
    await sweepRetention(now + 10 * DAY_MS, [tenantId]);
    await reapExpired(now + 10 * DAY_MS, [tenantId]);
    expect(await objectExists('captures', tenantId, newCapture)).toBe(false);
    expect(await objectExists('recordings', tenantId, newRecording)).toBe(false);
    expect(await present(fresh)).toEqual({ record: true, punch: true, counted: 1 });

    // Thirty days on: the record is past its 30 days, with its person's copy and its day's counters.
    await reapExpired(now + 30 * DAY_MS, [tenantId]);
    expect(await present(fresh)).toEqual({ record: false, punch: false, counted: 0 });
  });

  it('gives every item of a pass record the TTL of the pass-record period', async () => {
    const record = await storedRecord(0);
    const expected = retentionTtl(await privacySettings(tenantId), 'passRecords', new Date(record.time));
    expect(record.ttl).toBe(expected);
    // No item of it outlives the period: at the TTL everything goes.
    await reapExpired(expected * 1000 + 1000, [tenantId]);
    expect(await present(record)).toEqual({ record: false, punch: false, counted: 0 });
  });
});
