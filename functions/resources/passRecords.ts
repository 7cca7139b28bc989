import {
  blacklistExportBody,
  blacklistRecordQuery,
  exportJobParams,
  jobStarted,
  passRecordItem,
  passRecordPage,
  passRecordQuery,
  recordExportBody,
  recordExportJob,
  recordKeyParams,
  type PassRecordPage,
} from '#contract/passRecords';
import { countedTotal, findRecord, listRecords, recordFilterOf, type RecordQuery } from '#data/passRecordLists';
import { companyTimezone } from '#data/tenants';
import { NotFoundError } from '#lib/errors';
import { defineResource, ok, sessionRoute } from '#lib/http';
import { recordItems } from '#views/passRecordItems';
import { exportJson, requireExport, startExport } from '#flows/exportJobs';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'EXPORT_WORKER_FUNCTION',
  'IMPORTS_BUCKET',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/**
 * `/v1/passRecords` and `/v1/blacklistRecords` (the blacklist's own screen: the same records,
 * the type fixed to `blacklist`): lists newest first, and exports made in the background.
 */

/** Checked before the job starts, so a bad range answers 422 rather than failing in the background. */
async function checkRange(tenantId: string, query: RecordQuery): Promise<void> {
  recordFilterOf(query, await companyTimezone(tenantId));
}

/** A page of records; the first page says how many the filter matches when the day counters tell (a bounded read, never the records). */
async function page(tenantId: string, query: RecordQuery & { pageSize: number; cursor?: string | undefined }): Promise<PassRecordPage> {
  const filter = recordFilterOf(query, await companyTimezone(tenantId));
  const [found, total] = await Promise.all([
    listRecords(tenantId, filter, query.pageSize, query.cursor),
    query.cursor ? undefined : countedTotal(tenantId, filter),
  ]);
  return { items: await recordItems(tenantId, found.items), nextCursor: found.nextCursor, ...(total === undefined ? {} : { total }) };
}

export const passRecords = defineResource('passRecords', {
  'GET /v1/passRecords': sessionRoute({
    answer: passRecordPage,
    query: passRecordQuery,
    async handle({ auth, query }) {
      return ok(await page(auth.tenantId, query));
    },
  }),
  'POST /v1/passRecords/exports': sessionRoute({
    answer: jobStarted,
    body: recordExportBody,
    async handle({ auth, body, locale }) {
      return startExport(auth.tenantId, 'pass', body, locale, () => checkRange(auth.tenantId, body));
    },
  }),
  'GET /v1/passRecords/exports/{jobKey}': sessionRoute({
    answer: recordExportJob,
    params: exportJobParams,
    async handle({ auth, params }) {
      return ok(await exportJson(await requireExport(auth.tenantId, 'pass', params.jobKey)));
    },
  }),
  'GET /v1/passRecords/{recordKey}': sessionRoute({
    answer: passRecordItem,
    params: recordKeyParams,
    async handle({ auth, params }) {
      const record = await findRecord(auth.tenantId, params.recordKey);
      if (!record) throw new NotFoundError();
      return ok((await recordItems(auth.tenantId, [record]))[0]!);
    },
  }),
  'GET /v1/blacklistRecords/{recordKey}': sessionRoute({
    answer: passRecordItem,
    params: recordKeyParams,
    async handle({ auth, params }) {
      const record = await findRecord(auth.tenantId, params.recordKey);
      if (!record || record.type !== 'blacklist') throw new NotFoundError();
      return ok((await recordItems(auth.tenantId, [record]))[0]!);
    },
  }),
  'GET /v1/blacklistRecords': sessionRoute({
    answer: passRecordPage,
    query: blacklistRecordQuery,
    async handle({ auth, query }) {
      return ok(await page(auth.tenantId, { ...query, type: 'blacklist' }));
    },
  }),
  'POST /v1/blacklistRecords/exports': sessionRoute({
    answer: jobStarted,
    body: blacklistExportBody,
    async handle({ auth, body, locale }) {
      return startExport(auth.tenantId, 'blacklist', { ...body, type: 'blacklist' }, locale, () => checkRange(auth.tenantId, body));
    },
  }),
  'GET /v1/blacklistRecords/exports/{jobKey}': sessionRoute({
    answer: recordExportJob,
    params: exportJobParams,
    async handle({ auth, params }) {
      return ok(await exportJson(await requireExport(auth.tenantId, 'blacklist', params.jobKey)));
    },
  }),
});

export const handler = passRecords.handler;
