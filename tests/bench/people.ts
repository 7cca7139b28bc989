import ExcelJS from 'exceljs';
import yazl from 'yazl';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { people, personTerms, termItems } from '@passcloud/functions/data/people';
import { MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { newTimeId } from '@passcloud/functions/lib/crypto';
import { searchTerms, termText } from '@passcloud/functions/domain/people';
import { mb, peakRss, rssOf } from './host.ts';
import { fmt, percentile, resultLines } from './api.ts';
import { figure } from './figures.ts';

/**
 * People budgets: import of 10,000 rows and 10,000 photos (rows per second, peak memory of the
 * process hosting the API), and page 1 and page 50 of 100,000 employees filtered by keyword.
 */

async function post(url: string, token: string, path: string, bytes: Buffer, name: string): Promise<Record<string, number>> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { code: number; message: string; data: Record<string, number> };
  if (body.code !== 201) throw new Error(`${path}: ${body.message}`);
  return body.data;
}

/**
 * A workbook import as the console runs one of 10,000 rows (one request takes at most 5,000): the
 * job is made, the file put through its upload link, the job started and read until it is over.
 */
async function importJob(url: string, token: string, list: string, bytes: Buffer, name: string): Promise<Record<string, number>> {
  const send = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await res.json()) as { code: number; message: string; data: T };
    if (answer.code >= 300) throw new Error(`${method} ${path}: ${answer.message}`);
    return answer.data;
  };
  type Job = {
    jobKey: string;
    state: string;
    error: string | null;
    report: Record<string, number> | null;
    upload?: { url: string; method: string; headers: Record<string, string> };
  };
  const jobs = `/v1/${list}/imports/jobs`;
  const job = await send<Job>('POST', jobs, { step: 'info', filename: name, size: bytes.length });
  const put = await fetch(job.upload!.url, { method: job.upload!.method, headers: job.upload!.headers, body: new Uint8Array(bytes) });
  if (!put.ok) throw new Error(`upload of ${name}: ${put.status}`);
  await send<Job>('POST', `${jobs}/${job.jobKey}/start`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const current = await send<Job>('GET', `${jobs}/${job.jobKey}`);
    if (current.state === 'failed') throw new Error(`import of ${name}: ${current.error}`);
    if (current.state === 'done') return current.report!;
  }
}

/** A JPEG header of 800×600: judged like any photo, tiny enough for 10,000 in one request. */
function jpeg(): Buffer {
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01];
  return Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x10,
    0x4a,
    0x46,
    0x49,
    0x46,
    0x00,
    0x01,
    0x01,
    0x00,
    0x00,
    0x01,
    0x00,
    0x01,
    0x00,
    0x00,
    ...sof,
    0xff,
    0xd9,
  ]);
}

export async function peopleBench(url: string, token: string, tenantId: string, hostPid: number): Promise<string[]> {
  const lines = resultLines();
  const rows = 10_000;
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Personnel');
  sheet.addRow(['Personnel ID*', 'Name*', 'Role*', 'Gender*', 'Group*', 'Phone', 'Email', 'IC card number']);
  for (let i = 0; i < rows; i++)
    sheet.addRow([
      `B${i}`,
      `Bench Person ${i}`,
      'Operator',
      i % 2 ? 'male' : 'female',
      `Line ${i % 10}`,
      `555${i}`,
      `b${i}@example.com`,
      `BC${String(i).padStart(5, '0')}`,
    ]);
  const workbook = Buffer.from(await book.xlsx.writeBuffer());

  const before = rssOf(hostPid);
  let started = performance.now();
  const imported = await peakRss(hostPid, () => importJob(url, token, 'employees', workbook, 'bench.xlsx'));
  let seconds = (performance.now() - started) / 1000;
  if (imported.result.created !== rows) throw new Error(`import of ${rows} rows created ${imported.result.created}`);
  figure({
    area: 'people',
    name: `import of ${rows.toLocaleString('en-US')} rows`,
    value: seconds,
    unit: 's',
    goal: 60,
    kind: 'max',
    note: 'background import job, upload to report',
  });
  figure({
    area: 'people',
    name: 'import peak RSS',
    value: imported.peak / 1024 / 1024,
    unit: 'MB',
    goal: 512,
    kind: 'max',
    note: 'host process, sampled every 50 ms',
  });
  lines.push(
    `import of ${rows} rows (${(workbook.length / 1024).toFixed(0)} KB workbook, background job): ${seconds.toFixed(1)} s, ${(rows / seconds).toFixed(0)} rows/s, created ${imported.result.created}, host peak RSS ${mb(imported.peak)} (from ${mb(before)}; budget 512 MB)`,
  );

  const zipped = await new Promise<Buffer>((resolve) => {
    const zip = new yazl.ZipFile();
    const photo = jpeg();
    for (let i = 0; i < rows; i++) zip.addBuffer(photo, `photo/B${i}.jpg`);
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
  started = performance.now();
  const photos = await peakRss(hostPid, () => post(url, token, '/v1/employees/imports/avatars', zipped, 'bench.zip'));
  seconds = (performance.now() - started) / 1000;
  figure({ area: 'people', name: `import of ${rows.toLocaleString('en-US')} photos`, value: seconds, unit: 's', note: 'one request' });
  lines.push(
    `import of ${rows} photos (${(zipped.length / 1024).toFixed(0)} KB archive): ${seconds.toFixed(1)} s, ${(rows / seconds).toFixed(0)} photos/s, imported ${photos.result.imported}, host peak RSS ${mb(photos.peak)}`,
  );

  // 90,000 more employees written straight to the table, with their keyword index, to list 100,000.
  started = performance.now();
  const now = new Date().toISOString();
  const itemOf = (params: unknown) => ({ Put: { TableName: tableName(MAIN_TABLE), Item: (params as { Item: Record<string, unknown> }).Item } });
  for (let start = 0; start < 90_000; start += 200) {
    const items = Array.from({ length: 200 }, (_, j) => {
      const i = rows + start + j;
      const record = {
        tenantId,
        kind: 'employee' as const,
        personKey: newTimeId(),
        personId: `S${i}`,
        name: `Seeded Person ${i}`,
        phone: `777${i}`,
        icCard: `SC${i}`,
        role: 'Operator',
        gender: 'male' as const,
        groupKey: 'seeded000000',
        state: 'active' as const,
        createdAt: now,
        updatedAt: now,
        version: 1,
      };
      return [
        itemOf(
          people()
            .create({ ...record, terms: termText(searchTerms(record)) })
            .params(),
        ),
        ...termItems(record).map((term) => itemOf(personTerms().put(term).params())),
      ];
    }).flat();
    // Transactions of 100 puts: DynamoDB Local on disk commits a batch write item by item, a transaction at once.
    const batches = Array.from({ length: Math.ceil(items.length / 100) }, (_, k) => items.slice(k * 100, k * 100 + 100));
    for (let k = 0; k < batches.length; k += 2) {
      await Promise.all(batches.slice(k, k + 2).map((batch) => dynamo().send(new TransactWriteCommand({ TransactItems: batch }))));
    }
  }
  lines.push(`seeded 90,000 more employees in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  // A keyword as common as "person" matches every one of them; the others match a few hundred or fewer.
  const slowest = { page1: { ms: 0, keyword: '' }, page50: { p50: 0, p95: 0, keyword: '' } };
  for (const keyword of ['person', 'seeded person 12', 'bench person 99', '0042']) {
    const query = `${url}/v1/employees?keyword=${encodeURIComponent(keyword)}&pageSize=20`;
    const get = async (cursor?: string) => {
      const res = await fetch(cursor ? `${query}&cursor=${cursor}` : query, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { code: number; message: string; data: { nextCursor: string | null; total?: number; totalAtLeast?: number } };
      if (body.code !== 200) throw new Error(`keyword "${keyword}": ${body.code} ${body.message}`);
      return body.data;
    };
    const first: number[] = [];
    let cursor: string | undefined;
    let total = '';
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      const page = await get();
      first.push(performance.now() - t0);
      cursor = page.nextCursor ?? undefined;
      total = page.total !== undefined ? String(page.total) : `at least ${page.totalAtLeast}`;
    }
    const later: number[] = [];
    let fiftieth: string | undefined;
    for (let page = 2; page <= 50 && cursor; page++) {
      if (page === 50) fiftieth = cursor;
      const t0 = performance.now();
      cursor = (await get(cursor)).nextCursor ?? undefined;
      later.push(performance.now() - t0);
    }
    // Page 50 again from its link, for its percentiles.
    const page50: number[] = [];
    for (let run = 0; fiftieth && run < 10; run++) {
      const t0 = performance.now();
      await get(fiftieth);
      page50.push(performance.now() - t0);
    }
    const firstP50 = percentile(first, 50)!;
    if (firstP50 >= slowest.page1.ms) slowest.page1 = { ms: firstP50, keyword };
    if (page50.length && percentile(page50, 50)! >= slowest.page50.p50)
      slowest.page50 = { p50: percentile(page50, 50)!, p95: percentile(page50, 95)!, keyword };
    lines.push(
      `list of 100,000 employees, keyword "${keyword}" (${total} found): page 1 with its total p50 ${fmt(firstP50)}, p95 ${fmt(percentile(first, 95))}; ` +
        (later.length
          ? `pages 2-${later.length + 1} p50 ${fmt(percentile(later, 50))}, p95 ${fmt(percentile(later, 95))}; page 50 ${page50.length ? `p50 ${fmt(percentile(page50, 50))}, p95 ${fmt(percentile(page50, 95))}` : 'not reached'}`
          : 'one page only'),
    );
  }
  figure({
    area: 'people',
    name: 'keyword list page 1',
    value: slowest.page1.ms,
    unit: 'ms',
    goal: 50,
    kind: 'max',
    note: `p50 of the slowest keyword ("${slowest.page1.keyword}"), 100,000 employees`,
  });
  figure({ area: 'people', name: 'keyword list page 50 p50', value: slowest.page50.p50, unit: 'ms', note: `slowest keyword ("${slowest.page50.keyword}")` });
  figure({ area: 'people', name: 'keyword list page 50 p95', value: slowest.page50.p95, unit: 'ms', note: `slowest keyword ("${slowest.page50.keyword}")` });
  return lines;
}
