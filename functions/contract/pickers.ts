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

/** A person as a picker shows them: enough to recognise and choose, nothing more. */
export interface PickerPerson {
  employeeKey?: string;
  visitorKey?: string;
  name: string;
  personId: string;
  groupKey: string;
  departmentKey?: string | null;
  hasPhoto: boolean;
  /** A short-lived link to the photo, to tell people with the same name apart. */
  avatarUrl: string | null;
}

export interface PickerGroup {
  groupKey: string;
  name: string;
  type: GroupType;
}

export interface PickerDepartment {
  departmentKey: string;
  name: string;
  parentKey: string | null;
  children: PickerDepartment[];
}

export interface PickerDevice {
  deviceKey: string;
  name: string;
  serial: string;
  groupKey: string | null;
  online: boolean;
}
