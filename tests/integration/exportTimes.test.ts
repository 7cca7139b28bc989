import '../support/localEnv.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import type ExcelJS from 'exceljs';
import type { CallPage } from '@passcloud/functions/contract/intercom';
import type { RecordExportJob } from '@passcloud/functions/contract/passRecords';
import { storeCallEnd } from '@passcloud/functions/data/intercomCalls';
import { tenants } from '@passcloud/functions/data/tenants';
import { TIME_FORMAT, loadExcel } from '@passcloud/functions/lib/xlsx';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { until } from '../support/wait.ts';

/**
 * Exported times are spreadsheet dates (a date serial with a date-and-time format), in the
 * company's time zone: a spreadsheet sorts and filters them, and a reader sees the company's clock.
 */

const ZONE = 'Asia/Tokyo';
let token: string;
let tenantId: string;

async function firstSheet(bytes: ArrayBuffer): Promise<ExcelJS.Worksheet> {
  const workbook = new (await loadExcel()).Workbook();
  await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  return workbook.worksheets[0]!;
}

/** The wall-clock time of `iso` in ZONE, as a spreadsheet date holds it (a UTC date with those fields), to the second. */
function wallClock(iso: string): Date {
  const at = new Date(new Date(iso).getTime() + 9 * 3600_000);
  at.setUTCMilliseconds(0);
  return at;
}

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  await tenants().patch({ tenantId }).set({ timezone: ZONE }).go();
});

describe('times in exported workbooks', () => {
  it('writes a call export’s times as date cells in the company’s time zone', async () => {
    const callId = unique('xtime');
    const start = new Date(Date.now() - 60_000);
    start.setUTCMilliseconds(975);
    await storeCallEnd({
      tenantId,
      callId,
      answeredStatus: 1,
      ttl: Math.floor(Date.now() / 1000) + 86_400,
      end: {
        deviceKey: 'zzzzzzzzzzzz',
        direction: 'outgoing',
        status: 2,
        startTime: start.toISOString(),
        answerTime: new Date(start.getTime() + 2000).toISOString(),
        endTime: new Date(start.getTime() + 12_000).toISOString(),
        duration: 10,
        live: false,
        peerNumber: '101',
        doorOpenedAt: new Date(start.getTime() + 5000).toISOString(),
        time: new Date().toISOString(),
      },
    });
    const listed = (await call<CallPage>('GET', '/v1/intercom/calls', { token })).body.data.items;
    expect(listed.map((c) => c.callId)).toEqual([callId]);
    const started = await call<{ jobKey: string }>('POST', '/v1/intercom/calls/exports', { token, body: {} });
    expect(started.body.code).toBe(202);
    const job = await until(
      async () => (await call<RecordExportJob>('GET', `/v1/intercom/calls/exports/${started.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
    );
    expect(job.state).toBe('done');
    const sheet = await firstSheet(await (await fetch(job.url!)).arrayBuffer());
    const callTime = sheet.getCell('A2');
    expect(callTime.value).toBeInstanceOf(Date);
    expect(callTime.numFmt).toBe(TIME_FORMAT);
    expect((callTime.value as Date).toISOString()).toBe(wallClock(start.toISOString()).toISOString());
    const doorOpened = sheet.getCell('F2');
    expect(doorOpened.value).toBeInstanceOf(Date);
    expect(doorOpened.numFmt).toBe(TIME_FORMAT);
    expect((doorOpened.value as Date).toISOString()).toBe(wallClock(new Date(start.getTime() + 5000).toISOString()).toISOString());
  });

  it('writes the audit log’s times as date cells in the company’s time zone', async () => {
    const entries = (await call<{ items: { time: string; kind: string }[] }>('GET', '/v1/audit?pageSize=50&kind=login', { token })).body.data.items;
    expect(entries.length).toBeGreaterThan(0);
    const file = await fetch(`${baseUrl()}/v1/audit/export?kind=login`, { headers: { authorization: `Bearer ${token}`, 'accept-language': 'en_US' } });
    expect(file.status).toBe(200);
    const sheet = await firstSheet(await file.arrayBuffer());
    const times: Date[] = [];
    sheet.eachRow((row, number) => {
      if (number === 1) return;
      const cell = row.getCell(1);
      expect(cell.numFmt).toBe(TIME_FORMAT);
      times.push(cell.value as Date);
    });
    expect(times.map((d) => d.toISOString()).sort()).toEqual(entries.map((e) => wallClock(e.time).toISOString()).sort());
  });
});
