import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import {
  DELIVERY_ERRORS,
  DELIVERY_KEY,
  DELIVERY_RETENTION_DAYS,
  DELIVERY_STATUSES,
  DELIVERY_TIMEOUT_MS,
  DISABLE_AFTER_FAILING_MS,
  EVENT_DATA,
  EXCERPT_MAX,
  REPLAY_LIMIT,
  RETRY_STEPS,
  RETRY_UNIT_MS,
  RETRY_WINDOW_MS,
  SECRET_OVERLAP_MS,
  SIGNATURE_TOLERANCE_SECONDS,
  TEST_EVENT_TYPE,
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WEBHOOK_LIMIT,
  WEBHOOK_URL_MAX,
  eventEnvelope,
  type AnyEventType,
  type DeliveryError,
  type DeliveryStatus,
  type WebhookEvent,
} from '@passcloud/functions/contract/webhooks';
import { signature } from '@passcloud/functions/domain/webhookSignature';

const passRecordData = EVENT_DATA['pass.record'];
const deviceStateData = EVENT_DATA['device.online'];
const questionnaireAbnormalData = EVENT_DATA['questionnaire.abnormal'];
const callRecordData = EVENT_DATA['call.record'];
const syncFailedData = EVENT_DATA['authorization.syncFailed'];
const testData = EVENT_DATA['webhook.test'];

/**
 * docs/webhooks.md, the integrators' guide to webhooks, written from functions/contract/webhooks.ts
 * (event schemas, headers, limits, the retry schedule) and the verification examples in
 * docs/examples/, which it embeds as they are. `npm run webhook-docs` writes it;
 * tests/unit/webhookDocs.test.ts fails when the file and this generator's output part.
 */

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
export const DOC_FILE = `${DOCS}webhooks.md`;
export const NODE_EXAMPLE = `${DOCS}examples/verify-webhook.mjs`;
export const PYTHON_EXAMPLE = `${DOCS}examples/verify_webhook.py`;

/** Every event type, the test event last. */
export const ALL_EVENT_TYPES: readonly AnyEventType[] = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];

// Example bodies: one event of each type as a receiver gets it.

/** An event id as lib/webhookEvents.ts makes one: the event's time in milliseconds, then 16 hex digits of a hash. */
const exampleId = (type: AnyEventType, source: string, created: string): string =>
  `evt_${String(Date.parse(created)).padStart(13, '0')}${createHash('sha256').update(`example\u0000${type}\u0000${source}`).digest('hex').slice(0, 16)}`;
const event = <T extends AnyEventType>(type: T, source: string, created: string, data: WebhookEvent<T>['data']): WebhookEvent<T> => ({
  id: exampleId(type, source, created),
  type,
  created,
  data,
});

const gate = { deviceKey: 'h3k9m2q7x4d8r1tv', name: 'Main entrance, gate 1', serial: 'FT8A-2207-00413' };
const lobbyStation = { deviceKey: 'd5n8w2c6j3k9m4qe', name: 'Lobby door station', serial: 'DS-4C-110982' };
const flatMonitor = { deviceKey: 'm7t4x9b2e6h3r8pz', name: 'Flat 101 indoor monitor', serial: 'IM-7-553201' };
const employee = { personKey: 'p8w2n5c7j3k9m4qa', kind: 'employee' as const, name: 'Amara Okafor' };
const blacklisted = { personKey: 'v2q7h4m9x3c8n5kd', kind: 'visitor' as const, name: 'Dana Whitfield' };

export const EXAMPLE_EVENTS: { [T in AnyEventType]: WebhookEvent<T> } = {
  'pass.record': event('pass.record', `${gate.deviceKey}.r-20260114-081502-0193`, '2026-01-14T08:15:02.318Z', {
    recordKey: `${gate.deviceKey}.r-20260114-081502-0193`,
    verifyTime: '2026-01-14T08:15:02.318Z',
    time: '2026-01-14T08:15:03.052Z',
    type: 'employee',
    device: gate,
    person: employee,
    temperature: 36.5,
    fever: false,
    mask: false,
    passState: 'passed',
    source: 'face',
  }),
  'blacklist.hit': event('blacklist.hit', `${gate.deviceKey}.r-20260114-091947-0231`, '2026-01-14T09:19:47.905Z', {
    recordKey: `${gate.deviceKey}.r-20260114-091947-0231`,
    verifyTime: '2026-01-14T09:19:47.905Z',
    time: '2026-01-14T09:19:48.611Z',
    type: 'blacklist',
    device: gate,
    person: blacklisted,
    temperature: 36.7,
    fever: false,
    mask: false,
    passState: 'refused',
    source: 'face',
  }),
  'fever.detected': event('fever.detected', `${gate.deviceKey}.r-20260114-074412-0108`, '2026-01-14T07:44:12.640Z', {
    recordKey: `${gate.deviceKey}.r-20260114-074412-0108`,
    verifyTime: '2026-01-14T07:44:12.640Z',
    time: '2026-01-14T07:44:13.297Z',
    type: 'employee',
    device: gate,
    person: employee,
    temperature: 38.2,
    fever: true,
    mask: true,
    passState: 'refused',
    source: 'face',
  }),
  'stranger.detected': event('stranger.detected', `${gate.deviceKey}.r-20260114-222108-0377`, '2026-01-14T22:21:08.114Z', {
    recordKey: `${gate.deviceKey}.r-20260114-222108-0377`,
    verifyTime: '2026-01-14T22:21:08.114Z',
    time: '2026-01-14T22:21:09.020Z',
    type: 'stranger',
    device: gate,
    person: null,
    temperature: 36.4,
    fever: false,
    mask: null,
    passState: 'refused',
    source: 'face',
  }),
  'device.online': event('device.online', `${gate.deviceKey}#1768377301455`, '2026-01-14T07:55:01.455Z', {
    device: gate,
    online: true,
    time: '2026-01-14T07:55:01.455Z',
  }),
  'device.offline': event('device.offline', `${gate.deviceKey}#1768376702019`, '2026-01-14T07:45:02.019Z', {
    device: gate,
    online: false,
    time: '2026-01-14T07:45:02.019Z',
  }),
  'questionnaire.abnormal': event('questionnaire.abnormal', '1768375843210.q4m8x2k7c9n3w5tb', '2026-01-14T07:30:43.210Z', {
    resultKey: '1768375843210.q4m8x2k7c9n3w5tb',
    questionnaireKey: 'k2r7m4x9c3h8n5qw',
    title: 'Daily health check',
    answerTime: '2026-01-14T07:30:43.210Z',
    device: gate,
    person: employee,
    answers: [
      { question: 'Do you have a cough or a sore throat?', choices: ['Yes'], alarm: true },
      { question: 'Have you been in contact with anyone ill in the last 14 days?', choices: ['No'], alarm: false },
    ],
  }),
  'call.record': event('call.record', `${lobbyStation.deviceKey}.c-20260114-181204-5e2a`, '2026-01-14T18:12:51.730Z', {
    callKey: `${lobbyStation.deviceKey}.c-20260114-181204-5e2a`,
    device: lobbyStation,
    direction: 'outgoing',
    status: 2,
    callTime: '2026-01-14T18:12:04.118Z',
    answerTime: '2026-01-14T18:12:11.402Z',
    endTime: '2026-01-14T18:12:51.730Z',
    duration: 40,
    calling: { deviceKey: lobbyStation.deviceKey, name: lobbyStation.name, number: '01' },
    called: { deviceKey: flatMonitor.deviceKey, name: flatMonitor.name, number: '101' },
    doorOpened: true,
  }),
  'authorization.syncFailed': event('authorization.syncFailed', `${gate.deviceKey}#pass#${employee.personKey}#418`, '2026-01-14T10:02:37.866Z', {
    device: gate,
    person: employee,
    list: 'pass',
    reason: 'photoRejected',
    detail: 'No face found in the photo',
    time: '2026-01-14T10:02:37.866Z',
  }),
  'door.mode': event('door.mode', '2026-01-14T10:45:12.004Z#lockdown', '2026-01-14T10:45:12.004Z', {
    mode: 'lockdown',
    scope: { groupKeys: ['g4m8q2w7k3x9c5tn'] },
    reason: 'Intruder reported at the loading bay',
    setBy: 'security.lead',
    devices: 6,
    time: '2026-01-14T10:45:12.004Z',
  }),
  'webhook.test': event('webhook.test', '5f0c2a9e7b1d4c36a8e2f917', '2026-01-14T11:00:00.250Z', { message: 'This is a test event from Pass Cloud.' }),
};

// What the contract does not describe itself: by the data schema, field paths within it.

const NO_NOTES: Record<string, string> = {};
const ENVELOPE_NOTES: Record<string, string> = {
  type: 'The event type; the same as the `' + WEBHOOK_HEADERS.type + '` header.',
  data: 'What happened; its fields depend on `type` (below).',
};
const DATA_NOTES = new Map<z.ZodType, Record<string, string>>([
  [
    passRecordData,
    {
      mask: 'The person wore a mask; null when the terminal did not tell.',
      passState: '`passed`: the terminal let the person through; `refused`: it did not.',
      source: 'How the person was verified: `face`, `card`, `qr` code, or `remote` (the terminal let them through on a remote decision).',
    },
  ],
  [deviceStateData, { online: 'True for `device.online`, false for `device.offline`.' }],
  [
    questionnaireAbnormalData,
    {
      resultKey: 'The answer, as `GET /v1/questionnaires/{questionnaireKey}/results` lists it.',
      questionnaireKey: 'The questionnaire, as `GET /v1/questionnaires/{questionnaireKey}` reads it.',
      title: 'The questionnaire’s title.',
      answerTime: 'When the person answered.',
      answers: 'Every question answered, in the questionnaire’s order.',
      'answers[].question': 'The question’s text.',
      'answers[].choices': 'The choices the person picked.',
    },
  ],
  [
    callRecordData,
    {
      direction: '`outgoing`: that intercom called; `incoming`: it was called.',
      callTime: 'When the call started ringing.',
      answerTime: 'When it was answered; null when it was not connected.',
      endTime: 'When it ended.',
      calling: 'The end that called.',
      'calling.deviceKey': 'The intercom with that number; null when no intercom of the company has it.',
      'calling.name': 'That intercom’s name; null when there is none.',
      'calling.number': 'The intercom number.',
      called: 'The end that was called.',
      'called.deviceKey': 'The intercom with that number; null when no intercom of the company has it.',
      'called.name': 'That intercom’s name; null when there is none.',
      'called.number': 'The intercom number dialled.',
      doorOpened: 'A door station opened its door during the call.',
    },
  ],
  [syncFailedData, { detail: 'The terminal’s own words on the failure; null when it gave none.', time: 'When the cloud received the failure.' }],
  [testData, { message: 'A fixed text in the company’s language.' }],
]);

/** When each event is sent. */
const EVENT_SUMMARY: Record<AnyEventType, string> = {
  'pass.record': 'Every pass record a terminal stores: known people, strangers, blacklist hits, passes with and without fever.',
  'blacklist.hit': 'A person on a terminal’s blacklist was recognised (a pass record of type `blacklist`). The same record also raises `pass.record`.',
  'fever.detected': 'A pass record with a temperature at or above the device’s alarm threshold. The same record also raises `pass.record`.',
  'stranger.detected': 'A terminal saw a face it does not know (a pass record of type `stranger`). The same record also raises `pass.record`.',
  'device.online': 'A face terminal or an intercom connected to the cloud.',
  'device.offline': 'A face terminal or an intercom disconnected from the cloud.',
  'questionnaire.abnormal':
    'Someone answered a questionnaire with at least one choice the questionnaire marks abnormal (`alarm`). Answers without such a choice raise no event.',
  'call.record':
    'An intercom call ended: one event per call, once every end of the company that reported it has reported its end. Both ends of a call between two intercoms of the company report it under one call id and are one call, as `/v1/intercom/calls` lists it. `status` is the call’s: `1` incoming (from a door station or from outside) and answered, `2` outgoing (from an indoor monitor) and answered, `3` not connected (nobody answered, or it was refused).',
  'authorization.syncFailed': 'A terminal could not enrol a person’s face on its pass list or blacklist.',
  'door.mode':
    'An administrator set a door mode (`lockdown`: nobody passes but the exempt; `open`: doors held open) for all face terminals, device groups or chosen terminals, or ended one (`normal`).',
  'webhook.test':
    'Sent by “Send a test event” (`POST /v1/webhooks/{webhookKey}/test`) to that one subscription, whatever events it chose; never sent otherwise.',
};

const HEADER_TEXT: Record<keyof typeof WEBHOOK_HEADERS, string> = {
  id: 'The event’s id, the same as `id` in the body: the same on every attempt and replay of the event. Use it as the idempotency key.',
  type: 'The event type, the same as `type` in the body.',
  timestamp: 'Unix seconds when this attempt was signed (each attempt is signed anew). Not the time of the event: that is `created` in the body.',
  signature:
    '`v1=` and the hex HMAC-SHA256 of `<timestamp>.<body>` under the subscription’s secret; for 24 hours after a rotation, a second `v1=` entry, comma-separated.',
};

const ERROR_TEXT: Record<DeliveryError, string> = {
  timeout: `No complete answer within ${seconds(DELIVERY_TIMEOUT_MS)}. Tried again.`,
  connection: 'The host did not resolve, or the connection failed or was cut. Tried again.',
  tls: 'The TLS handshake failed (an expired or untrusted certificate, a name mismatch). Tried again.',
  addressRefused: 'The host resolved to an address outside the public internet. Not tried again.',
  redirect: 'The receiver answered 3xx. Redirects are never followed; not tried again.',
  status: 'The receiver answered with a status other than 2xx or 3xx; `responseCode` says which. 408, 429 and 5xx are tried again, any other 4xx is not.',
  disabled: 'The subscription was turned off before the attempt was due. Not attempted.',
  gone: 'The subscription was deleted before the attempt was due. Not attempted.',
  workerFailed: 'The service could not process the delivery itself. Not attempted again on its own; replay it.',
};

const STATUS_TEXT: Record<DeliveryStatus, string> = {
  pending: 'Waiting for its first attempt, or for the first attempt of a replay.',
  retrying: 'An attempt failed and another is due at `nextAttemptTime`.',
  delivered: 'The receiver answered 2xx.',
  dead: 'No further attempt will be made: the dead-letter list. It may be replayed.',
};

// Formatting

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/** A duration such as `1 h 42 min 30 s`. */
function duration(ms: number): string {
  const total = Math.round(ms / 1000);
  const parts: string[] = [];
  const h = Math.floor(total / 3600);
  const min = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) parts.push(`${h} h`);
  if (min) parts.push(`${min} min`);
  if (s || parts.length === 0) parts.push(`${s} s`);
  return parts.join(' ');
}

const hours = (ms: number): string => `${ms / 3_600_000} hours`;
const days = (ms: number): string => `${ms / 86_400_000} days`;

/** Prose wrapped at 100 columns; list items indent their continuation lines. */
function wrap(text: string, first = '', rest = first): string {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  // A number and its unit stay on one line.
  const words = text
    .replace(/(\d) (h|min|s|%|hours|days|seconds|characters)(?=[\s,.;:)]|$)/g, '$1\u00a0$2')
    .split(/[ \t\n]+/)
    .filter(Boolean)
    .map((word) => word.replace(/\u00a0/g, ' '));
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > 100) {
      lines.push(line);
      line = rest + word;
    } else line += (empty ? '' : ' ') + word;
    empty = false;
  }
  lines.push(line);
  return lines.join('\n');
}
const para = (text: string): string => wrap(text);
const item = (text: string): string => wrap(text, '- ', '  ');
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const table = (head: string[], rows: string[][]): string =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
const code = (lang: string, text: string): string => `\`\`\`${lang}\n${text.replace(/\n$/, '')}\n\`\`\``;

// Schemas

type JsonSchema = {
  type?: string | string[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  description?: string;
};

/**
 * The JSON Schema (2020-12) of an event type's body, as zod writes it. Timestamps keep
 * `format: date-time` (RFC 3339, with an offset) without zod's long equivalent pattern.
 */
export function eventJsonSchema(type: AnyEventType): Record<string, unknown> {
  return z.toJSONSchema(eventEnvelope(type), {
    io: 'output',
    override: (ctx) => {
      const json = ctx.jsonSchema as JsonSchema;
      if (json.format === 'date-time') delete json.pattern;
    },
  }) as Record<string, unknown>;
}

function typeText(schema: JsonSchema): string {
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' | ');
  if (schema.anyOf) return schema.anyOf.map(typeText).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'any'];
  return types
    .map((t) => {
      if (t === 'string' && schema.format) return `string (${schema.format})`;
      if (t === 'array' && schema.items) return `array of ${typeText(schema.items)}`;
      return t;
    })
    .join(' | ');
}

/** The object a schema is, or may be (an object or null). */
const objectOf = (schema: JsonSchema): JsonSchema | undefined => (schema.properties ? schema : schema.anyOf?.find((s) => s.properties));

interface FieldRow {
  path: string;
  type: string;
  description: string | undefined;
}

/** Every field of an object schema and of the objects within it, with dotted paths (`[]` for array items). */
function fields(schema: JsonSchema, prefix = ''): FieldRow[] {
  const rows: FieldRow[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push({ path, type: typeText(property), description: property.description ?? property.anyOf?.find((s) => s.description)?.description });
    const inner = objectOf(property);
    if (inner) rows.push(...fields(inner, `${path}.`));
    const items = property.items && objectOf(property.items);
    if (items) rows.push(...fields(items, `${path}[].`));
  }
  return rows;
}

/** The rows of one schema, each described by the contract or else by its note; a field with neither stops the generator. */
function describedFields(schema: JsonSchema, notes: Record<string, string>, where: string, prefix = ''): string[][] {
  const rows = fields(schema);
  for (const path of Object.keys(notes)) {
    if (!rows.some((row) => row.path === path)) throw new Error(`infra/tools/webhookDocs.ts has a note on ${where} ${path}, which the schema does not have`);
  }
  return rows.map((row) => {
    const description = row.description ?? notes[row.path];
    if (!description) throw new Error(`${where} ${row.path} has no .describe() in functions/contract/webhooks.ts and no note in infra/tools/webhookDocs.ts`);
    return [`\`${prefix}${row.path}\``, row.type, description];
  });
}

// The signed example

const exampleSecret = (seed: string): string => `whsec_${createHash('sha256').update(seed).digest('base64url')}`;
export const SIGNING_EXAMPLE = (() => {
  const body = JSON.stringify(EXAMPLE_EVENTS[TEST_EVENT_TYPE]);
  const timestamp = Math.floor(Date.parse(EXAMPLE_EVENTS[TEST_EVENT_TYPE].created) / 1000) + 1;
  const secret = exampleSecret('pass cloud webhook example: current secret');
  const previousSecret = exampleSecret('pass cloud webhook example: replaced secret');
  return {
    secret,
    previousSecret,
    timestamp,
    body,
    signature: signature([secret], timestamp, body),
    rotationSignature: signature([secret, previousSecret], timestamp, body),
  };
})();

// The document

function introduction(): string[] {
  return [
    '# Webhooks',
    '<!-- Written by `npm run webhook-docs` from functions/contract/webhooks.ts and docs/examples/; edit those, not this file. -->',
    para(
      'Pass Cloud tells your systems what happens in a company as it happens: passes, blacklist hits, fevers, strangers, devices going on and off line, abnormal questionnaire answers, intercom calls and faces a terminal could not enrol. Each event is an HTTPS `POST` of a JSON body to an address you choose, signed with a secret only you and Pass Cloud know.',
    ),
    '## Subscriptions',
    para(
      `A subscription is an address and the event types it receives. A company may have ${WEBHOOK_LIMIT} of them, managed in the console under Settings > Webhooks or through the API at \`/v1/webhooks\` (permission \`settings:webhooks\`; creating, changing and rotating the secret ask the user to confirm their password again). docs/openapi.json describes the routes.`,
    ),
    [
      item(
        `The address is an \`https://\` URL of at most ${WEBHOOK_URL_MAX} characters, without a user name, password or \`#fragment\`. Plain \`http\` is refused.`,
      ),
      item(
        'Its host must resolve, and only to public internet addresses: a name with any private, loopback, link-local or otherwise reserved address is refused when the subscription is saved, and again at every attempt (a delivery to it ends with `addressRefused`). Each attempt connects to the very address that was checked, so a name cannot answer one address to the check and another to the connection.',
      ),
      item('The receiver’s certificate must be valid for the host and signed by a publicly trusted authority.'),
      item(`A description of at most ${WEBHOOK_DESCRIPTION_MAX} characters is yours to keep notes in; a subscription may be turned off and on.`),
    ].join('\n'),
    '### The secret',
    para(
      'Creating a subscription answers its signing secret (`whsec_` and 43 more characters) once: Pass Cloud stores it encrypted and never shows it again. Keep it where your receiver reads its configuration. A lost secret cannot be read back; rotate it.',
    ),
    para(
      `Rotating (\`POST /v1/webhooks/{webhookKey}/secret\`) answers a new secret, once, and \`previousSecretUntil\`: for ${hours(SECRET_OVERLAP_MS)} the replaced secret signs every delivery too, as a second entry in the \`${WEBHOOK_HEADERS.signature}\` header. Deploy the new secret to your receivers within that time; a receiver that still has the old one keeps verifying meanwhile. After that only the new secret signs.`,
    ),
    para(
      `To try a receiver, “Send a test event” (\`POST /v1/webhooks/{webhookKey}/test\`) delivers a \`${TEST_EVENT_TYPE}\` event to that subscription, signed and logged like any other.`,
    ),
  ];
}

function request(): string[] {
  const headerRows = (Object.keys(WEBHOOK_HEADERS) as (keyof typeof WEBHOOK_HEADERS)[]).map((key) => [`\`${WEBHOOK_HEADERS[key]}\``, HEADER_TEXT[key]]);
  return [
    '## The request',
    para(
      `Each delivery attempt is a \`POST\` to the subscription’s address, with the event as a JSON body (UTF-8, no whitespace between tokens) and these headers:`,
    ),
    table(['Header', 'Value'], [...headerRows, ['`content-type`', '`application/json`'], ['`user-agent`', '`PassCloud-Webhooks/1`']]),
    para(
      `Answer any 2xx status within ${seconds(DELIVERY_TIMEOUT_MS)} to accept the event; the body of your answer is not read, beyond the first ${EXCERPT_MAX} characters the delivery log keeps for you. Verify the signature, store the event, answer, and do the work afterwards: an answer that takes longer than ${seconds(DELIVERY_TIMEOUT_MS)} is a failed attempt, and the event comes again.`,
    ),
  ];
}

function envelope(): string[] {
  const schema = eventJsonSchema(TEST_EVENT_TYPE) as JsonSchema;
  const rows = Object.entries(schema.properties ?? {}).map(([name, property]) => [
    `\`${name}\``,
    name === 'type' ? 'string' : name === 'data' ? 'object' : typeText(property),
    property.description ?? ENVELOPE_NOTES[name] ?? '',
  ]);
  return [
    '## The body',
    para('Every body is an object with the same four fields; `data` depends on the event type.'),
    table(['Field', 'Type', 'Meaning'], rows),
    para(
      `An event id is \`evt_\`, the time of the event in milliseconds since 1970 (13 digits) and 16 hexadecimal digits (\`${DELIVERY_KEY.source}\`): ids sort by the time of their events. It is also the delivery’s key in the delivery log (\`/v1/webhooks/{webhookKey}/deliveries/{deliveryKey}\`).`,
    ),
    para(
      'Times are RFC 3339 in UTC, with milliseconds. Keys (`deviceKey`, `personKey`, `recordKey` and so on) are those the API uses, so a receiver can read more about what an event names. Events carry no tenant ids, storage keys or photos.',
    ),
    para(
      'The schemas below allow no other fields today. A receiver that ignores fields it does not know, and answers 2xx to event types it does not handle, keeps working when fields or types are added.',
    ),
  ];
}

function events(): string[] {
  const overview = table(
    ['Type', 'Sent when'],
    ALL_EVENT_TYPES.map((type) => [`[\`${type}\`](#${type.replace(/[^a-zA-Z0-9-]/g, '').toLowerCase()})`, EVENT_SUMMARY[type]]),
  );
  const sections = ALL_EVENT_TYPES.flatMap((type) => {
    const schema = eventJsonSchema(type);
    const data = (schema as JsonSchema).properties!.data!;
    const example = EXAMPLE_EVENTS[type];
    const notes = DATA_NOTES.get(EVENT_DATA[type]) ?? NO_NOTES;
    return [
      `### ${type}`,
      para(EVENT_SUMMARY[type]),
      table(['Field', 'Type', 'Meaning'], describedFields(data, notes, type, 'data.')),
      'Example:',
      code('json', JSON.stringify(example, null, 2)),
      `<details><summary>JSON Schema of a <code>${type}</code> body</summary>\n\n${code('json', JSON.stringify(schema, null, 2))}\n\n</details>`,
    ];
  });
  return [
    '## Events',
    para(
      `A subscription chooses among these types; \`${TEST_EVENT_TYPE}\` is the test event, which no subscription chooses. One pass record may raise several events: a stranger with a fever raises \`pass.record\`, \`fever.detected\` and \`stranger.detected\`, each with its own id.`,
    ),
    overview,
    ...sections,
  ];
}

function signing(): string[] {
  const ex = SIGNING_EXAMPLE;
  const cli = JSON.stringify({ secret: ex.secret, signature: ex.signature, timestamp: String(ex.timestamp), body: ex.body, now: ex.timestamp });
  if (cli.includes("'")) throw new Error('the signing example must not contain a single quote (it is shown in single quotes)');
  return [
    '## Verifying a delivery',
    para(
      `The \`${WEBHOOK_HEADERS.signature}\` header holds one entry \`v1=<signature>\` per secret that signs, separated by commas: one, or two for ${hours(SECRET_OVERLAP_MS)} after a rotation (the new secret first). The signature is the lowercase hexadecimal HMAC-SHA256, keyed with the secret (its whole text, \`whsec_\` included, as UTF-8), of the \`${WEBHOOK_HEADERS.timestamp}\` header, a full stop, and the body exactly as received. To verify:`,
    ),
    [
      wrap(
        'Read the body as raw bytes, before any JSON parser or framework middleware touches it. A body parsed and serialised again is not the body that was signed.',
        '1. ',
        '   ',
      ),
      wrap(
        `Refuse the delivery when \`${WEBHOOK_HEADERS.timestamp}\` is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from your clock, either way: this keeps a recorded delivery from being replayed to you later. Keep your clock synchronised (NTP).`,
        '2. ',
        '   ',
      ),
      wrap('Compute the HMAC-SHA256 of `<timestamp>.<body>` with your secret.', '3. ', '   '),
      wrap(
        'Compare it, in constant time, with every `v1=` entry of the header; accept the delivery when one matches. Ignore entries of any other scheme.',
        '4. ',
        '   ',
      ),
      wrap(
        'Answer 2xx when it verifies. When it does not, answer 400 or 401: the delivery ends at once (see below), and you can replay it once the secret is right.',
        '5. ',
        '   ',
      ),
    ].join('\n'),
    '### A worked example',
    para(`With the secret \`${ex.secret}\`, the timestamp \`${ex.timestamp}\` and this body (${Buffer.byteLength(ex.body)} bytes, no line break at the end):`),
    code('json', ex.body),
    para('the signed text is the timestamp, a full stop and the body, and the header is'),
    code('text', `${WEBHOOK_HEADERS.signature}: ${ex.signature}`),
    para(`During a rotation that replaced the secret \`${ex.previousSecret}\`, the header is`),
    code('text', `${WEBHOOK_HEADERS.signature}: ${ex.rotationSignature}`),
    '### Node.js',
    para(
      'docs/examples/verify-webhook.mjs, with `node:crypto` only. With Express, give the webhook route `express.raw({ type: "application/json" })` so that `req.body` is the raw Buffer.',
    ),
    code('js', readFileSync(NODE_EXAMPLE, 'utf8')),
    para('The worked example above, through its command line (`now` pins the clock to the timestamp):'),
    code('sh', `echo '${cli}' | node docs/examples/verify-webhook.mjs`),
    '### Python',
    para(
      'docs/examples/verify_webhook.py, Python 3 with the standard library only. With Flask, pass `request.get_data()`; with Django, `request.body`: both are the raw bytes.',
    ),
    code('python', readFileSync(PYTHON_EXAMPLE, 'utf8')),
    para('The same example:'),
    code('sh', `echo '${cli}' | python3 docs/examples/verify_webhook.py`),
  ];
}

function delivery(): string[] {
  const unit = RETRY_UNIT_MS;
  let elapsed = 0;
  const rows = [['1', 'none', 'none', 'at once']];
  RETRY_STEPS.forEach((step, index) => {
    const wait = step * unit;
    elapsed += wait;
    rows.push([String(index + 2), duration(wait), `${duration(wait * 0.9)} to ${duration(wait * 1.1)}`, `about ${duration(elapsed)}`]);
  });
  const attempts = RETRY_STEPS.length + 1;
  const latest = elapsed * 1.1;
  return [
    '## Delivery',
    '### At least once, in no particular order',
    [
      item(
        `Every event is delivered at least once to every enabled subscription that chose its type. An event may arrive more than once: an attempt whose 2xx answer was lost or came after ${seconds(DELIVERY_TIMEOUT_MS)} is tried again, and a replay sends it again. Deduplicate on the event id (the \`${WEBHOOK_HEADERS.id}\` header, or \`id\` in the body): it is the same on every attempt and replay, so store the ids you processed (for at least the ${DELIVERY_RETENTION_DAYS} days a replay is possible) and answer 2xx to one you have seen, without doing the work again.`,
      ),
      item(
        'The same thing happening twice gives the same id: a terminal that sends a record again does not raise a second event. Different subscriptions of one company get the same event with the same id.',
      ),
      item(
        'Order is not guaranteed: deliveries run in parallel, and a retried event arrives after later ones. Order by `created`, or by the time fields in `data`; for `device.online` and `device.offline`, the one with the latest `data.time` tells the device’s state.',
      ),
    ].join('\n'),
    '### Retries',
    para(
      `An attempt that fails for a reason that may pass (a timeout, a connection or TLS failure, 408, 429 or 5xx) is tried again after a wait; there are ${attempts} attempts at most. Each wait is the one in this table, made up to 10 % shorter or longer at random so that deliveries failing together do not come back together:`,
    ),
    table(['Attempt', 'Wait after the previous one', 'With the ±10 % spread', 'After the first attempt'], rows),
    [
      item('A `Retry-After` header on a 429 or 503 answer (seconds, or an HTTP date) makes the wait longer when it asks for more, never shorter.'),
      item(
        `No attempt is made later than ${hours(RETRY_WINDOW_MS)} after the first: a wait that would end past that ends the delivery instead (\`dead\`).${latest > RETRY_WINDOW_MS ? ` With the spread the last attempt may fall past it (up to ${duration(latest)}), and is then not made.` : ''}`,
      ),
      item('Waits count from the end of the failed attempt, so a receiver that times out adds its timeout to each of them.'),
    ].join('\n'),
    '### What ends the attempts',
    table(
      ['Outcome of an attempt', 'Then'],
      [
        ['2xx', '`delivered`'],
        [
          `No answer within ${seconds(DELIVERY_TIMEOUT_MS)} (\`timeout\`), a connection or DNS failure (\`connection\`), a TLS failure (\`tls\`)`,
          'tried again',
        ],
        ['408, 429, 5xx (`status`)', 'tried again'],
        ['Any other 4xx (`status`)', '`dead` at once'],
        ['3xx (`redirect`): redirects are never followed; point the subscription at the final address', '`dead` at once'],
        ['The host resolves to a private, loopback or otherwise non-public address (`addressRefused`)', '`dead` at once'],
        [`The last attempt failed, or the next would come more than ${hours(RETRY_WINDOW_MS)} after the first`, '`dead`'],
        ['The subscription was turned off (`disabled`) or deleted (`gone`) before the attempt', '`dead`, not attempted'],
      ],
    ),
    para(
      'So answer 4xx only when sending the same event again cannot help (a signature that does not verify, a body you cannot read), and 5xx or 503 with `Retry-After` when you are briefly unable to take it.',
    ),
    '### The delivery log, dead letters and replays',
    para(
      `Every delivery is in the subscription’s delivery log (\`GET /v1/webhooks/{webhookKey}/deliveries\`, newest first, filtered by \`from\`, \`to\`, \`status\` and \`event\`) for ${DELIVERY_RETENTION_DAYS} days from when its event was sent, with its attempts, the time of the last and of the next, the last attempt’s latency, status code, error and the first ${EXCERPT_MAX} characters of the answer, and how often it was replayed. After that it expires, and can no longer be replayed. Erasing a person (\`POST /v1/employees|visitors/{key}/erase\`) removes the deliveries of events that named them (\`data.person\`) from every log: Pass Cloud then keeps no copy of what it sent about them, and cannot replay it; erasing what your receivers stored is yours to do.`,
    ),
    table(
      ['Status', 'Meaning'],
      DELIVERY_STATUSES.map((status) => [`\`${status}\``, STATUS_TEXT[status]]),
    ),
    table(
      ['Error', 'Meaning'],
      DELIVERY_ERRORS.map((error) => [`\`${error}\``, ERROR_TEXT[error]]),
    ),
    para(
      `The \`dead\` deliveries (\`?status=dead\`) are the dead-letter list. Replaying sends a delivery again as it was, with the same event id and body, freshly timestamped and signed with the secrets that sign now, and starts a new round of attempts with its own ${hours(RETRY_WINDOW_MS)}:`,
    ),
    [
      item('one delivery: `POST /v1/webhooks/{webhookKey}/deliveries/{deliveryKey}/replay`;'),
      item(
        `a range of event times: \`POST /v1/webhooks/{webhookKey}/replay\` with \`{ "from": …, "to": …, "status": "dead" }\` (\`status\` is \`dead\` by default, or \`delivered\` or \`any\`). One call replays at most ${REPLAY_LIMIT} deliveries, newest first; when the range holds more it answers \`more: true\` and \`continueTo\`, the \`to\` of the next call.`,
      ),
    ].join('\n'),
    para('A delivery still `pending` or `retrying` is not replayed, and nothing is replayed to a subscription that is off (both answer 409).'),
    '### Subscriptions turned off for failing',
    para(
      `A subscription whose deliveries have all failed for ${days(DISABLE_AFTER_FAILING_MS)}, without one success, is turned off: \`enabled\` becomes false, \`disabledReason\` \`failing\`, \`failingSince\` says since when, and the company’s owner gets a mail. A single delivered event resets the count. While a subscription is off, no events are recorded for it, and deliveries still waiting end \`dead\` with \`disabled\`.`,
    ),
    para(
      `Turning it on again (or changing its address) clears \`disabledReason\` and \`failingSince\`. Then replay the dead letters of the outage: those of the last ${DELIVERY_RETENTION_DAYS} days are still in the log.`,
    ),
  ];
}

function limits(): string[] {
  return [
    '## Limits at a glance',
    table(
      ['What', 'Value'],
      [
        ['Subscriptions per company', String(WEBHOOK_LIMIT)],
        ['Address length', `${WEBHOOK_URL_MAX} characters`],
        ['Time to answer an attempt', seconds(DELIVERY_TIMEOUT_MS)],
        ['Timestamp tolerance at the receiver', `${SIGNATURE_TOLERANCE_SECONDS} s`],
        ['Old secret still signing after a rotation', hours(SECRET_OVERLAP_MS)],
        ['Attempts per delivery', String(RETRY_STEPS.length + 1)],
        ['Window of attempts', hours(RETRY_WINDOW_MS)],
        ['Failing before a subscription is turned off', days(DISABLE_AFTER_FAILING_MS)],
        ['Delivery log kept', `${DELIVERY_RETENTION_DAYS} days`],
        ['Answer kept in the log', `${EXCERPT_MAX} characters`],
        ['Deliveries per range replay', String(REPLAY_LIMIT)],
      ],
    ),
  ];
}

/** docs/webhooks.md as the contract and the examples make it now. Throws when an example body does not fit its schema. */
export function webhookDocsText(): string {
  for (const type of ALL_EVENT_TYPES) eventEnvelope(type).parse(EXAMPLE_EVENTS[type]);
  return `${[...introduction(), ...request(), ...envelope(), ...events(), ...signing(), ...delivery(), ...limits()].join('\n\n')}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(DOC_FILE, webhookDocsText());
  console.log(`wrote ${DOC_FILE}`);
}
