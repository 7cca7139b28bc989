import { useQuery } from '@tanstack/react-query';
import type { PhotoRulesView, PresignedUpload, StoredFile } from '@passcloud/functions/contract/files';
import type { DepartmentNodeJson, Employee, GroupJson, Visitor } from '@passcloud/functions/contract/people';
import { api } from '../../app/api.ts';
import { putFile } from '../../app/upload.ts';
import type { PhotoContentType } from './photoCheck.ts';

export type Kind = 'employee' | 'visitor';

/** What a group holds: employees, visitors or devices. */
export type GroupKind = Kind | 'device';

/** A person of either kind as the API answers one: a visitor's fields, and an employee's where it is one. */
export type Person = Omit<Visitor, 'visitorKey'> & Partial<Pick<Visitor, 'visitorKey'>> & Partial<Omit<Employee, keyof Visitor>>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
  totalAtLeast?: number;
}

/** What the people routes answer (functions/contract/people.ts). */
export type Group = GroupJson;
export type Department = DepartmentNodeJson;

export const basePath = (kind: Kind): string => (kind === 'employee' ? '/v1/employees' : '/v1/visitors');
export const keyOf = (person: Person): string => person.employeeKey ?? person.visitorKey ?? '';
/** Screen paths of each kind (SPEC.md §2). */
export const screens = (kind: Kind) => {
  const root = kind === 'employee' ? '/pass-platform/enterprise/employee' : '/pass-platform/personnel/management';
  return {
    list: root,
    create: `${root}/create`,
    detail: (key: string) => `${root}/${key}`,
    importInfo: `${root}/import/info`,
    importAvatar: `${root}/import/avatar`,
    resigned: `${root}/resigned`,
  };
};

/** The query key of the company's groups of a kind. */
export const groupsKey = (kind: GroupKind) => ['groups', kind];

/** The company's groups of a kind, for filters, fields and the group manager; a change to groups reads them again. */
export const useGroups = (kind: GroupKind) =>
  useQuery({ queryKey: groupsKey(kind), queryFn: () => api.get<Page<Group>>('/v1/groups', { query: { type: kind } }).then((p) => p.items) });

/** The department tree (employees have departments); a change to departments reads it again. */
export const useDepartments = (enabled = true) =>
  useQuery({ queryKey: ['departments'], queryFn: () => api.get<Page<Department>>('/v1/departments').then((p) => p.items), enabled });

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
  const presigned = await api.post<PresignedUpload>(
    '/v1/files/uploads/presign',
    { kind: 'avatar', filename: file.name, size: file.size, contentType },
    { silent: true },
  );
  await putFile(presigned.upload, file, onPercent);
  return api.post<StoredFile>(`/v1/files/uploads/${presigned.uploadKey}/complete`, undefined, { silent: true });
}

/** What a person's photo must be in this company: SPEC's minimum raised to what its face terminals need. */
export const usePhotoRules = () => useQuery({ queryKey: ['photoRules'], queryFn: () => api.get<PhotoRulesView>('/v1/files/photoRules') });
