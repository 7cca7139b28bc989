import * as z from 'zod';
import { RECORD_TYPES } from './passRecords.ts';
import { DOOR_MODES } from './doorModes.ts';
import { CALL_STATUSES, FACE_LISTS, PASS_SOURCES, PASS_STATES, SYNC_FAILURES } from './protocol.ts';

/**
 * Webhooks (`/v1/webhooks`, settings section `settings:webhooks`): a company's subscriptions, each
 * an https address that receives the events it chose, signed with the subscription's secret, and
 * the log of every delivery. docs/webhooks.md is written from the schemas of this file
 * (`npm run webhook-docs`); the sender builds every body through them.
 */

/** The events a subscription may choose, by their stable names. */
export const WEBHOOK_EVENT_TYPES = [
  'pass.record',
  'blacklist.hit',
  'fever.detected',
  'stranger.detected',
  'device.online',
  'device.offline',
  'questionnaire.abnormal',
  'call.record',
  'authorization.syncFailed',
  'door.mode',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The event "send a test event" delivers, to one subscription only. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type AnyEventType = WebhookEventType | typeof TEST_EVENT_TYPE;

/** Subscriptions a company may have. */
export const WEBHOOK_LIMIT = 10;
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 200;
/** How long the secret a rotation replaced still signs (a second signature in the same header). */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;
/** A receiver that has not answered within this is cut off: the attempt failed with `timeout`. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Characters of a receiver's answer kept in the delivery log. */
export const EXCERPT_MAX = 500;
/** Receivers refuse a delivery whose timestamp is further than this from their clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** How long the delivery log keeps a delivery. */
export const DELIVERY_RETENTION_DAYS = 30;
/** A subscription whose deliveries have failed without one success for this long is disabled, and its company's owner mailed. */
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 3_600_000;
/**
 * The waits before each attempt after the first, in units of 30 seconds: 30 s, 2 min, 10 min,
 * 30 min, 1 h, 3 h, 6 h and 12 h, nine attempts over about 23 hours. A receiver's `Retry-After`
 * makes a wait longer, never shorter; no attempt is made 24 hours after the first.
 */
export const RETRY_STEPS = [1, 4, 20, 60, 120, 360, 720, 1440] as const;
export const RETRY_UNIT_MS = 30_000;
export const RETRY_WINDOW_MS = 24 * 3_600_000;
/** Deliveries one "replay a range" sends again at most; a larger range is replayed in parts. */
export const REPLAY_LIMIT = 500;

/** The headers of every delivery. */
export const WEBHOOK_HEADERS = {
  /** The event's id: the same on every attempt and replay of the event, the receiver's idempotency key. */
  id: 'passcloud-event-id',
  type: 'passcloud-event-type',
  /** Unix seconds when this attempt was signed. */
  timestamp: 'passcloud-timestamp',
  /** `v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, and a second `v1=` with the replaced secret for 24 h after a rotation. */
  signature: 'passcloud-signature',
} as const;

// Events as receivers get them: only what an integrator can use, never a storage key or a tenant id.

const iso = z.iso.datetime({ offset: true });
const deviceRef = z
  .object({
    deviceKey: z.string().describe('The device, as the API names it (`/v1/devices/{deviceKey}`, `/v1/intercom/devices/{intercomKey}`).'),
    name: z.string().nullable().describe('The name the company gave it; null when the device was deleted.'),
    serial: z.string().nullable().describe('Its serial number; null when not known.'),
  })
  .describe('A face terminal or an intercom.');
const personRef = z
  .object({
    personKey: z.string().describe('The person, as the API names them (`/v1/employees/{employeeKey}` or `/v1/visitors/{visitorKey}`).'),
    kind: z.enum(['employee', 'visitor']).nullable().describe('Null when the person is no longer on record.'),
    name: z.string().nullable().describe('Null when privacy settings keep no visitor names, or the name is not known.'),
  })
  .describe('A person the company has.');

const passRecordData = z
  .object({
    recordKey: z.string().describe('The record, as `GET /v1/passRecords/{recordKey}` reads it.'),
    verifyTime: iso.describe('When the terminal verified the person.'),
    time: iso.describe('When the cloud stored the record.'),
    type: z.enum(RECORD_TYPES).describe('`stranger`: nobody the terminal knows; `blacklist`: a person on the terminal’s blacklist.'),
    device: deviceRef,
    person: personRef.nullable().describe('Null for a stranger.'),
    temperature: z.number().nullable().describe('Degrees Celsius; null when not measured or not kept.'),
    fever: z.boolean().describe('At or above the device’s alarm threshold.'),
    mask: z.boolean().nullable(),
    passState: z.enum(PASS_STATES),
    source: z.enum(PASS_SOURCES),
  })
  .strict();
export type PassRecordData = z.output<typeof passRecordData>;

const deviceStateData = z
  .object({
    device: deviceRef,
    online: z.boolean(),
    time: iso.describe('When the broker saw the device connect or disconnect.'),
  })
  .strict();
export type DeviceStateData = z.output<typeof deviceStateData>;

const questionnaireAbnormalData = z
  .object({
    resultKey: z.string(),
    questionnaireKey: z.string(),
    title: z.string(),
    answerTime: iso,
    device: deviceRef,
    person: personRef.nullable().describe('Null for an anonymous answer.'),
    answers: z.array(z.object({ question: z.string(), choices: z.array(z.string()), alarm: z.boolean().describe('The choice is one the questionnaire marks abnormal.') }).strict()),
  })
  .strict();
export type QuestionnaireAbnormalData = z.output<typeof questionnaireAbnormalData>;

const party = z.object({ deviceKey: z.string().nullable(), name: z.string().nullable(), number: z.string().nullable() }).strict();
const callRecordData = z
  .object({
    callKey: z.string().describe('The call, as `/v1/intercom/calls` lists it.'),
    device: deviceRef.describe('The intercom that reported the call first.'),
    direction: z.enum(['incoming', 'outgoing']),
    status: z
      .union(CALL_STATUSES.map((s) => z.literal(s)))
      .describe(
        'The call’s: 1 incoming (from a door station or from outside) and answered, 2 outgoing (from an indoor monitor) and answered, 3 not connected.',
      ),
    callTime: iso,
    answerTime: iso.nullable(),
    endTime: iso.nullable(),
    duration: z.number().int().nullable().describe('Talk time in seconds.'),
    calling: party,
    called: party,
    doorOpened: z.boolean(),
  })
  .strict();
export type CallRecordData = z.output<typeof callRecordData>;

const syncFailedData = z
  .object({
    device: deviceRef,
    person: personRef,
    list: z.enum(FACE_LISTS).describe('`pass`: the pass list; `blacklist`: the blacklist.'),
    reason: z.enum(SYNC_FAILURES).nullable().describe('Why the terminal could not enrol the face.'),
    detail: z.string().nullable(),
    time: iso,
  })
  .strict();
export type SyncFailedData = z.output<typeof syncFailedData>;

const doorModeData = z
  .object({
    mode: z.enum(DOOR_MODES).describe('`lockdown`: nobody passes but the exempt; `open`: doors held open; `normal`: a mode ended.'),
    scope: z
      .union([
        z.object({ all: z.literal(true).describe('Every face terminal of the company.') }).strict(),
        z.object({ groupKeys: z.array(z.string()).describe('The device groups, as `/v1/groups` names them.') }).strict(),
        z.object({ deviceKeys: z.array(z.string()).describe('The face terminals, as `/v1/devices` names them.') }).strict(),
      ])
      .describe('Every face terminal, device groups, or chosen terminals.'),
    reason: z.string().describe('Why, as the administrator gave it.'),
    setBy: z.string().describe('The account that set the mode.'),
    devices: z.number().int().describe('How many terminals were given the mode.'),
    time: iso.describe('When the mode was set.'),
  })
  .strict();
export type DoorModeData = z.output<typeof doorModeData>;

const testData = z.object({ message: z.string() }).strict();

/** The `data` of each event type. */
export const EVENT_DATA = {
  'pass.record': passRecordData,
  'blacklist.hit': passRecordData,
  'fever.detected': passRecordData,
  'stranger.detected': passRecordData,
  'device.online': deviceStateData,
  'device.offline': deviceStateData,
  'questionnaire.abnormal': questionnaireAbnormalData,
  'call.record': callRecordData,
  'authorization.syncFailed': syncFailedData,
  'door.mode': doorModeData,
  'webhook.test': testData,
} as const satisfies Record<AnyEventType, z.ZodType>;
export type EventData<T extends AnyEventType> = z.output<(typeof EVENT_DATA)[T]>;

/** What a receiver gets: the body of every delivery. */
export const eventEnvelope = <T extends AnyEventType>(type: T) =>
  z
    .object({
      id: z.string().describe('Stable: the same on every attempt and replay of this event.'),
      type: z.literal(type),
      created: iso.describe('When the event happened.'),
      data: EVENT_DATA[type],
    })
    .strict();
export interface WebhookEvent<T extends AnyEventType = AnyEventType> {
  id: string;
  type: T;
  created: string;
  data: EventData<T>;
}

// The API

export const webhookKeyParams = z.object({ webhookKey: z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' }) });
/** A delivery is named by its event's id. */
export const DELIVERY_KEY = /^evt_[0-9]{13}[0-9a-f]{16}$/;
export const deliveryKeyParams = webhookKeyParams.extend({ deliveryKey: z.string().regex(DELIVERY_KEY, { message: 'error.itemNotFound' }) });

const url = z
  .string()
  .trim()
  .min(1)
  .max(WEBHOOK_URL_MAX)
  .superRefine((value, ctx) => {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'webhook.urlInvalid' });
      return;
    }
    if (parsed.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'webhook.urlNotHttps' });
    else if (parsed.username || parsed.password) ctx.addIssue({ code: 'custom', message: 'webhook.urlCredentials' });
    else if (parsed.hash) ctx.addIssue({ code: 'custom', message: 'webhook.urlFragment' });
  });
const events = z
  .array(z.enum(WEBHOOK_EVENT_TYPES))
  .min(1, { message: 'webhook.eventsRequired' })
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((list) => WEBHOOK_EVENT_TYPES.filter((type) => list.includes(type)));
const description = z.string().trim().max(WEBHOOK_DESCRIPTION_MAX);

export const webhookCreateBody = z.object({ url, events, description: description.default(''), enabled: z.boolean().default(true) }).strict();
export type WebhookCreateBody = z.output<typeof webhookCreateBody>;
export const webhookPatchBody = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), enabled: z.boolean().optional(), version: z.number().int().min(1) })
  .strict();
export type WebhookPatchBody = z.output<typeof webhookPatchBody>;

/** Times the service itself writes (`toISOString`). */
const stamp = z.iso.datetime();

/** A subscription, as `GET /v1/webhooks/{webhookKey}` reads it and a change answers it. */
export const webhookAnswer = z.object({
  webhookKey: z.string(),
  url: z.string().meta({ description: 'The https address that receives the events' }),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).meta({ description: 'The events it chose' }),
  description: z.string(),
  enabled: z.boolean(),
  disabledReason: z
    .enum(['failing'])
    .nullable()
    .meta({ description: 'Why it is off when the service turned it off: `failing` (3 days without a delivered event); else null' }),
  failingSince: stamp.nullable().meta({ description: 'Since when its deliveries fail without one success; null when the last one was delivered' }),
  previousSecretUntil: stamp.nullable().meta({ description: 'Until when the secret a rotation replaced still signs; null when none does' }),
  secretRotateTime: stamp.nullable().meta({ description: 'When the secret was last rotated; null when never' }),
  createTime: stamp,
  updateTime: stamp,
  version: z.number().int().meta({ description: 'Send it back with a change, a rotation or a deletion: a stale one answers 409' }),
});
export type WebhookJson = z.output<typeof webhookAnswer>;

/** `GET /v1/webhooks`: every subscription of the company, oldest first. */
export const webhookList = z.object({ items: z.array(webhookAnswer) });

/** A new subscription, and its secret: shown this once. */
export const webhookCreated = z.object({
  webhook: webhookAnswer,
  secret: z.string().meta({ description: 'The signing secret (`whsec_…`), shown this once' }),
});
export type WebhookCreated = z.output<typeof webhookCreated>;

/** A rotation's answer: the new secret, shown this once; the old one signs too until `previousSecretUntil`. */
export const webhookSecret = z.object({
  secret: z.string().meta({ description: 'The new signing secret (`whsec_…`), shown this once' }),
  previousSecretUntil: stamp.meta({ description: 'Until when the replaced secret still signs, as a second signature' }),
  webhook: webhookAnswer,
});
export type WebhookSecret = z.output<typeof webhookSecret>;

/** A test event or a delivery sent again: queued for the sender. */
export const deliveryQueued = z.object({
  deliveryKey: z.string().meta({ description: 'The delivery (its event’s id), as `GET …/deliveries` lists it' }),
});

/**
 * - `pending`: waiting for its first attempt (or a replay);
 * - `retrying`: an attempt failed and another is due (`nextAttemptTime`);
 * - `delivered`: the receiver answered 2xx;
 * - `dead`: no more attempts (a 4xx other than 408 and 429, a redirect, 24 hours of failures, or
 *   the subscription was off): the dead-letter list, each of which may be replayed.
 */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** Why an attempt failed without an answer code, or why there was no attempt. */
export const DELIVERY_ERRORS = ['timeout', 'connection', 'tls', 'addressRefused', 'redirect', 'status', 'disabled', 'gone', 'workerFailed'] as const;
export type DeliveryError = (typeof DELIVERY_ERRORS)[number];

/** A delivery of one event to one subscription, as its log lists it. */
const webhookDelivery = z.object({
  deliveryKey: z.string(),
  eventId: z.string().meta({ description: 'The event’s id: the same on every attempt and replay' }),
  eventType: z.enum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]),
  created: iso.meta({ description: 'When the event happened' }),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastAttemptTime: stamp.nullable(),
  nextAttemptTime: stamp.nullable().meta({ description: 'When the next attempt is due, while one is; else null' }),
  latencyMs: z.number().int().nullable().meta({ description: 'Milliseconds from sending to the answer (or to giving up) of the last attempt' }),
  responseCode: z.number().int().nullable().meta({ description: 'The HTTP status the receiver answered the last attempt with' }),
  error: z.enum(DELIVERY_ERRORS).nullable().meta({ description: 'Why the last attempt failed without an answer code, or why there was none' }),
  excerpt: z.string().nullable().meta({ description: `The start of the last answer’s body, at most ${EXCERPT_MAX} characters` }),
  replays: z.number().int().meta({ description: 'How many times it was sent again by hand' }),
});
export type WebhookDeliveryJson = z.output<typeof webhookDelivery>;

/** `GET …/deliveries`: a page of the delivery log, newest event first. */
export const webhookDeliveryPage = z.object({
  items: z.array(webhookDelivery),
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
});
export type WebhookDeliveryPage = z.output<typeof webhookDeliveryPage>;

const rangeInOrder = (q: { from?: string | undefined; to?: string | undefined }) => !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to);
const deliveryFilter = {
  from: iso.optional(),
  to: iso.optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.enum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]).optional(),
};
export const deliveryQuery = z
  .object({ ...deliveryFilter, pageSize: z.coerce.number().int().min(1).max(100).default(20), cursor: z.string().max(400).optional() })
  .strict()
  .refine(rangeInOrder, { message: 'mail.rangeReversed', path: ['to'] });
export type DeliveryQuery = z.output<typeof deliveryQuery>;

/** `POST …/replay`: the deliveries of a time range sent again, by default the dead letters only. */
export const replayRangeBody = z
  .object({ from: iso, to: iso, status: z.enum(['dead', 'delivered', 'any']).default('dead') })
  .strict()
  .refine(rangeInOrder, { message: 'mail.rangeReversed', path: ['to'] });
export type ReplayRangeBody = z.output<typeof replayRangeBody>;
/** What a replay of a range answers: how many went again, and where to go on when the range held more. */
export const replayAnswer = z.object({
  replayed: z.number().int().meta({ description: 'Deliveries sent again' }),
  more: z
    .boolean()
    .meta({ description: `The range holds more deliveries than one replay sends (${REPLAY_LIMIT}), or more than one request reads: replay the rest from \`continueTo\`` }),
  continueTo: stamp.nullable().meta({ description: 'Where to continue: the `to` of the next replay, when `more`; else null' }),
});
export type ReplayAnswer = z.output<typeof replayAnswer>;

/** `DELETE /v1/webhooks/{webhookKey}?version=`. */
export const webhookVersionQuery = z.object({ version: z.coerce.number().int().min(1) }).strict();
/** `POST …/secret`: the version last read. */
export const rotateBody = z.object({ version: z.number().int().min(1) }).strict();
