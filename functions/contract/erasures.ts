/**
 * The receipt of a person's erasure (`POST /v1/employees/{employeeKey}/erase`,
 * `POST /v1/visitors/{visitorKey}/erase`), kept 400 days and read again with
 * `GET …/{key}/erasure`. It names the person only by their key: it holds nothing of what it erased.
 */
export type ErasurePhase = 'person' | 'passes' | 'answers' | 'attendance' | 'deliveries' | 'mails' | 'exports' | 'check' | 'done';

export interface ErasureCounts {
  /** The person's record (1 when this erasure removed it, 0 when it was already gone). */
  personRecords: number;
  /** Photo objects removed: the current photo and every earlier one a pass record still linked. */
  photoObjects: number;
  /** Capture objects of the person's pass records removed from the captures bucket. */
  captureObjects: number;
  /**
   * Captures announced but not uploaded whose place was closed: an upload link given before the
   * erasure is refused by storage from then on (a placeholder holds the key; links are `If-None-Match: *`).
   */
  uploadsClosed: number;
  /** Pass records kept without the person (name, temperature, capture and photo links removed). */
  passRecordsChanged: number;
  /** The person's own copies of their passes (attendance punches) removed. */
  punchesRemoved: number;
  /** Authorizations revoked on terminals (pass list and blacklist). */
  authorizationsRevoked: number;
  /** Of those, blacklist entries. */
  blacklistEntries: number;
  /** Distinct terminals told to delete the face. */
  terminalsTold: number;
  /** Questionnaire answers given by the person, removed. */
  questionnaireAnswers: number;
  /** Attendance days and months computed for the person, removed. */
  attendanceItems: number;
  /** Webhook deliveries of events that named the person (their bodies kept for replays), removed from the delivery logs. */
  webhookDeliveries: number;
  /** Mail records of alerts about the person scrubbed (name, subject and text removed; a mail not yet sent is not sent). */
  mailRecords: number;
  /** Exports made or under way when the person was erased, withdrawn with their files (they may hold the person). */
  exportsWithdrawn: number;
}

export interface ErasureReceipt {
  /** `employee` or `visitor`. */
  personKind: 'employee' | 'visitor';
  personKey: string;
  /** `running` until every phase is done; a request that ran out of time answers 202 and the next one goes on. */
  state: 'running' | 'done';
  phase: ErasurePhase;
  counts: ErasureCounts;
  /** Who asked for it (username), and when it began and ended (ISO). */
  erasedBy: string;
  startedAt: string;
  finishedAt: string | null;
  /** Until when the receipt is kept (ISO). */
  keptUntil: string;
}

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
