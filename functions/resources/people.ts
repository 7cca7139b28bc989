import type { PersonKind } from '#contract/people';
import { findDepartment } from '#data/departments';
import { findGroup } from '#data/groups';
import { deletePerson, listPeople, type Person, type PersonChanges, type PeopleFilter } from '#data/people';
import { ValidationError, type FieldIssue } from '#lib/errors';
import { deleteObject, objectExists, presignedGet } from '#lib/storage';

/** What employees and visitors share: the JSON of a person, reference checks, listing and deletion. */

const KEY_NAME = { employee: 'employeeKey', visitor: 'visitorKey' } as const;

export async function personJson(person: Person) {
  const json: Record<string, unknown> = {
    [KEY_NAME[person.kind]]: person.personKey,
    personId: person.personId,
    name: person.name,
    role: person.role,
    gender: person.gender,
    groupKey: person.groupKey,
    phone: person.phone ?? null,
    email: person.email ?? null,
    icCard: person.icCard ?? null,
    avatar: person.avatar ?? null,
    avatarUrl: person.avatar ? await presignedGet('photos', person.tenantId, person.avatar) : null,
    remark: person.remark ?? null,
    createTime: person.createdAt,
    version: person.version,
  };
  if (person.kind === 'employee') {
    Object.assign(json, {
      departmentKey: person.departmentKey ?? null,
      attendanceGroupKey: person.attendanceGroupKey ?? null,
      needsAttendance: person.needsAttendance ?? false,
      remoteDoorOpen: person.remoteDoorOpen ?? false,
      state: person.state,
      resignedAt: person.resignedAt ?? null,
    });
  }
  return json;
}

/** The group must exist and be of the person's kind, the department must exist, the photo must be an upload of this tenant. */
export async function checkReferences(tenantId: string, kind: PersonKind, input: PersonChanges): Promise<void> {
  const issues: FieldIssue[] = [];
  if (input.groupKey) {
    const group = await findGroup(tenantId, input.groupKey);
    if (!group || group.type !== kind) issues.push({ path: 'groupKey', message: 'people.groupMissing' });
  }
  if (input.departmentKey && !(await findDepartment(tenantId, input.departmentKey))) issues.push({ path: 'departmentKey', message: 'people.departmentMissing' });
  if (input.avatar && !(await objectExists('photos', tenantId, input.avatar))) issues.push({ path: 'avatar', message: 'people.avatarMissing' });
  if (issues.length) throw new ValidationError(issues);
}

export async function listJson(tenantId: string, kind: PersonKind, filter: PeopleFilter, pageSize: number, cursor?: string) {
  const page = await listPeople(tenantId, kind, filter, pageSize, cursor);
  return { ...page, items: await Promise.all(page.items.map(personJson)) };
}

/** Deletes the person, their unique claims and their photo. */
export async function removePerson(tenantId: string, kind: PersonKind, personKey: string, version: number): Promise<void> {
  const person = await deletePerson(tenantId, kind, personKey, version);
  if (person.avatar) await deleteObject('photos', tenantId, person.avatar);
}
