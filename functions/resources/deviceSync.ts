import { LIST_OF_SET_TYPE } from '#contract/authorities';
import { FACE_SYNC_START_AGAIN, faceChangesQuery, faceResultsBody, parseThingName, type FaceChange, type FaceChangesPage } from '#contract/protocol';
import { changesAfter, currentSeq, recordResults, type Authority } from '#data/authorities';
import { appendLogs, deviceWithSecret, refusalOf } from '#data/devices';
import { AppError, LoginRequiredError, type ValidationError } from '#lib/errors';
import { created, defineResource, deviceRoute, ok } from '#lib/http';
import { issueText } from '#lib/issues';
import { DEFAULT_LOCALE } from '#contract/locales';
import { presignedGet } from '#lib/storage';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['CAPTURES_BUCKET', 'EVENTS_TABLE', 'IMPORTS_BUCKET', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * The HTTPS side of face sync, called by the terminals themselves with HTTP Basic credentials
 * (thing name and the MQTT password binding gave). The device is whoever the credentials prove,
 * so a terminal can only ever read and report its own changes.
 */
async function authenticateDevice(authorization: string | undefined): Promise<{ tenantId: string; deviceKey: string }> {
  const match = /^Basic ([A-Za-z0-9+/=]{1,400})$/.exec(authorization ?? '');
  if (!match) throw new LoginRequiredError();
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const ids = colon > 0 ? parseThingName(decoded.slice(0, colon)) : undefined;
  const password = decoded.slice(colon + 1);
  if (!ids || !password) throw new LoginRequiredError();
  // Refused credentials say why (deleted, replaced, waiting for approval), for the terminal to act on.
  if (!(await deviceWithSecret(ids.tenantId, ids.deviceKey, password))) throw new AppError(403, 'status.403', {}, { reason: await refusalOf(ids.tenantId, ids.deviceKey, password) });
  return ids;
}

/**
 * A request of a terminal refused as invalid goes into the device's own log too (`messageRefused`,
 * as a refused MQTT message does), so that a vendor integrating a terminal sees what was wrong in
 * the console. Requests whose credentials prove no device are answered only.
 */
async function logRefusal(request: { headers: Record<string, string | undefined>; routeKey: string }, error: ValidationError): Promise<void> {
  const ids = await authenticateDevice(request.headers.authorization).catch(() => undefined);
  if (!ids) return;
  const reason = error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path || 'body'}: ${issueText(issue, DEFAULT_LOCALE)}`)
    .join('; ');
  await appendLogs(ids.tenantId, ids.deviceKey, [{ time: Date.now(), level: 'warn', code: 'messageRefused', params: { topic: request.routeKey, error: reason.slice(0, 500) } }]);
}

const contentTypeOf = (key: string): string => (key.toLowerCase().endsWith('.png') ? 'image/png' : 'image/jpeg');

/** A terminal has up to an hour to fetch the photos of one page. */
const PHOTO_LINK_SECONDS = 3600;

async function changeJson(tenantId: string, item: Authority): Promise<FaceChange> {
  const upsert = item.action === 'upsert';
  return {
    seq: item.seq,
    action: item.action,
    list: LIST_OF_SET_TYPE[item.setType],
    personKey: item.personKey,
    name: item.personName,
    kind: item.personKind,
    validFrom: item.validFrom ?? null,
    validTo: item.validTo ?? null,
    photo: upsert && item.avatar ? { url: await presignedGet('photos', tenantId, item.avatar, PHOTO_LINK_SECONDS), contentType: contentTypeOf(item.avatar) } : null,
  };
}

export const deviceSync = defineResource('deviceSync', {
  'GET /v1/deviceSync/faces': deviceRoute({
    query: faceChangesQuery,
    refused: logRefusal,
    async handle({ headers, query }) {
      const { tenantId, deviceKey } = await authenticateDevice(headers.authorization);
      const cursor = Number(query.cursor ?? 0);
      // A cursor past every change this device was ever given belongs to another binding (the
      // terminal bound again and became a new device): it must start again from nothing.
      if (cursor > 0 && cursor > (await currentSeq(tenantId, deviceKey))) {
        throw new AppError(409, 'deviceSync.startAgain', {}, { reason: FACE_SYNC_START_AGAIN, cursor: '0' });
      }
      const page = await changesAfter(tenantId, deviceKey, cursor, query.limit);
      const changes = await Promise.all(page.items.map((item) => changeJson(tenantId, item)));
      const last = Math.max(cursor, ...changes.map((c) => c.seq));
      const answer: FaceChangesPage = { changes, cursor: String(last), more: page.more };
      return ok(answer);
    },
  }),
  'POST /v1/deviceSync/results': deviceRoute({
    body: faceResultsBody,
    refused: logRefusal,
    async handle({ headers, body }) {
      const { tenantId, deviceKey } = await authenticateDevice(headers.authorization);
      await recordResults(tenantId, deviceKey, body.results);
      return created(null);
    },
  }),
});

export const handler = deviceSync.handler;
