import * as z from 'zod';
import { erasureReceiptAnswer } from '#contract/erasures';
import {
  PERSON_KEY_PARAMS,
  archiveImportAnswer,
  importJobAnswer,
  importJobBody,
  importJobCreated,
  importJobParams,
  versionQuery,
  workbookImportAnswer,
  type Employee,
  type PersonKind,
  type Visitor,
} from '#contract/people';
import { exportJobParams, jobStarted, recordExportJob } from '#contract/passRecords';
import { findAttendanceGroup, noteRulesChanged } from '#data/attendanceRules';
import { findDepartment } from '#data/departments';
import { findGroup } from '#data/groups';
import { createPerson, deletePerson, requirePerson, updatePerson, type Person, type PersonChanges, type PersonInput } from '#data/people';
import { listPeople, type PeopleFilter } from '#data/peopleLists';
import { groupWithoutAttendance } from '#domain/people';
import { ValidationError, type FieldIssue } from '#lib/errors';
import { created, deleted, ok, queued, sessionRoute, type HandlerDef } from '#lib/http';
import { deleteObject, objectExists, presignedGet } from '#lib/storage';
import { erasePerson, erasureReceipt } from '#flows/erasure';
import { createJob, readJob, startJob } from '#flows/importJobs';
import { importPhotos, importWorkbook } from '#flows/peopleImport';
import { exportJson, requireExport, startExport } from '#flows/exportJobs';

/** What employees and visitors share: their routes, the JSON of a person, reference checks, listing and deletion. */

const KEY_NAME = { employee: 'employeeKey', visitor: 'visitorKey' } as const;

/** A person as the API answers them, of either kind. */
export type PersonJson = Employee | Visitor;

/** The fields both kinds answer. */
async function sharedJson(person: Person) {
  return {
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
}

/** An employee as the API answers them (contract `employeeAnswer`). */
export async function employeeJson(person: Person): Promise<Employee> {
  return {
    employeeKey: person.personKey,
    ...(await sharedJson(person)),
    departmentKey: person.departmentKey ?? null,
    attendanceGroupKey: person.attendanceGroupKey ?? null,
    needsAttendance: person.needsAttendance ?? false,
    remoteDoorOpen: person.remoteDoorOpen ?? false,
    state: person.state,
    resignedAt: person.resignedAt ?? null,
  };
}

/** A person as the API answers them: an employee (`employeeAnswer`) or a visitor (`visitorAnswer`). */
export async function personJson(person: Person): Promise<PersonJson> {
  if (person.kind === 'employee') return employeeJson(person);
  return { visitorKey: person.personKey, ...(await sharedJson(person)) };
}

/**
 * The group must exist and be of the person's kind, the department and attendance group must exist,
 * the photo must be an upload of this tenant; an employee in an attendance group needs attendance
 * (`before`: the employee a change applies to, none for a new one).
 */
export async function checkReferences(tenantId: string, kind: PersonKind, input: PersonChanges, before?: Person): Promise<void> {
  const issues: FieldIssue[] = [];
  if (kind === 'employee' && groupWithoutAttendance(before, input)) issues.push({ path: 'needsAttendance', message: 'people.groupNeedsAttendance' });
  if (input.groupKey) {
    const group = await findGroup(tenantId, input.groupKey);
    if (!group || group.type !== kind) issues.push({ path: 'groupKey', message: 'people.groupMissing' });
  }
  if (input.departmentKey && !(await findDepartment(tenantId, input.departmentKey))) issues.push({ path: 'departmentKey', message: 'people.departmentMissing' });
  if (input.attendanceGroupKey && !(await findAttendanceGroup(tenantId, input.attendanceGroupKey))) {
    issues.push({ path: 'attendanceGroupKey', message: 'attendance.groupMissing' });
  }
  if (input.avatar && !(await objectExists('photos', tenantId, input.avatar))) issues.push({ path: 'avatar', message: 'people.avatarMissing' });
  if (issues.length) throw new ValidationError(issues);
}

export async function listJson(tenantId: string, kind: PersonKind, filter: PeopleFilter, pageSize: number, cursor?: string) {
  const page = await listPeople(tenantId, kind, filter, pageSize, cursor);
  return { ...page, items: await Promise.all(page.items.map(personJson)) };
}

/**
 * Deletes the person: their record, unique claims, search terms and photo; their authorizations
 * are revoked, so every terminal is told to delete the face (and blacklist entries end). What a
 * plain delete keeps: the pass records, which are the company's access history, with their
 * captures and names, until the privacy settings' retention periods end them (captures by the
 * retention sweep and the bucket's lifecycle, records by their TTL); and the attendance computed
 * from them. Erasing (erasure.ts) removes those too.
 */
export async function removePerson(tenantId: string, kind: PersonKind, personKey: string, version: number): Promise<void> {
  const person = await deletePerson(tenantId, kind, personKey, version);
  await noteAttendanceChange(person, undefined);
  if (person.avatar) await deleteObject('photos', tenantId, person.avatar);
}

/** An employee joining, leaving or moving between attendance groups changes whose days count. */
async function noteAttendanceChange(before: Person | undefined, after: Person | undefined): Promise<void> {
  const counted = (p: Person | undefined) => (p?.kind === 'employee' && p.needsAttendance && p.attendanceGroupKey ? p.attendanceGroupKey : null);
  const tenantId = (before ?? after)!.tenantId;
  if (counted(before) !== counted(after)) await noteRulesChanged(tenantId);
}

type Base<K extends PersonKind> = `/v1/${K}s`;
type Item<K extends PersonKind> = `${Base<K>}/{${K}Key}`;
/** The routes both kinds have; employees add leaving and coming back. */
type SharedRoute<K extends PersonKind> =
  | `GET ${Base<K>}`
  | `POST ${Base<K>}`
  | `POST ${Base<K>}/exports`
  | `GET ${Base<K>}/exports/{jobKey}`
  | `POST ${Base<K>}/imports`
  | `POST ${Base<K>}/imports/avatars`
  | `POST ${Base<K>}/imports/jobs`
  | `GET ${Base<K>}/imports/jobs/{jobKey}`
  | `POST ${Base<K>}/imports/jobs/{jobKey}/start`
  | `GET ${Item<K>}`
  | `PATCH ${Item<K>}`
  | `DELETE ${Item<K>}`
  | `POST ${Item<K>}/erase`
  | `GET ${Item<K>}/erasure`;

type SharedRoutes<K extends PersonKind> = { [R in SharedRoute<K>]: HandlerDef<'session'> };

/** A page of people as the list answers it. */
interface PersonPageJson {
  items: PersonJson[];
  nextCursor: string | null;
  total?: number | undefined;
  totalAtLeast?: number | undefined;
}

interface PersonSchemas {
  listQuery: z.ZodType<PeopleFilter & { pageSize: number; cursor?: string | undefined }>;
  createBody: z.ZodType<PersonInput>;
  patchBody: z.ZodType<PersonChanges & { version: number }>;
  /** What a read, a creation and a change answer: the kind's person (`employeeAnswer`, `visitorAnswer`). */
  answer: z.ZodType<PersonJson, PersonJson>;
  /** What the list answers (`employeePage`, `visitorPage`). */
  page: z.ZodType<PersonPageJson, PersonPageJson>;
}

/**
 * The routes of one kind of person (`/v1/employees` or `/v1/visitors`): list, create, export,
 * import, read, change and delete. The kinds differ only in their fields and list filters.
 */
export function personRoutes<K extends PersonKind>(kind: K, schemas: PersonSchemas): SharedRoutes<K> {
  const base = `/v1/${kind}s`;
  const item = `${base}/{${kind}Key}`;
  const keyParams = PERSON_KEY_PARAMS[kind];
  const keyOf = (params: unknown) => (params as Record<string, string>)[KEY_NAME[kind]]!;
  const routes = {
    [`GET ${base}`]: sessionRoute({
      query: schemas.listQuery,
      answer: schemas.page,
      async handle({ auth, query }) {
        const { pageSize, cursor, ...filter } = query;
        return ok(await listJson(auth.tenantId, kind, filter, pageSize, cursor));
      },
    }),
    [`POST ${base}`]: sessionRoute({
      body: schemas.createBody,
      answer: schemas.answer,
      async handle({ auth, body }) {
        await checkReferences(auth.tenantId, kind, body);
        const person = await createPerson(auth.tenantId, kind, body);
        await noteAttendanceChange(undefined, person);
        return created(await personJson(person));
      },
    }),
    [`POST ${base}/exports`]: sessionRoute({
      body: schemas.listQuery,
      answer: jobStarted,
      async handle({ auth, body, locale }) {
        const { pageSize: _pageSize, cursor: _cursor, ...filter } = body;
        // The filter is read as the list reads it: a group or department of no one matches no one.
        return startExport(auth.tenantId, `${kind}s`, filter, locale, async () => undefined);
      },
    }),
    [`GET ${base}/exports/{jobKey}`]: sessionRoute({
      params: exportJobParams,
      answer: recordExportJob,
      async handle({ auth, params }) {
        return ok(await exportJson(await requireExport(auth.tenantId, `${kind}s`, params.jobKey)));
      },
    }),
    [`POST ${base}/imports`]: sessionRoute({
      raw: true,
      answer: workbookImportAnswer,
      async handle({ auth, headers, rawBody, locale }) {
        return created(await importWorkbook(auth.tenantId, kind, headers, rawBody, locale));
      },
    }),
    [`POST ${base}/imports/avatars`]: sessionRoute({
      raw: true,
      answer: archiveImportAnswer,
      async handle({ auth, headers, rawBody, locale }) {
        return created(await importPhotos(auth.tenantId, kind, headers, rawBody, locale));
      },
    }),
    [`POST ${base}/imports/jobs`]: sessionRoute({
      body: importJobBody,
      answer: importJobCreated,
      async handle({ auth, body, locale }) {
        return created(await createJob(auth.tenantId, kind, body, locale));
      },
    }),
    [`GET ${base}/imports/jobs/{jobKey}`]: sessionRoute({
      params: importJobParams,
      answer: importJobAnswer,
      async handle({ auth, params, locale }) {
        return ok(await readJob(auth.tenantId, kind, params.jobKey, locale));
      },
    }),
    [`POST ${base}/imports/jobs/{jobKey}/start`]: sessionRoute({
      params: importJobParams,
      answer: importJobAnswer,
      async handle({ auth, params, locale }) {
        return queued(await startJob(auth.tenantId, kind, params.jobKey, locale));
      },
    }),
    [`GET ${item}`]: sessionRoute({
      params: keyParams,
      answer: schemas.answer,
      async handle({ auth, params }) {
        return ok(await personJson(await requirePerson(auth.tenantId, kind, keyOf(params))));
      },
    }),
    [`PATCH ${item}`]: sessionRoute({
      params: keyParams,
      body: schemas.patchBody,
      answer: schemas.answer,
      async handle({ auth, params, body }) {
        const { version, ...changes } = body;
        const current = await requirePerson(auth.tenantId, kind, keyOf(params));
        await checkReferences(auth.tenantId, kind, changes, current);
        const person = await updatePerson(current, version, changes);
        await noteAttendanceChange(current, person);
        return created(await personJson(person));
      },
    }),
    [`DELETE ${item}`]: sessionRoute({
      params: keyParams,
      query: versionQuery,
      answer: z.null(),
      async handle({ auth, params, query }) {
        await removePerson(auth.tenantId, kind, keyOf(params), query.version);
        return deleted();
      },
    }),
    [`POST ${item}/erase`]: sessionRoute({
      params: keyParams,
      answer: erasureReceiptAnswer,
      async handle({ auth, params }) {
        const receipt = await erasePerson(auth.tenantId, kind, keyOf(params), auth.account.username);
        return receipt.state === 'done' ? ok(receipt) : queued(receipt);
      },
    }),
    [`GET ${item}/erasure`]: sessionRoute({
      params: keyParams,
      answer: erasureReceiptAnswer,
      async handle({ auth, params }) {
        return ok(await erasureReceipt(auth.tenantId, kind, keyOf(params)));
      },
    }),
  };
  // The keys are built from the kind; the type names them for defineResource's check.
  return routes as SharedRoutes<K>;
}
