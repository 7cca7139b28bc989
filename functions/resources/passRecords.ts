import {
  blacklistExportBody,
  blacklistRecordQuery,
  exportJobParams,
  passRecordQuery,
  recordExportBody,
  recordKeyParams,
  type PassRecordPage,
  type RecordExportJob,
} from '#contract/passRecords';
import type { Locale } from '#contract/locales';
import { createExportJob, failExportJob, findExportJob, findRecord, listRecords, recordFilterOf, type ExportJob, type RecordQuery } from '#data/passRecords';
import { companyTimezone } from '#data/tenants';
import { releaseJobSlot, takeJobSlot } from '#data/jobSlots';
import { newId } from '#lib/crypto';
import { NotFoundError } from '#lib/errors';
import { defineResource, ok, queued, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { lostWorker, startWorker } from '#lib/jobs';
import { presignedGet } from '#lib/storage';
import { recordItems } from './passRecordItems.ts';
import { runExport } from '../jobs/recordExports.ts';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['CAPTURES_BUCKET', 'EVENTS_TABLE', 'EXPORT_WORKER_FUNCTION', 'IMPORTS_BUCKET', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * `/v1/passRecords` and `/v1/blacklistRecords` (the blacklist's own screen: the same records,
 * the type fixed to `blacklist`): lists newest first, and exports made in the background.
 */

async function page(tenantId: string, query: RecordQuery & { pageSize: number; cursor?: string | undefined }): Promise<PassRecordPage> {
  const filter = recordFilterOf(query, await companyTimezone(tenantId));
  const found = await listRecords(tenantId, filter, query.pageSize, query.cursor);
  return { items: await recordItems(tenantId, found.items), nextCursor: found.nextCursor };
}

async function exportJson(job: ExportJob): Promise<RecordExportJob> {
  return {
    jobKey: job.jobKey,
    state: job.state,
    done: job.done,
    total: job.total ?? null,
    truncated: job.truncated ?? false,
    url: job.state === 'done' && job.fileKey ? await presignedGet('imports', job.tenantId, job.fileKey) : null,
    error: job.error ?? null,
  };
}

async function startJob(tenantId: string, list: ExportJob['list'], query: RecordQuery, locale: string) {
  // Checked now, so a bad range answers 422 here rather than failing in the background.
  recordFilterOf(query, await companyTimezone(tenantId));
  // A company runs a few exports at a time; the slot is given back when the export ends.
  const jobKey = newId();
  const now = new Date();
  await takeJobSlot(tenantId, 'export', jobKey, now.toISOString());
  try {
    await createExportJob({ tenantId, jobKey, list, query: { ...query }, locale }, now);
    await startWorker('EXPORT_WORKER_FUNCTION', { tenantId, jobKey }, runExport, 'export');
  } catch (error) {
    await releaseJobSlot(tenantId, 'export', jobKey, now.toISOString());
    throw error;
  }
  return queued({ jobKey });
}

async function requireExport(tenantId: string, list: ExportJob['list'], jobKey: string): Promise<ExportJob> {
  const job = await findExportJob(tenantId, jobKey);
  if (!job || job.list !== list) throw new NotFoundError();
  // A job whose worker was lost says so (lib/jobs.ts), and the dialog stops waiting for it.
  if (lostWorker(job.state, job.startedAt ?? job.createdAt)) return failExportJob(job, translate(job.locale as Locale, job.state === 'queued' ? 'jobs.notStarted' : 'jobs.stopped'));
  return job;
}

export const passRecords = defineResource('passRecords', {
  'GET /v1/passRecords': sessionRoute({
    query: passRecordQuery,
    async handle({ auth, query }) {
      return ok(await page(auth.tenantId, query));
    },
  }),
  'POST /v1/passRecords/exports': sessionRoute({
    body: recordExportBody,
    async handle({ auth, body, locale }) {
      return startJob(auth.tenantId, 'pass', body, locale);
    },
  }),
  'GET /v1/passRecords/exports/{jobKey}': sessionRoute({
    params: exportJobParams,
    async handle({ auth, params }) {
      return ok(await exportJson(await requireExport(auth.tenantId, 'pass', params.jobKey)));
    },
  }),
  'GET /v1/passRecords/{recordKey}': sessionRoute({
    params: recordKeyParams,
    async handle({ auth, params }) {
      const record = await findRecord(auth.tenantId, params.recordKey);
      if (!record) throw new NotFoundError();
      return ok((await recordItems(auth.tenantId, [record]))[0]);
    },
  }),
  'GET /v1/blacklistRecords/{recordKey}': sessionRoute({
    params: recordKeyParams,
    async handle({ auth, params }) {
      const record = await findRecord(auth.tenantId, params.recordKey);
      if (!record || record.type !== 'blacklist') throw new NotFoundError();
      return ok((await recordItems(auth.tenantId, [record]))[0]);
    },
  }),
  'GET /v1/blacklistRecords': sessionRoute({
    query: blacklistRecordQuery,
    async handle({ auth, query }) {
      return ok(await page(auth.tenantId, { ...query, type: 'blacklist' }));
    },
  }),
  'POST /v1/blacklistRecords/exports': sessionRoute({
    body: blacklistExportBody,
    async handle({ auth, body, locale }) {
      return startJob(auth.tenantId, 'blacklist', { ...body, type: 'blacklist' }, locale);
    },
  }),
  'GET /v1/blacklistRecords/exports/{jobKey}': sessionRoute({
    params: exportJobParams,
    async handle({ auth, params }) {
      return ok(await exportJson(await requireExport(auth.tenantId, 'blacklist', params.jobKey)));
    },
  }),
});

export const handler = passRecords.handler;
