import { employeeCreateBody, employeeKeyParams, employeeListQuery, employeePatchBody, versionBody, versionQuery, importJobBody, importJobParams } from '#contract/people';
import { createPerson, requirePerson, setEmployeeState, updatePerson } from '#data/people';
import { created, defineResource, deleted, ok, queued, sessionRoute } from '#lib/http';
import { checkReferences, listJson, personJson, removePerson } from './people.ts';
import { createJob, readJob, startJob } from './importJobs.ts';
import { exportWorkbook, importPhotos, importWorkbook } from './peopleImport.ts';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['CAPTURES_BUCKET', 'EVENTS_TABLE', 'IMPORTS_BUCKET', 'IMPORT_WORKER_FUNCTION', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

export const employees = defineResource('employees', {
  'GET /v1/employees': sessionRoute({
    query: employeeListQuery,
    async handle({ auth, query }) {
      const { pageSize, cursor, ...filter } = query;
      return ok(await listJson(auth.tenantId, 'employee', filter, pageSize, cursor));
    },
  }),
  'POST /v1/employees': sessionRoute({
    body: employeeCreateBody,
    async handle({ auth, body }) {
      await checkReferences(auth.tenantId, 'employee', body);
      const person = await createPerson(auth.tenantId, 'employee', body);
      return created(await personJson(person));
    },
  }),
  'GET /v1/employees/export': sessionRoute({
    query: employeeListQuery,
    async handle({ auth, query, locale }) {
      const { pageSize: _pageSize, cursor: _cursor, ...filter } = query;
      return exportWorkbook(auth.tenantId, 'employee', filter, locale);
    },
  }),
  'POST /v1/employees/imports': sessionRoute({
    raw: true,
    async handle({ auth, headers, rawBody, locale }) {
      return created(await importWorkbook(auth.tenantId, 'employee', headers, rawBody, locale));
    },
  }),
  'POST /v1/employees/imports/avatars': sessionRoute({
    raw: true,
    async handle({ auth, headers, rawBody, locale }) {
      return created(await importPhotos(auth.tenantId, 'employee', headers, rawBody, locale));
    },
  }),
  'POST /v1/employees/imports/jobs': sessionRoute({
    body: importJobBody,
    async handle({ auth, body, locale }) {
      return created(await createJob(auth.tenantId, 'employee', body, locale));
    },
  }),
  'GET /v1/employees/imports/jobs/{jobKey}': sessionRoute({
    params: importJobParams,
    async handle({ auth, params, locale }) {
      return ok(await readJob(auth.tenantId, 'employee', params.jobKey, locale));
    },
  }),
  'POST /v1/employees/imports/jobs/{jobKey}/start': sessionRoute({
    params: importJobParams,
    async handle({ auth, params, locale }) {
      return queued(await startJob(auth.tenantId, 'employee', params.jobKey, locale));
    },
  }),
  'GET /v1/employees/{employeeKey}': sessionRoute({
    params: employeeKeyParams,
    async handle({ auth, params }) {
      return ok(await personJson(await requirePerson(auth.tenantId, 'employee', params.employeeKey)));
    },
  }),
  'PATCH /v1/employees/{employeeKey}': sessionRoute({
    params: employeeKeyParams,
    body: employeePatchBody,
    async handle({ auth, params, body }) {
      const { version, ...changes } = body;
      const current = await requirePerson(auth.tenantId, 'employee', params.employeeKey);
      await checkReferences(auth.tenantId, 'employee', changes);
      return created(await personJson(await updatePerson(current, version, changes)));
    },
  }),
  'DELETE /v1/employees/{employeeKey}': sessionRoute({
    params: employeeKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      await removePerson(auth.tenantId, 'employee', params.employeeKey, query.version);
      return deleted();
    },
  }),
  'POST /v1/employees/{employeeKey}/resign': sessionRoute({
    params: employeeKeyParams,
    body: versionBody,
    async handle({ auth, params, body }) {
      return created(await personJson(await setEmployeeState(auth.tenantId, params.employeeKey, body.version, 'resigned')));
    },
  }),
  'POST /v1/employees/{employeeKey}/entry': sessionRoute({
    params: employeeKeyParams,
    body: versionBody,
    async handle({ auth, params, body }) {
      return created(await personJson(await setEmployeeState(auth.tenantId, params.employeeKey, body.version, 'active')));
    },
  }),
});

export const handler = employees.handler;
