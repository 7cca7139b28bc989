import * as z from 'zod';
import {
  authorityDeleteQuery,
  authorityKeyOf,
  authorityKeyParams,
  authorityListQuery,
  authorityItem,
  authorityPage,
  authorityPatchBody,
  authoritySyncPage,
  capacityCheck,
  grantAnswer,
  grantBody,
  grantCheckBody,
  grantJobView,
  retryBody,
  retryResult,
  syncQuery,
  type AuthorityItem,
  type CapacityCheck,
  type GrantJobView,
  type SetType,
  type SyncState,
  type Validity,
  type ValidityState,
} from '#contract/authorities';
import type { AuthCode } from '#contract/menu';
import { changeValidity, deviceAuthorityFacts, findAuthority, parseAuthorityKey, resend, revoke, type Authority, type Bounds } from '#data/authorities';
import { listAuthorities } from '#data/authorityLists';
import { allFaceTerminals } from '#data/devices';
import { companySyncCounts, deviceSyncCounts, personSyncCounts, type StateCounts } from '#data/syncCounts';
import { grant, resolveSelection } from '#data/grantSelection';
import { companyTimezone } from '#data/tenants';
import { bothLists } from '#domain/authorities';
import { dayOf, endOfDay, startOfDay } from '#domain/time';
import type { Auth } from '#lib/auth';
import { NoPermissionError, NotFoundError, fieldError } from '#lib/errors';
import { created, defineResource, deleted, ok, queued, sessionRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { newId } from '#lib/crypto';
import { createGrantJob, findGrantJob, settledGrantJob } from '#data/grantJobs';
import { releaseJobSlot, takeJobSlot } from '#data/jobSlots';
import { importJobParams } from '#contract/people';
import { WORKER_STALE_MS, inProcess, startWorker } from '#lib/jobs';
import { presignedGet } from '#lib/storage';
import { env, declareEnvironment } from '#lib/env';
import { allSchedules, holdSchedule, letGoSchedule } from '#data/schedules';
import { scheduleHandlers } from './schedules.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'EVENTS_TABLE',
  'GRANT_WORKER_FUNCTION',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
]);

/** A grant of more person × device pairs than this (2,000 unless GRANT_INLINE_PAIRS says) is written by a background job (202 with its key). */
const inlinePairs = (): number => Number(env('GRANT_INLINE_PAIRS') ?? 2000);
/** The most person × device pairs one grant may name (1,000,000 unless GRANT_MAX_PAIRS says): a larger one is refused naming the limit. */
const maxPairs = (): number => Number(env('GRANT_MAX_PAIRS') ?? 1_000_000);

/** Pass authority needs its code, blacklist monitoring the blacklist's. */
const CODE_OF: Record<SetType, AuthCode> = { 0: 'pass:authority', 1: 'pass:blacklist' };
function mayUse(auth: Auth, setType: SetType): void {
  if (!auth.account.authCodes.includes(CODE_OF[setType])) throw new NoPermissionError();
}
const permittedTypes = (auth: Auth): SetType[] => ([0, 1] as const).filter((t) => auth.account.authCodes.includes(CODE_OF[t]));

/** A validity as stored: days in the company's time zone and the moments they begin and end. The end may not be before today. */
async function boundsOf(tenantId: string, validity: Validity): Promise<Bounds> {
  if (validity.permanent === true) return {};
  const timeZone = await companyTimezone(tenantId);
  const today = dayOf(new Date(), timeZone);
  if (validity.end < today) throw fieldError('validity.end', 'authorities.endBeforeToday');
  return {
    startDay: validity.start,
    endDay: validity.end,
    validFrom: startOfDay(validity.start, timeZone).toISOString(),
    validTo: endOfDay(validity.end, timeZone).toISOString(),
  };
}

export function validityState(item: Pick<Authority, 'validFrom' | 'validTo'>, now = new Date().toISOString()): ValidityState {
  if (item.validFrom && item.validFrom > now) return 'upcoming';
  if (item.validTo && item.validTo < now) return 'expired';
  return 'active';
}

/** How long an authorization written within the request holds its schedule: the request's 29 s, and room. */
const INLINE_HOLD_MS = 60_000;
/** How long a grant job holds its schedule: it waits at most WORKER_STALE_MS to start and runs at most as long. */
const JOB_HOLD_MS = 2 * WORKER_STALE_MS;

/**
 * The access schedule an authorization takes: one of the company's, on the pass list only; null
 * or absent, none (at any time within the validity). It is held for `holdMs` (holdSchedule), so
 * it cannot be deleted before the authorizations that name it are written and counted.
 */
async function scheduleOf(tenantId: string, setType: SetType, scheduleKey: string | null | undefined, holdMs = INLINE_HOLD_MS): Promise<string | undefined> {
  if (!scheduleKey) return undefined;
  if (setType !== 0) throw fieldError('scheduleKey', 'schedules.notOnBlacklist');
  if (!(await holdSchedule(tenantId, scheduleKey, holdMs))) throw fieldError('scheduleKey', 'schedules.unknown');
  return scheduleKey;
}

async function itemsJson(tenantId: string, items: Authority[]): Promise<AuthorityItem[]> {
  const names = new Map((await allFaceTerminals(tenantId)).map((d) => [d.deviceKey, d.name]));
  const schedules = new Map(items.some((a) => a.scheduleKey) ? (await allSchedules(tenantId)).map((s) => [s.scheduleKey, s.name] as const) : []);
  const now = new Date().toISOString();
  return Promise.all(
    items.map(async (a) => ({
      authorityKey: authorityKeyOf(a.setType, a.personKey, a.deviceKey),
      setType: a.setType,
      personKey: a.personKey,
      personKind: a.personKind,
      personId: a.personId,
      name: a.personName,
      avatar: a.avatar ? await presignedGet('photos', tenantId, a.avatar) : null,
      deviceKey: a.deviceKey,
      deviceName: names.get(a.deviceKey) ?? '',
      start: a.startDay ?? null,
      end: a.endDay ?? null,
      validityState: validityState(a, now),
      scheduleKey: a.scheduleKey ?? null,
      scheduleName: a.scheduleKey ? (schedules.get(a.scheduleKey) ?? null) : null,
      syncState: a.syncState,
      syncReason: a.syncReason ?? null,
      syncDetail: a.syncDetail ?? null,
      syncTime: a.syncAt,
      createTime: a.createdAt,
      version: a.version,
    })),
  );
}

/**
 * The sync panel's counts over everything it filters to, not the page: a device's kept counts,
 * a person's range, one pair as listed, or every device's counts summed for the whole company.
 */
async function syncCounts(
  tenantId: string,
  filter: { personKey?: string | undefined; deviceKey?: string | undefined; state?: SyncState | undefined },
  types: SetType[],
): Promise<StateCounts> {
  if (filter.personKey && filter.deviceKey) {
    const counts: StateCounts = { pending: 0, synced: 0, failed: 0 };
    for (const t of types) {
      const item = await findAuthority(tenantId, t, filter.personKey, filter.deviceKey);
      if (item && !item.revoked) counts[item.syncState]++;
    }
    return counts;
  }
  if (filter.personKey) return personSyncCounts(tenantId, filter.personKey, types);
  if (filter.deviceKey) return deviceSyncCounts(tenantId, filter.deviceKey, types);
  return companySyncCounts(
    tenantId,
    (await allFaceTerminals(tenantId)).map((d) => d.deviceKey),
    types,
  );
}

/** Failed authorizations sent again per request, at most. */
const RETRY_ALL_PART = 200;

/** Sends the failed authorizations of a person or device again, a part at a time: each becomes pending, so the next part starts from the top. */
async function resendFailed(
  tenantId: string,
  of: { personKey?: string | undefined; deviceKey?: string | undefined },
  types: SetType[],
): Promise<{ resent: number; more: boolean }> {
  const filter = {
    ...(of.personKey ? { personKey: of.personKey } : {}),
    ...(of.deviceKey ? { deviceKey: of.deviceKey } : {}),
    state: 'failed' as const,
    ...(types.length === 1 ? { setType: types[0] } : {}),
  };
  const page = await listAuthorities(tenantId, filter, RETRY_ALL_PART);
  const resent = await resend(
    tenantId,
    page.items.map((a) => ({ setType: a.setType, personKey: a.personKey, deviceKey: a.deviceKey })),
  );
  return { resent, more: page.nextCursor !== null };
}

export const authorities = defineResource('authorities', {
  ...scheduleHandlers,
  'GET /v1/authorities': sessionRoute({
    answer: authorityPage,
    query: authorityListQuery,
    async handle({ auth, query }) {
      mayUse(auth, query.setType);
      const { pageSize, cursor, ...filter } = query;
      const page = await listAuthorities(auth.tenantId, filter, pageSize, cursor);
      return ok({ items: await itemsJson(auth.tenantId, page.items), nextCursor: page.nextCursor });
    },
  }),
  'POST /v1/authorities': sessionRoute({
    answer: grantAnswer,
    body: grantBody,
    async handle({ auth, body }) {
      mayUse(auth, body.setType);
      const validity = await boundsOf(auth.tenantId, body.validity);
      const { persons, devices } = await resolveSelection(auth.tenantId, body);
      // Counted after groups and departments are expanded.
      const total = persons.length * devices.length;
      if (total > maxPairs()) throw fieldError('personKeys', 'authorities.tooManyPairs', { count: total, max: maxPairs() });
      const bounds = { ...validity, scheduleKey: await scheduleOf(auth.tenantId, body.setType, body.scheduleKey, total > inlinePairs() ? JOB_HOLD_MS : INLINE_HOLD_MS) };
      if (total > inlinePairs()) {
        // Too many to write within the request: the worker writes them and the job shows how far it has come.
        const jobKey = newId();
        const createdAt = new Date().toISOString();
        await takeJobSlot(auth.tenantId, 'grant', jobKey, createdAt);
        try {
          await createGrantJob({ tenantId: auth.tenantId, jobKey, body, bounds, total }, createdAt);
          await startWorker('GRANT_WORKER_FUNCTION', { tenantId: auth.tenantId, jobKey }, inProcess('GRANT_WORKER_FUNCTION'), 'grant');
        } catch (error) {
          await releaseJobSlot(auth.tenantId, 'grant', jobKey, createdAt);
          if (bounds.scheduleKey) await letGoSchedule(auth.tenantId, bounds.scheduleKey);
          throw error;
        }
        // The job lets go of its schedule when it ends (data/grantJobs.ts).
        return queued({ jobKey, people: persons.length, devices: devices.length, authorities: total });
      }
      try {
        const { count } = await grant(
          auth.tenantId,
          body.setType,
          persons,
          devices.map((d) => d.deviceKey),
          bounds,
        );
        return created({ people: persons.length, devices: devices.length, authorities: count });
      } finally {
        if (bounds.scheduleKey) await letGoSchedule(auth.tenantId, bounds.scheduleKey);
      }
    },
  }),
  'GET /v1/authorities/jobs/{jobKey}': sessionRoute({
    answer: grantJobView,
    params: importJobParams,
    async handle({ auth, params, locale }) {
      if (permittedTypes(auth).length === 0) throw new NoPermissionError();
      const found = await findGrantJob(auth.tenantId, params.jobKey);
      if (!found) throw new NotFoundError();
      mayUse(auth, found.body.setType);
      const job = await settledGrantJob(found);
      const answer: GrantJobView = {
        jobKey: job.jobKey,
        state: job.state,
        done: job.done,
        total: job.total,
        createTime: job.createdAt,
        finishTime: job.finishedAt ?? null,
        error: job.state === 'failed' ? translate(locale, job.failure === 'notStarted' ? 'jobs.notStarted' : 'jobs.stopped') : null,
      };
      return ok(answer);
    },
  }),
  'POST /v1/authorities/check': sessionRoute({
    answer: capacityCheck,
    body: grantCheckBody,
    async handle({ auth, body }) {
      mayUse(auth, body.setType);
      const { persons, devices } = await resolveSelection(auth.tenantId, body);
      const selected = new Set(persons.map((p) => p.personKey));
      // Who is on the other list is told only to a caller who may see that list.
      const seesOther = permittedTypes(auth).includes(body.setType === 0 ? 1 : 0);
      const now = new Date().toISOString();
      const result: CapacityCheck = {
        people: persons.length,
        devices: await Promise.all(
          devices.map(async (device) => {
            // One read of the device's authorizations answers all: what it holds, which of the people it holds already, and on which list.
            const onDevice = await deviceAuthorityFacts(auth.tenantId, device.deviceKey);
            const holding = onDevice.filter((a) => a.action === 'upsert');
            const authorized = holding.length;
            const already = new Set(holding.filter((a) => a.setType === body.setType).map((a) => a.personKey));
            const adding = persons.filter((p) => !already.has(p.personKey)).length;
            const capacity = (device.faces as { capacity?: number } | undefined)?.capacity ?? null;
            return {
              deviceKey: device.deviceKey,
              name: device.name,
              authorized,
              adding,
              capacity,
              exceeds: capacity !== null && authorized + adding > capacity,
              bothLists: seesOther ? bothLists(onDevice, body.setType, selected, now) : null,
            };
          }),
        ),
      };
      return ok(result);
    },
  }),
  'GET /v1/authorities/sync': sessionRoute({
    answer: authoritySyncPage,
    query: syncQuery,
    async handle({ auth, query }) {
      const types = query.setType === undefined ? permittedTypes(auth) : [query.setType];
      if (types.length === 0) throw new NoPermissionError();
      for (const t of types) mayUse(auth, t);
      const { pageSize, cursor, setType, ...filter } = query;
      const page = await listAuthorities(
        auth.tenantId,
        { ...filter, ...(types.length === 1 ? { setType: types[0] } : setType !== undefined ? { setType } : {}) },
        pageSize,
        cursor,
      );
      return ok({ items: await itemsJson(auth.tenantId, page.items), nextCursor: page.nextCursor, counts: await syncCounts(auth.tenantId, filter, types) });
    },
  }),
  'POST /v1/authorities/sync/retry': sessionRoute({
    answer: retryResult,
    body: retryBody,
    async handle({ auth, body }) {
      if (body.failedOf) {
        const types = body.failedOf.setType === undefined ? permittedTypes(auth) : [body.failedOf.setType];
        if (types.length === 0) throw new NoPermissionError();
        for (const t of types) mayUse(auth, t);
        return created(await resendFailed(auth.tenantId, body.failedOf, types));
      }
      const keys = body.authorityKeys!.map(parseAuthorityKey);
      for (const key of keys) mayUse(auth, key.setType);
      return created({ resent: await resend(auth.tenantId, keys), more: false });
    },
  }),
  'PATCH /v1/authorities/{authorityKey}': sessionRoute({
    answer: authorityItem,
    params: authorityKeyParams,
    body: authorityPatchBody,
    async handle({ auth, params, body }) {
      const key = parseAuthorityKey(params.authorityKey);
      mayUse(auth, key.setType);
      const bounds = await boundsOf(auth.tenantId, body.validity);
      // Absent: the schedule stays as it is (a stale version is refused by the change itself).
      const scheduleKey =
        body.scheduleKey === undefined
          ? (await findAuthority(auth.tenantId, key.setType, key.personKey, key.deviceKey))?.scheduleKey
          : await scheduleOf(auth.tenantId, key.setType, body.scheduleKey);
      try {
        const item = await changeValidity(auth.tenantId, key, body.version, { ...bounds, scheduleKey });
        return created((await itemsJson(auth.tenantId, [item]))[0]);
      } finally {
        if (body.scheduleKey) await letGoSchedule(auth.tenantId, body.scheduleKey);
      }
    },
  }),
  'DELETE /v1/authorities/{authorityKey}': sessionRoute({
    answer: z.null(),
    params: authorityKeyParams,
    query: authorityDeleteQuery,
    async handle({ auth, params, query }) {
      const key = parseAuthorityKey(params.authorityKey);
      mayUse(auth, key.setType);
      await revoke(auth.tenantId, key, query.version);
      return deleted();
    },
  }),
});

export const handler = authorities.handler;
