import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import * as protocol from '@passcloud/functions/contract/protocol';
import * as devices from '@passcloud/functions/contract/devices';
import * as deviceLogs from '@passcloud/functions/contract/deviceLogs';
import { protocolJsonSchemaText } from '@passcloud/functions/contract/protocolSchema';
import { CODECS, fromCompleteDocument, fromDocument, toDocument } from '@passcloud/functions/contract/shadow';
import { LOOKBACK } from '@passcloud/functions/data/authoritySync';
import { devicePolicy, isAllowed } from '@passcloud/functions/iot/policy';
import { routes } from '@passcloud/functions/routes';

/**
 * docs/device-protocol.md is what terminal vendors build devices from, so it must not fall behind
 * the code. Every ```json block carries `example=<schema>` (a zod schema exported from
 * functions/contract/protocol.ts, devices.ts or deviceLogs.ts, or one of the shadow and presence shapes below)
 * and optionally `envelope=<code>` for an HTTPS answer; each must satisfy its schema. Topics,
 * rule filters, device routes, log codes, sync failure reasons and the settings mapping table are
 * compared with the code in both directions.
 */

const DOC_URL = new URL('../../docs/device-protocol.md', import.meta.url);
const DOC = readFileSync(DOC_URL, 'utf8');
const LINES = DOC.split('\n');
const T = '<thing>';

// Markdown

interface Block {
  line: number;
  lang: string;
  attrs: Record<string, string>;
  text: string;
}

function fencedBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`unclosed code block at line ${start + 1}`);
    const attrs: Record<string, string> = {};
    for (const token of open[2]!.trim().split(/\s+/).filter(Boolean)) {
      const [key, ...value] = token.split('=');
      attrs[key!] = value.join('=');
    }
    blocks.push({ line: start + 1, lang: open[1]!, attrs, text: body.join('\n') });
  }
  return blocks;
}

/** Lines outside code blocks, so a table or heading inside an example is never taken for one. */
function proseLines(lines: string[]): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (/^```/.test(line)) inside = !inside;
    else if (!inside) out.push(line);
  }
  return out;
}

const PROSE = proseLines(LINES);

interface Table {
  header: string[];
  rows: string[][];
}

const cellsOf = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

function tables(lines: string[]): Table[] {
  const out: Table[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1] ?? '')) continue;
    const header = cellsOf(lines[i]!);
    const rows: string[][] = [];
    for (i += 2; i < lines.length && lines[i]!.trim().startsWith('|'); i++) rows.push(cellsOf(lines[i]!));
    out.push({ header, rows });
  }
  return out;
}

const TABLES = tables(PROSE);

function tableWith(...header: string[]): Table {
  const found = TABLES.filter((t) => header.every((h, i) => t.header[i] === h));
  expect(found, `one table with the columns ${header.join(' | ')}`).toHaveLength(1);
  return found[0]!;
}

/** The text of a cell without its backticks: `` `volume` `` → `volume`. */
const plain = (cell: string): string => cell.replace(/^`|`$/g, '');
/** Every `code` span of a cell. */
const spans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

const HEADINGS = PROSE.filter((l) => /^#{1,6} /.test(l));

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .replace(/^#+ /, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');

// Schemas for the examples

const SCHEMAS = new Map<string, z.ZodType>();
for (const mod of [protocol, devices] as Record<string, unknown>[]) {
  for (const [name, value] of Object.entries(mod)) {
    if (value instanceof z.ZodType) SCHEMAS.set(name, value);
  }
}

/** The settings of a shadow section: every key but the surveys' (QUESTIONNAIRES_SHADOW_KEY), which must name surveys when present. */
function settingsOf(doc: Record<string, number | string>, ctx: z.RefinementCtx): Record<string, number | string> {
  const { [protocol.QUESTIONNAIRES_SHADOW_KEY]: surveys, ...settings } = doc;
  if (surveys !== undefined && (typeof surveys !== 'string' || !/^([0-9a-z]{8,32}\.\d+(,[0-9a-z]{8,32}\.\d+)*)?$/.test(surveys)))
    ctx.addIssue({ code: 'custom', message: `${protocol.QUESTIONNAIRES_SHADOW_KEY} must be "<questionnaireKey>.<revision>" values joined by commas, or ""` });
  return settings;
}
/** A shadow state section: device keys and values that decode to valid settings. */
const deviceDoc = z.record(z.string(), z.union([z.number(), z.string()])).superRefine((doc, ctx) => {
  const { invalid } = fromDocument(settingsOf(doc, ctx));
  if (invalid.length > 0) ctx.addIssue({ code: 'custom', message: `keys that are unknown or whose values do not decode: ${invalid.join(', ')}` });
});
const completeDoc = deviceDoc.superRefine((doc, ctx) => {
  if (!fromCompleteDocument(settingsOf(doc, ctx)))
    ctx.addIssue({ code: 'custom', message: 'desired must be the complete set of settings (cloud writes all of them)' });
});
const seconds = z.number().int().positive();
const metadata = z.record(z.string(), z.unknown());
const clientToken = z.string().max(64).optional();
const shadowError = z.object({ code: z.number().int().min(400).max(599), message: z.string().min(1), clientToken, timestamp: seconds.optional() }).strict();
const shadowDocument = z
  .object({ state: z.object({ desired: deviceDoc.optional(), reported: deviceDoc.optional() }).strict(), metadata, version: z.number().int().min(0) })
  .strict();

/** Shapes of the AWS IoT shadow and presence messages, which have no schema in the contract. */
const LOCAL: Record<string, z.ZodType> = {
  shadowGet: z.object({ clientToken }).strict(),
  shadowGetAccepted: z
    .object({
      state: z.object({ desired: completeDoc.optional(), reported: deviceDoc.optional(), delta: deviceDoc.optional() }).strict(),
      metadata,
      version: z.number().int().min(1),
      timestamp: seconds,
      clientToken,
    })
    .strict(),
  shadowGetRejected: shadowError,
  shadowDelta: z.object({ version: z.number().int().min(1), timestamp: seconds, state: deviceDoc, metadata, clientToken }).strict(),
  shadowUpdate: z.object({ state: z.object({ reported: deviceDoc }).strict(), clientToken }).strict(),
  shadowUpdateAccepted: z
    .object({ state: z.object({ reported: deviceDoc }).strict(), metadata, version: z.number().int().min(1), timestamp: seconds, clientToken })
    .strict(),
  shadowUpdateRejected: shadowError,
  shadowDocuments: z.object({ previous: shadowDocument.nullable(), current: shadowDocument, timestamp: seconds, clientToken }).strict(),
  // What functions/iot/ingest.ts reads of a lifecycle event (AWS adds more fields).
  presenceEvent: z
    .object({
      clientId: z.string().refine((id) => !!protocol.parseThingName(id), 'a thing name'),
      timestamp: z.number().int().positive(),
      eventType: z.enum(['connected', 'disconnected']),
    })
    .loose(),
  // The data of error answers (functions/lib/http.ts errorResult).
  validationIssues: z
    .object({ issues: z.array(z.object({ path: z.string(), message: z.string().min(1) }).strict()).min(1), reason: z.enum(protocol.DEVICE_REASONS).optional() })
    .strict(),
  // A refused answer of a device route: its reason, and a throttle's wait.
  deviceRefusal: z.object({ reason: z.enum(protocol.DEVICE_REASONS), retryAfterSeconds: z.number().int().positive().optional() }).strict(),
  noData: z.null(),
};

const envelope = z.object({ code: z.number().int(), message: z.string().min(1), data: z.unknown() }).strict();

/** Every message and call has at least one example. */
const REQUIRED = [
  'bindBody',
  'bindResult',
  'deviceInfo',
  'heartbeatMessage',
  'logMessage',
  'commandMessage',
  'commandResultMessage',
  'recordsMessage',
  'recordsAckMessage',
  'faceNotifyMessage',
  'faceChangesPage',
  'faceResultsBody',
  ...Object.keys(LOCAL),
];

interface Example {
  block: Block;
  tag: string;
  /** The payload itself (the envelope's `data` for HTTPS answers). */
  value: unknown;
}

const BLOCKS = fencedBlocks(LINES);
const JSON_BLOCKS = BLOCKS.filter((b) => b.lang === 'json' || 'example' in b.attrs);

function examples(tag?: string): Example[] {
  const out: Example[] = [];
  for (const block of JSON_BLOCKS) {
    if (tag && block.attrs.example !== tag) continue;
    const parsed: unknown = JSON.parse(block.text);
    out.push({ block, tag: block.attrs.example!, value: block.attrs.envelope ? (parsed as { data: unknown }).data : parsed });
  }
  return out;
}

const issuesOf = (error: z.ZodError) => error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

// The log code table, read once: code → parameters it names.
const LOG_TABLE = tableWith('Code', 'Params', 'When');
const LOG_PARAMS = new Map(LOG_TABLE.rows.map((row) => [plain(row[0]!), spans(row[1]!)]));

describe('docs/device-protocol.md examples', () => {
  it('tags every JSON block with a known schema, and every example satisfies it', () => {
    expect(JSON_BLOCKS.length).toBeGreaterThan(20);
    for (const name of Object.keys(LOCAL)) expect(SCHEMAS.has(name), `${name} is both a contract schema and a local shape`).toBe(false);
    for (const block of JSON_BLOCKS) {
      const where = `example at docs/device-protocol.md:${block.line}`;
      expect(block.lang, `${where} is a json block`).toBe('json');
      const tag = block.attrs.example;
      expect(tag, `${where} names its schema with example=<schema>`).toBeTruthy();
      const schema = SCHEMAS.get(tag!) ?? LOCAL[tag!];
      expect(schema, `${where}: unknown schema "${tag}"`).toBeDefined();
      expect(
        Object.keys(block.attrs).every((k) => k === 'example' || k === 'envelope'),
        `${where}: only example= and envelope= are known`,
      ).toBe(true);
      let parsed: unknown;
      expect(() => (parsed = JSON.parse(block.text)), `${where} is valid JSON`).not.toThrow();
      let value = parsed;
      if (block.attrs.envelope !== undefined) {
        const wrapped = envelope.safeParse(parsed);
        expect(wrapped.success, `${where} is a { code, message, data } envelope${wrapped.success ? '' : `: ${issuesOf(wrapped.error)}`}`).toBe(true);
        expect(wrapped.data!.code, `${where}: envelope code`).toBe(Number(block.attrs.envelope));
        value = wrapped.data!.data;
      }
      const result = schema!.safeParse(value);
      expect(result.success, `${where} (${tag}) fails its schema: ${result.success ? '' : issuesOf(result.error)}`).toBe(true);
    }
  });

  it('has an example of every message and call', () => {
    const tags = new Set(JSON_BLOCKS.map((b) => b.attrs.example));
    for (const name of REQUIRED) expect(tags.has(name), `an example=${name} block`).toBe(true);
  });

  it('shows every command type with the fields it needs', () => {
    const commands = examples('commandMessage').map((e) => protocol.commandMessage.parse(e.value));
    expect(new Set(commands.map((c) => c.type))).toEqual(new Set(devices.DEVICE_COMMAND_TYPES));
    for (const command of commands) {
      expect(!!command.upload, `${command.type}: upload only with capturePhoto`).toBe(command.type === 'capturePhoto');
      expect(!!command.app, `${command.type}: app only with updateApp`).toBe(command.type === 'updateApp');
    }
  });

  it('shows both binding answers with their envelope codes', () => {
    const answers = examples('bindResult').map((e) => ({ code: Number(e.block.attrs.envelope), state: protocol.bindResult.parse(e.value).state }));
    expect(answers).toEqual(
      expect.arrayContaining([
        { code: 201, state: 'bound' },
        { code: 202, state: 'pendingApproval' },
      ]),
    );
    for (const answer of answers) expect(answer.code).toBe(answer.state === 'bound' ? 201 : 202);
    for (const e of examples('bindResult')) {
      const result = protocol.bindResult.parse(e.value);
      expect(protocol.parseThingName(result.thingName)?.deviceKey).toBe(result.deviceKey);
      expect(result.mqtt.clientId).toBe(result.thingName);
      expect(result.mqtt.username.split('?')[0]).toBe(result.thingName);
    }
  });

  it('shows pass records the cloud would take, and acks that fit them', () => {
    const records = new Map<string, protocol.PassRecordUp>();
    for (const e of examples('recordsMessage')) {
      for (const raw of protocol.recordsMessage.parse(e.value).records) {
        const record = protocol.passRecordUp.safeParse(raw);
        expect(record.success, `record ${JSON.stringify(raw)}: ${record.success ? '' : issuesOf(record.error)}`).toBe(true);
        if (record.data!.capture) expect(record.data!.capture.size).toBeLessThanOrEqual(protocol.CAPTURE_MAX_BYTES);
        records.set(record.data!.recordId, record.data!);
      }
    }
    for (const e of examples('recordsAckMessage')) {
      for (const stored of protocol.recordsAckMessage.parse(e.value).stored) {
        const record = records.get(stored.recordId);
        expect(record, `acked record ${stored.recordId} is in a records example`).toBeDefined();
        if (!stored.upload) continue;
        expect(record!.capture, `${stored.recordId}: an upload only for an announced capture`).toBeDefined();
        expect(stored.upload.headers).toEqual({
          'content-type': record!.capture!.contentType,
          'content-length': String(record!.capture!.size),
          'if-none-match': '*',
        });
      }
    }
  });

  it('shows face pages in order with a cursor past every change, and results as the cloud reads them', () => {
    for (const e of examples('faceChangesPage')) {
      const page = protocol.faceChangesPage.parse(e.value);
      const seqs = page.changes.map((c) => c.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(Number(page.cursor)).toBeGreaterThanOrEqual(Math.max(0, ...seqs));
      for (const change of page.changes) if (change.action === 'remove') expect(change.photo).toBeNull();
    }
    for (const e of examples('faceResultsBody')) {
      for (const result of protocol.faceResultsBody.parse(e.value).results) {
        expect(result.reason !== undefined, `reason only with failed`).toBe(result.state === 'failed');
        if (result.detail !== undefined) expect(result.state, `detail only with failed`).toBe('failed');
      }
    }
  });

  it('writes log examples with the parameters the log code table gives each code', () => {
    for (const e of examples('logMessage')) {
      for (const entry of protocol.logMessage.parse(e.value).entries) {
        const documented = LOG_PARAMS.get(entry.code) ?? [];
        for (const param of Object.keys(entry.params ?? {})) expect(documented, `${entry.code} takes ${param}`).toContain(param);
      }
    }
  });
});

describe('docs/device-protocol.md keeps up with the code', () => {
  const policy = devicePolicy(T, 'arn:aws:iot:eu-central-1:123456789012');
  const own = protocol.deviceTopics(T);
  const shadow = protocol.shadowTopics(T);
  const presence = [protocol.presenceTopic('connected', T), protocol.presenceTopic('disconnected', T)];

  it('gives every device topic a section of its own', () => {
    for (const topic of Object.values(own)) {
      expect(
        HEADINGS.some((h) => h.includes(`\`${topic}\``)),
        `a heading naming ${topic}`,
      ).toBe(true);
    }
    expect(
      HEADINGS.some((h) => h.includes(`\`${presence[0]}\``)),
      'a heading naming the presence topics',
    ).toBe(true);
  });

  it('lists every topic once, with who may publish it as the device policy says', () => {
    const table = tableWith('Topic', 'Direction', 'Published by', 'QoS', 'Payload');
    const rows = new Map(table.rows.map((row) => [plain(row[0]!), row]));
    const all = [...Object.values(own), ...Object.values(shadow), ...presence];
    expect(new Set(rows.keys())).toEqual(new Set(all));
    expect(rows.size).toBe(table.rows.length);
    for (const topic of all) {
      const row = rows.get(topic)!;
      const publishes = isAllowed([policy], 'iot:Publish', `arn:aws:iot:eu-central-1:123456789012:topic/${topic}`);
      const receives = isAllowed([policy], 'iot:Receive', `arn:aws:iot:eu-central-1:123456789012:topic/${topic}`);
      expect(row[2] === 'device', `${topic}: published by the device exactly when the policy lets it`).toBe(publishes);
      expect(row[1], `${topic}: direction`).toBe(publishes ? 'up' : receives ? 'down' : 'cloud');
      expect(row[3], `${topic}: QoS`).toBe('1');
    }
  });

  it('names every rule filter the cloud listens on', () => {
    const table = tableWith('Rule', 'Filter', 'What the cloud does');
    const rows = Object.fromEntries(table.rows.map((row) => [plain(row[0]!), plain(row[1]!)]));
    expect(rows).toEqual({ ...protocol.RULE_FILTERS });
  });

  it('gives every device HTTPS route a section, and documents no other route as one', () => {
    const deviceRoutes = routes.filter((r) => r.access === 'device').map((r) => `${r.method} ${r.path}`);
    const documented = HEADINGS.map((h) => /^#{2,4} `((?:GET|POST|PUT|PATCH|DELETE) \/v1\/\S+)`$/.exec(h)?.[1]).filter((k): k is string => !!k);
    expect(new Set(documented)).toEqual(new Set(deviceRoutes));
  });

  it('lists every log code once with its parameters', () => {
    const codes = LOG_TABLE.rows.map((row) => plain(row[0]!));
    expect(codes).toEqual([...deviceLogs.DEVICE_LOG_CODES]);
    const params = new Set(Object.keys(deviceLogs.deviceLogParams.shape));
    const used = new Set<string>();
    for (const [code, names] of LOG_PARAMS) {
      for (const name of names) {
        expect(params.has(name) || name === 'message', `${code}: ${name} is a log parameter`).toBe(true);
        used.add(name);
      }
    }
    for (const name of params) expect(used.has(name), `parameter ${name} belongs to some code`).toBe(true);
  });

  it('explains every face sync failure reason', () => {
    const table = tableWith('Reason', 'Meaning');
    expect(table.rows.map((row) => plain(row[0]!))).toEqual([...protocol.SYNC_FAILURES]);
    for (const row of table.rows) expect(row[1]!.length, `${row[0]} is explained`).toBeGreaterThan(40);
  });

  it('maps every setting to its shadow key and units as contract/shadow.ts does', () => {
    const table = tableWith('Setting', 'Shadow key', 'On the device', 'Range (API)', 'API value', 'Shadow value');
    const names = table.rows.map((row) => plain(row[0]!));
    expect(names).toEqual([...devices.SETTING_NAMES]);
    for (const row of table.rows) {
      const name = plain(row[0]!) as devices.SettingName;
      const key = plain(row[1]!);
      expect(key, `${name}: shadow key`).toBe(CODECS[name].device);
      const apiValue: unknown = JSON.parse(plain(row[4]!));
      const deviceValue: unknown = JSON.parse(plain(row[5]!));
      expect(devices.settingsPatch.safeParse({ [name]: apiValue }).success, `${name}: ${row[4]} is a valid API value`).toBe(true);
      expect(toDocument({ [name]: apiValue } as devices.SettingsPatch), `${name}: ${row[4]} goes to the shadow as ${row[5]}`).toEqual({ [key]: deviceValue });
      expect(fromDocument({ [key]: deviceValue }).settings, `${name}: ${row[5]} comes back as ${row[4]}`).toEqual({ [name]: apiValue });
      const field: z.ZodType = devices.settingFields[name];
      if (field instanceof z.ZodBoolean) expect(row[2], `${name}: a 0/1 flag`).toMatch(/flag 0\/1/);
      const options: readonly string[] = field instanceof z.ZodEnum ? (field.options as string[]) : [];
      for (const option of options) {
        const code = toDocument({ [name]: option } as devices.SettingsPatch)[key];
        expect(row[2], `${name}: ${option} is ${code} on the device`).toContain(`${code} = ${option}`);
      }
    }
  });

  it('states the limits the code enforces', () => {
    for (const type of protocol.CAPTURE_TYPES) expect(DOC).toContain(`\`${type}\``);
    expect(DOC).toContain(`\`${protocol.CAPTURE_MAX_BYTES}\``);
    expect(DOC).toContain(`1–${protocol.RECORDS_PER_MESSAGE} pass records`);
    expect(DOC).toContain(`within \`${LOOKBACK}\` below`);
    expect(DOC).toContain(`${devices.COMMAND_TIMEOUT_MS / 1000} s`);
    const limit = protocol.faceChangesQuery.parse({}).limit;
    let max = limit;
    while (protocol.faceChangesQuery.safeParse({ limit: max + 1 }).success) max++;
    expect(DOC).toContain(`1–${max}, default ${limit}`);
    const entry = { time: 1, level: 'info', code: 'connected' };
    let entries = 1;
    while (protocol.logMessage.safeParse({ entries: Array.from({ length: entries + 1 }, () => entry) }).success) entries++;
    expect(DOC).toContain(`\`entries\`, 1–${entries}`);
  });

  it('has no link to a heading that is not there', () => {
    const anchors = new Set(HEADINGS.map(slug));
    const other = proseLines(readFileSync(new URL('../../docs/devices-on-aws.md', import.meta.url), 'utf8').split('\n'))
      .filter((l) => /^#{1,6} /.test(l))
      .map(slug);
    for (const [, file, anchor] of DOC.matchAll(/\]\(([\w.-]*)#([^)]+)\)/g)) {
      if (file === '') expect(anchors.has(anchor!), `#${anchor}`).toBe(true);
      else if (file === 'devices-on-aws.md') expect(other, `${file}#${anchor}`).toContain(anchor);
    }
  });
});

describe('the schemas added for the interfaces of contract/protocol.ts', () => {
  it('describe the same types as the interfaces', () => {
    expectTypeOf<z.output<typeof protocol.recordsAckMessage>>().toEqualTypeOf<protocol.RecordsAckMessage>();
    expectTypeOf<z.output<typeof protocol.faceNotifyMessage>>().toEqualTypeOf<protocol.FaceNotifyMessage>();
    expectTypeOf<z.output<typeof protocol.faceChange>>().toEqualTypeOf<protocol.FaceChange>();
    expectTypeOf<z.output<typeof protocol.faceChangesPage>>().toEqualTypeOf<protocol.FaceChangesPage>();
    expectTypeOf<z.output<typeof protocol.appUpdate>>().toEqualTypeOf<protocol.AppUpdate>();
    expectTypeOf<z.output<typeof protocol.commandMessage>>().toEqualTypeOf<protocol.CommandMessage>();
    expectTypeOf<z.output<typeof protocol.bindResult>>().toEqualTypeOf<protocol.BindResult>();
  });
});

describe('the published JSON Schema', () => {
  it('is the zod contract as it stands (npm run protocol-schema writes it)', () => {
    const published = readFileSync(new URL('../../docs/device-protocol.schema.json', import.meta.url), 'utf8');
    expect(published).toBe(protocolJsonSchemaText());
  });

  it('names every schema the document’s examples are checked with', () => {
    const defs = Object.keys((JSON.parse(protocolJsonSchemaText()) as { $defs: Record<string, unknown> }).$defs);
    for (const name of REQUIRED.filter((n) => !(n in LOCAL))) expect(defs, name).toContain(name);
  });
});
