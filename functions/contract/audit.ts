import * as z from 'zod';

/**
 * The audit log (`/v1/audit`, settings section `settings:audit`): who did what, when and from
 * which address. Entries are only ever added; none is changed or removed before its 400 days end.
 *
 * - `change`: a request of an administrator that changed something (every successful `POST`,
 *   `PUT`, `PATCH` and `DELETE` of a console session);
 * - `login`, `loginFailed` (wrong password, wrong second-factor code, disabled account, too many tries), `logout`;
 * - `export`: people, records, attendance, results, calls or the audit log itself exported;
 * - `playback`: a call recording played or downloaded.
 */
export const AUDIT_KINDS = ['change', 'login', 'loginFailed', 'logout', 'export', 'playback'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** How long an entry is kept. */
export const AUDIT_RETENTION_DAYS = 400;
/** The most entries one export holds: a longer range is to be narrowed. */
export const AUDIT_EXPORT_LIMIT = 10_000;

/** An entry's key in URLs and cursors: its time in milliseconds, a dash, its id. */
export const AUDIT_KEY = /^\d{13}-[0-9a-z]{16}$/;

const filters = {
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  kind: z.enum(AUDIT_KINDS).optional(),
  /** The account's login name, exactly (case does not matter). */
  username: z.string().trim().toLowerCase().min(1).max(64).optional(),
};
const rangeInOrder = (q: { from?: string | undefined; to?: string | undefined }) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to);

export const auditListQuery = z
  .object({
    ...filters,
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: z.string().regex(AUDIT_KEY, { message: 'error.badCursor' }).optional(),
  })
  .strict()
  .refine(rangeInOrder, { message: 'mail.rangeReversed', path: ['to'] });
export type AuditListQuery = z.output<typeof auditListQuery>;

export const auditExportQuery = z
  .object(filters)
  .strict()
  .refine(rangeInOrder, { message: 'mail.rangeReversed', path: ['to'] });
export type AuditExportQuery = z.output<typeof auditExportQuery>;

/** An entry of the audit log, as `GET /v1/audit` lists it. */
const auditEntry = z.object({
  auditKey: z.string(),
  time: z.iso.datetime(),
  kind: z.enum(AUDIT_KINDS),
  username: z.string().meta({ description: 'The account’s login name (for a failed login, the name that was tried), or the API key’s name' }),
  apiKey: z.string().nullable().meta({ description: 'The API key (`apiKeyKey`) the change was made with; null when a person made it' }),
  action: z.string().nullable().meta({ description: 'The route, as the route table spells it: `PATCH /v1/employees/{employeeKey}`; null for logins' }),
  target: z.record(z.string(), z.string()).meta({ description: 'The route’s path parameters: which item' }),
  item: z
    .object({
      param: z.string().meta({ description: 'The path parameter that carries the item’s key, such as `accountKey`' }),
      key: z.string(),
      name: z.string().meta({ description: 'The item’s name when the action was taken (an account’s username, a person’s or device’s name)' }),
      exists: z.boolean().meta({ description: 'The item is still there, so the console links it' }),
    })
    .nullable()
    .meta({ description: 'The item acted on, or null when the action names none (logins, exports, settings) or it was written before items were named' }),
  fields: z.array(z.string()).meta({ description: 'The names of the fields the request sent (never their values), or the filters of an export' }),
  code: z.number().int().meta({ description: 'The answer’s code, or the failed login’s' }),
  reason: z.string().nullable().meta({
    description: 'Why a login failed: `badCredentials`, `disabled`, `throttled` or `secondFactor` (a wrong code after the right password); else null',
  }),
  sourceIp: z.string(),
  userAgent: z.string().nullable(),
});
export type AuditEntryJson = z.output<typeof auditEntry>;

/** `GET /v1/audit`: a page of entries, newest first. */
export const auditPage = z.object({
  items: z.array(auditEntry),
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
});
