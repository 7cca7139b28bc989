import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locale } from '#contract/locales';
import { RECORD_EXPORT_MAX_ROWS } from '#contract/passRecords';
import { findDevice } from '#data/devices';
import { findGroup } from '#data/groups';
import { releaseJobSlot } from '#data/jobSlots';
import { type PassRecord } from '#data/passRecords';
import { countedTotal, listRecords, recordFilterOf, type RecordQuery } from '#data/passRecordLists';
import { findExportJob, updateExportJob, type ExportJob } from '#data/exportJobs';
import { callRows } from './callExports.ts';
import { questionnaireRows } from './questionnaireExports.ts';
import { peopleRows } from './peopleExports.ts';
import { companyTimezone } from '#data/tenants';
import { translate, type MessageId, type MessageParams } from '#lib/i18n';
import { clockOf, dayOf } from '#domain/time';
import { decisionLine, refusalOf } from '#views/passRecordItems';
import { log, logged } from '#lib/log';
import { deleteObject, putObject } from '#lib/storage';
import { XLSX_TYPE, loadExcel, sheetTime, timeCells } from '#lib/xlsx';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'MAIN_TABLE',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/**
 * The background export of pass records (and of intercom calls, jobs/callExports.ts, questionnaire results and
 * employees and visitors, jobs/peopleExports.ts): reads the filtered range page by page, writes the rows
 * to a workbook on disk as it goes (headers and values in the language of the caller who asked),
 * records its progress about once a second, and stores the workbook in the imports bucket (under
 * `export/`, which the bucket's lifecycle expires) for the job's download link.
 *
 * On AWS `EXPORT_WORKER_FUNCTION` names this worker, invoked asynchronously; elsewhere (the local
 * host, tests) the export runs in the same process after the request has answered.
 */
export interface ExportTask {
  tenantId: string;
  jobKey: string;
}

const PAGE = 1000;
const PROGRESS_EVERY_MS = 1000;

const COLUMNS: [MessageId, number][] = [
  ['column.verifyTime', 21],
  ['column.name', 20],
  ['column.recordType', 12],
  ['column.group', 16],
  ['column.temperature', 12],
  ['column.fever', 8],
  ['column.mask', 8],
  ['column.passState', 10],
  ['column.source', 10],
  ['column.refusedFor', 16],
  ['column.decision', 60],
  ['column.device', 20],
  ['column.recordedAt', 21],
];

/** Times of the company's time zone as spreadsheet date cells. */
export const localTime = (timeZone: string): ((iso: string | null | undefined) => Date | '') => sheetTime(timeZone);

export async function runExport({ tenantId, jobKey }: ExportTask): Promise<void> {
  const job = await findExportJob(tenantId, jobKey);
  // A task delivered twice finds its job already running or finished.
  if (!job || job.state !== 'queued') return;
  if (!(await updateExportJob(tenantId, jobKey, 'queued', 'running', { startedAt: new Date().toISOString() }))) return;
  const locale = job.locale as Locale;
  const t = (id: MessageId) => translate(locale, id);
  const dir = await mkdtemp(join(tmpdir(), 'passcloud-export-'));
  let done = 0;
  try {
    const timeZone = await companyTimezone(tenantId);
    const source =
      job.list === 'calls'
        ? await callRows(job, timeZone, t)
        : job.list === 'questionnaireResults'
          ? await questionnaireRows(job, timeZone, t)
          : job.list === 'employees' || job.list === 'visitors'
            ? await peopleRows(job, timeZone, t)
            : await passRecordRows(job, timeZone, t);
    if (source.total !== undefined) await updateExportJob(tenantId, jobKey, 'running', 'running', { total: Math.min(source.total, RECORD_EXPORT_MAX_ROWS) });
    const file = join(dir, 'export.xlsx');
    const workbook = new (await loadExcel()).stream.xlsx.WorkbookWriter({ filename: file, useStyles: true });
    workbook.creator = 'Pass Cloud';
    const sheet = workbook.addWorksheet(t(source.sheet), { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = source.columns.map(([id, width]) => ({ header: t(id), width }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();

    let truncated = false;
    let reported = Date.now();
    for await (const values of source.rows) {
      if (done >= RECORD_EXPORT_MAX_ROWS) {
        truncated = true;
        break;
      }
      timeCells(sheet.addRow(values)).commit();
      done++;
      if (Date.now() - reported >= PROGRESS_EVERY_MS) {
        reported = Date.now();
        await updateExportJob(tenantId, jobKey, 'running', 'running', { done });
      }
    }
    sheet.commit();
    await workbook.commit();

    const fileKey = `export/${jobKey}/${source.fileName}.xlsx`;
    await putObject('imports', tenantId, fileKey, await readFile(file), XLSX_TYPE);
    // Withdrawn while it ran (a person in it was erased, flows/erasure.ts): its file goes.
    if (!(await updateExportJob(tenantId, jobKey, 'running', 'done', { done, fileKey, truncated }))) await deleteObject('imports', tenantId, fileKey);
  } catch (error) {
    log('error', 'export stopped', { jobKey, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    await updateExportJob(tenantId, jobKey, 'running', 'failed', { done, error: t('records.exportStopped') });
  } finally {
    await rm(dir, { recursive: true, force: true });
    await releaseJobSlot(tenantId, 'export', jobKey, job.createdAt);
  }
}

/** What one kind of export writes: its sheet, columns and file name, the rows (read page by page) and, when known, how many. */
export interface ExportSource {
  sheet: MessageId;
  columns: [MessageId, number][];
  fileName: string;
  total: number | undefined;
  rows: AsyncIterable<(string | number | Date)[]>;
}

/** Reads names once per key. */
export function nameCache(): (cache: string, key: string, read: () => Promise<string | undefined>) => Promise<string> {
  const caches = new Map<string, Map<string, string>>();
  return async (cache, key, read) => {
    let names = caches.get(cache);
    if (!names) caches.set(cache, (names = new Map()));
    if (!names.has(key)) names.set(key, (await read()) ?? '');
    return names.get(key)!;
  };
}

async function passRecordRows(job: ExportJob, timeZone: string, t: (id: MessageId) => string): Promise<ExportSource> {
  const { tenantId } = job;
  const filter = recordFilterOf(job.query as RecordQuery, timeZone);
  const nameOf = nameCache();
  const when = localTime(timeZone);
  const yesNo = (v: boolean | undefined) => (v === undefined ? '' : t(v ? 'value.yes' : 'value.no'));
  const refusal = (r: PassRecord) => {
    const reason = refusalOf(r);
    return reason ? t(`value.refusal.${reason}`) : '';
  };
  const translated = (id: MessageId, params?: MessageParams) => translate(job.locale as Locale, id, params);
  const dayTime = (iso: string) => `${dayOf(new Date(iso), timeZone)} ${clockOf(new Date(iso), timeZone)}`;
  const row = async (r: PassRecord) => [
    when(r.verifyTime),
    r.name ?? '',
    t(`value.record.${r.type}`),
    r.groupKey ? await nameOf('groups', r.groupKey, async () => (await findGroup(tenantId, r.groupKey!))?.name) : '',
    r.temperature ?? '',
    yesNo(r.measured ? r.fever : undefined),
    yesNo(r.mask),
    t(`value.pass.${r.passState}`),
    t(`value.source.${r.source}`),
    refusal(r),
    decisionLine(r.decision, translated, (iso) => dayTime(iso)),
    await nameOf('devices', r.deviceKey, async () => (await findDevice(tenantId, r.deviceKey))?.name),
    when(r.time),
  ];
  async function* rows() {
    let cursor: string | undefined;
    do {
      const page = await listRecords(tenantId, filter, PAGE, cursor, 20 * PAGE);
      for (const record of page.items) yield await row(record);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return {
    sheet: job.list === 'blacklist' ? 'sheet.blacklistRecords' : 'sheet.passRecords',
    columns: COLUMNS,
    fileName: `${job.list === 'blacklist' ? 'blacklist-records' : 'pass-records'}-${filter.fromDay}-${filter.toDay}`,
    total: await countedTotal(tenantId, filter),
    rows: rows(),
  };
}

export const handler = logged('recordExports', runExport);
