import type { PresignedUpload, StoredFile } from '@passcloud/functions/contract/files';
import { api } from '../../app/api.ts';
import { putFile } from '../../app/upload.ts';
import type { PhotoContentType } from './photoCheck.ts';

export type Kind = 'employee' | 'visitor';

export interface Person {
  employeeKey?: string;
  visitorKey?: string;
  personId: string;
  name: string;
  role: string;
  gender: 'male' | 'female';
  groupKey: string;
  departmentKey?: string | null;
  attendanceGroupKey?: string | null;
  needsAttendance?: boolean;
  remoteDoorOpen?: boolean;
  phone: string | null;
  email: string | null;
  icCard: string | null;
  avatar: string | null;
  avatarUrl: string | null;
  remark: string | null;
  state?: 'active' | 'resigned';
  resignedAt?: string | null;
  createTime: string;
  version: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
  totalAtLeast?: number;
}

export interface Group {
  groupKey: string;
  name: string;
  type: Kind;
  version: number;
}

export interface Department {
  departmentKey: string;
  name: string;
  parentKey: string | null;
  version: number;
  children: Department[];
}

export const basePath = (kind: Kind): string => (kind === 'employee' ? '/v1/employees' : '/v1/visitors');
export const keyOf = (person: Person): string => person.employeeKey ?? person.visitorKey ?? '';
/** Screen paths of each kind (SPEC.md §2). */
export const screens = (kind: Kind) => {
  const root = kind === 'employee' ? '/pass-platform/enterprise/employee' : '/pass-platform/personnel/management';
  return { list: root, create: `${root}/create`, detail: (key: string) => `${root}/${key}`, importInfo: `${root}/import/info`, importAvatar: `${root}/import/avatar`, resigned: `${root}/resigned` };
};

export const loadGroups = (kind: Kind) => api.get<Page<Group>>('/v1/groups', { query: { type: kind } }).then((p) => p.items);
export const loadDepartments = () => api.get<Page<Department>>('/v1/departments').then((p) => p.items);

export function flattenDepartments<T extends { children: T[] }>(tree: T[], depth = 0): { department: T; depth: number }[] {
  return tree.flatMap((d) => [{ department: d, depth }, ...flattenDepartments(d.children, depth + 1)]);
}

/** Downloads the filtered list as a workbook (the request carries the token, so it goes through fetch). */

/**
 * Uploads a person's photo: presign (the type and size are checked), PUT the file straight to
 * storage with its progress, then complete (the photo is judged and stored). Answers the file
 * key to save as the person's avatar and a link to show it.
 */
export async function uploadPhoto(file: File, contentType: PhotoContentType, onPercent: (percent: number) => void): Promise<StoredFile> {
  const presigned = await api.post<PresignedUpload>('/v1/files/uploads/presign', { kind: 'avatar', filename: file.name, size: file.size, contentType }, { silent: true });
  await putFile(presigned.upload, file, onPercent);
  return api.post<StoredFile>(`/v1/files/uploads/${presigned.uploadKey}/complete`, undefined, { silent: true });
}
