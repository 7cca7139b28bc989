import { beforeAll, describe, expect, it } from 'vitest';
import { objectExists } from '@passcloud/functions/lib/storage';
import { importJobs } from '@passcloud/functions/data/importJobs';
import { call, login, newCompany, unique } from '../support/api.ts';
import { EN_HEADERS, workbook, zip } from '../support/files.ts';
import { makeJpeg } from '../support/images.ts';

interface Job {
  jobKey: string;
  step: 'info' | 'avatars';
  state: 'uploading' | 'queued' | 'running' | 'done' | 'failed';
  filename: string;
  processed: number;
  total: number;
  report: Record<string, unknown> | null;
  error: string | null;
  upload?: { url: string; method: string; headers: Record<string, string> };
}
type Issues = { issues: { path: string; message: string }[] };

let token: string;
let other: string;
let tenantId: string;

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  const stranger = await newCompany();
  other = (await login(stranger.username, stranger.password)).token;
});

async function createJob(list: 'employees' | 'visitors', step: Job['step'], filename: string, size: number, as = token) {
  return call<Job>('POST', `/v1/${list}/imports/jobs`, { token: as, body: { step, filename, size } });
}

/** Creates the job, uploads the file to its presigned link and starts it. */
async function runJob(list: 'employees' | 'visitors', step: Job['step'], filename: string, bytes: Buffer): Promise<Job> {
  const made = await createJob(list, step, filename, bytes.length);
  expect(made.body.code).toBe(201);
  const { upload, jobKey } = made.body.data;
  const put = await fetch(upload!.url, { method: upload!.method, headers: upload!.headers, body: new Uint8Array(bytes) });
  expect(put.status).toBe(200);
  const started = await call<Job>('POST', `/v1/${list}/imports/jobs/${jobKey}/start`, { token });
  expect(started.body.code).toBe(202);
  expect(started.body.data.state).toBe('queued');
  return finished(list, jobKey);
}

async function finished(list: string, jobKey: string): Promise<Job> {
  for (let i = 0; i < 600; i++) {
    const job = (await call<Job>('GET', `/v1/${list}/imports/jobs/${jobKey}`, { token })).body.data;
    if (job.state === 'done' || job.state === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`import ${jobKey} never finished`);
}

/** Every import job of the tenant, straight from the table. */
const storedJobs = async () => (await importJobs().query.primary({ tenantId }).go({ pages: 'all' })).data;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

const person = (i: number, prefix: string) => [`${prefix}-${i}`, `Background ${i}`, 'Clerk', i % 2 ? 'male' : 'female', 'Job group'];

describe('background imports', () => {
  it('imports a workbook: every row counted, the bad ones reported with reasons, the upload removed', async () => {
    const prefix = unique('J');
    const rows = Array.from({ length: 30 }, (_, i) => person(i, prefix));
    rows[4] = [`${prefix}-4`, '', 'Clerk', 'male', 'Job group'];
    rows[9] = [`${prefix}-9`, 'Bad gender', 'Clerk', 'other', 'Job group'];
    const job = await runJob('employees', 'info', 'people.xlsx', await workbook(EN_HEADERS, rows));
    expect(job).toMatchObject({ state: 'done', processed: 30, total: 30, error: null });
    expect(job.report).toMatchObject({ created: 28, updated: 0, rejected: 2 });
    const problems = job.report!.rows as { row: number; personId: string; status: string; reasons: string[] }[];
    expect(problems.map((r) => r.row)).toEqual([6, 11]);
    expect(problems[0]!.reasons).toEqual(['Name is required']);
    expect(problems[1]!.reasons).toEqual(['Gender must be male or female']);

    const found = await call<{ total: number }>('GET', `/v1/employees?keyword=${prefix}&pageSize=1`, { token });
    expect(found.body.data.total).toBe(28);
    expect(await objectExists('imports', tenantId, `import/${job.jobKey}.xlsx`)).toBe(false);
  });

  it('imports a photo archive and lists the entries it skipped', async () => {
    const prefix = unique('P');
    const made = await runJob('visitors', 'info', 'visitors.xlsx', await workbook(EN_HEADERS, [person(1, prefix), person(2, prefix)]));
    expect(made.report).toMatchObject({ created: 2 });
    const archive = await zip([
      { name: `photo/${prefix}-1.jpg`, data: makeJpeg(800, 600) },
      { name: `photo/${prefix}-2.jpg`, data: Buffer.from('not a picture') },
      { name: 'photo/nobody-here.jpg', data: makeJpeg(800, 600) },
    ]);
    const job = await runJob('visitors', 'avatars', 'photos.zip', archive);
    expect(job).toMatchObject({ state: 'done', processed: 3, total: 3 });
    expect(job.report).toMatchObject({ imported: 1, skipped: 2 });
    const skipped = (job.report!.entries as { name: string; reason: string }[]).map((e) => e.name).sort();
    expect(skipped).toEqual([`photo/${prefix}-2.jpg`, 'photo/nobody-here.jpg']);
    const list = await call<{ items: { personId: string; avatar: string | null }[] }>('GET', `/v1/visitors?keyword=${prefix}`, { token });
    expect(list.body.data.items.find((v) => v.personId === `${prefix}-1`)!.avatar).toBeTruthy();
    expect(list.body.data.items.find((v) => v.personId === `${prefix}-2`)!.avatar).toBeNull();
  });

  it('fails a file that is not a workbook, with the reason, and imports nothing', async () => {
    const before = (await call<{ total: number }>('GET', '/v1/employees?pageSize=1', { token })).body.data.total;
    const job = await runJob('employees', 'info', 'fake.xlsx', Buffer.from('plain text, not a workbook'));
    expect(job.state).toBe('failed');
    expect(job.error).toBe('File: Must be an .xlsx workbook');
    expect((await call<{ total: number }>('GET', '/v1/employees?pageSize=1', { token })).body.data.total).toBe(before);
  });

  it('refuses a wrong file type or size when the job is made, naming the field, and makes no job', async () => {
    const before = (await storedJobs()).length;
    const cases: [Job['step'], string, number, string][] = [
      ['info', 'people.xls', 100, 'filename'],
      ['info', 'people.xlsx', 2 * 1024 * 1024 + 1, 'size'],
      ['avatars', 'photos.rar', 100, 'filename'],
      ['avatars', 'photos.zip', 1024 * 1024 * 1024 + 1, 'size'],
    ];
    for (const [step, filename, size, field] of cases) {
      const answer = await call<Issues>('POST', '/v1/employees/imports/jobs', { token, body: { step, filename, size } });
      expect(answer.status, filename).toBe(422);
      expect(answer.body.data.issues.map((i) => i.path)).toEqual([field]);
    }
    expect((await storedJobs()).length).toBe(before);
  });

  it('counts the time a job may take from its start, not from a long upload before it', async () => {
    const made = (await createJob('employees', 'info', 'slow.xlsx', 5000)).body.data;
    // The upload link lives an hour, and this file took most of it to arrive.
    await importJobs().patch({ tenantId, jobKey: made.jobKey }).set({ createdAt: minutesAgo(59) }).go();
    const bytes = await workbook(EN_HEADERS, [person(1, unique('S'))]);
    await fetch(made.upload!.url, { method: 'PUT', headers: made.upload!.headers, body: new Uint8Array(bytes) });
    const started = await call<Job>('POST', `/v1/employees/imports/jobs/${made.jobKey}/start`, { token });
    expect(started.body.data).toMatchObject({ state: 'queued', error: null });
    expect(await finished('employees', made.jobKey)).toMatchObject({ state: 'done', report: { created: 1 } });
  });

  it('reports a job whose worker stopped 30 minutes after its start as failed', async () => {
    const made = (await createJob('employees', 'info', 'lost.xlsx', 5000)).body.data;
    await importJobs().patch({ tenantId, jobKey: made.jobKey }).set({ state: 'running', startedAt: minutesAgo(31) }).go();
    const job = (await call<Job>('GET', `/v1/employees/imports/jobs/${made.jobKey}`, { token, locale: 'de_DE' })).body.data;
    expect(job.state).toBe('failed');
    expect(job.error).toBe('Der Import wurde unerwartet abgebrochen; bitte versuchen Sie es erneut');
    await importJobs().patch({ tenantId, jobKey: made.jobKey }).set({ startedAt: minutesAgo(29) }).go();
    expect((await call<Job>('GET', `/v1/employees/imports/jobs/${made.jobKey}`, { token })).body.data).toMatchObject({ state: 'running', error: null });
  });

  it('starts only an uploaded file, and only once', async () => {
    const made = (await createJob('employees', 'info', 'later.xlsx', 5000)).body.data;
    const early = await call<Issues>('POST', `/v1/employees/imports/jobs/${made.jobKey}/start`, { token });
    expect(early.status).toBe(422);
    expect(early.body.data.issues[0]!.path).toBe('file');
    expect((await call<Job>('GET', `/v1/employees/imports/jobs/${made.jobKey}`, { token })).body.data.state).toBe('uploading');

    const bytes = await workbook(EN_HEADERS, [person(1, unique('O'))]);
    await fetch(made.upload!.url, { method: 'PUT', headers: made.upload!.headers, body: new Uint8Array(bytes) });
    expect((await call('POST', `/v1/employees/imports/jobs/${made.jobKey}/start`, { token })).body.code).toBe(202);
    expect((await call('POST', `/v1/employees/imports/jobs/${made.jobKey}/start`, { token })).status).toBe(409);
    expect((await finished('employees', made.jobKey)).report).toMatchObject({ created: 1 });
  });

  it('keeps a job to its own list and its own company', async () => {
    const made = (await createJob('employees', 'info', 'mine.xlsx', 5000)).body.data;
    expect((await call('GET', `/v1/visitors/imports/jobs/${made.jobKey}`, { token })).status).toBe(404);
    expect((await call('GET', `/v1/employees/imports/jobs/${made.jobKey}`, { token: other })).status).toBe(404);
    expect((await call('POST', `/v1/employees/imports/jobs/${made.jobKey}/start`, { token: other })).status).toBe(404);
    expect((await call<Job>('GET', `/v1/employees/imports/jobs/${made.jobKey}`, { token })).body.data.state).toBe('uploading');
  });
});
