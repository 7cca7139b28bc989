import * as z from 'zod';
import { itemKey, pageCursor } from './fields.ts';
import { COMMAND_STATES, DEVICE_COMMAND_TYPES, INTERCOM_KINDS, type IntercomKind } from './devices.ts';
import { CALL_STATUSES, RECORDING_TYPES, type CallStatus } from './protocol.ts';

/**
 * The intercom platform (`/v1/intercom/...`): door stations and indoor monitors bound like face
 * terminals, and the calls they report, with their recordings.
 */
export { CALL_STATUSES, INTERCOM_KINDS, type CallStatus, type IntercomKind };

const key = itemKey;
const day = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'issue.dateFormat' });

/** An intercom number: what a visitor dials at a door station (a flat, an office, a gate). */
export const INTERCOM_NUMBER = /^[0-9A-Za-z-]{1,16}$/;

export const intercomKeyParams = z.object({ intercomKey: key });
export const intercomListQuery = z
  .object({
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: pageCursor.optional(),
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

const intercomItem = z.object({
  deviceKey: z.string(),
  kind: z.enum(INTERCOM_KINDS),
  name: z.string(),
  number: z.string().nullable().meta({ description: 'The intercom’s number on the company’s intercom platform, or null' }),
  serial: z.string(),
  model: z.string(),
  online: z.boolean(),
  signal: z.number().int().nullable().meta({ description: 'dBm (-120 to 0); null when the intercom has not reported it' }),
  networkTime: z.iso.datetime().nullable().meta({ description: 'When its current (or last) connection began' }),
  clientName: z.string(),
  lastSeenAt: z.iso.datetime().nullable(),
  appVersion: z.string(),
  ip: z.string(),
  mac: z.string(),
  firmware: z.string(),
  createTime: z.iso.datetime(),
  version: z.number().int().min(1),
});
export type IntercomItem = z.output<typeof intercomItem>;
/** `GET|PATCH /v1/intercom/devices/{intercomKey}`. */
export const intercomAnswer = intercomItem;

/** `GET /v1/intercom/devices`: a page, and the counts of the whole filtered list. */
export const intercomPage = z.object({
  items: z.array(intercomItem),
  nextCursor: z.string().nullable().meta({ description: 'Pass it as `cursor` for the next page; null on the last' }),
  total: z.number().int().min(0),
  online: z.number().int().min(0),
  offline: z.number().int().min(0),
});
export type IntercomPage = z.output<typeof intercomPage>;

/** `GET /v1/intercom/names`: names and numbers for pickers. */
export const intercomNamesPage = z.object({
  items: z.array(z.object({ deviceKey: z.string(), name: z.string(), kind: z.enum(INTERCOM_KINDS), number: z.string().nullable() })),
  nextCursor: z.string().nullable(),
});
export type IntercomName = z.output<typeof intercomNamesPage>['items'][number];

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

/** `GET /v1/intercom/calls`: company days as for pass records (both default to today), status and an intercom at either end. */
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
const callParty = z
  .object({
    deviceKey: z.string().nullable(),
    name: z.string().nullable(),
    kind: z.enum(INTERCOM_KINDS).nullable(),
    number: z.string().nullable(),
  })
  .meta({ description: 'One end of a call: the intercom (null when no intercom of the company has the number) and the number dialled' });
export type CallParty = z.output<typeof callParty>;

export type RecordingState = 'none' | 'pending' | 'ready' | 'expired';

const recordingInfo = z.object({
  state: z.enum(['none', 'pending', 'ready', 'expired']),
  contentType: z.enum(RECORDING_TYPES).nullable(),
  size: z.number().int().min(0).nullable(),
});

/** One end's own report of a call. */
const callEnd = z
  .object({
    deviceKey: z.string(),
    deviceName: z.string().meta({ description: 'Empty when the intercom was deleted' }),
    kind: z.enum(INTERCOM_KINDS).nullable(),
    direction: z.enum(['incoming', 'outgoing']).meta({ description: '`outgoing`: this end called; `incoming`: it was called' }),
    status: z.literal(CALL_STATUSES).meta({ description: 'As this end saw it: 1 answered (incoming), 2 answered (outgoing), 3 not connected' }),
    startTime: z.iso.datetime(),
    answerTime: z.iso.datetime().nullable(),
    endTime: z.iso.datetime().nullable(),
    duration: z.number().int().min(0).nullable(),
    live: z.boolean(),
    peerNumber: z.string().meta({ description: 'The number of the other end, as this end named it' }),
    doorOpenedAt: z.iso.datetime().nullable(),
    recording: recordingInfo,
    reportedAt: z.iso.datetime().meta({ description: 'When the cloud last stored this end’s report' }),
  })
  .meta({ description: 'One end’s own report of a call' });
export type CallEndItem = z.output<typeof callEnd>;

/** One row per call: both ends report it under one call id (docs/device-protocol.md). */
const callItem = z.object({
  callKey: z.string().meta({ description: '`<deviceKey>.<callId>`, the deviceKey of the end that reported first (the other end’s works too)' }),
  callId: z.string(),
  status: z.literal(CALL_STATUSES).meta({
    description: 'The call’s: 1 incoming (from a door station or from outside) and answered, 2 outgoing (from an indoor monitor) and answered, 3 not connected',
  }),
  callTime: z.iso.datetime(),
  answerTime: z.iso.datetime().nullable(),
  endTime: z.iso.datetime().nullable(),
  duration: z.number().int().min(0).nullable().meta({ description: 'Talk time in seconds; null while live or when not connected' }),
  live: z.boolean().meta({ description: 'Ringing or talking now' }),
  calling: callParty,
  called: callParty,
  doorOpenedAt: z.iso.datetime().nullable(),
  canOpenDoor: z.boolean().meta({ description: 'Live, answered and with a door station at one end: the console may open its door' }),
  recording: recordingInfo.meta({ description: 'The call’s recording (of the end that has one; the called end’s when both have)' }),
  ends: z
    .array(callEnd)
    .meta({ description: 'Each end’s own report: the calling end first; an end that did not report (or is outside the company) is absent' }),
});
export type CallItem = z.output<typeof callItem>;

/** `GET /v1/intercom/calls`. */
export const callPage = z.object({ items: z.array(callItem), nextCursor: z.string().nullable() });
export type CallPage = z.output<typeof callPage>;

/** `GET /v1/intercom/calls/{callKey}/recording`: a short-lived link to the recording. */
export const recordingLink = z.object({
  url: z.string(),
  contentType: z.enum(RECORDING_TYPES),
  size: z.number().int().min(0),
  duration: z.number().int().min(0).nullable().meta({ description: 'Talk time in seconds, as the intercom reported it' }),
  expiresAt: z.iso.datetime().meta({ description: 'When the link stops working' }),
});
export type RecordingLink = z.output<typeof recordingLink>;

/** `POST /v1/intercom/calls/{callKey}/openDoor`: the door station's `openDoor` command, queued. */
export const doorCommandQueued = z.object({
  commandKey: z.string(),
  type: z.enum(DEVICE_COMMAND_TYPES),
  state: z.enum(COMMAND_STATES),
  createTime: z.iso.datetime(),
});
