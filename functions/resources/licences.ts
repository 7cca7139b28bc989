import { activateLicenceBody, licenceAnswer, licenceList, licenceReminderAnswer, licenceReminderBody, type LicenceJson } from '#contract/licences';
import { licenceState, readLicenceCode, shortCode } from '#domain/licence';
import { activateLicence, listLicences, reminderDays, setReminderDays, type Licence } from '#data/licences';
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
  };
}

export const licences = defineResource('licences', {
  'GET /v1/licences': sessionRoute({
    answer: licenceList,
    async handle({ auth }) {
      const now = Date.now();
      const [held, days] = await Promise.all([listLicences(auth.tenantId), reminderDays(auth.tenantId)]);
      const items = held.sort((a, b) => b.activatedAt.localeCompare(a.activatedAt)).map((l) => licenceJson(l, now, days));
      // Seats count while their licence is in force; an expired licence's terminals keep working
      // but no new terminal can take its seats.
      const live = items.filter((l) => l.state !== 'expired');
      const seats = live.reduce((n, l) => n + l.seats, 0);
      const used = live.reduce((n, l) => n + l.used, 0);
      return ok({ items, nextCursor: null, total: seats, used, remaining: Math.max(0, seats - used), reminderDays: days });
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
