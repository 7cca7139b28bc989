import { LOCALES, type Locale } from '#contract/locales';
import { PERSONNEL_COLUMNS, type PersonKind } from '#contract/people';
import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  IMPORT_ROW_SCHEMAS,
  PHOTO_MAX_BYTES,
  ZIP_MAX_ENTRIES,
  ZIP_MAX_UNPACKED_BYTES,
  judgeZipEntry,
  mapHeaders,
  readRow,
  rowIssues,
  COLUMN_MESSAGE,
  type ColumnKey,
} from '#domain/peopleImport';
import { uniqueValue } from '#domain/people';
import { IMAGE_MAX, IMAGE_MIN, ONE_REQUEST_MAX_BYTES, judgeImage } from '#domain/uploads';
import { createDepartment, listDepartments } from '#data/departments';
import { createGroup, listGroups } from '#data/groups';
import { findClaims, findPeople, findPerson, personUniques, updatePerson, type Person, type PersonInput } from '#data/people';
import { createPeople } from '#data/peopleBatch';
import { newId } from '#lib/crypto';
import { AppError, ConflictError, ValidationError, fieldError, type FieldIssue } from '#lib/errors';
import { catalogs, translate, type MessageId, type MessageParams } from '#lib/i18n';
import { conflictIssue, issueSentence, zodIssues } from '#lib/issues';
import { parseMultipart } from '#lib/multipart';
import { pool } from '#lib/pool';
import { deleteObject, putObject } from '#lib/storage';
import { readFirstSheet } from '#lib/xlsx';
import { isZip, listZip, type ZipEntry } from '#lib/zip';
import { companyPhotoRules, tooSmall } from '#views/photoRules';
import { PERSON_UNIQUE } from '#data/keys/main';

/** Two-step import (workbook, then photo archive) of employees and visitors; their export is jobs/peopleExports.ts's. */

/** Header texts accepted per column: both templates and the column names in every language. */
function headerNames(): Record<ColumnKey, string[]> {
  const names = {} as Record<ColumnKey, string[]>;
  for (const column of PERSONNEL_COLUMNS) names[column.key] = [column.en, column.zh, ...LOCALES.map((l) => catalogs[l][COLUMN_MESSAGE[column.key]])];
  return names;
}

function localizedGenders(): Record<string, 'male' | 'female'> {
  const out: Record<string, 'male' | 'female'> = {};
  for (const locale of LOCALES) {
    out[catalogs[locale]['value.male'].toLowerCase()] = 'male';
    out[catalogs[locale]['value.female'].toLowerCase()] = 'female';
  }
  return out;
}

/** The file of a multipart body; `truncated` when it is larger than `maxBytes`. */
async function fileOf(headers: Record<string, string | undefined>, body: Buffer, maxBytes: number) {
  const form = await parseMultipart(headers['content-type'], body, maxBytes + 1);
  const file = form.files.find((f) => f.field === 'file');
  if (!file || file.data.length === 0) throw fieldError('file', 'upload.fileMissing');
  return file;
}

/** Finds a group or department by name, creating it once when it is new. */
function nameResolver(existing: { key: string; name: string }[], create: (name: string) => Promise<string>) {
  const known = new Map<string, Promise<string>>(existing.map((e) => [e.name.trim().toLowerCase(), Promise.resolve(e.key)]));
  return (name: string): Promise<string> => {
    const normalized = name.trim().toLowerCase();
    let key = known.get(normalized);
    if (!key) {
      key = create(name.trim());
      known.set(normalized, key);
    }
    return key;
  };
}

/** The key of a group or department by name or, when it could not be created, the row's issue. */
async function keyOrIssue(path: 'group' | 'department', name: string, keyOf: (name: string) => Promise<string>): Promise<string | FieldIssue> {
  try {
    return await keyOf(name);
  } catch (error) {
    // A refusal (another import claimed the name meanwhile) is this row's problem; anything else stops the import.
    if (!(error instanceof AppError)) throw error;
    return { path, message: 'import.notCreated', params: { name } };
  }
}

export interface ImportRow {
  row: number;
  personId: string;
  status: 'created' | 'updated' | 'rejected';
  reasons?: string[];
}

/** Why a row or a whole import was refused, one sentence per problem, each naming its column or field. */
export function reasonsOf(error: unknown, locale: Locale): string[] {
  if (error instanceof ValidationError) return error.issues.map((issue) => issueSentence(issue, locale));
  if (error instanceof ConflictError && error.field) return [issueSentence(conflictIssue(error.field, error), locale)];
  if (error instanceof AppError) return [translate(locale, error.messageId, error.params)];
  throw error;
}

/** Called as work goes on: how many of how many rows or entries are done. */
export type Progress = (processed: number, total: number) => void;

/**
 * The one-request imports answer a report line per row or entry, and Lambda returns at most
 * 6 MB: a rejected row with every reason in Russian takes about 700 bytes, a skipped entry about
 * 200 more than its names, so one request takes fewer rows and entries than a background import.
 */
export const REQUEST_MAX_ROWS = 5_000;
export const REQUEST_MAX_ENTRIES = 10_000;

/** Step one, as one request: the workbook in a multipart body, at most 5,000 rows so the report fits in the response. */
export async function importWorkbook(tenantId: string, kind: PersonKind, headers: Record<string, string | undefined>, body: Buffer, locale: Locale) {
  const file = await fileOf(headers, body, IMPORT_MAX_BYTES);
  if (file.truncated) throw fieldError('file', 'upload.tooBig', { max: IMPORT_MAX_BYTES / 1024 / 1024 });
  if (!file.filename.toLowerCase().endsWith('.xlsx')) throw fieldError('file', 'import.notXlsx');
  return importRows(tenantId, kind, file.data, locale, undefined, REQUEST_MAX_ROWS);
}

/** Step one: the workbook's rows. Each is created, updated (same personnel ID) or rejected with its reasons. */
export async function importRows(tenantId: string, kind: PersonKind, data: Buffer, locale: Locale, progress?: Progress, maxRows = IMPORT_MAX_ROWS) {
  if (!isZip(data)) throw fieldError('file', 'import.notXlsx');
  let sheet: string[][];
  try {
    sheet = await readFirstSheet(data);
  } catch {
    throw fieldError('file', 'import.notXlsx');
  }
  const { columns, missing } = mapHeaders(sheet[0] ?? [], headerNames());
  if (missing.length) throw fieldError('file', 'import.noHeader', { columns: missing.map((c) => translate(locale, COLUMN_MESSAGE[c])).join(', ') });
  const rows = sheet
    .slice(1)
    .map((cells, i) => ({ number: i + 2, cells }))
    .filter((r) => r.cells.some((c) => c.trim()));
  if (rows.length > maxRows) throw fieldError('file', 'import.tooManyRows', { max: maxRows });
  progress?.(0, rows.length);

  const groupKeyOf = nameResolver(
    (await listGroups(tenantId, kind)).map((g) => ({ key: g.groupKey, name: g.name })),
    async (name) => {
      try {
        return (await createGroup(tenantId, name, kind)).groupKey;
      } catch (error) {
        // Created meanwhile (by an import running at the same time, say): that group is the one.
        if (!(error instanceof AppError)) throw error;
        const made = (await listGroups(tenantId, kind)).find((g) => g.name.trim().toLowerCase() === name.toLowerCase());
        if (!made) throw error;
        return made.groupKey;
      }
    },
  );
  const departmentKeyOf = nameResolver(
    (await listDepartments(tenantId)).map((d) => ({ key: d.departmentKey, name: d.name })),
    async (name) => (await createDepartment(tenantId, name)).departmentKey,
  );
  const genders = localizedGenders();
  const schema = IMPORT_ROW_SCHEMAS[kind];

  // Every row is checked first, without I/O, so its report lists every problem at once.
  const checked: CheckedRow[] = rows.map(({ number, cells }) => {
    const cell = (key: ColumnKey) => (columns[key] === undefined ? '' : (cells[columns[key]!] ?? '').trim());
    const { candidate, issues: read } = readRow(kind, cell, genders);
    const parsed = schema.safeParse(candidate, { reportInput: true });
    const issues = rowIssues(read, parsed.success ? [] : zodIssues(parsed.error.issues, locale));
    return { number, personId: cell('personId'), icCard: cell('icCard'), data: parsed.success ? parsed.data : undefined, issues };
  });

  const results: ImportRow[] = new Array(checked.length);
  let done = 0;
  const finish = (at: number, result: ImportRow) => {
    results[at] = result;
    progress?.(++done, checked.length);
  };
  const context: RowContext = { tenantId, kind, locale, groupKeyOf, departmentKeyOf };
  for (const wave of waves(checked)) {
    // A wave goes in slices, so what is held in memory at once stays small; while one slice is
    // written, the next is looked up.
    const slices: number[][] = [];
    for (let from = 0; from < wave.length; from += IMPORT_SLICE) slices.push(wave.slice(from, from + IMPORT_SLICE));
    await pool(slices, 2, (slice) =>
      importWave(
        context,
        slice.map((at) => ({ at, row: checked[at]! })),
        finish,
        true,
      ),
    );
  }
  const count = (status: ImportRow['status']) => results.filter((r) => r.status === status).length;
  return { created: count('created'), updated: count('updated'), rejected: count('rejected'), rows: results };
}

/** Rows of a wave looked up and written together. */
const IMPORT_SLICE = 500;

/** A workbook row as read and checked by the schema, before anything is looked up. */
interface CheckedRow {
  number: number;
  personId: string;
  icCard: string;
  /** The row as the schema parsed it; undefined when it failed. */
  data: ReturnType<(typeof IMPORT_ROW_SCHEMAS)[PersonKind]['parse']> | undefined;
  issues: FieldIssue[];
}

interface RowContext {
  tenantId: string;
  kind: PersonKind;
  locale: Locale;
  groupKeyOf: (name: string) => Promise<string>;
  departmentKeyOf: (name: string) => Promise<string>;
}

/**
 * The rows in waves that are imported one after the other, rows of a wave together: a row comes
 * in a wave after every earlier row with the same personnel ID or IC card, so a personnel ID
 * twice in the workbook is created by its first row and updated by the next, and an IC card
 * claimed by an earlier row is taken for a later one, as if the rows were imported one by one.
 */
function waves(rows: readonly CheckedRow[]): number[][] {
  const out: number[][] = [];
  const last = new Map<string, number>();
  rows.forEach((row, at) => {
    const keys = [
      row.personId && PERSON_UNIQUE.of('personId', uniqueValue(row.personId)),
      row.icCard && PERSON_UNIQUE.of('icCard', uniqueValue(row.icCard)),
    ].filter(Boolean);
    const wave = Math.max(-1, ...keys.map((k) => last.get(k) ?? -1)) + 1;
    for (const k of keys) last.set(k, wave);
    (out[wave] ??= []).push(at);
  });
  return out;
}

/**
 * Imports rows of distinct personnel IDs and IC cards: their claims and people are read in
 * batches, the rows that name an existing person update it, and the new people are created
 * together (createPeople). A new row refused because its personnel ID or IC card was claimed
 * meanwhile (another import of the same people at the same time) is imported again on its own,
 * reading the claims afresh: it then updates the person the other import created, or is rejected
 * with its reason, as it would have been had it come after.
 */
async function importWave(
  context: RowContext,
  wave: { at: number; row: CheckedRow }[],
  finish: (at: number, result: ImportRow) => void,
  retry: boolean,
): Promise<void> {
  const { tenantId, kind, locale } = context;
  const unexplained = (row: CheckedRow, path: string) => !row.issues.some((issue) => issue.path === path);
  const byId = await findClaims(
    tenantId,
    'personId',
    wave.filter(({ row }) => unexplained(row, 'personId')).map(({ row }) => row.personId),
  );
  const cardsOf = wave.filter(({ row }) => row.icCard && unexplained(row, 'icCard'));
  const byCard = await findClaims(
    tenantId,
    'icCard',
    cardsOf.map(({ row }) => row.icCard),
  );
  const found = await findPeople(tenantId, kind, [...byId.values()]);

  const reject = (at: number, row: CheckedRow, error: unknown) =>
    finish(at, { row: row.number, personId: row.personId, status: 'rejected', reasons: reasonsOf(error, locale) });
  const updates: { at: number; row: CheckedRow; existing: Person; input: PersonInput }[] = [];
  const creates: { at: number; row: CheckedRow; input: PersonInput }[] = [];
  const again: { at: number; row: CheckedRow }[] = [];
  await Promise.all(
    wave.map(async ({ at, row }) => {
      const issues = [...row.issues];
      let existing: Person | undefined;
      const holder = unexplained(row, 'personId') ? byId.get(row.personId) : undefined;
      if (holder) {
        existing = found.get(holder);
        if (!existing) issues.push({ path: 'personId', message: 'import.otherList' });
      }
      const cardHolder = row.icCard && unexplained(row, 'icCard') ? byCard.get(row.icCard) : undefined;
      // The two claims were read one after the other: a person another import made in between
      // holds the card but was not yet found by the personnel ID. Read both again once.
      if (cardHolder && !existing && retry && !issues.length) return void again.push({ at, row });
      if (cardHolder && cardHolder !== existing?.personKey) issues.push({ path: 'icCard', message: 'people.icCardTaken' });
      if (!row.data || issues.length) return reject(at, row, new ValidationError(issues));

      // Groups and departments are created only for rows that are valid otherwise.
      const { group, department, ...fields } = row.data as typeof row.data & { department?: string };
      const [groupKey, departmentKey] = await Promise.all([
        keyOrIssue('group', group, context.groupKeyOf),
        department ? keyOrIssue('department', department, context.departmentKeyOf) : undefined,
      ]);
      const refused = [groupKey, departmentKey].filter((key): key is FieldIssue => typeof key === 'object');
      if (refused.length) return reject(at, row, new ValidationError(refused));
      const input: PersonInput = { ...fields, groupKey: groupKey as string, ...(departmentKey ? { departmentKey: departmentKey as string } : {}) };
      if (existing) updates.push({ at, row, existing, input });
      else creates.push({ at, row, input });
    }),
  );

  await pool(updates, 8, async ({ at, row, existing, input }) => {
    try {
      await updatePerson(existing, existing.version, input);
      finish(at, { row: row.number, personId: row.personId, status: 'updated' });
    } catch (error) {
      reject(at, row, error);
    }
  });

  creates.sort((a, b) => a.at - b.at);
  const stored = await createPeople(
    tenantId,
    kind,
    creates.map((c) => c.input),
  );
  stored.forEach((outcome, i) => {
    const { at, row } = creates[i]!;
    if (!(outcome instanceof ConflictError)) finish(at, { row: row.number, personId: row.personId, status: 'created' });
    else if (retry) again.push({ at, row });
    else reject(at, row, outcome);
  });
  // Rows another import got to first are read again as one wave, once: now they update.
  if (again.length) await importWave(context, again, finish, false);
}

export interface PhotoEntry {
  name: string;
  status: 'imported' | 'skipped';
  personId?: string;
  reason?: string;
}

/**
 * Step two, as one request: the archive in a multipart body, at most 4 MB so the request fits in
 * what Lambda takes, and at most 10,000 entries so the report fits in the response. Larger
 * archives go through a background import (importJobs.ts).
 */
export async function importPhotos(tenantId: string, kind: PersonKind, headers: Record<string, string | undefined>, body: Buffer, locale: Locale) {
  const file = await fileOf(headers, body, ONE_REQUEST_MAX_BYTES);
  if (file.truncated) throw fieldError('file', 'upload.tooBig', { max: ONE_REQUEST_MAX_BYTES / 1024 / 1024 });
  if (!isZip(file.data)) throw fieldError('file', 'zip.notZip');
  return importArchive(tenantId, kind, file.data, locale, undefined, REQUEST_MAX_ENTRIES);
}

/**
 * Step two: the photo archive, in memory or in a file. Bounds are checked on the central
 * directory before anything is unpacked; each photo is read with a cap of 500 KB and judged like
 * an upload.
 */
export async function importArchive(
  tenantId: string,
  kind: PersonKind,
  source: Buffer | string,
  locale: Locale,
  progress?: Progress,
  maxEntries = ZIP_MAX_ENTRIES,
) {
  let archive: Awaited<ReturnType<typeof listZip>>;
  try {
    archive = await listZip(source);
  } catch {
    throw fieldError('file', 'zip.notZip');
  }
  try {
    if (archive.entries.length > maxEntries) throw fieldError('file', 'zip.tooManyEntries', { max: maxEntries });
    const unpacked = archive.entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
    if (unpacked > ZIP_MAX_UNPACKED_BYTES) throw fieldError('file', 'zip.tooLarge', { max: ZIP_MAX_UNPACKED_BYTES / 1024 / 1024 });
    progress?.(0, archive.entries.length);
    let done = 0;
    // Judged as an upload is: by the company's photo rules, which its face terminals raise.
    const rules = await companyPhotoRules(tenantId);

    const skip = (name: string, reason: MessageId, params?: MessageParams, personId?: string): PhotoEntry => ({
      name,
      status: 'skipped',
      ...(personId ? { personId } : {}),
      reason: translate(locale, reason, params),
    });
    const month = new Date().toISOString().slice(0, 7).replace('-', '/');
    const importEntry = async (entry: ZipEntry): Promise<PhotoEntry | null> => {
      const verdict = judgeZipEntry(entry.name, entry.isLink);
      if (verdict.kind === 'folder') return null;
      if (verdict.kind === 'skip') return skip(entry.name, verdict.reason);
      const { personId } = verdict;
      if (entry.uncompressedSize > PHOTO_MAX_BYTES) return skip(entry.name, 'zip.tooBigPhoto', { max: PHOTO_MAX_BYTES / 1024 }, personId);
      const claim = (
        await personUniques()
          .get({ tenantId, field: 'personId', value: uniqueValue(personId) })
          .go()
      ).data;
      const person = claim ? await findPerson(tenantId, kind, claim.personKey) : undefined;
      if (!person) return skip(entry.name, 'zip.noSuchPerson', undefined, personId);
      let bytes: Buffer;
      try {
        bytes = await entry.read(PHOTO_MAX_BYTES);
      } catch {
        return skip(entry.name, 'zip.notImage', undefined, personId);
      }
      const image = judgeImage(bytes, rules.min);
      if (!image.ok) {
        if (!('width' in image)) return skip(entry.name, 'zip.notImage', undefined, personId);
        if (image.problem === 'upload.tooFewPixels') {
          const small = tooSmall(rules, image.width, image.height);
          return skip(entry.name, small.message, small.params, personId);
        }
        const sizes = {
          width: image.width,
          height: image.height,
          minWidth: IMAGE_MIN.width,
          minHeight: IMAGE_MIN.height,
          maxWidth: IMAGE_MAX.width,
          maxHeight: IMAGE_MAX.height,
        };
        return skip(entry.name, image.problem, sizes, personId);
      }
      const fileKey = `avatar/${month}/${newId()}.${image.type}`;
      await putObject('photos', tenantId, fileKey, bytes, image.type === 'jpg' ? 'image/jpeg' : 'image/png');
      await updatePerson(person, person.version, { avatar: fileKey });
      if (person.avatar) await deleteObject('photos', tenantId, person.avatar);
      return { name: entry.name, status: 'imported', personId };
    };
    const entries = await pool(archive.entries, 4, async (entry): Promise<PhotoEntry | null> => {
      try {
        return await importEntry(entry);
      } finally {
        progress?.(++done, archive.entries.length);
      }
    });
    const listed = entries.filter((e): e is PhotoEntry => e !== null);
    return { imported: listed.filter((e) => e.status === 'imported').length, skipped: listed.filter((e) => e.status === 'skipped').length, entries: listed };
  } finally {
    archive.close();
  }
}
