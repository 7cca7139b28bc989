import ExcelJS from 'exceljs';
import yazl from 'yazl';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { people } from '@passcloud/functions/data/people';
import { MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { searchText } from '@passcloud/functions/domain/people';
import { newTimeId } from '@passcloud/functions/lib/crypto';
import { mb, peakRss, rssOf } from './host.ts';
import { fmt, percentile } from './api.ts';

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
  const lines: string[] = [];
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
  const imported = await peakRss(hostPid, () => post(url, token, '/v1/employees/imports', workbook, 'bench.xlsx'));
  let seconds = (performance.now() - started) / 1000;
  lines.push(
    `import of ${rows} rows (${(workbook.length / 1024).toFixed(0)} KB workbook): ${seconds.toFixed(1)} s, ${(rows / seconds).toFixed(0)} rows/s, created ${imported.result.created}, host peak RSS ${mb(imported.peak)} (from ${mb(before)}; budget 512 MB)`,
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
  lines.push(
    `import of ${rows} photos (${(zipped.length / 1024).toFixed(0)} KB archive): ${seconds.toFixed(1)} s, ${(rows / seconds).toFixed(0)} photos/s, imported ${photos.result.imported}, host peak RSS ${mb(photos.peak)}`,
  );

  // 90,000 more employees written straight to the table, to list 100,000.
  started = performance.now();
  const now = new Date().toISOString();
  for (let start = 0; start < 90_000; start += 25 * 8) {
    await Promise.all(
      Array.from({ length: 8 }, (_, b) => {
        const items = Array.from({ length: 25 }, (_, j) => {
          const i = rows + start + b * 25 + j;
          const person = { personId: `S${i}`, name: `Seeded Person ${i}`, phone: `777${i}`, icCard: `SC${i}` };
          const params = people()
            .create({
              tenantId,
              kind: 'employee',
              personKey: newTimeId(),
              role: 'Operator',
              gender: 'male',
              groupKey: 'seeded000000',
              state: 'active',
              search: searchText(person),
              createdAt: now,
              updatedAt: now,
              version: 1,
              ...person,
            })
            .params() as { Item: Record<string, unknown> };
          return { PutRequest: { Item: params.Item } };
        });
        return dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName(MAIN_TABLE)]: items } }));
      }),
    );
  }
  lines.push(`seeded 90,000 more employees in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  for (const keyword of ['person', 'bench person 99']) {
    const first: number[] = [];
    let cursor: string | undefined;
    let page50 = 0;
    for (let run = 0; run < 2; run++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/employees?keyword=${encodeURIComponent(keyword)}&pageSize=20`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { data: { nextCursor: string | null; total: number } };
      first.push(performance.now() - t0);
      cursor = body.data.nextCursor ?? undefined;
    }
    const later: number[] = [];
    for (let page = 2; page <= 50 && cursor; page++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/employees?keyword=${encodeURIComponent(keyword)}&pageSize=20&cursor=${cursor}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await res.json()) as { data: { nextCursor: string | null } };
      later.push(performance.now() - t0);
      if (page === 50) page50 = performance.now() - t0;
      cursor = body.data.nextCursor ?? undefined;
    }
    lines.push(
      `list of 100,000 employees, keyword "${keyword}": page 1 (with total) p50 ${fmt(percentile(first, 50))}; pages 2-50 p50 ${fmt(percentile(later, 50))}, p95 ${fmt(percentile(later, 95))}; page 50 ${page50 ? fmt(page50) : 'not reached'}`,
    );
  }
  return lines;
}
