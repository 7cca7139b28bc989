import * as z from 'zod';

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

const key = z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' });
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

const employeeFields = {
  ...personFields,
  departmentKey: key.optional(),
  attendanceGroupKey: key.optional(),
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
    attendanceGroupKey: clearable(key),
    needsAttendance: z.boolean().optional(),
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
export const employeeListQuery = listQuery.extend({ state: z.enum(['active', 'resigned']).default('active') });
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
export type VisitorCreate = z.output<typeof visitorCreateBody>;
