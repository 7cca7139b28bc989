import * as z from 'zod';
import {
  callExportBody,
  callKeyParams,
  callQuery,
  intercomKeyParams,
  intercomListQuery,
  intercomPatchBody,
  recordingQuery,
  type CallPage,
  type RecordingLink,
  callPage,
  doorCommandQueued,
  intercomAnswer,
  intercomNamesPage,
  intercomPage,
  recordingLink,
} from '#contract/intercom';
import { deviceLogPage, logsQuery } from '#contract/devices';
import { versionQuery } from '#contract/people';
import { exportJobParams, jobStarted, recordExportJob } from '#contract/passRecords';
import { findDevice, requireIntercom } from '#data/devices';
import { listLogs, logItem } from '#data/deviceEvents';
import { findCallByKey, listCalls, noteRecordingArrived, type CallRecord } from '#data/intercomCalls';
import { intercomListPage, updateIntercom } from '#data/intercoms';
import { recordFilterOf } from '#data/passRecordLists';
import { companyTimezone } from '#data/tenants';
import { ConflictError, NotFoundError } from '#lib/errors';
import { created, defineResource, deleted, ok, queued, sessionRoute } from '#lib/http';
import { objectExists, presignedGet } from '#lib/storage';
import { declareEnvironment } from '#lib/env';
import { removeDevice } from '#flows/deviceRemoval';
import { exportJson, requireExport, startExport } from '#flows/exportJobs';
import { answerTimeOf, callItems, doorStationOf, endKeysOf, intercomJson, isLive, recordingEndOf } from '#views/intercomItems';
import { openDoorDuringCall } from '../iot/openDoor.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'EXPORT_WORKER_FUNCTION',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'IOT_THING_TYPE',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/** How long a playback or download link works. */
export const RECORDING_LINK_SECONDS = 300;

/** The company-day range of a call filter, with the list's limits (the same as pass records'). */
async function callFilterOf(
  tenantId: string,
  query: { from?: string | undefined; to?: string | undefined; deviceKey?: string | undefined; status?: 1 | 2 | 3 | undefined },
) {
  const range = recordFilterOf({ ...(query.from ? { from: query.from } : {}), ...(query.to ? { to: query.to } : {}) }, await companyTimezone(tenantId));
  return {
    fromIso: range.fromIso,
    toIso: range.toIso,
    ...(query.deviceKey ? { deviceKey: query.deviceKey } : {}),
    ...(query.status ? { status: query.status } : {}),
  };
}

async function requireCall(tenantId: string, callKey: string): Promise<CallRecord> {
  const call = await findCallByKey(tenantId, callKey);
  if (!call) throw new NotFoundError();
  return call;
}

export const intercom = defineResource('intercom', {
  'GET /v1/intercom/devices': sessionRoute({
    answer: intercomPage,
    query: intercomListQuery,
    async handle({ auth, query }) {
      const { page, nextCursor, filtered } = await intercomListPage(auth.tenantId, query);
      const online = filtered.filter((d) => d.online).length;
      return ok({ items: page.map(intercomJson), nextCursor, total: filtered.length, online, offline: filtered.length - online });
    },
  }),
  'GET /v1/intercom/names': sessionRoute({
    answer: intercomNamesPage,
    query: intercomListQuery,
    async handle({ auth, query }) {
      const { page, nextCursor } = await intercomListPage(auth.tenantId, query);
      return ok({ items: page.map((d) => ({ deviceKey: d.deviceKey, name: d.name, kind: intercomJson(d).kind, number: d.number ?? null })), nextCursor });
    },
  }),
  'GET /v1/intercom/devices/{intercomKey}': sessionRoute({
    answer: intercomAnswer,
    params: intercomKeyParams,
    async handle({ auth, params }) {
      return ok(intercomJson(await requireIntercom(auth.tenantId, params.intercomKey)));
    },
  }),
  'PATCH /v1/intercom/devices/{intercomKey}': sessionRoute({
    answer: intercomAnswer,
    params: intercomKeyParams,
    body: intercomPatchBody,
    async handle({ auth, params, body }) {
      const device = await requireIntercom(auth.tenantId, params.intercomKey);
      const updated = await updateIntercom(device, body.version, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.number !== undefined ? { number: body.number || null } : {}),
      });
      return created(intercomJson(updated));
    },
  }),
  'DELETE /v1/intercom/devices/{intercomKey}': sessionRoute({
    answer: z.null(),
    params: intercomKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      await removeDevice(await requireIntercom(auth.tenantId, params.intercomKey), query.version);
      return deleted();
    },
  }),
  'GET /v1/intercom/devices/{intercomKey}/logs': sessionRoute({
    answer: deviceLogPage,
    params: intercomKeyParams,
    query: logsQuery,
    async handle({ auth, params, query }) {
      await requireIntercom(auth.tenantId, params.intercomKey);
      const page = await listLogs(auth.tenantId, params.intercomKey, query.pageSize, query.cursor);
      return ok({
        items: page.items.map(logItem),
        nextCursor: page.nextCursor,
      });
    },
  }),
  'GET /v1/intercom/calls': sessionRoute({
    answer: callPage,
    query: callQuery,
    async handle({ auth, query }) {
      const found = await listCalls(auth.tenantId, await callFilterOf(auth.tenantId, query), query.pageSize, query.cursor);
      const page: CallPage = { items: await callItems(auth.tenantId, found.items, { checkRecordings: true }), nextCursor: found.nextCursor };
      return ok(page);
    },
  }),
  'POST /v1/intercom/calls/exports': sessionRoute({
    answer: jobStarted,
    body: callExportBody,
    async handle({ auth, body, locale }) {
      return startExport(auth.tenantId, 'calls', body, locale, async () => void (await callFilterOf(auth.tenantId, body)));
    },
  }),
  'GET /v1/intercom/calls/exports/{jobKey}': sessionRoute({
    answer: recordExportJob,
    params: exportJobParams,
    async handle({ auth, params }) {
      return ok(await exportJson(await requireExport(auth.tenantId, 'calls', params.jobKey)));
    },
  }),
  'GET /v1/intercom/calls/{callKey}/recording': sessionRoute({
    answer: recordingLink,
    params: callKeyParams,
    query: recordingQuery,
    async handle({ auth, params, query }) {
      const call = await requireCall(auth.tenantId, params.callKey);
      const end = recordingEndOf(call);
      if (!end?.recordingKey || !end.recordingType) throw new NotFoundError('intercom.noRecording');
      if (end.recordingUntil && Date.parse(end.recordingUntil) <= Date.now()) throw new NotFoundError('intercom.recordingExpired');
      if (!end.recordingAt) {
        if (!(await objectExists('recordings', auth.tenantId, end.recordingKey))) throw new NotFoundError('intercom.recordingPending');
        await noteRecordingArrived(call, end);
      }
      const extension = end.recordingType === 'audio/ogg' ? 'ogg' : 'wav';
      const download = query.download === 'true' ? `recording-${call.startTime.slice(0, 19).replace(/[:T]/g, '-')}.${extension}` : undefined;
      const link: RecordingLink = {
        url: await presignedGet('recordings', auth.tenantId, end.recordingKey, RECORDING_LINK_SECONDS, download ? { downloadAs: download } : {}),
        contentType: end.recordingType,
        size: end.recordingSize ?? 0,
        duration: end.duration ?? null,
        expiresAt: new Date(Date.now() + RECORDING_LINK_SECONDS * 1000).toISOString(),
      };
      return ok(link);
    },
  }),
  'POST /v1/intercom/calls/{callKey}/openDoor': sessionRoute({
    answer: doorCommandQueued,
    params: callKeyParams,
    async handle({ auth, params }) {
      const call = await requireCall(auth.tenantId, params.callKey);
      const keys = endKeysOf(call);
      const [calling, called] = await Promise.all([
        keys.calling ? findDevice(auth.tenantId, keys.calling) : undefined,
        keys.called ? findDevice(auth.tenantId, keys.called) : undefined,
      ]);
      const station = doorStationOf(calling, called);
      if (!station) throw new ConflictError('intercom.noDoorStation');
      if (!isLive(call) || !answerTimeOf(call)) throw new ConflictError('intercom.callNotLive');
      if (!station.online) throw new ConflictError('intercom.doorStationOffline');
      const other = station.deviceKey === keys.calling ? keys.called : keys.calling;
      const command = await openDoorDuringCall(station, call.callId, other);
      return queued({ commandKey: command.commandKey, type: command.type, state: command.state, createTime: command.createdAt });
    },
  }),
});

export const handler = intercom.handler;
