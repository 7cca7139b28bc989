import { PERSONNEL_COLUMNS, departmentBody, employeeCreateBody, groupBody, visitorCreateBody, type PersonKind, type TemplateColumn } from '#contract/people';
import type { FieldIssue } from '#lib/errors';
import type { MessageId } from '#lib/i18n';

/** Rules of the personnel workbook, free of I/O. */

export const IMPORT_MAX_BYTES = 2 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 20_000;
export const PHOTO_MAX_BYTES = 500 * 1024;
export const ZIP_MAX_ENTRIES = 20_000;
export const ZIP_MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024;
/** A photo archive uploaded for a background import. */
export const ARCHIVE_MAX_BYTES = 1024 * 1024 * 1024;
/**
 * A background import not finished this long after it was started has stopped: Lambda holds a
 * queued run at most 15 minutes (the stack's maximum event age) and a run lasts at most 15.
 */
export const IMPORT_STALE_MS = 30 * 60 * 1000;

export type ColumnKey = TemplateColumn['key'];

const normalizeHeader = (text: string): string => text.replace(/[*＊]/g, '').trim().toLowerCase();

/**
 * Finds each template column in the header row. `names` lists, per column, every header text
 * accepted for it (the English and Chinese template, and the column names in every language).
 */
export function mapHeaders(header: string[], names: Record<ColumnKey, string[]>): { columns: Partial<Record<ColumnKey, number>>; missing: ColumnKey[] } {
  const wanted = new Map<string, ColumnKey>();
  for (const [key, list] of Object.entries(names) as [ColumnKey, string[]][]) for (const name of list) wanted.set(normalizeHeader(name), key);
  const columns: Partial<Record<ColumnKey, number>> = {};
  header.forEach((text, index) => {
    const key = wanted.get(normalizeHeader(text));
    if (key && columns[key] === undefined) columns[key] = index;
  });
  const missing = PERSONNEL_COLUMNS.filter((c) => c.required && columns[c.key] === undefined).map((c) => c.key);
  return { columns, missing };
}

const GENDERS: Record<string, 'male' | 'female'> = { male: 'male', m: 'male', '男': 'male', female: 'female', f: 'female', '女': 'female' };

/** Gender as written in a workbook (male/female, m/f, 男/女, or the name in the reader's language). */
export function parseGender(text: string, localized: Record<string, 'male' | 'female'> = {}): 'male' | 'female' | undefined {
  const key = text.trim().toLowerCase();
  return GENDERS[key] ?? localized[key];
}

/**
 * A workbook row as the person schemas check it, except that it names its group and department:
 * they are found by name, or created, only for a row that is valid otherwise.
 */
export const IMPORT_ROW_SCHEMAS = {
  employee: employeeCreateBody.omit({ groupKey: true, departmentKey: true }).extend({ group: groupBody.shape.name, department: departmentBody.shape.name.optional() }),
  visitor: visitorCreateBody.omit({ groupKey: true }).extend({ group: groupBody.shape.name }),
};

/**
 * A row's cells as IMPORT_ROW_SCHEMAS take them, and the gender when it cannot be read: the
 * schema would only see it missing.
 */
export function readRow(kind: PersonKind, cell: (key: ColumnKey) => string, genders: Record<string, 'male' | 'female'>) {
  const gender = parseGender(cell('gender'), genders);
  const issues: FieldIssue[] = cell('gender') && !gender ? [{ path: 'gender', message: 'import.badGender' }] : [];
  const candidate: Record<string, unknown> = {
    personId: cell('personId'),
    name: cell('name'),
    role: cell('role'),
    gender,
    group: cell('group'),
    phone: cell('phone') || undefined,
    email: cell('email') || undefined,
    icCard: cell('icCard') || undefined,
    remark: cell('remark') || undefined,
  };
  if (kind === 'employee') candidate.department = cell('department') || undefined;
  return { candidate, issues };
}

/**
 * Every problem of a row, once, in the order of the template's columns: what the schema says
 * about a field another check has already explained is left out.
 */
export function rowIssues(checked: FieldIssue[], schema: FieldIssue[]): FieldIssue[] {
  const explained = new Set(checked.map((issue) => issue.path));
  const column = (issue: FieldIssue) => {
    const at = PERSONNEL_COLUMNS.findIndex((c) => c.key === issue.path);
    return at === -1 ? PERSONNEL_COLUMNS.length : at;
  };
  return [...checked, ...schema.filter((issue) => !explained.has(issue.path))].sort((a, b) => column(a) - column(b));
}

export type ZipEntryVerdict =
  | { kind: 'folder' }
  | { kind: 'photo'; personId: string; extension: 'jpg' | 'png' }
  | { kind: 'skip'; reason: 'zip.unsafePath' | 'zip.link' | 'zip.notInPhotoFolder' | 'zip.badName' };

/**
 * What an archive entry is, by its name alone: a photo is `photo/<personnel ID>.jpg|.png`, at the
 * top or under one wrapping folder. Names that climb out (`..`), start at a root or drive, or use
 * backslashes are refused, as are symbolic links.
 */
export function judgeZipEntry(name: string, isLink: boolean): ZipEntryVerdict {
  if (isLink) return { kind: 'skip', reason: 'zip.link' };
  if (name.includes('\\') || name.startsWith('/') || /^[a-zA-Z]:/.test(name) || name.split('/').some((part) => part === '..')) {
    return { kind: 'skip', reason: 'zip.unsafePath' };
  }
  if (name.endsWith('/')) return { kind: 'folder' };
  const parts = name.split('/');
  const folder = parts.at(-2);
  if (folder?.toLowerCase() !== 'photo' || parts.length > 3) return { kind: 'skip', reason: 'zip.notInPhotoFolder' };
  const match = /^(.+)\.(jpe?g|png)$/i.exec(parts.at(-1)!);
  if (!match || !match[1]!.trim()) return { kind: 'skip', reason: 'zip.badName' };
  return { kind: 'photo', personId: match[1]!.trim(), extension: match[2]!.toLowerCase() === 'png' ? 'png' : 'jpg' };
}

/** The message naming each column, in headers of imports and exports. */
export const COLUMN_MESSAGE: Record<ColumnKey, MessageId> = {
  personId: 'column.personId',
  name: 'column.name',
  role: 'column.role',
  gender: 'column.gender',
  group: 'column.group',
  phone: 'column.phone',
  email: 'column.email',
  icCard: 'column.icCard',
  department: 'column.department',
  remark: 'column.remark',
};
