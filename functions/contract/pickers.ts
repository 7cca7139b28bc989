import * as z from 'zod';
import type { AuthCode } from './menu.ts';
import { deviceListQuery } from './devices.ts';
import { GROUP_TYPES, PERSON_KINDS, listQuery, type GroupType, type PersonKind } from './people.ts';

/**
 * Pickers: the names and keys a screen needs to choose people, groups, departments or devices
 * from, readable by each permission whose screens choose them (the authorization wizard, the
 * record filters) without the full people or device API.
 */

const PASSAGE: AuthCode[] = ['pass:authority', 'pass:blacklist'];

/** The codes that may read each picker, per type where it has one. */
export const PICKER_CODES = {
  people: { employee: ['pass:employee', ...PASSAGE], visitor: ['pass:visitor', ...PASSAGE] } satisfies Record<PersonKind, AuthCode[]>,
  groups: {
    employee: ['pass:employee', ...PASSAGE],
    visitor: ['pass:visitor', ...PASSAGE],
    device: ['pass:device', ...PASSAGE, 'pass:record', 'pass:questionnaire'],
  } satisfies Record<GroupType, AuthCode[]>,
  departments: ['pass:employee', ...PASSAGE, 'pass:attendance-statistics'] as AuthCode[],
  // An attendance group names the terminals whose passes count as clock-ins.
  devices: ['pass:device', ...PASSAGE, 'pass:record', 'pass:attendance-settings', 'pass:questionnaire'] as AuthCode[],
};

export const pickerPeopleQuery = listQuery.extend({ type: z.enum(PERSON_KINDS) });
export const pickerGroupsQuery = z.object({ type: z.enum(GROUP_TYPES) });
export const pickerDevicesQuery = deviceListQuery;

const nextCursor = z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' });
const allAtOnce = (what: string) => z.null().meta({ description: `Always null: ${what} in one answer` });

/** A person as a picker shows them: enough to recognise and choose, nothing more. */
const pickerPerson = z.object({
  employeeKey: z.string().optional().meta({ description: 'Employees only' }),
  visitorKey: z.string().optional().meta({ description: 'Visitors only' }),
  name: z.string(),
  personId: z.string(),
  groupKey: z.string(),
  departmentKey: z.string().nullable().optional().meta({ description: 'Employees only; null: in no department' }),
  hasPhoto: z.boolean(),
  avatarUrl: z.string().nullable().meta({ description: 'A short-lived link to the photo, to tell people with the same name apart; null without a photo' }),
});
export type PickerPerson = z.output<typeof pickerPerson>;
/** `GET /v1/pickers/people`: one page of the people of a type (employees at work only), newest first. */
export const pickerPeoplePage = z.object({ items: z.array(pickerPerson), nextCursor });

const pickerGroup = z.object({ groupKey: z.string(), name: z.string(), type: z.enum(GROUP_TYPES) });
export type PickerGroup = z.output<typeof pickerGroup>;
/** `GET /v1/pickers/groups`: every group of the type. */
export const pickerGroupList = z.object({ items: z.array(pickerGroup), nextCursor: allAtOnce('every group comes') });

const pickerDepartment = z
  .object({
    departmentKey: z.string(),
    name: z.string(),
    parentKey: z.string().nullable().meta({ description: 'The department it belongs to; null at the top' }),
    get children() {
      return z.array(pickerDepartment);
    },
  })
  .meta({ id: 'PickerDepartment' });
export type PickerDepartment = z.output<typeof pickerDepartment>;
/** `GET /v1/pickers/departments`: the departments as a tree, each level sorted by name. */
export const pickerDepartmentTree = z.object({
  items: z.array(pickerDepartment).meta({ description: 'The top-level departments, each with its `children`' }),
  nextCursor: allAtOnce('the whole tree comes'),
});

const pickerDevice = z.object({
  deviceKey: z.string(),
  name: z.string(),
  serial: z.string(),
  groupKey: z.string().nullable().meta({ description: 'null: in no group' }),
  online: z.boolean(),
});
export type PickerDevice = z.output<typeof pickerDevice>;
/** `GET /v1/pickers/devices`: one page of the company’s devices. */
export const pickerDevicePage = z.object({ items: z.array(pickerDevice), nextCursor });
