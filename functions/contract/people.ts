import * as z from 'zod';
import { itemKey } from './fields.ts';

/**
 * Columns of the personnel import template (served at /file/Personnel_import_template_EN.xlsx and
 * _ZH.xlsx); imports accept either header language.
 */
export interface TemplateColumn {
  key: 'personId' | 'name' | 'role' | 'gender' | 'group' | 'phone' | 'email' | 'icCard' | 'department' | 'remark';
  en: string;
  zh: string;
  required: boolean;
  width: number;
  example: string | number;
  exampleZh?: string;
}

export const PERSONNEL_COLUMNS: TemplateColumn[] = [
  { key: 'personId', en: 'Personnel ID', zh: '人员编号', required: true, width: 16, example: 'E0001' },
  { key: 'name', en: 'Name', zh: '姓名', required: true, width: 18, example: 'Alex Chen', exampleZh: '陈明' },
  { key: 'role', en: 'Role', zh: '角色', required: true, width: 16, example: 'Engineer', exampleZh: '工程师' },
  { key: 'gender', en: 'Gender', zh: '性别', required: true, width: 10, example: 'male', exampleZh: '男' },
  { key: 'group', en: 'Group', zh: '分组', required: true, width: 16, example: 'Default', exampleZh: '默认分组' },
  { key: 'phone', en: 'Phone', zh: '手机号', required: false, width: 16, example: '+1 555 0100' },
  { key: 'email', en: 'Email', zh: '邮箱', required: false, width: 24, example: 'alex.chen@example.com' },
  { key: 'icCard', en: 'IC card number', zh: 'IC卡号', required: false, width: 16, example: '0012345678' },
  { key: 'department', en: 'Department', zh: '部门', required: false, width: 18, example: 'R&D', exampleZh: '研发部' },
  { key: 'remark', en: 'Remark', zh: '备注', required: false, width: 24, example: '' },
];

export const GENDER_VALUES = { male: ['male', 'm', '男'], female: ['female', 'f', '女'] } as const;


export const PERSON_KINDS = ['employee', 'visitor'] as const;
export type PersonKind = (typeof PERSON_KINDS)[number];

const key = itemKey;
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .optional()
    .transform((v) => (v ? v : undefined));

/** Fields of SPEC.md §3 shared by employees and visitors. */
const personFields = {
  personId: z.string().trim().min(1).max(32).regex(/^[^\s/\\]+$/, { message: 'people.personIdFormat' }),
  name: z.string().trim().min(1).max(64),
  role: z.string().trim().min(1).max(32),
  gender: z.enum(['male', 'female']),
  groupKey: key,
  phone: optionalText(32).refine((v) => !v || /^[0-9+()\- ]{3,32}$/.test(v), { message: 'people.phoneFormat' }),
  email: optionalText(254).refine((v) => !v || z.email().safeParse(v).success, { message: 'people.emailFormat' }),
  icCard: optionalText(32).refine((v) => !v || /^[0-9A-Za-z]{4,32}$/.test(v), { message: 'people.icCardFormat' }),
  avatar: z
    .string()
    .regex(/^avatar\/\d{4}\/\d{2}\/[0-9a-z]+\.(jpg|png)$/, { message: 'people.avatarMissing' })
    .optional(),
  remark: optionalText(500),
};

/** The rule both fields of attendance follow (resources/people.ts checks it). */
const IN_GROUP = 'An employee in an attendance group needs attendance: a group with `needsAttendance` false (given, or as stored when only the group is given) answers 422 on `needsAttendance`';

const employeeFields = {
  ...personFields,
  departmentKey: key.optional(),
  attendanceGroupKey: key.optional().meta({ description: IN_GROUP }),
  needsAttendance: z.boolean().default(false),
  remoteDoorOpen: z.boolean().default(false),
};

export const employeeCreateBody = z.object(employeeFields).strict();
export const visitorCreateBody = z.object(personFields).strict();

/** A change names only the fields it changes, plus the `version` it was read at; `null` or "" clears an optional field. */
const clearable = <T extends z.ZodType<string | undefined>>(schema: T) =>
  z
    .union([z.literal(''), z.null(), schema])
    .optional()
    .transform((v) => (v === '' ? null : v));

const personPatchFields = {
  personId: personFields.personId.optional(),
  name: personFields.name.optional(),
  role: personFields.role.optional(),
  gender: personFields.gender.optional(),
  groupKey: key.optional(),
  phone: clearable(personFields.phone),
  email: clearable(personFields.email),
  icCard: clearable(personFields.icCard),
  avatar: clearable(personFields.avatar),
  remark: clearable(personFields.remark),
  version: z.number().int().min(1),
};

export const visitorPatchBody = z.object(personPatchFields).strict();
export const employeePatchBody = z
  .object({
    ...personPatchFields,
    departmentKey: clearable(key),
    attendanceGroupKey: clearable(key).meta({ description: IN_GROUP }),
    needsAttendance: z.boolean().optional().meta({ description: IN_GROUP }),
    remoteDoorOpen: z.boolean().optional(),
  })
  .strict();

export const versionBody = z.object({ version: z.number().int().min(1) });
export const versionQuery = z.object({ version: z.coerce.number().int().min(1) });

export const listQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(200).default(20),
  cursor: z.string().max(500).optional(),
  keyword: z.string().trim().max(64).optional(),
  groupKey: key.optional(),
  departmentKey: key.optional(),
});
/** An employee at work, or one who has left (resigned) and may come back. */
const EMPLOYEE_STATES = ['active', 'resigned'] as const;
export const employeeListQuery = listQuery.extend({ state: z.enum(EMPLOYEE_STATES).default('active') });
/** Visitors belong to no department: a department filter is dropped. */
export const visitorListQuery = listQuery.omit({ departmentKey: true });

/** Groups hold employees, visitors or devices. */
export const GROUP_TYPES = [...PERSON_KINDS, 'device'] as const;
export type GroupType = (typeof GROUP_TYPES)[number];
export const groupBody = z.object({ name: z.string().trim().min(1).max(64), type: z.enum(GROUP_TYPES) }).strict();
export const groupPatchBody = z.object({ name: z.string().trim().min(1).max(64), version: z.number().int().min(1) }).strict();
export const groupListQuery = z.object({ type: z.enum(GROUP_TYPES) });

export const departmentBody = z.object({ name: z.string().trim().min(1).max(64), parentKey: key.optional() }).strict();
export const departmentPatchBody = z.object({ name: z.string().trim().min(1).max(64).optional(), parentKey: z.union([key, z.null()]).optional(), version: z.number().int().min(1) }).strict();

/** An import that runs in the background: the workbook (`info`) or the photo archive (`avatars`). */
export const IMPORT_STEPS = ['info', 'avatars'] as const;
export type ImportStep = (typeof IMPORT_STEPS)[number];
export const importJobBody = z
  .object({ step: z.enum(IMPORT_STEPS), filename: z.string().trim().min(1).max(255), size: z.number().int().min(1) })
  .strict();
export const importJobParams = z.object({ jobKey: key });

export const employeeKeyParams = z.object({ employeeKey: key });
export const visitorKeyParams = z.object({ visitorKey: key });
export const PERSON_KEY_PARAMS = { employee: employeeKeyParams, visitor: visitorKeyParams } as const;
export const groupKeyParams = z.object({ groupKey: key });
export const departmentKeyParams = z.object({ departmentKey: key });

export type EmployeeCreate = z.output<typeof employeeCreateBody>;

/* What the routes answer. */

const version = z.number().int().min(1).meta({ description: 'Send it back with a change or deletion; one that is no longer current is refused with 409' });

/** The fields of a person both kinds answer (functions/resources/people.ts personJson). */
const personAnswerFields = {
  personId: z.string().meta({ description: 'The personnel ID, unique in the company across employees and visitors' }),
  name: z.string(),
  role: z.string(),
  gender: z.enum(['male', 'female']),
  groupKey: z.string().meta({ description: 'The group of the person’s kind they belong to' }),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  icCard: z.string().nullable().meta({ description: 'The IC card number; null without a card' }),
  avatar: z.string().nullable().meta({ description: 'The photo’s file key (an upload of kind `avatar`); null without a photo' }),
  avatarUrl: z.string().nullable().meta({ description: 'A short-lived link to the photo; null without a photo' }),
  remark: z.string().nullable(),
  createTime: z.iso.datetime().meta({ description: 'When the person was added' }),
  version,
};

/** An employee as read, created or changed (`GET`, `POST`, `PATCH /v1/employees…`, resign and entry). */
export const employeeAnswer = z.object({
  employeeKey: z.string(),
  ...personAnswerFields,
  departmentKey: z.string().nullable().meta({ description: 'null: in no department' }),
  attendanceGroupKey: z.string().nullable().meta({ description: 'The attendance group whose rules count the employee’s days; null: in none' }),
  needsAttendance: z.boolean().meta({ description: 'The employee’s passes count as clock-ins of their attendance group' }),
  remoteDoorOpen: z.boolean().meta({ description: 'May open doors remotely' }),
  state: z.enum(EMPLOYEE_STATES).meta({ description: '`resigned`: has left; holds no pass until brought back (`…/entry`)' }),
  resignedAt: z.iso.datetime().nullable().meta({ description: 'When the employee left; null while at work' }),
});
export type Employee = z.output<typeof employeeAnswer>;

/** A visitor as read, created or changed (`GET`, `POST`, `PATCH /v1/visitors…`). */
export const visitorAnswer = z.object({ visitorKey: z.string(), ...personAnswerFields });
export type Visitor = z.output<typeof visitorAnswer>;

/** The page fields of a list of people besides its items. */
const peoplePageFields = {
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
  total: z.number().int().min(0).optional().meta({ description: 'How many people the filtered list holds; first page only, when it is counted exactly' }),
  totalAtLeast: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: 'First page only, instead of `total`, when counting the filtered list would read too much: at least this many match' }),
};

/** `GET /v1/employees`: one page of the filtered list, newest first. */
export const employeePage = z.object({ items: z.array(employeeAnswer), ...peoplePageFields });
/** `GET /v1/visitors`: one page of the filtered list, newest first. */
export const visitorPage = z.object({ items: z.array(visitorAnswer), ...peoplePageFields });

/** A group as read, created or renamed. */
export const groupAnswer = z.object({
  groupKey: z.string(),
  name: z.string(),
  type: z.enum(GROUP_TYPES),
  createTime: z.iso.datetime().meta({ description: 'When the group was created' }),
  version,
});
export type GroupJson = z.output<typeof groupAnswer>;
/** `GET /v1/groups`: every group of the type, in one page. */
export const groupList = z.object({
  items: z.array(groupAnswer),
  nextCursor: z.null().meta({ description: 'Always null: every group comes in one answer' }),
});

const parentKey = z.string().nullable().meta({ description: 'The department it belongs to; null at the top' });
/** A department as created or changed. */
export const departmentAnswer = z.object({ departmentKey: z.string(), name: z.string(), parentKey, version });
/** A department in the tree, with the departments under it, each level sorted by name. */
const departmentNode = z
  .object({
    departmentKey: z.string(),
    name: z.string(),
    parentKey,
    version,
    get children() {
      return z.array(departmentNode);
    },
  })
  .meta({ id: 'DepartmentNode' });
export type DepartmentNodeJson = z.output<typeof departmentNode>;
/** `GET /v1/departments`: the company’s departments as a tree, in one page. */
export const departmentTreeAnswer = z.object({
  items: z.array(departmentNode).meta({ description: 'The top-level departments, each with its `children`' }),
  nextCursor: z.null().meta({ description: 'Always null: the whole tree comes in one answer' }),
});

/* Imports: the reports of the one-request imports and the background import jobs (functions/flows/peopleImport.ts, importJobs.ts). */

const count = z.number().int().min(0);

/** `POST …/imports`: what became of the rows of the workbook imported in the request; a finished job’s report too. */
export const workbookImportAnswer = z.object({
  created: count,
  updated: count.meta({ description: 'Rows whose personnel ID named a person of the list, who was updated' }),
  rejected: count,
  rows: z
    .array(
      z.object({
        row: z.number().int().min(2).meta({ description: 'The row’s number in the sheet (the header is row 1)' }),
        personId: z.string().meta({ description: 'The row’s personnel ID as written, possibly empty' }),
        status: z.enum(['created', 'updated', 'rejected']),
        reasons: z.array(z.string()).optional().meta({ description: 'Rejected rows: why, one sentence per problem in the caller’s language' }),
      }),
    )
    .meta({ description: 'Every row in a one-request import; a finished job’s report keeps only the rejected ones (the first 1,000)' }),
});

/** `POST …/imports/avatars`: what became of the entries of the photo archive imported in the request; a finished job’s report too. */
export const archiveImportAnswer = z.object({
  imported: count,
  skipped: count,
  entries: z
    .array(
      z.object({
        name: z.string().meta({ description: 'The entry’s path in the archive' }),
        status: z.enum(['imported', 'skipped']),
        personId: z.string().optional().meta({ description: 'The personnel ID the entry’s name gives, when it gives one' }),
        reason: z.string().optional().meta({ description: 'Skipped entries: why, in the caller’s language' }),
      }),
    )
    .meta({ description: 'Every entry in a one-request import (folders left out); a finished job’s report keeps only the skipped ones (the first 1,000)' }),
});

/** The states of a background import: uploading → queued → running → done | failed. */
const IMPORT_JOB_STATES = ['uploading', 'queued', 'running', 'done', 'failed'] as const;

/** A background import as its dialog follows it. */
export const importJobAnswer = z.object({
  jobKey: z.string(),
  step: z.enum(IMPORT_STEPS),
  state: z.enum(IMPORT_JOB_STATES).meta({ description: 'A job queued or running for too long is answered `failed`' }),
  filename: z.string(),
  processed: count.meta({ description: 'Rows or entries done so far' }),
  total: count.meta({ description: 'Rows or entries the file holds, once it has been read (0 before)' }),
  report: z
    .union([workbookImportAnswer, archiveImportAnswer])
    .nullable()
    .meta({ description: 'Once `done`: the workbook’s report (step `info`) or the archive’s (step `avatars`)' }),
  error: z.string().nullable().meta({ description: 'Why it failed, in the language the import was created in' }),
  createTime: z.iso.datetime(),
  finishTime: z.iso.datetime().nullable().meta({ description: 'When it ended; null until then' }),
});

/** `POST …/imports/jobs`: the new job, and where to upload its file before starting it. */
export const importJobCreated = importJobAnswer.extend({
  upload: z
    .object({ url: z.string(), method: z.literal('PUT'), headers: z.record(z.string(), z.string()) })
    .meta({ description: 'PUT the file to `url` with exactly these headers within the hour, then start the job' }),
});
export type VisitorCreate = z.output<typeof visitorCreateBody>;
