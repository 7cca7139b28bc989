import {
  authorityDeleteQuery,
  authorityKeyOf,
  authorityKeyParams,
  authorityListQuery,
  authorityPatchBody,
  grantBody,
  grantCheckBody,
  retryBody,
  syncQuery,
  type AuthorityItem,
  type CapacityCheck,
  type SetType,
  type Validity,
  type ValidityState,
} from '#contract/authorities';
import type { AuthCode } from '#contract/menu';
import type { PersonKind } from '#contract/people';
import {
  changeValidity,
  deviceFaceCount,
  facePersonOf,
  findAuthority,
  grantPairs,
  listAuthorities,
  parseAuthorityKey,
  resend,
  revoke,
  type Authority,
  type Bounds,
  type FacePerson,
} from '#data/authorities';
import { allDevices, type Device } from '#data/devices';
import { findDepartment } from '#data/departments';
import { findGroup } from '#data/groups';
import { listPeople, people, type Person } from '#data/people';
import { companyTimezone } from '#data/tenants';
import { dayOf, endOfDay, startOfDay } from '#domain/time';
import type { Auth } from '#lib/auth';
import { NoPermissionError, NotFoundError, fieldError } from '#lib/errors';
import { created, defineResource, deleted, ok, sessionRoute } from '#lib/http';
import { presignedGet } from '#lib/storage';

/** Pass authority needs its code, blacklist monitoring the blacklist's. */
const CODE_OF: Record<SetType, AuthCode> = { 0: 'pass:authority', 1: 'pass:blacklist' };
function mayUse(auth: Auth, setType: SetType): void {
  if (!auth.account.authCodes.includes(CODE_OF[setType])) throw new NoPermissionError();
}
const permittedTypes = (auth: Auth): SetType[] => ([0, 1] as const).filter((t) => auth.account.authCodes.includes(CODE_OF[t]));


interface Selection {
  personKeys: string[];
  personGroupKeys: string[];
  departmentKeys: string[];
  deviceKeys: string[];
  deviceGroupKeys: string[];
}

/** Every member of a group or department, all pages. */
async function members(tenantId: string, kind: PersonKind, filter: { groupKey?: string; departmentKey?: string }): Promise<Person[]> {
  const out: Person[] = [];
  let cursor: string | undefined;
  do {
    const page = await listPeople(tenantId, kind, { ...filter, ...(kind === 'employee' ? { state: 'active' as const } : {}) }, 200, cursor);
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/**
 * The people and devices a selection names, groups and departments expanded. A key, group or
 * department that is not the company's answers 404 and nothing is granted; a selection that comes
 * to no one (or no device) is refused naming the field.
 */
async function resolve(tenantId: string, selection: Selection): Promise<{ persons: FacePerson[]; devices: Device[] }> {
  const byKey = new Map<string, Person>();
  const keys = [...new Set(selection.personKeys)];
  for (let i = 0; i < keys.length; i += 50) {
    const batch = keys.slice(i, i + 50);
    const { data } = await people()
      .get(batch.flatMap((personKey) => (['employee', 'visitor'] as const).map((kind) => ({ tenantId, kind, personKey }))))
      .go({ concurrency: 2 });
    for (const person of data as Person[]) byKey.set(person.personKey, person);
    if (batch.some((k) => !byKey.has(k))) throw new NotFoundError();
  }
  for (const groupKey of new Set(selection.personGroupKeys)) {
    const group = await findGroup(tenantId, groupKey);
    if (!group || group.type === 'device') throw new NotFoundError();
    for (const person of await members(tenantId, group.type, { groupKey })) byKey.set(person.personKey, person);
  }
  for (const departmentKey of new Set(selection.departmentKeys)) {
    if (!(await findDepartment(tenantId, departmentKey))) throw new NotFoundError();
    for (const person of await members(tenantId, 'employee', { departmentKey })) byKey.set(person.personKey, person);
  }
  const fleet = await allDevices(tenantId);
  const deviceByKey = new Map(fleet.map((d) => [d.deviceKey, d]));
  const chosen = new Map<string, Device>();
  for (const deviceKey of new Set(selection.deviceKeys)) {
    const device = deviceByKey.get(deviceKey);
    if (!device) throw new NotFoundError();
    chosen.set(deviceKey, device);
  }
  for (const groupKey of new Set(selection.deviceGroupKeys)) {
    const group = await findGroup(tenantId, groupKey);
    if (!group || group.type !== 'device') throw new NotFoundError();
    for (const device of fleet) if (device.groupKey === groupKey) chosen.set(device.deviceKey, device);
  }
  if (byKey.size === 0) throw fieldError('personKeys', 'authorities.noPeople');
  if (chosen.size === 0) throw fieldError('deviceKeys', 'authorities.noDevices');
  return { persons: [...byKey.values()].map(facePersonOf), devices: [...chosen.values()] };
}

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

async function itemsJson(tenantId: string, items: Authority[]): Promise<AuthorityItem[]> {
  const names = new Map((await allDevices(tenantId)).map((d) => [d.deviceKey, d.name]));
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
      syncState: a.syncState,
      syncReason: a.syncReason ?? null,
      syncTime: a.syncAt,
      createTime: a.createdAt,
      version: a.version,
    })),
  );
}

export const authorities = defineResource('authorities', {
  'GET /v1/authorities': sessionRoute({
    query: authorityListQuery,
    async handle({ auth, query }) {
      mayUse(auth, query.setType);
      const { pageSize, cursor, ...filter } = query;
      const page = await listAuthorities(auth.tenantId, filter, pageSize, cursor);
      return ok({ items: await itemsJson(auth.tenantId, page.items), nextCursor: page.nextCursor });
    },
  }),
  'POST /v1/authorities': sessionRoute({
    body: grantBody,
    async handle({ auth, body }) {
      mayUse(auth, body.setType);
      const bounds = await boundsOf(auth.tenantId, body.validity);
      const { persons, devices } = await resolve(auth.tenantId, body);
      const { count } = await grantPairs(
        auth.tenantId,
        body.setType,
        persons,
        devices.map((d) => d.deviceKey),
        bounds,
      );
      return created({ people: persons.length, devices: devices.length, authorities: count });
    },
  }),
  'POST /v1/authorities/check': sessionRoute({
    body: grantCheckBody,
    async handle({ auth, body }) {
      mayUse(auth, body.setType);
      const { persons, devices } = await resolve(auth.tenantId, body);
      const result: CapacityCheck = {
        people: persons.length,
        devices: await Promise.all(
          devices.map(async (device) => {
            const authorized = await deviceFaceCount(auth.tenantId, device.deviceKey);
            const held = await Promise.all(persons.map((p) => findAuthority(auth.tenantId, body.setType, p.personKey, device.deviceKey)));
            const adding = held.filter((a) => !a || a.revoked || a.action === 'remove').length;
            const capacity = (device.faces as { capacity?: number } | undefined)?.capacity ?? null;
            return { deviceKey: device.deviceKey, name: device.name, authorized, adding, capacity, exceeds: capacity !== null && authorized + adding > capacity };
          }),
        ),
      };
      return ok(result);
    },
  }),
  'GET /v1/authorities/sync': sessionRoute({
    query: syncQuery,
    async handle({ auth, query }) {
      const types = query.setType === undefined ? permittedTypes(auth) : [query.setType];
      if (types.length === 0) throw new NoPermissionError();
      for (const t of types) mayUse(auth, t);
      const { pageSize, cursor, setType, ...filter } = query;
      const page = await listAuthorities(auth.tenantId, { ...filter, ...(types.length === 1 ? { setType: types[0] } : setType !== undefined ? { setType } : {}) }, pageSize, cursor);
      const counts = { pending: 0, synced: 0, failed: 0 };
      for (const item of page.items) counts[item.syncState]++;
      return ok({ items: await itemsJson(auth.tenantId, page.items), nextCursor: page.nextCursor, counts });
    },
  }),
  'POST /v1/authorities/sync/retry': sessionRoute({
    body: retryBody,
    async handle({ auth, body }) {
      const keys = body.authorityKeys.map(parseAuthorityKey);
      for (const key of keys) mayUse(auth, key.setType);
      return created({ resent: await resend(auth.tenantId, keys) });
    },
  }),
  'PATCH /v1/authorities/{authorityKey}': sessionRoute({
    params: authorityKeyParams,
    body: authorityPatchBody,
    async handle({ auth, params, body }) {
      const key = parseAuthorityKey(params.authorityKey);
      mayUse(auth, key.setType);
      const bounds = await boundsOf(auth.tenantId, body.validity);
      const item = await changeValidity(auth.tenantId, key, body.version, bounds);
      return created((await itemsJson(auth.tenantId, [item]))[0]);
    },
  }),
  'DELETE /v1/authorities/{authorityKey}': sessionRoute({
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
