import { listQuery, versionQuery, visitorCreateBody, visitorKeyParams, visitorPatchBody, importJobBody, importJobParams } from '#contract/people';
import { createPerson, requirePerson, updatePerson } from '#data/people';
import { created, defineResource, deleted, ok, queued, sessionRoute } from '#lib/http';
import { checkReferences, listJson, personJson, removePerson } from './people.ts';
import { createJob, readJob, startJob } from './importJobs.ts';
import { exportWorkbook, importPhotos, importWorkbook } from './peopleImport.ts';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['CAPTURES_BUCKET', 'EVENTS_TABLE', 'IMPORTS_BUCKET', 'IMPORT_WORKER_FUNCTION', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

export const visitors = defineResource('visitors', {
  'GET /v1/visitors': sessionRoute({
    query: listQuery,
    async handle({ auth, query }) {
      const { pageSize, cursor, keyword, groupKey } = query;
      return ok(await listJson(auth.tenantId, 'visitor', { keyword, groupKey }, pageSize, cursor));
    },
  }),
  'POST /v1/visitors': sessionRoute({
    body: visitorCreateBody,
    async handle({ auth, body }) {
      await checkReferences(auth.tenantId, 'visitor', body);
      return created(await personJson(await createPerson(auth.tenantId, 'visitor', body)));
    },
  }),
  'GET /v1/visitors/export': sessionRoute({
    query: listQuery,
    async handle({ auth, query, locale }) {
      const { pageSize: _pageSize, cursor: _cursor, ...filter } = query;
      return exportWorkbook(auth.tenantId, 'visitor', filter, locale);
    },
  }),
  'POST /v1/visitors/imports': sessionRoute({
    raw: true,
    async handle({ auth, headers, rawBody, locale }) {
      return created(await importWorkbook(auth.tenantId, 'visitor', headers, rawBody, locale));
    },
  }),
  'POST /v1/visitors/imports/avatars': sessionRoute({
    raw: true,
    async handle({ auth, headers, rawBody, locale }) {
      return created(await importPhotos(auth.tenantId, 'visitor', headers, rawBody, locale));
    },
  }),
  'POST /v1/visitors/imports/jobs': sessionRoute({
    body: importJobBody,
    async handle({ auth, body, locale }) {
      return created(await createJob(auth.tenantId, 'visitor', body, locale));
    },
  }),
  'GET /v1/visitors/imports/jobs/{jobKey}': sessionRoute({
    params: importJobParams,
    async handle({ auth, params, locale }) {
      return ok(await readJob(auth.tenantId, 'visitor', params.jobKey, locale));
    },
  }),
  'POST /v1/visitors/imports/jobs/{jobKey}/start': sessionRoute({
    params: importJobParams,
    async handle({ auth, params, locale }) {
      return queued(await startJob(auth.tenantId, 'visitor', params.jobKey, locale));
    },
  }),
  'GET /v1/visitors/{visitorKey}': sessionRoute({
    params: visitorKeyParams,
    async handle({ auth, params }) {
      return ok(await personJson(await requirePerson(auth.tenantId, 'visitor', params.visitorKey)));
    },
  }),
  'PATCH /v1/visitors/{visitorKey}': sessionRoute({
    params: visitorKeyParams,
    body: visitorPatchBody,
    async handle({ auth, params, body }) {
      const { version, ...changes } = body;
      const current = await requirePerson(auth.tenantId, 'visitor', params.visitorKey);
      await checkReferences(auth.tenantId, 'visitor', changes);
      return created(await personJson(await updatePerson(current, version, changes)));
    },
  }),
  'DELETE /v1/visitors/{visitorKey}': sessionRoute({
    params: visitorKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      await removePerson(auth.tenantId, 'visitor', params.visitorKey, query.version);
      return deleted();
    },
  }),
});

export const handler = visitors.handler;
