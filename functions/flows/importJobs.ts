import type { Locale } from '#contract/locales';
import type { PersonKind } from '#contract/people';
import { ARCHIVE_MAX_BYTES, IMPORT_MAX_BYTES, IMPORT_STALE_MS } from '#domain/peopleImport';
import { createImportJob, moveImportJob, requireImportJob, uploadKey, type ImportJob } from '#data/importJobs';
import { ConflictError, fieldError } from '#lib/errors';
import { translate } from '#lib/i18n';
import { runImportHere, startWorker } from '#lib/jobs';
import { deleteObject, objectSize, presignedPut } from '#lib/storage';
import { XLSX_TYPE } from '#lib/xlsx';

/**
 * Imports in the background, for files of any size the limits allow and progress on screen:
 * create the job (answers a presigned upload), PUT the file, start the job, read it until done.
 * The workbook and archive rules are those of the one-request imports (peopleImport.ts).
 */

const FORMAT = {
  info: { extension: '.xlsx', contentType: XLSX_TYPE, maxBytes: IMPORT_MAX_BYTES, wrongType: 'import.notXlsx' },
  avatars: { extension: '.zip', contentType: 'application/zip', maxBytes: ARCHIVE_MAX_BYTES, wrongType: 'zip.notZip' },
} as const;

/** An upload link lives long enough for a large archive on a slow line. */
const UPLOAD_SECONDS = 3600;

export function importJobJson(job: ImportJob, locale: Locale) {
  const stale = (job.state === 'queued' || job.state === 'running') && Date.now() - Date.parse(job.startedAt ?? job.createdAt) > IMPORT_STALE_MS;
  return {
    jobKey: job.jobKey,
    step: job.step,
    state: stale ? 'failed' : job.state,
    filename: job.filename,
    processed: job.processed,
    total: job.total,
    report: job.report ?? null,
    error: stale ? translate(locale, 'import.stopped') : (job.error ?? null),
    createTime: job.createdAt,
    finishTime: job.finishedAt ?? null,
  };
}

export async function createJob(tenantId: string, kind: PersonKind, body: { step: ImportJob['step']; filename: string; size: number }, locale: Locale) {
  const format = FORMAT[body.step];
  if (!body.filename.toLowerCase().endsWith(format.extension)) throw fieldError('filename', format.wrongType);
  if (body.size > format.maxBytes) throw fieldError('size', 'upload.tooBig', { max: format.maxBytes / 1024 / 1024 });
  const job = await createImportJob(tenantId, kind, body.step, body.filename, locale);
  const url = await presignedPut('imports', tenantId, uploadKey(job), format.contentType, UPLOAD_SECONDS);
  return { ...importJobJson(job, locale), upload: { url, method: 'PUT' as const, headers: { 'content-type': format.contentType } } };
}

export async function startJob(tenantId: string, kind: PersonKind, jobKey: string, locale: Locale) {
  const job = await requireImportJob(tenantId, kind, jobKey);
  if (job.state !== 'uploading') throw new ConflictError('import.notWaiting');
  const { maxBytes } = FORMAT[job.step];
  const size = await objectSize('imports', tenantId, uploadKey(job));
  if (size === undefined) throw fieldError('file', 'import.notUploaded');
  if (size > maxBytes) {
    await deleteObject('imports', tenantId, uploadKey(job));
    throw fieldError('file', 'upload.tooBig', { max: maxBytes / 1024 / 1024 });
  }
  // Conditioned on the state as well, so two starts at once queue the job once.
  const queued = await moveImportJob(tenantId, jobKey, 'uploading', 'queued');
  try {
    await startWorker('IMPORT_WORKER_FUNCTION', { tenantId, jobKey }, runImportHere, 'import');
  } catch (error) {
    // Not started after all: the caller may start it again.
    await moveImportJob(tenantId, jobKey, 'queued', 'uploading').catch(() => undefined);
    throw error;
  }
  return importJobJson(queued, locale);
}

export async function readJob(tenantId: string, kind: PersonKind, jobKey: string, locale: Locale) {
  return importJobJson(await requireImportJob(tenantId, kind, jobKey), locale);
}
