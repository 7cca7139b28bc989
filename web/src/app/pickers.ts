import type { PickerDepartment, PickerDevice, PickerGroup, PickerPerson } from '@passcloud/functions/contract/pickers';
import type { GroupType } from '@passcloud/functions/contract/people';
import { api } from './api.ts';
import type { RequestOptions } from './request.ts';

/**
 * Names and keys to choose people, groups, departments and devices from (GET /v1/pickers/*):
 * open to every permission whose screens choose them, where the full lists are not.
 */
export type { PickerDepartment, PickerDevice, PickerGroup, PickerPerson };

export interface PickerPage<T> {
  items: T[];
  nextCursor: string | null;
}

export const pickGroups = (type: GroupType, options: RequestOptions = {}) =>
  api.get<PickerPage<PickerGroup>>('/v1/pickers/groups', { ...options, query: { type } }).then((p) => p.items);
export const pickDepartments = () => api.get<PickerPage<PickerDepartment>>('/v1/pickers/departments').then((p) => p.items);

/** Every device of the company (all pages, at most `pages` of 200). */
export async function pickDevices(pages = Infinity, options: RequestOptions = {}): Promise<PickerDevice[]> {
  const out: PickerDevice[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < pages; page++) {
    const answer = await api.get<PickerPage<PickerDevice>>('/v1/pickers/devices', { ...options, query: { pageSize: 200, cursor } });
    out.push(...answer.items);
    if (!answer.nextCursor) break;
    cursor = answer.nextCursor;
  }
  return out;
}

/** A person's key, whichever kind they are. */
export const pickedKey = (person: PickerPerson): string => person.employeeKey ?? person.visitorKey ?? '';
