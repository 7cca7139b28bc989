import {
  blacklistExportBody,
  blacklistRecordQuery,
  exportJobParams,
  passRecordQuery,
  recordExportBody,
  recordKeyParams,
  type PassRecordItem,
  type PassRecordPage,
  type RecordExportJob,
} from '#contract/passRecords';
import type { Locale } from '#contract/locales';
import { findDevice } from '#data/devices';
import { findGroup } from '#data/groups';
import { createExportJob, failExportJob, findExportJob, findRecord, listRecords, recordFilterOf, recordKeyOf, type ExportJob, type PassRecord, type RecordQuery } from '#data/passRecords';
import { companyTimezone } from '#data/tenants';
import { releaseJobSlot, takeJobSlot } from '#data/jobSlots';
import { newId } from '#lib/crypto';
import { NotFoundError } from '#lib/errors';
import { defineResource, ok, queued, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { lostWorker, startWorker } from '#lib/jobs';
import { objectExists, presignedGet } from '#lib/storage';
import { runExport } from '../jobs/recordExports.ts';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['CAPTURES_BUCKET', 'EVENTS_TABLE', 'EXPORT_WORKER_FUNCTION', 'IMPORTS_BUCKET', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * `/v1/passRecords` and `/v1/blacklistRecords` (the blacklist's own screen: the same records,
 * the type fixed to `blacklist`): lists newest first, and exports made in the background.
 */

/** Names of devices and groups, each read once per page. */
export async function namesFor(tenantId: string, records: PassRecord[]): Promise<{ devices: Map<string, string>; groups: Map<string, string> }> {
  const deviceKeys = [...new Set(records.map((r) => r.deviceKey))];
  const groupKeys = [...new Set(records.map((r) => r.groupKey).filter((k): k is string => !!k))];
  const [devices, groups] = await Promise.all([
    Promise.all(deviceKeys.map(async (k) => [k, (await findDevice(tenantId, k))?.name ?? ''] as const)),
    Promise.all(groupKeys.map(async (k) => [k, (await findGroup(tenantId, k))?.name ?? ''] as const)),
  ]);
  return { devices: new Map(devices), groups: new Map(groups) };
}

export async function recordItems(tenantId: string, records: PassRecord[]): Promise<PassRecordItem[]> {
  const names = await namesFor(tenantId, records);
  return Promise.all(
    records.map(async (r): Promise<PassRecordItem> => {
      // A capture is linked once the terminal has uploaded it (and until the retention sweep removes it).
      const capture = r.captureKey && (await objectExists('captures', tenantId, r.captureKey)) ? await presignedGet('captures', tenantId, r.captureKey) : null;
      return {
        recordKey: recordKeyOf(r),
        time: r.time,
        verifyTime: r.verifyTime,
        deviceKey: r.deviceKey,
        deviceName: names.devices.get(r.deviceKey) ?? '',
        personKey: r.personKey ?? null,
        name: r.name ?? null,
        groupName: r.groupKey ? names.groups.get(r.groupKey) || null : null,
        type: r.type,
        temperature: r.temperature ?? null,
        fever: r.fever,
        mask: r.mask ?? null,
        passState: r.passState,
        source: r.source,
        violation: r.violation === true,
        capture,
        avatar: r.avatarKey ? await presignedGet('photos', tenantId, r.avatarKey) : null,
      };
    }),
  );
}

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
