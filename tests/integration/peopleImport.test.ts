import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import ExcelJS from 'exceljs';
import { call, exportThroughJob, login, newCompany, unique } from '../support/api.ts';
import { makeJpeg, makePng } from '../support/images.ts';
import { partition } from '../support/tenantItems.ts';
import { EVENTS_TABLE } from '@passcloud/functions/data/tables';
import { EN_HEADERS, ZH_HEADERS, workbook, zip } from '../support/files.ts';

let token: string;

interface ImportAnswer {
  created: number;
  updated: number;
  rejected: number;
  rows: { row: number; personId: string; status: string; reasons?: string[] }[];
}
interface PhotoAnswer {
  imported: number;
  skipped: number;
  entries: { name: string; status: string; reason?: string }[];
}

const EN = EN_HEADERS;
const ZH = ZH_HEADERS;

async function upload<T>(path: string, bytes: Buffer, name: string, locale?: string) {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)]), name);
  return call<T>('POST', path, { token, form, ...(locale ? { locale } : {}) });
}

const MB = 1024 * 1024;

async function total(): Promise<number> {
  return (await call<{ total: number }>('GET', '/v1/employees?pageSize=1', { token })).body.data.total;
}

let prefix: string;
beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  prefix = unique('W');
});

describe('workbook import', () => {
  it('creates good rows, rejects bad ones with reasons, and creates missing groups and departments', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => [
      `${prefix}-${i}`,
      `Worker ${i}`,
      'Operator',
      i % 2 ? 'male' : 'female',
      'Line A',
      `5550${i}`,
      `w${i}@example.com`,
      `${prefix}C${i}`,
      'Plant',
      '',
    ]);
    rows[10]![1] = '';
    rows[20]![6] = 'not-an-email';
    rows[30]![3] = 'unknown';
    const answer = await upload<ImportAnswer>('/v1/employees/imports', await workbook(EN, rows), 'people.xlsx');
    expect(answer.body.code).toBe(201);
    expect(answer.body.data).toMatchObject({ created: 47, updated: 0, rejected: 3 });
    const rejected = answer.body.data.rows.filter((r) => r.status === 'rejected');
    expect(rejected.map((r) => r.row)).toEqual([12, 22, 32]);
    expect(rejected.map((r) => r.reasons)).toEqual([['Name is required'], ['Email is not a valid email address'], ['Gender must be male or female']]);
    const groups = await call<{ items: { name: string }[] }>('GET', '/v1/groups?type=employee', { token });
    expect(groups.body.data.items.map((g) => g.name)).toContain('Line A');
    expect(await total()).toBe(47);
  });

  it('reports every problem of a row, each a sentence naming the template column, in the reader’s language', async () => {
    const before = await total();
    const groupsBefore = (await call<{ items: { name: string }[] }>('GET', '/v1/groups?type=employee', { token })).body.data.items.length;
    const rows = [
      [`${prefix}-P1`, '', 'Operator', 'male', 'Line A', '', '', '', '', ''],
      [`${prefix}-P2`, 'Two Problems', 'Operator', 'robot', 'Line A', '', 'two@problems', '', '', ''],
      [`${prefix}-P3`, 'New Group', 'Operator', 'female', 'G'.repeat(65), '?', '', `${prefix}C1`, '', ''],
    ];
    const english = await upload<ImportAnswer>('/v1/employees/imports', await workbook(EN, rows), 'people.xlsx');
    expect(english.body.data).toMatchObject({ created: 0, updated: 0, rejected: 3 });
    expect(english.body.data.rows.map((r) => r.reasons)).toEqual([
      ['Name is required'],
      ['Gender must be male or female', 'Email is not a valid email address'],
      [
        'Group must be at most 64 characters',
        'Phone: Enter a phone number of 3 to 32 digits, spaces, +, -, ( or )',
        'This IC card number is already used by someone else',
      ],
    ]);

    const japanese = await upload<ImportAnswer>('/v1/employees/imports', await workbook(EN, rows), 'people.xlsx', 'ja_JP');
    expect(japanese.body.data.rows.map((r) => r.reasons)).toEqual([
      ['氏名は必須です'],
      ['性別には男性または女性を指定してください', 'メールアドレスは有効なメールアドレスではありません'],
      [
        'グループは 64 文字以内で入力してください',
        '電話番号：数字、スペース、+、-、(、) を使用して 3～32 文字の電話番号を入力してください',
        'このIC カード番号は既に他の人が使用しています',
      ],
    ]);
    expect(await total()).toBe(before);
    // A rejected row creates no group.
    expect((await call<{ items: { name: string }[] }>('GET', '/v1/groups?type=employee', { token })).body.data.items).toHaveLength(groupsBefore);
  });

  it('lists a personnel ID held in the other list along with the row’s other problems', async () => {
    const personId = `${prefix}-V1`;
    const visitor = await upload<ImportAnswer>(
      '/v1/visitors/imports',
      await workbook(EN, [[personId, 'Guest', 'Visitor', 'female', 'Guests', '', '', '', '', '']]),
      'visitors.xlsx',
    );
    expect(visitor.body.data).toMatchObject({ created: 1 });
    const answer = await upload<ImportAnswer>(
      '/v1/employees/imports',
      await workbook(EN, [[personId, 'Guest', '', 'female', 'Line A', '', '', '', '', '']]),
      'people.xlsx',
      'de_DE',
    );
    expect(answer.body.data.rows[0]!.reasons).toEqual([
      'Rolle ist erforderlich',
      'Personalnummer wird bereits von einer Person in der anderen Liste verwendet',
    ]);
  });

  it('updates rows whose personnel ID exists, from a workbook with Chinese headers', async () => {
    const rows = [[`${prefix}-1`, '工人一', '班长', '男', 'Line A', '', '', '', '', '']];
    const answer = await upload<ImportAnswer>('/v1/employees/imports', await workbook(ZH, rows), '人员.xlsx');
    expect(answer.body.data).toMatchObject({ created: 0, updated: 1, rejected: 0 });
    const found = await call<{ items: { name: string; role: string }[] }>('GET', `/v1/employees?keyword=${prefix}-1`, { token });
    expect(found.body.data.items.find((e) => e.name === '工人一')).toMatchObject({ role: '班长' });
  });

  it('refuses what is not an .xlsx of at most 2 MB with the template columns, and creates nothing', async () => {
    const before = await total();
    const wrongName = await upload<{ issues: { path: string; message: string }[] }>(
      '/v1/employees/imports',
      await workbook(EN, [['X1', 'a', 'b', 'male', 'g']]),
      'people.xls',
    );
    expect(wrongName.status).toBe(422);
    expect(wrongName.body.data.issues[0]!.path).toBe('file');
    const notABook = await upload('/v1/employees/imports', Buffer.from('personId,name\n1,2'), 'people.xlsx');
    expect(notABook.status).toBe(422);
    const big = await upload<{ issues: { message: string }[] }>(
      '/v1/employees/imports',
      Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.alloc(2 * 1024 * 1024)]),
      'big.xlsx',
    );
    expect(big.status).toBe(422);
    expect(big.body.data.issues[0]!.message).toContain('2 MB');
    const noNames = await upload<{ issues: { message: string }[] }>('/v1/employees/imports', await workbook(['Personnel ID', 'Name'], [['X2', 'b']]), 'p.xlsx');
    expect(noNames.status).toBe(422);
    expect(noNames.body.data.issues[0]!.message).toMatch(/Role.*Gender.*Group/);
    expect(await total()).toBe(before);
  });

  it('takes at most 5000 rows in one request, so that its report always fits in a response (Lambda returns 6 MB)', async () => {
    const before = await total();
    // Every row rejected with every reason it can have, in Russian: the longest report 5000 rows make.
    const rows = Array.from({ length: 5000 }, (_, i) => [`${prefix}-R${i}-${'x'.repeat(20)}`, '', '', 'male', '', 'abc', 'not-an-email', '', '', '']);
    const worst = await upload<ImportAnswer>('/v1/employees/imports', await workbook(EN, rows), 'people.xlsx', 'ru_RU');
    expect(worst.status).toBe(200);
    expect(worst.body.data).toMatchObject({ created: 0, rejected: 5000 });
    expect(worst.body.data.rows[0]!.reasons).toHaveLength(6);

    const tooMany = await upload<{ issues: { path: string; message: string }[] }>(
      '/v1/employees/imports',
      await workbook(EN, [...rows, rows[0]!]),
      'people.xlsx',
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(/5000 rows/) });
    expect(await total()).toBe(before);
  });
});

describe('photo archive import', () => {
  it('imports photos named after personnel IDs and skips every other entry with its reason', async () => {
    const entries = [
      { name: `photo/${prefix}-2.jpg`, data: makeJpeg(800, 600) },
      { name: `photo/${prefix}-3.png`, data: makePng(640, 480) },
      { name: `photo/${prefix}-4.png`, data: makePng(320, 240) },
      { name: 'photo/NOBODY-HERE.jpg', data: makeJpeg(800, 600) },
      { name: 'XX/escape.jpg', data: makeJpeg(800, 600) },
      { name: `other/${prefix}-5.jpg`, data: makeJpeg(800, 600) },
      { name: `photo/${prefix}-6.gif`, data: makeJpeg(800, 600) },
      { name: `photo/${prefix}-7.jpg`, data: Buffer.from('../../etc/passwd'), mode: 0o120777 },
      { name: `photo/${prefix}-8.jpg`, data: Buffer.concat([makeJpeg(800, 600), Buffer.alloc(600 * 1024)]) },
      { name: `photo/${prefix}-9.jpg`, data: Buffer.from('not an image at all') },
    ];
    // Zip writers refuse to write a climbing path, so it is put in afterwards, as an attacker would.
    const bytes = await zip(entries);
    for (let at = bytes.indexOf('XX/escape.jpg'); at !== -1; at = bytes.indexOf('XX/escape.jpg', at + 1)) bytes.write('../escape.jpg', at);
    const answer = await upload<PhotoAnswer>('/v1/employees/imports/avatars', bytes, 'photos.zip');
    expect(answer.body.code).toBe(201);
    expect(answer.body.data.imported).toBe(2);
    const reason = (name: string) => answer.body.data.entries.find((e) => e.name === name)?.reason ?? '';
    expect(reason(`photo/${prefix}-4.png`)).toMatch(/640 × 480.*320 × 240/);
    expect(reason('photo/NOBODY-HERE.jpg')).toMatch(/no one has this personnel ID/);
    expect(reason('../escape.jpg')).toMatch(/outside its folder/);
    expect(reason(`other/${prefix}-5.jpg`)).toMatch(/folder named photo/);
    expect(reason(`photo/${prefix}-6.gif`)).toMatch(/\.jpg or \.png/);
    expect(reason(`photo/${prefix}-7.jpg`)).toMatch(/links/);
    expect(reason(`photo/${prefix}-8.jpg`)).toMatch(/500 KB/);
    expect(reason(`photo/${prefix}-9.jpg`)).toMatch(/not a valid/);
    const withPhoto = await call<{ items: { personId: string; avatarUrl: string | null }[] }>('GET', `/v1/employees?keyword=${prefix}-2`, { token });
    const url = withPhoto.body.data.items.find((e) => e.personId === `${prefix}-2`)!.avatarUrl!;
    expect((await fetch(url)).status).toBe(200);
  });

  it('refuses an archive that declares more than it may unpack, before unpacking it', async () => {
    const bytes = await zip([{ name: `photo/${prefix}-12.jpg`, data: makeJpeg(800, 600) }]);
    // Claim 3 GB for the entry in the central directory, as a zip bomb would.
    const central = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bytes.writeUInt32LE(3_000_000_000, central + 24);
    const answer = await upload<{ issues: { message: string }[] }>('/v1/employees/imports/avatars', bytes, 'bomb.zip');
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.message).toMatch(/MB/);
    const person = await call<{ items: { personId: string; avatar: string | null }[] }>('GET', `/v1/employees?keyword=${prefix}-12`, { token });
    expect(person.body.data.items.find((e) => e.personId === `${prefix}-12`)?.avatar).toBeNull();
  });

  it('refuses an archive with more entries than one request reports', async () => {
    const entries = Array.from({ length: 10_001 }, (_, i) => ({ name: `photo/x${i}.jpg`, data: Buffer.alloc(0) }));
    const answer = await upload<{ issues: { message: string }[] }>('/v1/employees/imports/avatars', await zip(entries), 'many.zip');
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.message).toMatch(/10000/);
  });

  it('answers the whole report of an archive at the limits of one request (4 MB, 10000 entries)', async () => {
    // Long names, each skipped with the longest reason, in Russian.
    const name = (i: number) => `photo/${String(i).padStart(5, '0')}-${'n'.repeat(150)}.gif`;
    const bytes = await zip(Array.from({ length: 10_000 }, (_, i) => ({ name: name(i), data: Buffer.alloc(0) })));
    expect(bytes.length).toBeGreaterThan(3.5 * MB);
    expect(bytes.length).toBeLessThanOrEqual(4 * MB);
    const answer = await upload<PhotoAnswer>('/v1/employees/imports/avatars', bytes, 'photos.zip', 'ru_RU');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ imported: 0, skipped: 10_000 });
  });

  it('takes an archive of at most 4 MB in one request and names that limit', async () => {
    const bytes = await zip([
      { name: `photo/${prefix}-13.jpg`, data: makeJpeg(800, 600) },
      { name: 'padding.bin', data: randomBytes(4 * MB) },
    ]);
    expect(bytes.length).toBeGreaterThan(4 * MB);
    const answer = await upload<{ issues: { path: string; message: string }[] }>('/v1/employees/imports/avatars', bytes, 'photos.zip');
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(/4 MB/) });
  });

  it('refuses what is not a zip', async () => {
    expect((await upload('/v1/employees/imports/avatars', makePng(640, 480), 'photos.zip')).status).toBe(422);
  });
});

describe('export', () => {
  it('exports the filtered list in the background as a workbook with headers in the caller’s language', async () => {
    const { job, bytes } = await exportThroughJob(token, '/v1/employees', { keyword: `${prefix}-4` }, { locale: 'ja_JP' });
    expect(job).toMatchObject({ state: 'done', done: 11, error: null });
    expect(job.url).toMatch(/employees-\d{4}-\d{2}-\d{2}\.xlsx/);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as unknown as ExcelJS.Buffer);
    const sheet = book.worksheets[0]!;
    const header = (sheet.getRow(1).values as string[]).slice(1);
    expect(header[0]).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    const personIds = [];
    for (let r = 2; r <= sheet.rowCount; r++) personIds.push(String(sheet.getRow(r).getCell(1).value));
    expect(personIds.sort()).toEqual(
      [
        `${prefix}-4`,
        `${prefix}-40`,
        `${prefix}-41`,
        `${prefix}-42`,
        `${prefix}-43`,
        `${prefix}-44`,
        `${prefix}-45`,
        `${prefix}-46`,
        `${prefix}-47`,
        `${prefix}-48`,
        `${prefix}-49`,
      ].sort(),
    );
  });

  it('exports in a form the import reads back', async () => {
    const { bytes } = await exportThroughJob(token, '/v1/employees', { keyword: `${prefix}-11` }, { locale: 'de_DE' });
    const again = await upload<ImportAnswer>('/v1/employees/imports', bytes, 'export.xlsx');
    expect(again.body.data).toMatchObject({ created: 0, rejected: 0 });
    expect(again.body.data.updated).toBeGreaterThan(0);
  });

  it('asks for the password first, refuses a bad filter naming the field, and keeps a job to its company', async () => {
    // A session that has not confirmed its password yet.
    const company = await newCompany();
    const fresh = company.session.token;
    const exportJobs = async () => (await partition(EVENTS_TABLE, company.tenantId)).filter((item) => item.kind === 'recordExport');
    const unconfirmed = await call<{ reauth?: string }>('POST', '/v1/employees/exports', { token: fresh, body: {} });
    expect(unconfirmed.status).toBe(401);
    expect(unconfirmed.body.data?.reauth).toBe('required');
    const bad = await call('POST', '/v1/employees/exports', { token: fresh, body: { state: 'sleeping' }, confirm: true });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('state');
    // Neither refusal made a job.
    expect(await exportJobs()).toEqual([]);
    const started = await call<{ jobKey: string }>('POST', '/v1/visitors/exports', { token: fresh, body: {}, confirm: true });
    expect(started.body.code).toBe(202);
    expect((await exportJobs()).map((job) => job.jobKey)).toEqual([started.body.data.jobKey]);
    // Another company's session finds no such job, and the job of one list is not read through the other.
    expect((await call('GET', `/v1/visitors/exports/${started.body.data.jobKey}`, { token })).status).toBe(404);
    expect((await call('GET', `/v1/employees/exports/${started.body.data.jobKey}`, { token: fresh })).status).toBe(404);
  });
});
