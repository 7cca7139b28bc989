import {
  PICKER_CODES,
  pickerDepartmentTree,
  pickerDevicePage,
  pickerDevicesQuery,
  pickerGroupList,
  pickerGroupsQuery,
  pickerPeoplePage,
  pickerPeopleQuery,
  type PickerDevice,
  type PickerGroup,
  type PickerPerson,
} from '#contract/pickers';
import { departmentTree, listDepartments, type DepartmentNode } from '#data/departments';
import { deviceListPage } from '#data/devices';
import { listGroups } from '#data/groups';
import { type Person } from '#data/people';
import { listPeople } from '#data/peopleLists';
import { holdsAny, type Auth } from '#lib/auth';
import type { AuthCode } from '#contract/menu';
import { NoPermissionError } from '#lib/errors';
import { defineResource, ok, sessionRoute } from '#lib/http';
import { presignedGet } from '#lib/storage';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'CAPTURES_BUCKET', 'IMPORTS_BUCKET', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * Names and keys to choose from. The route table lets in every code whose screens choose from a
 * picker; where the type narrows it (employees or visitors, device groups), the type's codes decide.
 */
function mayRead(auth: Auth, codes: readonly AuthCode[]): void {
  if (!holdsAny(auth.account.authCodes, codes)) throw new NoPermissionError();
}

async function pickerPerson(person: Person): Promise<PickerPerson> {
  return {
    [person.kind === 'employee' ? 'employeeKey' : 'visitorKey']: person.personKey,
    name: person.name,
    personId: person.personId,
    groupKey: person.groupKey,
    ...(person.kind === 'employee' ? { departmentKey: person.departmentKey ?? null } : {}),
    hasPhoto: !!person.avatar,
    avatarUrl: person.avatar ? await presignedGet('photos', person.tenantId, person.avatar) : null,
  };
}

const pickerDevice = (device: { deviceKey: string; name: string; serial: string; groupKey?: string | null; online: boolean }): PickerDevice => ({
  deviceKey: device.deviceKey,
  name: device.name,
  serial: device.serial,
  groupKey: device.groupKey ?? null,
  online: device.online,
});

const withoutVersions = (nodes: DepartmentNode[]): ReturnType<typeof strip>[] => nodes.map(strip);
function strip(node: DepartmentNode): { departmentKey: string; name: string; parentKey: string | null; children: ReturnType<typeof strip>[] } {
  return { departmentKey: node.departmentKey, name: node.name, parentKey: node.parentKey, children: withoutVersions(node.children) };
}

export const pickers = defineResource('pickers', {
  'GET /v1/pickers/people': sessionRoute({
    query: pickerPeopleQuery,
    answer: pickerPeoplePage,
    async handle({ auth, query }) {
      const { type, pageSize, cursor, ...filter } = query;
      mayRead(auth, PICKER_CODES.people[type]);
      // Only employees at work are chosen; a resigned one holds no pass.
      const page = await listPeople(auth.tenantId, type, { ...filter, ...(type === 'employee' ? { state: 'active' as const } : {}) }, pageSize, cursor);
      return ok({ items: await Promise.all(page.items.map(pickerPerson)), nextCursor: page.nextCursor });
    },
  }),
  'GET /v1/pickers/groups': sessionRoute({
    query: pickerGroupsQuery,
    answer: pickerGroupList,
    async handle({ auth, query }) {
      mayRead(auth, PICKER_CODES.groups[query.type]);
      const items: PickerGroup[] = (await listGroups(auth.tenantId, query.type)).map((g) => ({ groupKey: g.groupKey, name: g.name, type: g.type }));
      return ok({ items, nextCursor: null });
    },
  }),
  'GET /v1/pickers/departments': sessionRoute({
    answer: pickerDepartmentTree,
    async handle({ auth }) {
      return ok({ items: withoutVersions(departmentTree(await listDepartments(auth.tenantId))), nextCursor: null });
    },
  }),
  'GET /v1/pickers/devices': sessionRoute({
    query: pickerDevicesQuery,
    answer: pickerDevicePage,
    async handle({ auth, query }) {
      const { page, nextCursor } = await deviceListPage(auth.tenantId, query);
      return ok({ items: page.map(pickerDevice), nextCursor });
    },
  }),
});

export const handler = pickers.handler;
