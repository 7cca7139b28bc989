import { employeeAnswer, employeeCreateBody, employeeKeyParams, employeeListQuery, employeePage, employeePatchBody, versionBody } from '#contract/people';
import { setEmployeeState } from '#data/people';
import { created, defineResource, sessionRoute } from '#lib/http';
import { declareEnvironment } from '#lib/env';
import { employeeJson, personRoutes } from './people.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'CAPTURES_BUCKET', 'EVENTS_TABLE', 'EXPORT_WORKER_FUNCTION', 'IMPORTS_BUCKET', 'IMPORT_WORKER_FUNCTION', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/** Employees: the routes every person has (functions/resources/people.ts), and leaving and coming back. */
export const employees = defineResource('employees', {
  ...personRoutes('employee', {
    listQuery: employeeListQuery,
    createBody: employeeCreateBody,
    patchBody: employeePatchBody,
    answer: employeeAnswer,
    page: employeePage,
  }),
  'POST /v1/employees/{employeeKey}/resign': sessionRoute({
    params: employeeKeyParams,
    body: versionBody,
    answer: employeeAnswer,
    async handle({ auth, params, body }) {
      return created(await employeeJson(await setEmployeeState(auth.tenantId, params.employeeKey, body.version, 'resigned')));
    },
  }),
  'POST /v1/employees/{employeeKey}/entry': sessionRoute({
    params: employeeKeyParams,
    body: versionBody,
    answer: employeeAnswer,
    async handle({ auth, params, body }) {
      return created(await employeeJson(await setEmployeeState(auth.tenantId, params.employeeKey, body.version, 'active')));
    },
  }),
});

export const handler = employees.handler;
