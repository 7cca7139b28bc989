import * as z from 'zod';
import { LIST_OF_SET_TYPE } from '#contract/authorities';
import {
  FACE_SYNC_START_AGAIN,
  HOLIDAY_DAYS_AHEAD,
  deviceQuestionnaires,
  deviceSchedules,
  deviceSchedulesQuery,
  faceChangesPage,
  faceChangesQuery,
  questionnaireAnswerResult,
  questionnaireLink,
  faceResultsBody,
  parseThingName,
  questionnaireAnswerUp,
  questionnaireLinkBody,
  type DeviceQuestionnaires,
  type DeviceSchedules,
  type FaceChange,
  type FaceChangesPage,
  type QuestionnaireLink,
} from '#contract/protocol';
import { SURVEY_LINK_SECONDS } from '#contract/questionnaires';
import { findQuestionnaire, openQuestionnaires } from '#data/questionnaires';
import { createLink, findScreenResult, storeScreenResult } from '#data/questionnaireResults';
import { surveysToken } from '#domain/questionnaires';
import { consoleLink } from '#lib/consoleLinks';
import { newId, randomToken, sha256 } from '#lib/crypto';
import { currentSeq, type Authority } from '#data/authorities';
import { changesAfter, recordResults } from '#data/authoritySync';
import { deviceWithSecret, findDevice, refusalOf } from '#data/devices';
import { appendLogs } from '#data/deviceEvents';
import { AppError, ConflictError, LoginRequiredError, fieldError, type ValidationError } from '#lib/errors';
import { created, defineResource, deviceRoute, ok } from '#lib/http';
import { issueText } from '#lib/issues';
import { DEFAULT_LOCALE } from '#contract/locales';
import { presignedGet } from '#lib/storage';
import { declareEnvironment } from '#lib/env';
import { findPerson } from '#data/people';
import { deviceExemptions } from '#contract/doorModes';
import { readExemptions } from '#data/doorModes';
import { exemptionToken } from '#flows/doorModes';
import { companyTimezone } from '#data/tenants';
import { addDays, dayOf } from '#domain/time';
import { raiseAbnormal } from '#flows/questionnaireAlerts';
import { syncFailedEvents } from '../iot/webhookProducers.ts';
import { deviceQuestionnaireJson, knownPerson, resultOf, surveyForDevice, surveysOf } from '#views/questionnaireItems';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'CONSOLE_URL',
  'EVENTS_TABLE',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'MAIL_FROM',
  'MAIL_WORKER_FUNCTION',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
  'WEBHOOK_QUEUE_URL',
]);

/** An answer dated this far ahead of the cloud's clock is refused: the terminal's clock is wrong. */
const ANSWER_CLOCK_SKEW_MS = 5 * 60_000;

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
  if (!(await deviceWithSecret(ids.tenantId, ids.deviceKey, password)))
    throw new AppError(403, 'status.403', {}, { reason: await refusalOf(ids.tenantId, ids.deviceKey, password) });
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
  await appendLogs(ids.tenantId, ids.deviceKey, [
    { time: Date.now(), level: 'warn', code: 'messageRefused', params: { topic: request.routeKey, error: reason.slice(0, 500) } },
  ]);
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
    scheduleId: item.scheduleKey ?? null,
    photo:
      upsert && item.avatar ? { url: await presignedGet('photos', tenantId, item.avatar, PHOTO_LINK_SECONDS), contentType: contentTypeOf(item.avatar) } : null,
  };
}

export const deviceSync = defineResource('deviceSync', {
  'GET /v1/deviceSync/faces': deviceRoute({
    answer: faceChangesPage,
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
    answer: z.null(),
    body: faceResultsBody,
    refused: logRefusal,
    async handle({ headers, body }) {
      const { tenantId, deviceKey } = await authenticateDevice(headers.authorization);
      // Failures of the changes the terminal was sent (a result for any other is no news).
      const taken = await recordResults(tenantId, deviceKey, body.results);
      await syncFailedEvents(tenantId, deviceKey, taken, async (personKey) => {
        const person = (await findPerson(tenantId, 'employee', personKey)) ?? (await findPerson(tenantId, 'visitor', personKey));
        return { kind: person?.kind ?? null, name: person?.name ?? null };
      });
      return created(null);
    },
  }),
  'GET /v1/deviceSync/schedules': deviceRoute({
    answer: deviceSchedules,
    query: deviceSchedulesQuery,
    refused: logRefusal,
    async handle({ headers, query }) {
      const { tenantId } = await authenticateDevice(headers.authorization);
      // Loaded on first use: the schedules and the holiday list count in no start-up budget of this function.
      const [{ schedulesByKeys }, { closingHolidays }] = await Promise.all([import('#data/schedules'), import('#data/scheduleUse')]);
      const found = await schedulesByKeys(tenantId, [...new Set(query.ids.split(','))]);
      const schedules = [...found.values()].map((s) => ({
        scheduleId: s.scheduleKey,
        version: s.version,
        weekly: s.weekly,
        exceptions: s.exceptions,
        holidaysClosed: s.holidaysClosed,
      }));
      // From yesterday in the company's zone: a terminal in a zone behind it may still be on that date.
      const from = addDays(dayOf(new Date(), await companyTimezone(tenantId)), -1);
      const to = addDays(from, HOLIDAY_DAYS_AHEAD + 1);
      const holidays = schedules.some((s) => s.holidaysClosed) ? await closingHolidays(tenantId, from, to) : [];
      const answer: DeviceSchedules = { schedules, holidays, holidaysFrom: from, holidaysTo: to };
      return ok(answer);
    },
  }),
  'GET /v1/deviceSync/questionnaires': deviceRoute({
    answer: deviceQuestionnaires,
    refused: logRefusal,
    async handle({ headers }) {
      const { tenantId, deviceKey } = await authenticateDevice(headers.authorization);
      const [device, open] = await Promise.all([findDevice(tenantId, deviceKey), openQuestionnaires(tenantId)]);
      const surveys = device ? surveysOf(device, open) : [];
      const answer: DeviceQuestionnaires = { items: surveys.map(deviceQuestionnaireJson), token: surveysToken(surveys) };
      return ok(answer);
    },
  }),
  'POST /v1/deviceSync/questionnaireAnswers': deviceRoute({
    answer: questionnaireAnswerResult,
    body: questionnaireAnswerUp,
    refused: logRefusal,
    async handle({ headers, body }) {
      const { tenantId, deviceKey } = await authenticateDevice(headers.authorization);
      if (body.answeredAt > Date.now() + ANSWER_CLOCK_SKEW_MS) throw fieldError('answeredAt', 'questionnaire.answerInFuture');
      // An answer sent again (its first answer lost on the way) is answered as the first time, even after the survey closed.
      const before = await findScreenResult(tenantId, deviceKey, body.answerId);
      if (before) return created({ stored: 'duplicate', result: before.result });
      const [q, device] = await Promise.all([findQuestionnaire(tenantId, body.questionnaireKey), findDevice(tenantId, deviceKey)]);
      const survey = await surveyForDevice(q, device);
      const person = await knownPerson(tenantId, body.personKey);
      const result = await resultOf(survey, body.revision, body.answers, {
        deviceKey,
        source: 'screen',
        answeredAt: new Date(body.answeredAt),
        personKey: person?.personKey,
      });
      const outcome = await storeScreenResult(result, body.answerId);
      if (outcome.stored === 'stored') await raiseAbnormal(outcome.result);
      return created({ stored: outcome.stored, result: outcome.result.result });
    },
  }),
  'POST /v1/deviceSync/questionnaireLinks': deviceRoute({
    answer: questionnaireLink,
    body: questionnaireLinkBody,
    refused: logRefusal,
    async handle({ headers, body }) {
      const { tenantId, deviceKey } = await authenticateDevice(headers.authorization);
      const [q, device] = await Promise.all([findQuestionnaire(tenantId, body.questionnaireKey), findDevice(tenantId, deviceKey)]);
      const survey = await surveyForDevice(q, device);
      if (survey.mode !== 'qr') throw new ConflictError('questionnaire.notQrMode');
      const linkId = newId();
      const secret = randomToken(32);
      const expiresAt = Date.now() + SURVEY_LINK_SECONDS * 1000;
      await createLink({
        tenantId,
        linkId,
        secretHash: sha256(secret),
        deviceKey,
        questionnaireKey: survey.questionnaireKey,
        revision: survey.revision,
        expiresAt,
        ttl: Math.ceil(expiresAt / 1000) + 86_400,
      });
      const answer: QuestionnaireLink = { url: `${consoleLink('/survey')}#${tenantId}.${linkId}.${secret}`, expiresAt };
      return created(answer);
    },
  }),
  'GET /v1/deviceSync/doorModeExemptions': deviceRoute({
    answer: deviceExemptions,
    refused: logRefusal,
    async handle({ headers }) {
      const { tenantId } = await authenticateDevice(headers.authorization);
      const { personKeys, version } = await readExemptions(tenantId);
      return ok({ personKeys, token: exemptionToken(version) });
    },
  }),
});

export const handler = deviceSync.handler;
