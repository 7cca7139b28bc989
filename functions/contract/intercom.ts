import * as z from 'zod';
import { INTERCOM_KINDS, type IntercomKind } from './devices.ts';
import { CALL_STATUSES, type CallStatus, type RecordingType } from './protocol.ts';

/**
 * The intercom platform (`/v1/intercom/...`): door stations and indoor monitors bound like face
 * terminals, and the calls they report, with their recordings.
 */
export { CALL_STATUSES, INTERCOM_KINDS, type CallStatus, type IntercomKind };

const key = z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' });
const day = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'issue.dateFormat' });

/** An intercom number: what a visitor dials at a door station (a flat, an office, a gate). */
export const INTERCOM_NUMBER = /^[0-9A-Za-z-]{1,16}$/;

export const intercomKeyParams = z.object({ intercomKey: key });
export const intercomListQuery = z
  .object({
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: z
      .string()
      .max(400)
      .regex(/^[A-Za-z0-9_-]+$/, { message: 'error.badCursor' })
      .optional(),
    keyword: z.string().trim().max(64).optional(),
    kind: z.enum(INTERCOM_KINDS).optional(),
    online: z.enum(['true', 'false']).optional(),
  })
  .strict();
/** Name and number are what the console edits; an empty number takes the number away. */
export const intercomPatchBody = z
  .object({
    name: z.string().trim().min(1).max(64).optional(),
    number: z.union([z.string().trim().regex(INTERCOM_NUMBER, { message: 'intercom.numberFormat' }), z.literal(''), z.null()]).optional(),
    version: z.number().int().min(1),
  })
  .strict();

export interface IntercomItem {
  deviceKey: string;
  kind: IntercomKind;
  name: string;
  number: string | null;
  serial: string;
  model: string;
  online: boolean;
  /** dBm (-120 to 0); null when the intercom has not reported it. */
  signal: number | null;
  /** When its current (or last) connection began. */
  networkTime: string | null;
  clientName: string;
  lastSeenAt: string | null;
  appVersion: string;
  ip: string;
  mac: string;
  firmware: string;
  createTime: string;
  version: number;
}

export interface IntercomPage {
  items: IntercomItem[];
  nextCursor: string | null;
  total: number;
  online: number;
  offline: number;
}

const callFilter = z.object({
  from: day.optional(),
  to: day.optional(),
  status: z.coerce
    .number()
    .int()
    .refine((v) => (CALL_STATUSES as readonly number[]).includes(v), { message: 'intercom.statusUnknown' })
    .transform((v) => v as CallStatus)
    .optional(),
  deviceKey: key.optional(),
});
const rangeInOrder = (q: { from?: string | undefined; to?: string | undefined }) => !q.from || !q.to || q.from <= q.to;

/** `GET /v1/intercom/calls`: company days as for pass records (both default to today), status and the reporting intercom. */
export const callQuery = callFilter
  .extend({ pageSize: z.coerce.number().int().min(1).max(200).default(20), cursor: z.string().max(500).optional() })
  .strict()
  .refine(rangeInOrder, { message: 'records.rangeOrder', path: ['to'] });
export type CallQuery = z.output<typeof callQuery>;
/** `POST /v1/intercom/calls/exports`: the list's filter. */
export const callExportBody = callFilter.strict().refine(rangeInOrder, { message: 'records.rangeOrder', path: ['to'] });
export type CallFilterQuery = z.output<typeof callExportBody>;

/** A call's key in the API: `<deviceKey>.<callId>` (call ids have no dots). */
export const callKeyParams = z.object({ callKey: z.string().regex(/^[0-9a-z]{8,32}\.[0-9A-Za-z_-]{1,64}$/, { message: 'error.itemNotFound' }) });
export const recordingQuery = z.object({ download: z.enum(['true', 'false']).optional() }).strict();

/** One end of a call: the intercom (null when no intercom of the company has the number) and the number dialled. */
export interface CallParty {
  deviceKey: string | null;
  name: string | null;
  kind: IntercomKind | null;
  number: string | null;
}

export type RecordingState = 'none' | 'pending' | 'ready' | 'expired';

export interface CallItem {
  callKey: string;
  callId: string;
  /** The intercom that reported the call; the status is as it saw it. */
  deviceKey: string;
  deviceName: string;
  direction: 'incoming' | 'outgoing';
  status: CallStatus;
  callTime: string;
  answerTime: string | null;
  endTime: string | null;
  /** Talk time in seconds; null while live or when not connected. */
  duration: number | null;
  /** Ringing or talking now. */
  live: boolean;
  calling: CallParty;
  called: CallParty;
  doorOpenedAt: string | null;
  /** Live, answered and with a door station at one end: the console may open its door. */
  canOpenDoor: boolean;
  recording: { state: RecordingState; contentType: RecordingType | null; size: number | null };
}

export interface CallPage {
  items: CallItem[];
  nextCursor: string | null;
}

/** `GET /v1/intercom/calls/{callKey}/recording`: a short-lived link to the recording. */
export interface RecordingLink {
  url: string;
  contentType: RecordingType;
  size: number;
  /** Talk time in seconds, as the intercom reported it. */
  duration: number | null;
  /** When the link stops working. */
  expiresAt: string;
}
