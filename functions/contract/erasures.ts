import * as z from 'zod';

/** The phases of an erasure, in order (functions/flows/erasure.ts). */
const ERASURE_PHASES = ['person', 'passes', 'answers', 'attendance', 'deliveries', 'mails', 'exports', 'check', 'done'] as const;
export type ErasurePhase = (typeof ERASURE_PHASES)[number];

const count = (description: string) => z.number().int().min(0).meta({ description });

const erasureCounts = z.object({
  personRecords: count('The person’s record (1 when this erasure removed it, 0 when it was already gone)'),
  photoObjects: count('Photo objects removed: the current photo and every earlier one a pass record still linked'),
  captureObjects: count('Capture objects of the person’s pass records removed from the captures bucket'),
  uploadsClosed: count(
    'Captures announced but not uploaded whose place was closed: an upload link given before the erasure is refused by storage from then on (a placeholder holds the key; links are `If-None-Match: *`)',
  ),
  passRecordsChanged: count('Pass records kept without the person (name, temperature, capture and photo links removed)'),
  punchesRemoved: count('The person’s own copies of their passes (attendance punches) removed'),
  authorizationsRevoked: count('Authorizations revoked on terminals (pass list and blacklist)'),
  blacklistEntries: count('Of those, blacklist entries'),
  terminalsTold: count('Distinct terminals told to delete the face'),
  questionnaireAnswers: count('Questionnaire answers given by the person, removed'),
  attendanceItems: count('Attendance days and months computed for the person, removed'),
  webhookDeliveries: count('Webhook deliveries of events that named the person (their bodies kept for replays), removed from the delivery logs'),
  mailRecords: count('Mail records of alerts about the person scrubbed (name, subject and text removed; a mail not yet sent is not sent)'),
  exportsWithdrawn: count('Exports made or under way when the person was erased, withdrawn with their files (they may hold the person)'),
});
export type ErasureCounts = z.output<typeof erasureCounts>;

/**
 * The receipt of a person's erasure (`POST /v1/employees/{employeeKey}/erase`,
 * `POST /v1/visitors/{visitorKey}/erase`), kept 400 days and read again with
 * `GET …/{key}/erasure`. It names the person only by their key: it holds nothing of what it erased.
 */
export const erasureReceiptAnswer = z.object({
  personKind: z.enum(['employee', 'visitor']),
  personKey: z.string(),
  state: z
    .enum(['running', 'done'])
    .meta({ description: '`running` until every phase is done; a request that ran out of time answers 202 and the next one goes on' }),
  phase: z.enum(ERASURE_PHASES).meta({ description: 'The phase the erasure is in, or will go on with' }),
  counts: erasureCounts.meta({ description: 'What went, so far' }),
  erasedBy: z.string().meta({ description: 'Who asked for it (username)' }),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable().meta({ description: 'null while `running`' }),
  keptUntil: z.iso.datetime().meta({ description: 'Until when the receipt is kept' }),
});
export type ErasureReceipt = z.output<typeof erasureReceiptAnswer>;

export const EMPTY_COUNTS: ErasureCounts = {
  personRecords: 0,
  photoObjects: 0,
  captureObjects: 0,
  passRecordsChanged: 0,
  punchesRemoved: 0,
  authorizationsRevoked: 0,
  blacklistEntries: 0,
  terminalsTold: 0,
  questionnaireAnswers: 0,
  attendanceItems: 0,
  webhookDeliveries: 0,
  mailRecords: 0,
  exportsWithdrawn: 0,
  uploadsClosed: 0,
};

/** How long a receipt is kept, like the audit log's entries. */
export const RECEIPT_DAYS = 400;
