import {
  activateLicenceBody,
  licenceAnswer,
  licenceList,
  licenceReminderAnswer,
  licenceReminderBody,
  seatSummary,
  type LicenceJson,
  type SeatSummary,
} from '#contract/licences';
import { TRIAL_DAYS, TRIAL_LICENCE_ID, TRIAL_SEATS, licenceState, readLicenceCode, shortCode } from '#domain/licence';
import { everyDevice, isIntercom } from '#data/devices';
import { activateLicence, grantTrial, listLicences, reminderDays, setReminderDays, type Licence } from '#data/licences';
import { AppError, fieldError } from '#lib/errors';
import { created, defineResource, ok, sessionRoute } from '#lib/http';
import { env, declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'LICENCE_PUBLIC_KEY', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

function publicKey(): string {
  const key = env('LICENCE_PUBLIC_KEY');
  if (!key) throw new AppError(503, 'licence.notConfigured');
  return key;
}

function licenceJson(licence: Licence, now: number, days: number): LicenceJson {
  return {
    licenceId: licence.licenceId,
    code: shortCode(licence.code),
    mac: licence.mac ?? null,
    activateTime: licence.activatedAt,
    expireTime: licence.expiresAt,
    state: licenceState(licence.expiresAt, now, days),
    seats: licence.seats,
    used: licence.used,
    remaining: Math.max(0, licence.seats - licence.used),
    trial: licence.licenceId === TRIAL_LICENCE_ID,
  };
}

/**
 * The seats in force: those of the licences not expired, and of them the ones bound devices hold.
 * Every bound device takes a seat, face terminal or intercom alike (data/deviceBinding.ts), so
 * `used` counts them all. An expired licence's devices keep working but no new device can take
 * its seats. The trial is one of the licences, under its fixed id.
 */
function seatsOf(held: Licence[], now: number): SeatSummary {
  const live = held.filter((l) => Date.parse(l.expiresAt) > now);
  const total = live.reduce((n, l) => n + l.seats, 0);
  const used = live.reduce((n, l) => n + l.used, 0);
  const trial = held.find((l) => l.licenceId === TRIAL_LICENCE_ID);
  return {
    total,
    used,
    remaining: Math.max(0, total - used),
    trial: {
      state: !trial ? 'available' : Date.parse(trial.expiresAt) > now ? 'active' : 'ended',
      seats: trial?.seats ?? TRIAL_SEATS,
      days: TRIAL_DAYS,
      expireTime: trial?.expiresAt ?? null,
    },
  };
}

export const licences = defineResource('licences', {
  'GET /v1/licences': sessionRoute({
    answer: licenceList,
    async handle({ auth }) {
      const now = Date.now();
      const [held, days, bound] = await Promise.all([listLicences(auth.tenantId), reminderDays(auth.tenantId), everyDevice(auth.tenantId)]);
      const items = held.sort((a, b) => b.activatedAt.localeCompare(a.activatedAt)).map((l) => licenceJson(l, now, days));
      // Who holds the seats counted in `used`: the devices bound with a seat of a licence in force.
      const live = new Set(held.filter((l) => Date.parse(l.expiresAt) > now).map((l) => l.licenceId));
      const holders = bound.filter((d) => d.licenceId && live.has(d.licenceId));
      const intercoms = holders.filter(isIntercom).length;
      const usedBy = { faceTerminals: holders.length - intercoms, intercoms };
      return ok({ items, nextCursor: null, ...seatsOf(held, now), usedBy, reminderDays: days });
    },
  }),
  'GET /v1/licences/seats': sessionRoute({
    answer: seatSummary,
    async handle({ auth }) {
      return ok(seatsOf(await listLicences(auth.tenantId), Date.now()));
    },
  }),
  'POST /v1/licences/trial': sessionRoute({
    answer: licenceAnswer,
    async handle({ auth }) {
      const now = Date.now();
      const trial = await grantTrial(auth.tenantId, now);
      return created(licenceJson(trial, now, await reminderDays(auth.tenantId)));
    },
  }),
  'POST /v1/licences': sessionRoute({
    answer: licenceAnswer,
    body: activateLicenceBody,
    async handle({ auth, body }) {
      const now = Date.now();
      const read = readLicenceCode(body.activationCode, publicKey(), now);
      if ('problem' in read) throw fieldError('activationCode', read.problem);
      const licence = await activateLicence(auth.tenantId, body.activationCode, read.terms);
      return created(licenceJson(licence, now, await reminderDays(auth.tenantId)));
    },
  }),
  'PATCH /v1/licences/reminder': sessionRoute({
    answer: licenceReminderAnswer,
    body: licenceReminderBody,
    async handle({ auth, body }) {
      await setReminderDays(auth.tenantId, body.reminderDays);
      return created({ reminderDays: body.reminderDays });
    },
  }),
});

export const handler = licences.handler;
