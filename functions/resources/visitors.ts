import { visitorAnswer, visitorCreateBody, visitorListQuery, visitorPage, visitorPatchBody } from '#contract/people';
import { defineResource } from '#lib/http';
import { declareEnvironment } from '#lib/env';
import { personRoutes } from './people.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'CAPTURES_BUCKET', 'EVENTS_TABLE', 'EXPORT_WORKER_FUNCTION', 'IMPORTS_BUCKET', 'IMPORT_WORKER_FUNCTION', 'IOT_DATA_ENDPOINT', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/** Visitors: the routes every person has (functions/resources/people.ts). */
export const visitors = defineResource(
  'visitors',
  personRoutes('visitor', {
    listQuery: visitorListQuery,
    createBody: visitorCreateBody,
    patchBody: visitorPatchBody,
    answer: visitorAnswer,
    page: visitorPage,
  }),
);

export const handler = visitors.handler;
