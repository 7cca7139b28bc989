import * as z from 'zod';
import { itemKey } from './fields.ts';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES } from './paging.ts';
import { PASS_SOURCES, PASS_STATES, REFUSAL_REASONS, passDecision, type PassSource, type PassState, type RefusalReason } from './protocol.ts';

/**
 * Pass records (`/v1/passRecords`, and `/v1/blacklistRecords` for the blacklist's own screen):
 * what the terminals saw, stored once per (device, record id), kept for the privacy settings'
 * retention period.
 */
export { PASS_SOURCES, PASS_STATES, REFUSAL_REASONS, type PassSource, type PassState, type RefusalReason };

/** Who passed: a known employee or visitor, a stranger, or a person on the blacklist of that device. */
export const RECORD_TYPES = ['employee', 'visitor', 'stranger', 'blacklist'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const TEMPERATURE_FILTERS = ['normal', 'fever'] as const;

/** A list covers at most this many days. */
export const RECORD_RANGE_MAX_DAYS = 92;

const key = itemKey;
const day = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'issue.dateFormat' });
/** Rows per page: only PAGE_SIZES, each within a request's read budget; anything else is refused, naming the field. */
const pageSize = z.coerce
  .number()
  .pipe(z.literal(PAGE_SIZES))
  .default(DEFAULT_PAGE_SIZE)
  .meta({ description: 'Rows per page: 20, 50 or 100', type: 'integer', enum: [...PAGE_SIZES] });

/**
 * `GET /v1/passRecords`: `from` and `to` are days in the company's time zone (both default to
 * today), at most RECORD_RANGE_MAX_DAYS apart. Newest first: a list that should start at a day
 * (the console's jump to a date) asks with that day as `to`. Pages of 20, 50 or 100.
 */
export const passRecordQuery = z
  .object({
    from: day.optional(),
    to: day.optional(),
    deviceKey: key.optional(),
    personKey: key.optional().meta({ description: 'One employee’s or visitor’s passes (its employeeKey or visitorKey)' }),
    type: z.enum(RECORD_TYPES).optional(),
    temperature: z.enum(TEMPERATURE_FILTERS).optional(),
    passState: z.enum(PASS_STATES).optional(),
    refusedFor: z.enum(REFUSAL_REASONS).optional().meta({ description: 'Refused passes for this reason (`unknown`: refused by a terminal that named none)' }),
    keyword: z.string().trim().max(64).optional(),
    pageSize,
    cursor: z.string().max(500).optional(),
  })
  .strict()
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'records.rangeOrder', path: ['to'] });
export type PassRecordQuery = z.output<typeof passRecordQuery>;
/** The blacklist's record screen: the same filters, the type fixed to `blacklist`. */
export const blacklistRecordQuery = passRecordQuery.safeExtend({ type: z.literal('blacklist').optional() });

export const recordKeyParams = z.object({ recordKey: z.string().regex(/^[0-9A-Za-z_.:-]{8,160}$/, { message: 'error.itemNotFound' }) });

/** One pass as the lists, the alert mails’ links and the dashboard’s feed show it (`GET /v1/passRecords/{recordKey}`). */
export const passRecordItem = z.object({
  recordKey: z.string().meta({ description: 'The record’s key, as `GET /v1/passRecords/{recordKey}` reads it' }),
  time: z.iso.datetime().meta({ description: 'When the cloud stored it' }),
  verifyTime: z.iso.datetime().meta({ description: 'When the terminal verified the person' }),
  deviceKey: z.string(),
  deviceName: z.string().meta({ description: 'Empty when the device is gone' }),
  personKey: z.string().nullable().meta({ description: 'Null for a stranger, and for a person since erased' }),
  name: z.string().nullable().meta({ description: 'The name as the terminal knew it; null when privacy settings keep no visitor names' }),
  groupName: z.string().nullable().meta({ description: 'The person’s group name (what remains of a visitor when names are not kept); null when none' }),
  type: z.enum(RECORD_TYPES),
  temperature: z.number().nullable().meta({ description: 'Degrees Celsius; null when not measured or when privacy settings keep no temperatures' }),
  fever: z.boolean().meta({ description: 'At or above the device’s alarm threshold' }),
  mask: z.boolean().nullable().meta({ description: 'Whether a mask was worn; null when the terminal did not say' }),
  passState: z.enum(PASS_STATES),
  source: z.enum(PASS_SOURCES),
  refusedFor: z.enum(REFUSAL_REASONS).nullable().meta({
    description: 'Why the terminal refused the pass: `unknown` when it named no reason (older terminals); null when it passed',
  }),
  decision: passDecision.nullable().meta({
    description:
      'How the terminal decided, as it reported it: the list that matched and its validity, the schedule and period in force, the door mode, the temperature and mask rules; null when it did not say',
  }),
  violation: z.boolean().meta({
    description:
      'The terminal let a person on its blacklist through (`type` blacklist, `passState` passed), where the device protocol has it refuse them: the pass is kept as reported, and marked',
  }),
  capture: z.string().nullable().meta({ description: 'A short-lived link to the capture; null when none was taken, kept or uploaded' }),
  avatar: z.string().nullable().meta({ description: 'A short-lived link to the person’s enrolled photo; null when none' }),
});
export type PassRecordItem = z.output<typeof passRecordItem>;

/** A page of pass records, newest first (`GET /v1/passRecords`, `GET /v1/blacklistRecords`). */
export const passRecordPage = z.object({
  items: z.array(passRecordItem),
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
  total: z.number().int().min(0).optional().meta({
    description:
      'How many records the filter matches, from the day counters: first page only (no `cursor`), and only when the counters tell (no device, person or keyword, at most one of type, temperature and pass state)',
  }),
});
export type PassRecordPage = z.output<typeof passRecordPage>;

/**
 * `POST /v1/passRecords/exports` (and `/v1/blacklistRecords/exports`): the list's filters, without
 * paging; the workbook is made in the background. `GET .../exports/{jobKey}` answers a
 * RecordExportJob; `url` is a short-lived link to the finished workbook.
 */
export const recordExportBody = z
  .object({
    from: day.optional(),
    to: day.optional(),
    deviceKey: key.optional(),
    personKey: key.optional(),
    type: z.enum(RECORD_TYPES).optional(),
    temperature: z.enum(TEMPERATURE_FILTERS).optional(),
    passState: z.enum(PASS_STATES).optional(),
    refusedFor: z.enum(REFUSAL_REASONS).optional().meta({ description: 'Refused passes for this reason (`unknown`: refused by a terminal that named none)' }),
    keyword: z.string().trim().max(64).optional(),
  })
  .strict()
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'records.rangeOrder', path: ['to'] });
export type RecordExportBody = z.output<typeof recordExportBody>;
export const blacklistExportBody = recordExportBody.safeExtend({ type: z.literal('blacklist').optional() });
export const exportJobParams = z.object({ jobKey: z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' }) });

/** A workbook holds at most this many records; `truncated` says the range held more. */
export const RECORD_EXPORT_MAX_ROWS = 200_000;

/** A background job just started (`POST …/exports` and the like answer 202 with it): follow it by its key. */
export const jobStarted = z.object({ jobKey: z.string().meta({ description: 'Read the job’s progress under this key' }) });

/** A background export as its dialog follows it (`GET …/exports/{jobKey}`). */
export const recordExportJob = z.object({
  jobKey: z.string(),
  state: z.enum(['queued', 'running', 'done', 'failed']),
  done: z.number().int().min(0).meta({ description: 'Rows written so far' }),
  total: z.number().int().min(0).nullable().meta({ description: 'How many rows the export will hold, when the counters tell' }),
  truncated: z.boolean().meta({ description: `The range held more than one workbook takes (${RECORD_EXPORT_MAX_ROWS} rows)` }),
  url: z.string().nullable().meta({ description: 'The finished workbook (a short-lived link), once `state` is `done`' }),
  error: z.string().nullable().meta({ description: 'Why it failed, in the language it was asked in' }),
});
export type RecordExportJob = z.output<typeof recordExportJob>;
