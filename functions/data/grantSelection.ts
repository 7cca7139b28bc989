import type { PersonKind } from '#contract/people';
import type { SetType } from '#contract/authorities';
import { NotFoundError, fieldError } from '#lib/errors';
import { facePersonOf, personChanged, type Bounds, type FacePerson } from './authorities.ts';
import { grantPairs } from './authorityGrants.ts';
import { finishBatch } from './entity.ts';
import { findDepartment } from './departments.ts';
import { allFaceTerminals, type Device } from './devices.ts';
import { findGroup } from './groups.ts';
import { people, type Person } from './people.ts';
import { listPeople } from './peopleLists.ts';

/** What a grant names: people by key, group or department, and devices by key or group. */
export interface Selection {
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
export async function resolveSelection(tenantId: string, selection: Selection): Promise<{ persons: FacePerson[]; devices: Device[] }> {
  const persons = await resolvePeople(tenantId, selection);
  const devices = await resolveDevices(tenantId, selection);
  if (persons.length === 0) throw fieldError('personKeys', 'authorities.noPeople');
  if (devices.length === 0) throw fieldError('deviceKeys', 'authorities.noDevices');
  return { persons, devices };
}

/** The people a selection names, groups and departments expanded (404 for a key, group or department that is not the company's). */
export async function resolvePeople(tenantId: string, selection: Pick<Selection, 'personKeys' | 'personGroupKeys' | 'departmentKeys'>): Promise<FacePerson[]> {
  const byKey = new Map<string, Person>();
  const keys = [...new Set(selection.personKeys)];
  for (let i = 0; i < keys.length; i += 50) {
    const batch = keys.slice(i, i + 50);
    for (const person of await peopleByKey(tenantId, batch)) byKey.set(person.personKey, person);
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
  return [...byKey.values()].map(facePersonOf);
}

/** The devices a selection names, device groups expanded (404 for a key or group that is not the company's). */
async function resolveDevices(tenantId: string, selection: Pick<Selection, 'deviceKeys' | 'deviceGroupKeys'>): Promise<Device[]> {
  const fleet = await allFaceTerminals(tenantId);
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
  return [...chosen.values()];
}

type PersonRef = { kind: PersonKind; personKey: string };

/** People by key (of either kind unless the kind is known), read strongly consistent; those that do not exist are left out. */
async function peopleByKey(tenantId: string, refs: (string | PersonRef)[]): Promise<Person[]> {
  const keys = refs.flatMap((ref) =>
    typeof ref === 'string'
      ? (['employee', 'visitor'] as const).map((kind) => ({ tenantId, kind, personKey: ref }))
      : [{ tenantId, kind: ref.kind, personKey: ref.personKey }],
  );
  const out: Person[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    out.push(
      ...((await finishBatch('people read', keys.slice(i, i + 100), (part) => people().get(part).go({ concurrency: 2, consistent: true }))) as Person[]),
    );
  }
  return out;
}

/** The people as they are now: those deleted meanwhile are left out, the rest carry their current facts. */
export async function peopleAsTheyAre(tenantId: string, persons: FacePerson[]): Promise<FacePerson[]> {
  return (
    await peopleByKey(
      tenantId,
      persons.map((p) => ({ kind: p.kind, personKey: p.personKey })),
    )
  ).map(facePersonOf);
}

const sameFacts = (a: FacePerson, b: FacePerson): boolean =>
  a.kind === b.kind && a.name === b.name && a.personId === b.personId && (a.avatar ?? '') === (b.avatar ?? '') && a.active === b.active;

/**
 * Writes a grant so that it cannot bring back a person deleted or resigned while it was written:
 * each device's share is written for the people as they are just before it, and once every share
 * is written the people are read again (strongly consistent). A person deleted or changed in the
 * meantime had their deletion or change applied to the authorizations that existed then, which
 * may not have included these: the deletion or change is applied again, now that they exist
 * (their authorizations are revoked, or carry the person's current facts).
 */
export async function grant(
  tenantId: string,
  setType: SetType,
  persons: FacePerson[],
  deviceKeys: string[],
  bounds: Bounds,
  onDevice?: (pairs: number) => Promise<void>,
): Promise<{ count: number }> {
  const { count, written } = await grantPairs(tenantId, setType, persons, deviceKeys, bounds, {
    refresh: (list) => peopleAsTheyAre(tenantId, list),
    ...(onDevice ? { onDevice } : {}),
  });
  await reapplyChanges(tenantId, written);
  return { count };
}

/**
 * Once shares are written, the people written are read again (strongly consistent): a person
 * deleted or changed meanwhile has the deletion or change applied again, now that these
 * authorizations exist.
 */
export async function reapplyChanges(tenantId: string, written: Map<string, FacePerson>): Promise<void> {
  const now = new Map((await peopleAsTheyAre(tenantId, [...written.values()])).map((p) => [p.personKey, p]));
  for (const [personKey, as] of written) {
    const current = now.get(personKey);
    if (!current || !sameFacts(current, as)) await personChanged(tenantId, personKey, current);
  }
}
