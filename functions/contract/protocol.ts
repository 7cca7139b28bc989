// Long by nature: the whole device protocol (topics, payloads, reasons) in one file, as docs/device-protocol.md is written from it.
import * as z from 'zod';
import { deviceInfo, type DeviceCommandType, type DeviceInfo } from './devices.ts';
import { deviceLogEntry, epochMs, type DeviceLogEntry } from './deviceLogs.ts';
import { DEVICE_COMMAND_TYPES } from './devices.ts';
import { QUESTIONNAIRE_MODES, QUESTIONNAIRE_RESULTS, answers, question, surveyTranslations } from './questionnaires.ts';

/**
 * The MQTT topics between Pass Cloud and its devices. Every topic names the device's thing, and
 * a thing name carries its tenant and device key, so the broker policy can hold a device to its
 * own topics and the ingest handlers know whose message it is without trusting the payload.
 */

/** `<tenantId>_<deviceKey>`: ids use lower-case letters and digits only, so `_` separates them. */
export const thingName = (tenantId: string, deviceKey: string): string => `${tenantId}_${deviceKey}`;

export function parseThingName(name: string): { tenantId: string; deviceKey: string } | undefined {
  const match = /^([0-9a-z]{8,32})_([0-9a-z]{8,32})$/.exec(name);
  return match ? { tenantId: match[1]!, deviceKey: match[2]! } : undefined;
}

/** Topics a device publishes on (up) or receives (down), under `pc/<thingName>/`. */
export const deviceTopics = (thing: string) => ({
  // up
  heartbeat: `pc/${thing}/heartbeat`,
  logs: `pc/${thing}/logs`,
  commandResult: `pc/${thing}/commands/result`,
  records: `pc/${thing}/records`,
  /** Intercoms: calls, live and ended (CallsMessage). */
  calls: `pc/${thing}/calls`,
  /** Intercoms: an indoor monitor asks for the door of the station it is talking to (OpenDoorRequest). */
  callOpenDoor: `pc/${thing}/calls/open`,
  // down
  commands: `pc/${thing}/commands`,
  /** The cloud answers every records message here, naming the records it has stored. */
  recordsAck: `pc/${thing}/records/ack`,
  /** The face library changed: pull changes after your cursor (FaceNotifyMessage). */
  facesNotify: `pc/${thing}/faces/notify`,
  /** Intercoms: the cloud answers every calls message here (CallsAckMessage). */
  callsAck: `pc/${thing}/calls/ack`,
});

export const shadowTopics = (thing: string) => {
  const base = `$aws/things/${thing}/shadow`;
  return {
    update: `${base}/update`,
    updateAccepted: `${base}/update/accepted`,
    updateRejected: `${base}/update/rejected`,
    updateDelta: `${base}/update/delta`,
    updateDocuments: `${base}/update/documents`,
    get: `${base}/get`,
    getAccepted: `${base}/get/accepted`,
    getRejected: `${base}/get/rejected`,
  };
};

/** AWS IoT lifecycle topics, published by the broker when a client connects or disconnects. */
export const presenceTopic = (event: 'connected' | 'disconnected', clientId: string): string => `$aws/events/presence/${event}/${clientId}`;

/**
 * The `disconnectReason` of a connection the broker closed because a newer connection took its
 * client id: the client is connected again, under the same id, so this is no departure.
 * https://docs.aws.amazon.com/iot/latest/developerguide/life-cycle-events.html
 */
export const DUPLICATE_CLIENT_ID = 'DUPLICATE_CLIENTID';

/** Topic filters the ingest rules listen on (AWS topic rules and the local rules adapter alike). */
export const RULE_FILTERS = {
  heartbeats: 'pc/+/heartbeat',
  logs: 'pc/+/logs',
  commandResults: 'pc/+/commands/result',
  records: 'pc/+/records',
  calls: 'pc/+/calls',
  callOpenDoor: 'pc/+/calls/open',
  shadowDocuments: '$aws/things/+/shadow/update/documents',
  presence: '$aws/events/presence/+/+',
} as const;

/**
 * The SQL of every topic rule: the device's payload travels base64-encoded under `payload`, beside
 * the topic it came on, so no field of the payload can stand in for the topic (which names the
 * tenant and the device, and which the broker's policy holds each device to).
 */
export const ruleSql = (filter: string): string => `SELECT encode(*, 'base64') AS payload, topic() AS topic FROM '${filter}'`;

/** What a topic rule hands the ingest function (see `ruleSql`). */
export interface RuleEvent {
  payload: string;
  topic: string;
}

/** The event a topic rule makes of one message: the same on AWS and in the local rules adapter. */
export const ruleEvent = (topic: string, payload: Uint8Array | string): RuleEvent => ({ payload: Buffer.from(payload).toString('base64'), topic });

/** Messages a device publishes, as the ingest checks them. */
export const heartbeatMessage = z.object({ time: epochMs.optional(), info: deviceInfo.omit({ serial: true }).extend({ serial: z.string().optional() }) }).strict();
export interface HeartbeatMessage {
  time: number;
  info: DeviceInfo;
}
export const logMessage = z.object({ entries: z.array(deviceLogEntry).max(100) }).strict();
export interface LogMessage {
  /** Up to 100 entries; see DEVICE_LOG_CODES for the codes and their parameters. */
  entries: DeviceLogEntry[];
}
export const commandResultMessage = z.object({ commandKey: z.string().regex(/^[0-9a-z]{8,32}$/), ok: z.boolean(), error: z.string().max(500).optional() }).strict();
export type CommandResultMessage = z.input<typeof commandResultMessage>;

// Pass records

export const PASS_STATES = ['passed', 'refused'] as const;
export type PassState = (typeof PASS_STATES)[number];
export const PASS_SOURCES = ['face', 'card', 'qr', 'remote'] as const;
export type PassSource = (typeof PASS_SOURCES)[number];
/** A capture is a JPEG or PNG of at most 1 MB. */
export const CAPTURE_TYPES = ['image/jpeg', 'image/png'] as const;
export const CAPTURE_MAX_BYTES = 1024 * 1024;
/** At most this many records travel in one records message. */
export const RECORDS_PER_MESSAGE = 50;
/**
 * Why the terminal refused a pass (a record's `refusedFor`), in the order it decides: the
 * blacklist, the face's validity, its schedule, the temperature, the mask; `lockdown` is a door
 * closed to everyone. `unknown` answers a refused record that named no reason (older terminals).
 */
export const REFUSAL_REASONS = ['unknown', 'blacklist', 'validity', 'schedule', 'temperature', 'mask', 'lockdown'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];
/** Why a schedule was open or closed at the pass: its week, an exception date, or a company holiday. */
export const SCHEDULE_BECAUSE = ['weekly', 'exception', 'holiday'] as const;
const clockTime = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/);
/**
 * How the terminal decided one pass (`decision` of a record, at most a few hundred bytes): the list
 * whose face matched (null for a stranger) with its validity, the schedule in force then (its id,
 * the terminal's local date and time, open or not, why, and the period it fell in), the door mode,
 * and the temperature and mask rules it applied.
 */
export const passDecision = z
  .object({
    list: z.enum(['pass', 'blacklist']).nullable(),
    validFrom: z.iso.datetime().nullable(),
    validTo: z.iso.datetime().nullable(),
    schedule: z
      .object({
        scheduleId: z.string().regex(/^[0-9a-z]{8,32}$/),
        localTime: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/),
        timezone: z.string().max(64),
        open: z.boolean(),
        because: z.enum(SCHEDULE_BECAUSE),
        period: z.object({ from: clockTime, to: clockTime }).strict().nullable(),
      })
      .strict()
      .nullable(),
    doorMode: z.string().regex(/^[A-Za-z]{1,32}$/).nullable(),
    temperature: z.object({ alarm: z.boolean(), threshold: z.number().min(30).max(45) }).strict(),
    maskRequired: z.boolean(),
  })
  .strict();
export type PassDecision = z.output<typeof passDecision>;

/**
 * One pass as the terminal saw it. `recordId` is the terminal's own id for it: a record sent
 * again under the same id is stored once. `personKey` is the face's person, absent for a stranger;
 * `name` is the name the terminal knew. `temperature` is in degrees Celsius. `capture` announces a
 * photo the terminal will upload: the ack carries where to put it.
 */
export const passRecordUp = z
  .object({
    recordId: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/),
    personKey: z.string().regex(/^[0-9a-z]{8,32}$/).optional(),
    name: z.string().max(128).optional(),
    temperature: z.number().min(20).max(50).optional(),
    mask: z.boolean().optional(),
    passState: z.enum(PASS_STATES),
    /** Milliseconds since 1970 when the terminal verified the person. */
    verifyTime: epochMs,
    source: z.enum(PASS_SOURCES),
    capture: z.object({ contentType: z.enum(CAPTURE_TYPES), size: z.number().int().min(1) }).strict().optional(),
    /** With `refused`: why (REFUSAL_REASONS but `unknown`); ignored on a pass that passed. */
    refusedFor: z.enum(REFUSAL_REASONS).exclude(['unknown']).optional(),
    decision: passDecision.optional(),
  })
  .strict();
export type PassRecordUp = z.output<typeof passRecordUp>;
/**
 * `pc/<thing>/records`: up to RECORDS_PER_MESSAGE records. Each is checked on its own; a
 * malformed one is refused with its reason. Like every device message, strict: an unknown field
 * beside `records` refuses the whole message (each record whose id can be read is answered refused).
 */
export const recordsMessage = z.object({ records: z.array(z.unknown()).min(1).max(RECORDS_PER_MESSAGE) }).strict();
export interface RecordsMessage {
  records: PassRecordUp[];
}
/**
 * `pc/<thing>/records/ack`: `stored` names the records now safely stored (including ones stored
 * before, sent again), each with a presigned PUT for its capture when one was announced and the
 * capture is still wanted; `refused` names malformed records and why. A terminal keeps a record
 * and sends it again until one of the two names it.
 */
export interface RecordsAckMessage {
  /** `captureStored`: the record was stored before and its capture has arrived; nothing more to upload. */
  stored: { recordId: string; upload?: { url: string; headers: Record<string, string> }; captureStored?: true }[];
  refused: { recordId: string; reason: string }[];
}
/** RecordsAckMessage as a schema: `upload.headers` are the headers the PUT must carry, exactly. */
export const recordsAckMessage = z
  .object({
    stored: z.array(
      z
        .object({
          recordId: z.string().max(64),
          upload: z
            .object({ url: z.url(), headers: z.record(z.string(), z.string()) })
            .strict()
            .optional(),
          captureStored: z.literal(true).optional(),
        })
        .strict(),
    ),
    refused: z.array(z.object({ recordId: z.string().max(64), reason: z.string() }).strict()),
  })
  .strict();

// Intercom calls

/** SPEC.md §4: a call as the reporting intercom saw it: incoming 1, outgoing 2, not connected 3. */
export const CALL_STATUSES = [1, 2, 3] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
/** A recording is Opus in Ogg or PCM in WAV, at most RECORDING_MAX_BYTES. */
export const RECORDING_TYPES = ['audio/ogg', 'audio/wav'] as const;
export type RecordingType = (typeof RECORDING_TYPES)[number];
export const RECORDING_MAX_BYTES = 8 * 1024 * 1024;
/** At most this many calls travel in one calls message. */
export const CALLS_PER_MESSAGE = 20;
/** The longest call the cloud takes: a day, in seconds. */
export const CALL_MAX_SECONDS = 86_400;

/**
 * One call as one intercom saw it. `callId` is the call's own id (a SIP Call-ID or the vendor's),
 * the same at both ends; an intercom reports each call once it rings (`endTime` absent: a live
 * call) and again when it ends, under the same id: the cloud keeps one call per call id, with the
 * `outgoing` report as its calling end and the `incoming` one as its called end.
 *
 * `direction` says who called: `outgoing` this intercom, `incoming` the other end, named by its
 * intercom `number` (the number set in the console). `status` is SPEC.md's: 1 incoming and
 * answered, 2 outgoing and answered, 3 not connected (while it rings, and at the end when nobody
 * answered or it was refused). A live call is reported when it starts ringing (status 3) and may
 * be reported again once answered (status 1 or 2 with `answerTime`): the console can then open a
 * door station's door from it.
 * `answerTime` is when it was answered (absent for status 3); `duration` the talk time in
 * seconds, required once the call has ended and answered. `doorOpenedAt` is when a door station
 * opened its door during the call. `recording` announces a recording the intercom will upload
 * once the call has ended: the ack carries where to put it.
 */
export const callUp = z
  .object({
    callId: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/),
    direction: z.enum(['incoming', 'outgoing']),
    status: z.union([z.literal(1), z.literal(2), z.literal(3)]),
    peer: z.object({ number: z.string().trim().min(1).max(32) }).strict(),
    startTime: epochMs,
    answerTime: epochMs.optional(),
    endTime: epochMs.optional(),
    duration: z.number().int().min(0).max(CALL_MAX_SECONDS).optional(),
    doorOpenedAt: epochMs.optional(),
    /**
     * Any type and size are taken here; a recording of a type other than RECORDING_TYPES, over
     * RECORDING_MAX_BYTES, of a call not connected or of a call still live is refused in the ack
     * (`recordingRefused`) while the call itself is stored.
     */
    recording: z.object({ contentType: z.string().min(1).max(100), size: z.number().int().min(1) }).strict().optional(),
  })
  .strict()
  .superRefine((call, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (call.status !== 3 && (call.status === 1) !== (call.direction === 'incoming')) issue('status', 'must be 1 for an incoming call and 2 for an outgoing one, or 3');
    if (call.status === 3 && call.answerTime !== undefined) issue('answerTime', 'a call that was not connected has no answer time');
    if (call.status !== 3 && call.answerTime === undefined) issue('answerTime', 'required for an answered call');
    if (call.answerTime !== undefined && call.answerTime < call.startTime) issue('answerTime', 'before startTime');
    if (call.endTime !== undefined && call.endTime < (call.answerTime ?? call.startTime)) issue('endTime', 'before the call started or was answered');
    if (call.endTime !== undefined && call.status !== 3 && call.duration === undefined) issue('duration', 'required once an answered call has ended');
  });
export type CallUp = z.output<typeof callUp>;
/**
 * `pc/<thing>/calls`: up to CALLS_PER_MESSAGE calls, each checked on its own (as records are).
 * Only door stations and indoor monitors send it.
 */
export const callsMessage = z.object({ calls: z.array(z.unknown()).min(1).max(CALLS_PER_MESSAGE) }).strict();
export interface CallsMessage {
  calls: CallUp[];
}
/**
 * `pc/<thing>/calls/ack`: `stored` names the calls now stored (live or ended; again for one sent
 * again), each with a presigned PUT for its recording when one was announced, is wanted, and has
 * not arrived yet (`recordingStored` when it has); `recordingRefused` says why an announced
 * recording is not wanted (its type, its size, a call not connected). `refused` names malformed calls.
 */
export interface CallsAckMessage {
  stored: { callId: string; upload?: { url: string; headers: Record<string, string> }; recordingStored?: true; recordingRefused?: string }[];
  refused: { callId: string; reason: string }[];
}
export const callsAckMessage = z
  .object({
    stored: z.array(
      z
        .object({
          callId: z.string().max(64),
          upload: z
            .object({ url: z.url(), headers: z.record(z.string(), z.string()) })
            .strict()
            .optional(),
          recordingStored: z.literal(true).optional(),
          recordingRefused: z.string().optional(),
        })
        .strict(),
    ),
    refused: z.array(z.object({ callId: z.string().max(64), reason: z.string() }).strict()),
  })
  .strict();
/**
 * `pc/<thing>/calls/open`: an indoor monitor that answered a door station's call asks for its
 * door. The cloud sends that door station an `openDoor` command carrying the `callId`; when the
 * station reports it done, the call says when the door opened.
 */
export const openDoorRequest = z.object({ callId: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/) }).strict();
export type OpenDoorRequest = z.output<typeof openDoorRequest>;

// Face sync

/** The two face lists a terminal holds: people it lets pass (setType 0) and people it watches for (setType 1). */
export const FACE_LISTS = ['pass', 'blacklist'] as const;
export type FaceList = (typeof FACE_LISTS)[number];
export const SYNC_STATES = ['pending', 'synced', 'failed'] as const;
export type SyncState = (typeof SYNC_STATES)[number];
/** Why a terminal could not apply a face change. */
export const SYNC_FAILURES = ['noPhoto', 'photoRejected', 'capacityFull', 'expired', 'downloadFailed'] as const;
export type SyncFailure = (typeof SYNC_FAILURES)[number];
/** The longest `detail` a terminal may give with a failure: its own words on why, shown in the console. */
export const SYNC_DETAIL_MAX = 200;

/** `pc/<thing>/faces/notify`: changes up to `seq` wait; the terminal pulls them over HTTPS. */
export interface FaceNotifyMessage {
  seq: number;
}
/** FaceNotifyMessage as a schema. */
export const faceNotifyMessage = z.object({ seq: z.number().int().min(1) }).strict();

/**
 * One change of the terminal's face library, as `GET /v1/deviceSync/faces` answers it. `upsert`
 * adds or replaces the face of (`list`, `personKey`) with its validity (`validFrom`/`validTo`,
 * ISO times, null for no bound) and photo (a presigned GET, null when the person has none);
 * `remove` deletes it. `seq` grows with every change; the terminal reports each by it.
 */
export interface FaceChange {
  seq: number;
  action: 'upsert' | 'remove';
  list: FaceList;
  personKey: string;
  name: string;
  kind: 'employee' | 'visitor';
  validFrom: string | null;
  validTo: string | null;
  /** The schedule of the authorization (`GET /v1/deviceSync/schedules`); null: at any time. */
  scheduleId: string | null;
  photo: { url: string; contentType: string } | null;
}
export interface FaceChangesPage {
  changes: FaceChange[];
  /** Pass it back as `cursor` for the next page; `more` says whether one waits. */
  cursor: string;
  more: boolean;
}
/** FaceChange and FaceChangesPage as schemas (what `GET /v1/deviceSync/faces` answers in `data`). */
export const faceChange = z
  .object({
    seq: z.number().int().min(1),
    action: z.enum(['upsert', 'remove']),
    list: z.enum(FACE_LISTS),
    personKey: z.string().regex(/^[0-9a-z]{8,32}$/),
    name: z.string(),
    kind: z.enum(['employee', 'visitor']),
    validFrom: z.iso.datetime().nullable(),
    validTo: z.iso.datetime().nullable(),
    scheduleId: z.string().regex(/^[0-9a-z]{8,32}$/).nullable(),
    photo: z.object({ url: z.url(), contentType: z.string() }).strict().nullable(),
  })
  .strict();
export const faceChangesPage = z.object({ changes: z.array(faceChange), cursor: z.string().regex(/^\d{1,15}$/), more: z.boolean() }).strict();
/**
 * What every refused HTTPS answer to a terminal carries in `data.reason`, besides the translated
 * `message` (docs/device-protocol.md, "Reasons"): a stable code to act on.
 */
export const DEVICE_REASONS = [
  /** 422 on bind: no company has this binding code. Ask the installer for the right one; don't retry on a timer. */
  'unknownBindingCode',
  /** 422: a field is invalid (`data.issues` names each). Fix the message; sending it again does not help. */
  'invalid',
  /** 409 on bind: the company has no licence in force. Retry after an hour or when the installer says so. */
  'noLicence',
  /** 409 on bind: every licence seat is in use. As noLicence. */
  'noFreeSeat',
  /** 403: these credentials are of a replacement an administrator has not approved yet. Wait; try again every minute. */
  'pendingApproval',
  /** 403: an approved replacement took this device over. Stop: don't bind again, show "replaced" on the screen. */
  'replaced',
  /** 403: the device was deleted in the console. Bind again only when the installer asks for it. */
  'deleted',
  /** 403: the credentials are wrong. Bind again. */
  'unauthorized',
  /** 409 to a face pull: the cursor belongs to an earlier binding (FACE_SYNC_START_AGAIN). */
  'startAgain',
  /** 429: too many attempts; `data.retryAfterSeconds` says how long to wait. */
  'throttled',
  /** 413: the body is too large. */
  'tooLarge',
  /** 404: no such path. Check the API base URL. */
  'notFound',
  /** 409 otherwise: the change conflicts with another; read again and retry. */
  'conflict',
  /** 5xx: the cloud failed. Retry with back-off. */
  'serverError',
] as const;
export type DeviceReason = (typeof DEVICE_REASONS)[number];

/**
 * The reason of a 409 to `GET /v1/deviceSync/faces`: the cursor is past every change of this
 * device (it belongs to an earlier binding). The terminal empties its face library, sets its
 * cursor to 0 and pulls again.
 */
export const FACE_SYNC_START_AGAIN = 'startAgain' satisfies DeviceReason;
export const faceChangesQuery = z.object({
  cursor: z.string().regex(/^\d{1,15}$/).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});
export const faceResultsBody = z
  .object({
    results: z
      .array(
        z
          .object({
            list: z.enum(FACE_LISTS),
            personKey: z.string().regex(/^[0-9a-z]{8,32}$/),
            seq: z.number().int().min(1),
            state: z.enum(['synced', 'failed']),
            reason: z.enum(SYNC_FAILURES).optional(),
            detail: z.string().trim().max(SYNC_DETAIL_MAX).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(200),
  })
  .strict();
export type FaceResult = z.output<typeof faceResultsBody>['results'][number];

// Schedules

/** At most this many schedules are asked for at once (a company has no more: SCHEDULE_LIMIT). */
export const SCHEDULES_PER_PULL = 100;
/** The holiday dates that close schedules reach this many days ahead, so a terminal offline that long still keeps them. */
export const HOLIDAY_DAYS_AHEAD = 400;
/** `GET /v1/deviceSync/schedules?ids=`: the schedules the terminal's faces name, comma-separated. */
export const deviceSchedulesQuery = z.object({
  ids: z.string().regex(new RegExp(`^[0-9a-z]{8,32}(,[0-9a-z]{8,32}){0,${SCHEDULES_PER_PULL - 1}}$`)),
});
const calendarDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const periods = z.array(z.object({ from: clockTime, to: clockTime }).strict()).max(4);
/**
 * One schedule as a terminal applies it, in its own time zone: `weekly` is seven lists of periods,
 * Monday first (empty: closed that day); an exception date replaces its weekday; with
 * `holidaysClosed`, the answer's `holidays` close it. `version` grows with every edit.
 */
export const deviceSchedule = z
  .object({
    scheduleId: z.string().regex(/^[0-9a-z]{8,32}$/),
    version: z.number().int().min(1),
    weekly: z.array(periods).length(7),
    exceptions: z.array(z.object({ date: calendarDate, periods }).strict()),
    holidaysClosed: z.boolean(),
  })
  .strict();
export type DeviceSchedule = z.output<typeof deviceSchedule>;
/**
 * Its answer: the schedules asked for that exist (one deleted since is left out), and the company's
 * holidays (days off) from `holidaysFrom` to `holidaysTo` as dates, for the schedules that close on them.
 */
export const deviceSchedules = z
  .object({ schedules: z.array(deviceSchedule), holidays: z.array(calendarDate), holidaysFrom: calendarDate, holidaysTo: calendarDate })
  .strict();
export type DeviceSchedules = z.output<typeof deviceSchedules>;

/** Terminals call the HTTPS device routes with HTTP Basic credentials: the thing name and the MQTT password binding gave. */
export const deviceAuthorization = (thing: string, password: string): string => `Basic ${btoa(`${thing}:${password}`)}`;
/**
 * A command the cloud sends; `upload` is a presigned PUT for `capturePhoto`; `app` is the new
 * client package of `updateApp`: its version, a presigned GET, its SHA-256 (hex) and size in bytes.
 */
export interface CommandMessage {
  commandKey: string;
  type: DeviceCommandType;
  issuedAt: number;
  upload?: { url: string; contentType: string };
  app?: AppUpdate;
  /** Door stations: the call during which `openDoor` was asked for (by the answering monitor or the console). */
  callId?: string;
}
export interface AppUpdate {
  version: string;
  url: string;
  sha256: string;
  size: number;
}
/** AppUpdate and CommandMessage as schemas (what arrives on `pc/<thing>/commands`). */
export const appUpdate = z
  .object({ version: z.string().min(1), url: z.url(), sha256: z.string().regex(/^[0-9a-fA-F]{64}$/), size: z.number().int().min(1) })
  .strict();
export const commandMessage = z
  .object({
    commandKey: z.string().regex(/^[0-9a-z]{8,32}$/),
    type: z.enum(DEVICE_COMMAND_TYPES),
    issuedAt: z.number().int().positive(),
    upload: z.object({ url: z.url(), contentType: z.string() }).strict().optional(),
    app: appUpdate.optional(),
    callId: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/).optional(),
  })
  .strict();

/** What binding answers: the thing to be and how to reach the broker. */
export interface BindResult {
  /**
   * `bound`: a new device, the credentials work now. `pendingApproval`: the company already has a
   * device with this serial; the credentials work once an administrator approves the replacement.
   */
  state: 'bound' | 'pendingApproval';
  /**
   * Always true: a binding starts a device's face sync over. The terminal empties its face
   * library and pulls from cursor 0; a cursor kept from an earlier binding means nothing here.
   */
  resetCursor: true;
  deviceKey: string;
  thingName: string;
  mqtt: { url: string; clientId: string; username: string; password: string };
}
/** BindResult as a schema: on AWS the username is the thing name with the custom authorizer's name appended. */
export const bindResult = z
  .object({
    state: z.enum(['bound', 'pendingApproval']),
    resetCursor: z.literal(true),
    deviceKey: z.string().regex(/^[0-9a-z]{8,32}$/),
    thingName: z.string().regex(/^[0-9a-z]{8,32}_[0-9a-z]{8,32}$/),
    mqtt: z
      .object({
        url: z.url(),
        clientId: z.string().regex(/^[0-9a-z]{8,32}_[0-9a-z]{8,32}$/),
        username: z.string().regex(/^[0-9a-z]{8,32}_[0-9a-z]{8,32}(\?x-amz-customauthorizer-name=[^&]+)?$/),
        password: z.string().min(1),
      })
      .strict(),
  })
  .strict();

// Questionnaires

/**
 * The shadow key (in `state.desired`) that names the surveys a terminal is to show:
 * `<questionnaireKey>.<revision>` of each, comma-separated and sorted, or `""` for none. When it
 * changes the terminal reads them with `GET /v1/deviceSync/questionnaires` and reports the value
 * back under the same key in `state.reported` once it shows them.
 */
export const QUESTIONNAIRES_SHADOW_KEY = 'questionnaires';

/** `GET /v1/deviceSync/questionnaires`: the open surveys in this terminal's scope, oldest first. */
export const deviceQuestionnaire = z
  .object({
    questionnaireKey: z.string().regex(/^[0-9a-z]{8,32}$/),
    revision: z.number().int().min(1),
    title: z.string(),
    mode: z.enum(QUESTIONNAIRE_MODES),
    displaySeconds: z.number().int().min(1),
    questions: z.array(question),
    /** The survey in other languages, by locale (`ja_JP`...): the same questions and options in the same order. */
    translations: surveyTranslations,
  })
  .strict();
export type DeviceQuestionnaire = z.input<typeof deviceQuestionnaire>;
export const deviceQuestionnaires = z.object({ items: z.array(deviceQuestionnaire), token: z.string() }).strict();
export type DeviceQuestionnaires = z.input<typeof deviceQuestionnaires>;

/**
 * `POST /v1/deviceSync/questionnaireAnswers`: one person's answers on the terminal's screen.
 * `answerId` is the terminal's own id for it: answers sent again under the same id are stored
 * once. `personKey` is the person the terminal recognised, absent for a stranger.
 */
export const questionnaireAnswerUp = z
  .object({
    answerId: z.string().regex(/^[0-9A-Za-z_-]{1,64}$/),
    questionnaireKey: z.string().regex(/^[0-9a-z]{8,32}$/),
    revision: z.number().int().min(1),
    answeredAt: epochMs,
    personKey: z.string().regex(/^[0-9a-z]{8,32}$/).optional(),
    answers,
  })
  .strict();
export type QuestionnaireAnswerUp = z.input<typeof questionnaireAnswerUp>;
/** Its answer's `data`: `stored` the first time, `duplicate` when the same `answerId` came before. */
export const questionnaireAnswerResult = z.object({ stored: z.enum(['stored', 'duplicate']), result: z.enum(QUESTIONNAIRE_RESULTS) }).strict();

/**
 * `POST /v1/deviceSync/questionnaireLinks`: a link for one person to answer a QR-mode survey on
 * their phone. It works once, until `expiresAt`, for this terminal and this survey only.
 */
export const questionnaireLinkBody = z.object({ questionnaireKey: z.string().regex(/^[0-9a-z]{8,32}$/) }).strict();
export const questionnaireLink = z.object({ url: z.url(), expiresAt: epochMs }).strict();
export type QuestionnaireLink = z.input<typeof questionnaireLink>;
