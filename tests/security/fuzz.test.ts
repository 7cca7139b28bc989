import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'node:http';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { z } from 'zod';
import { routes, routeKey, type RouteEntry } from '@passcloud/functions/routes';
import { declaredHandlers, openApiDocument } from '@passcloud/functions/openapi';
import type { HandlerDef } from '@passcloud/functions/lib/http';
import { baseUrl, call, encrypt, login, mailsTo, newCompany, securityKey, unique } from '../support/api.ts';
import { tenantItems, type Item } from '../support/tenantItems.ts';

/**
 * Schema fuzzing of every route (docs/openapi.json): requests that the route's own schemas
 * refuse (a body, query or path parameter that breaks them, a body that is not JSON, a form that
 * is not the upload asked for) and device routes with credentials that prove no device, sent as
 * the owner of a company (every permission) and as an account of it with none. Each answer is
 * under 500, is the envelope with a message that tells no internals (no stack trace, file path,
 * library or AWS name), and the company's items in every table are the same after the route's
 * batch as before it.
 *
 * Cases come from the document's JSON Schemas; before a case is sent it is checked against the
 * handler's zod schemas exactly as the dispatcher reads the request, and only a refused one is
 * sent, so nothing may be created. Seeded and repeatable: FUZZ_SEED picks the seed (each route
 * derives its own from it and its key, printed with a failure), FUZZ_RUNS the cases per route
 * and account (`npm run fuzz` runs many more than `npm test`).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
/** The largest string a case carries: a megabyte in CI, up to the 6 MB Lambda takes with more runs. */
const HUGE = RUNS > 100 ? 5_000_000 : 1_000_000;

// The document's schemas: what the cases are made from.

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
}
interface Operation {
  parameters?: { name: string; in: 'path' | 'query'; required: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security: Record<string, string[]>[];
}

/** A request as it goes on the wire. */
interface Case {
  /** Path parameters as they stand in the URL: percent-encoded, or not even that. */
  segments: Record<string, string>;
  /** The query string as sent, without `?`. */
  query: string;
  body?: string | Buffer;
  contentType?: string;
  authorization?: string;
  language?: string;
  /** What was broken, for the report. */
  broke: string;
  /** Refused whatever the schemas say: an upload that is not the one the route takes. */
  refusedByConstruction?: true;
}

const typeOf = (schema: Schema): string | undefined => (Array.isArray(schema.type) ? schema.type[0] : schema.type);

/** Values the schema takes (as well as zod's JSON Schema lets one tell): the rest of a case around what it breaks. */
function validArb(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((s) => validArb(s, depth)));
  if (schema.allOf) return validArb(Object.assign({}, ...schema.allOf) as Schema, depth);
  switch (typeOf(schema)) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 40, 64);
      if (schema.format === 'email') return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254));
      if (schema.pattern) {
        try {
          return fc.stringMatching(new RegExp(schema.pattern)).filter((v) => v.length >= min && v.length <= (schema.maxLength ?? Infinity));
        } catch {
          // A pattern fast-check cannot generate from: any string, which the case then refuses anyway.
        }
      }
      return fc.string({ minLength: min, maxLength: Math.max(min, max) });
    }
    case 'integer': {
      const min = Math.max(schema.minimum ?? (schema.exclusiveMinimum ?? -1001) + 1, Number.MIN_SAFE_INTEGER);
      return fc.integer({ min, max: Math.min(schema.maximum ?? (schema.exclusiveMaximum ?? min + 2001) - 1, Number.MAX_SAFE_INTEGER) });
    }
    case 'number': {
      const min = schema.minimum ?? schema.exclusiveMinimum ?? -1000;
      return fc.double({ min, max: schema.maximum ?? schema.exclusiveMaximum ?? min + 2000, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return depth > 3
        ? fc.constant([])
        : fc.array(validArb(schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)) });
    case 'object': {
      if (!schema.properties || depth > 3) return fc.constant({});
      const required = new Set(schema.required ?? []);
      const shape = Object.fromEntries(Object.entries(schema.properties).map(([k, s]) => [k, validArb(s, depth + 1)]));
      return fc.record(shape, { requiredKeys: Object.keys(shape).filter((k) => required.has(k)) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Strings no schema of a key or a name takes: control and format characters, paths, markup, lone surrogates, pollution keys. */
const nastyString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u0000\u0001\u001f\u007f',
    '\u202e\u200b\ufeff',
    '\ud800',
    '\udfff\ud800',
    '😀👩‍👩‍👧‍👦',
    'ＥＭＰ９',
    '../../etc/passwd',
    '..',
    '%00',
    '<script>alert(1)</script>',
    '${jndi:ldap://x}',
    "' OR 1=1 --",
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'null',
    'undefined',
    'NaN',
    '-1',
    '1e999',
    '0x10',
    'true',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
);

/** A very long string: beyond every length a schema allows. */
const hugeString = fc
  .tuple(fc.constantFrom('a', 'é', '中', '😀', '\u0000', ' '), fc.integer({ min: 10_000, max: HUGE }))
  .map(([c, n]) => c.repeat(Math.ceil(n / c.length)));

/** Values of the wrong type, or nested deeper than anything takes. */
const wrongType = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 2, '', 'x', [], {}, [null], [[]], { '': null }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** A long string that still fits in a URL, encoded (the server refuses a request line past 16 KB before any handler). */
const longString = fc.constantFrom('a'.repeat(4000), '中'.repeat(800), '%'.repeat(1500));

/**
 * Values the schema refuses, as far as its JSON Schema tells (the zod schemas decide); `inUrl`
 * for a path parameter or a query value, which is never huge.
 */
function invalidArb(schema: Schema, depth = 0, inUrl = false): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [wrongType, nastyString];
  const type = typeOf(schema);
  if (type === 'string') {
    if (schema.maxLength !== undefined) options.push(fc.constant('x'.repeat(schema.maxLength + 1)), fc.constant('中'.repeat(schema.maxLength + 1)));
    if (schema.minLength) options.push(fc.constant('x'.repeat(schema.minLength - 1)), fc.constant(' '.repeat(schema.minLength)));
    options.push(inUrl ? longString : hugeString);
  }
  if (type === 'integer' || type === 'number') {
    if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) options.push(fc.constant(schema.maximum + 1));
    if (schema.minimum !== undefined && schema.minimum > Number.MIN_SAFE_INTEGER) options.push(fc.constant(schema.minimum - 1));
    options.push(fc.constantFrom(0.5, Number.MAX_VALUE, -Number.MAX_VALUE, '1', 'Infinity'));
  }
  if (schema.enum)
    options.push(fc.string({ maxLength: 12 }), fc.constantFrom(...schema.enum.map((v) => (typeof v === 'string' ? v.toUpperCase() + ' ' : [v]))));
  if (type === 'array' && depth < 4) {
    const item = schema.items ?? {};
    if (schema.maxItems !== undefined && schema.maxItems < 5000) {
      options.push(fc.array(validArb(item, depth + 1), { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }));
    }
    options.push(fc.array(invalidArb(item, depth + 1), { minLength: 1, maxLength: 3 }));
  }
  if (type === 'object' && (schema.properties || typeof schema.additionalProperties === 'object') && depth < 4) options.push(invalidObject(schema, depth));
  return fc.oneof(...options);
}

/** An object like the schema's with one thing broken: a required field missing, one field refused, or fields nobody asked for. */
function invalidObject(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const keys = Object.keys(properties);
  const base = validArb(schema, depth) as fc.Arbitrary<Record<string, unknown>>;
  const options: fc.Arbitrary<unknown>[] = [];
  if (keys.length > 0) {
    options.push(
      fc.tuple(base, fc.constantFrom(...keys)).chain(([value, key]) => invalidArb(properties[key]!, depth + 1).map((bad) => ({ ...value, [key]: bad }))),
    );
  }
  if (schema.required?.length)
    options.push(
      fc.tuple(base, fc.constantFrom(...schema.required)).map(([value, key]) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key))),
    );
  if (typeof schema.additionalProperties === 'object') {
    // A record: keys it does not take, and values it does not take under keys it does.
    const values = schema.additionalProperties;
    options.push(
      fc
        .tuple(base, nastyString, fc.oneof(validArb(values, depth + 1), invalidArb(values, depth + 1)))
        .map(([value, key, extra]) => ({ ...value, [key]: extra })),
    );
  }
  if (schema.additionalProperties === false) {
    options.push(
      fc
        .tuple(base, fc.constantFrom('tenantId', 'owner', 'authCodes2', 'x', '', '__proto__', 'constructor'), wrongType)
        .map(([value, key, extra]) => ({ ...value, [key]: extra })),
    );
  }
  return options.length ? fc.oneof(...options) : wrongType;
}

// JSON text: what `JSON.stringify` makes, and what it cannot.

/** Text of a value, with `__proto__` kept as a key of its own (as `JSON.parse` makes it). */
const jsonText = (value: unknown): string => JSON.stringify(value);

const invalidJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    '{"a":1,}',
    "{'a':1}",
    '\ufeff{}',
    'NaN',
    'undefined',
    '{"a":1}{"b":2}',
    '\u0000',
    '{"a":"\\x"}',
    '{"a":"\ud800"',
    '"',
    ']',
    '{}}',
  ),
  fc.string({ minLength: 1, maxLength: 30 }).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  }),
);

/** A body nested deeper than any schema goes: arrays or objects, thousands of levels. */
const deepJson = fc
  .tuple(fc.integer({ min: 500, max: 100_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + 'null' + '}'.repeat(depth)));

/** An object whose keys would reach the prototype of a careless merge. */
const pollution = (fields: string) =>
  `{"__proto__":{"polluted":true,"authCodes":["settings:account"]},"constructor":{"prototype":{"polluted":true}}${fields ? `,${fields}` : ''}}`;

// Path parameters and queries: what the URL carries.

/** Percent-encoding of the value's UTF-8 bytes, as a client sends it (a lone surrogate goes as U+FFFD). */
const percentEncode = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

/** A path segment for a value, encoded as a client would; some malformed on purpose. */
const segmentOf = percentEncode;
const malformedSegment = fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%ff%fe', 'a%2Fb', '%2e%2e', '%00');

const queryValue = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value));

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/xml',
  undefined,
];
const LANGUAGES = [undefined, undefined, 'zh_CN', 'ja-JP,en;q=0.5', '*', 'x'.repeat(300), 'de_DE;q=abc', '__proto__'];

/** Bytes that are no image, workbook or archive: they start with none of their magic numbers. */
const junkBytes = fc.uint8Array({ minLength: 0, maxLength: 2048 }).map((bytes) => Buffer.concat([Buffer.from('X'), Buffer.from(bytes)]));

function multipart(parts: { name: string; filename?: string; data: Buffer }[], boundary = 'fuzzboundary'): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`), part.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** A body for an upload route that is not the upload it takes: another type, a broken form, no file, or a file of junk. */
const invalidUpload: fc.Arbitrary<Pick<Case, 'body' | 'contentType' | 'broke'>> = fc.oneof<fc.Arbitrary<Pick<Case, 'body' | 'contentType' | 'broke'>>[]>(
  fc
    .tuple(junkBytes, fc.constantFrom('application/json', 'application/octet-stream', 'text/plain', undefined))
    .map(([body, contentType]) => ({ body, contentType, broke: 'upload: not a form' })),
  junkBytes.map((body) => ({ body, contentType: 'multipart/form-data', broke: 'upload: form without a boundary' })),
  junkBytes.map((body) => ({ body, contentType: 'multipart/form-data; boundary=fuzzboundary', broke: 'upload: form of junk' })),
  fc
    .tuple(
      junkBytes,
      fc.constantFrom('avatar', 'capture', 'package', 'other', ''),
      fc.constantFrom('a.png', 'a.xlsx', 'a.zip', 'a.apk', '../../a', '', '\u0000.png'),
    )
    .map(([data, kind, filename]) => ({
      body: multipart([
        { name: 'kind', data: Buffer.from(kind) },
        { name: 'file', filename, data },
      ]),
      contentType: 'multipart/form-data; boundary=fuzzboundary',
      broke: `upload: a file of junk (${kind}, ${filename})`,
    })),
  fc.constantFrom('kind', '__proto__', 'constructor').map((name) => ({
    body: multipart([{ name, data: Buffer.from('avatar') }]),
    contentType: 'multipart/form-data; boundary=fuzzboundary',
    broke: `upload: no file (field ${name})`,
  })),
  junkBytes.map((data) => ({
    body: multipart(Array.from({ length: 7 }, (_, i) => ({ name: 'file', filename: `a${i}.png`, data }))),
    contentType: 'multipart/form-data; boundary=fuzzboundary',
    broke: 'upload: more files than a form may carry',
  })),
);

// The request a case makes, read as the host and the dispatcher read it.

/** The query the host hands the handler: each name once, repeated values joined with a comma. */
function queryOf(raw: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(raw)) query[name] = name in query ? `${query[name]},${value}` : value;
  return query;
}

/** Whether the dispatcher refuses the case before the handler runs (functions/lib/http.ts reads params, query, then the body). */
function refusedBySchemas(def: HandlerDef, c: Case, paramNames: string[]): boolean {
  const params: Record<string, string> = {};
  for (const name of paramNames) {
    try {
      params[name] = decodeURIComponent(c.segments[name]!);
    } catch {
      return true;
    }
  }
  const fails = (schema: z.ZodType | undefined, value: unknown) => !!schema && !schema.safeParse(value).success;
  if (fails(def.params, params) || fails(def.query, queryOf(c.query))) return true;
  if (def.raw) return false;
  const text = c.body === undefined ? '' : Buffer.isBuffer(c.body) ? c.body.toString('utf8') : c.body;
  if (text.length === 0) return fails(def.body, {});
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return true;
  }
  return fails(def.body, body);
}

// Sending.

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(route: RouteEntry, c: Case, token: string | undefined): Promise<{ status: number; text: string; contentType: string }> {
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => c.segments[name]!) + (c.query ? `?${c.query}` : '');
  const url = new URL(baseUrl());
  const headers: Record<string, string | number> = {};
  const authorization = c.authorization ?? (token ? `Bearer ${token}` : undefined);
  if (authorization) headers.authorization = authorization;
  if (c.contentType) headers['content-type'] = c.contentType;
  if (c.language) headers['accept-language'] = c.language;
  const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'utf8');
  if (body) headers['content-length'] = body.length;
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: route.method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), contentType: String(res.headers['content-type'] ?? '') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.end(body);
  });
}

/** What an answer may never say: a stack trace, a file of the code, or the name of a library, an AWS service or a JavaScript error. */
const INTERNALS: RegExp[] = [
  /\n\s*at /,
  /\bat [\w$.<>]+ \(/,
  /\.(ts|js|mjs|cjs):\d+/,
  /node_modules|\/work\/|file:\/\//,
  /DynamoDB|ElectroDB|ConditionalCheckFailed|TransactionCanceled|ValidationException|ResourceNotFound|ProvisionedThroughput|S3ServiceException|NoSuchKey/,
  /\b(TypeError|RangeError|SyntaxError|ReferenceError|URIError|AggregateError)\b/,
  /Cannot read propert|is not a function|is not defined|undefined is not|Unexpected token|in JSON at position|Maximum call stack/,
  /\[object Object\]|function \w*\(/,
  // zod's own English sentences: every refusal is to be told in the caller's language, by field.
  /Invalid input:|Too (big|small): expected|Unrecognized keys?:|Invalid (string|option|union|element)/,
];

function problemsOf(answer: { status: number; text: string; contentType: string }): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`HTTP ${answer.status}`);
  if (answer.status < 400) problems.push(`HTTP ${answer.status} to a request that was to be refused`);
  let envelope: { code?: unknown; message?: unknown; data?: { issues?: { message?: unknown }[]; reason?: unknown } | null };
  try {
    envelope = JSON.parse(answer.text) as typeof envelope;
  } catch {
    return [...problems, `not the envelope (${answer.contentType}): ${answer.text.slice(0, 200)}`];
  }
  if (typeof envelope.code !== 'number' || typeof envelope.message !== 'string') problems.push(`not the envelope: ${answer.text.slice(0, 200)}`);
  if (typeof envelope.code === 'number' && envelope.code >= 500 && envelope.code < 600) problems.push(`code ${envelope.code}`);
  const texts = [envelope.message, ...(envelope.data?.issues ?? []).map((i) => i?.message)].filter((t): t is string => typeof t === 'string');
  for (const text of texts) for (const pattern of INTERNALS) if (pattern.test(text)) problems.push(`tells internals (${pattern}): ${text.slice(0, 300)}`);
  return problems;
}

// The case of one route.

interface Target {
  route: RouteEntry;
  key: string;
  op: Operation;
  def: HandlerDef;
  paramNames: string[];
  /** The schemas of the path parameters, the query's fields and the JSON body, by the document. */
  paramSchemas: Record<string, Schema>;
  querySchema: Schema | undefined;
  bodySchema: Schema | undefined;
  /** A device route whose credentials are the device's own (not the binding code). */
  deviceCredentials: boolean;
}

function caseArb(t: Target, tenantId: string, ownerToken: string): fc.Arbitrary<Case> {
  const validSegments: fc.Arbitrary<Record<string, string>> = fc.record(
    Object.fromEntries(
      t.paramNames.map((name) => [name, validArb(t.paramSchemas[name] ?? { type: 'string', minLength: 1 }).map((v) => segmentOf(String(v) || 'x'))]),
    ),
  );
  const validQuery: fc.Arbitrary<string> = t.querySchema
    ? (validArb(t.querySchema) as fc.Arbitrary<Record<string, unknown>>).map((q) =>
        Object.entries(q)
          .map(([k, v]) => `${percentEncode(k)}=${percentEncode(queryValue(v))}`)
          .join('&'),
      )
    : fc.constantFrom('', 'unknown=1', 'a=%zz');
  const validBody: fc.Arbitrary<string | undefined> = t.bodySchema ? validArb(t.bodySchema).map(jsonText) : fc.constant(undefined);

  const targets: fc.Arbitrary<Partial<Case>>[] = [];
  if (t.paramNames.length > 0) {
    targets.push(
      fc.tuple(validSegments, fc.constantFrom(...t.paramNames)).chain(([segments, name]) =>
        fc
          .oneof(
            invalidArb(t.paramSchemas[name] ?? {}, 0, true).map((v) => segmentOf(queryValue(v) || ' ')),
            malformedSegment,
          )
          .map((bad) => ({ segments: { ...segments, [name]: bad }, broke: `path parameter ${name}: ${bad.slice(0, 80)}` })),
      ),
    );
  }
  if (t.querySchema?.properties && Object.keys(t.querySchema.properties).length > 0) {
    const props = t.querySchema.properties;
    targets.push(
      fc
        .tuple(validQuery, fc.constantFrom(...Object.keys(props)))
        .chain(([query, name]) =>
          fc.oneof(
            invalidArb(props[name]!, 0, true).map((v) => `${query ? `${query}&` : ''}${percentEncode(name)}=${percentEncode(queryValue(v))}`),
            fc.constantFrom('%zz', '%', '%E0%A4%A').map((raw) => `${query ? `${query}&` : ''}${percentEncode(name)}=${raw}`),
            fc.constant(`${query ? `${query}&` : ''}${percentEncode(name)}=1&${percentEncode(name)}=2`),
          ),
        )
        .map((query) => ({ query, broke: `query: ${query.slice(0, 120)}` })),
    );
  }
  if (t.def.raw) {
    targets.push(invalidUpload.map((upload) => ({ ...upload, refusedByConstruction: true as const })));
  } else {
    if (t.bodySchema) {
      const object = t.bodySchema.properties ? invalidObject(t.bodySchema) : invalidArb(t.bodySchema);
      targets.push(object.map((value) => ({ body: jsonText(value), broke: `body: ${jsonText(value).slice(0, 160)}` })));
      targets.push(
        validArb(t.bodySchema).map((value) => {
          const fields = jsonText(value).slice(1, -1);
          return { body: pollution(fields), broke: 'body: __proto__ and constructor keys' };
        }),
      );
      targets.push(fc.constantFrom('[]', '0', '"x"', 'null', 'true', '[{}]').map((body) => ({ body, broke: `body: ${body}` })));
    }
    targets.push(invalidJson.map((body) => ({ body, broke: `body is not JSON: ${JSON.stringify(body)}` })));
    targets.push(deepJson.map((body) => ({ body, broke: `body nested ${body.length / 2} deep` })));
    targets.push(hugeString.map((s) => ({ body: `{"a":"${s}`, broke: `body: an unterminated string of ${s.length} characters` })));
  }
  const credentials = t.deviceCredentials
    ? fc.oneof(
        fc.constant(undefined as string | undefined),
        fc
          .tuple(fc.stringMatching(/^[0-9a-z]{8,32}$/), fc.string({ maxLength: 40 }))
          .map(([device, password]) => `Basic ${Buffer.from(`${tenantId}_${device}:${password}`).toString('base64')}`),
        fc.constantFrom('Basic', 'Basic !!!', `Basic ${Buffer.from(':').toString('base64')}`, `Bearer ${ownerToken}`, 'x'.repeat(600)),
      )
    : fc.constant(undefined);

  return (
    fc
      .record({
        segments: validSegments,
        query: validQuery,
        body: validBody,
        contentType: fc.constantFrom(...CONTENT_TYPES),
        authorization: credentials,
        language: fc.constantFrom(...LANGUAGES),
        broken: fc.oneof(...targets),
      })
      .map(({ broken, ...rest }) => ({ ...rest, ...broken, broke: broken.broke ?? 'nothing' }) as Case)
      // Only what is refused before the handler runs, or by a device route to credentials that prove no device.
      .filter((c) => t.deviceCredentials || c.refusedByConstruction === true || refusedBySchemas(t.def, c, t.paramNames))
  );
}

// The company, its accounts, and what moves in its items without a change.

let tenantId: string;
const accounts: { name: string; token: string; username: string; password: string }[] = [];
let targets: Target[] = [];

/**
 * The company's items with what a refused request may rightly move taken out: a session's
 * `lastSeenAt`, which every authenticated request refreshes once a minute (functions/lib/auth.ts,
 * TOUCH_EVERY_MS) before its input is read. Nothing else: throttle counters live under `_system`,
 * not in the company's partitions, and a refused request is never audited.
 */
async function snapshot(): Promise<{ main: Item[]; events: Item[]; audit: Item[] }> {
  const items = await tenantItems(tenantId);
  items.main = items.main.map((item) => (String(item.sk).startsWith('session#') ? { ...item, lastSeenAt: 'refreshed on use' } : item));
  return items;
}

beforeAll(async () => {
  // A company of its own, so that nothing else writes to its items while its routes are fuzzed.
  const owner = await newCompany();
  const user = await login(owner.username, owner.password);
  tenantId = user.token.split('.')[0]!;
  accounts.push({ name: 'the owner', token: user.token, username: owner.username, password: owner.password });

  // An account of the company with no permission at all, made through the accounts API and its invitation.
  const username = unique('fuzznone');
  const email = `${username}@example.test`;
  const made = await call('POST', '/v1/accounts', { token: user.token, body: { username, email, authCodes: [], invite: true } });
  if (made.body.code !== 201) throw new Error(`creating the account answered ${made.status}: ${made.body.message}`);
  const link = /\/invitation\?token=([A-Za-z0-9_-]{43})/.exec((await mailsTo(email)).at(-1)?.text ?? '')?.[1];
  if (!link) throw new Error(`no invitation mailed to ${email}`);
  const password = 'fuzz-none-password-7';
  const { securityId, publicKey } = await securityKey();
  const chosen = await call('POST', '/v1/systems/invitation', { body: { securityId, token: link, password: await encrypt(publicKey, password) } });
  if (chosen.body.code !== 201) throw new Error(`choosing the password answered ${chosen.status}: ${chosen.body.message}`);
  const none = await login(username, password);
  expect(none.authCodes).toEqual([]);
  accounts.push({ name: 'an account with no permission', token: none.token, username, password });

  const [doc, handlers] = await Promise.all([openApiDocument(), declaredHandlers()]);
  const paths = (doc as { paths: Record<string, Record<string, Operation>> }).paths;
  targets = (routes as readonly RouteEntry[]).map((route) => {
    const key = routeKey(route);
    const op = paths[route.path]![route.method.toLowerCase()]!;
    const parameters = op.parameters ?? [];
    const query = parameters.filter((p) => p.in === 'query');
    return {
      route,
      key,
      op,
      def: handlers[key]!,
      paramNames: [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
      paramSchemas: Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.schema])),
      querySchema: query.length
        ? { type: 'object', properties: Object.fromEntries(query.map((p) => [p.name, p.schema])), required: query.filter((p) => p.required).map((p) => p.name) }
        : undefined,
      bodySchema: op.requestBody?.content['application/json']?.schema,
      deviceCredentials: route.access === 'device' && op.security.length > 0,
    };
  });
}, 120_000);

afterAll(() => agent.destroy());

/** A route's own seed: the same cases for it whatever other routes the table gains. */
const seedOf = (key: string): number => (SEED ^ createHash('sha256').update(key).digest().readInt32BE(0)) | 0;

describe(`schema fuzzing of every route (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})`, () => {
  it('covers every route of the table', () => {
    expect(targets.map((t) => t.key).sort()).toEqual(routes.map((r) => routeKey(r)).sort());
  });

  it.each(routes.map((r) => [routeKey(r)] as const))(
    '%s refuses what its schemas refuse, without a 5xx, internals or a change',
    async (key) => {
      const target = targets.find((t) => t.key === key)!;
      const callers = target.route.access === 'session' ? accounts : [{ name: target.route.access === 'device' ? 'a terminal' : 'anyone', token: undefined }];
      const before = await snapshot();
      for (const caller of callers) {
        const seed = seedOf(`${key} ${caller.name}`);
        const result = await fc.check(
          fc.asyncProperty(caseArb(target, tenantId, accounts[0]!.token), async (c) => {
            const answer = await send(target.route, c, caller.token);
            const problems = problemsOf(answer);
            if (problems.length) throw new Error(`${problems.join('; ')}\n  broke: ${c.broke}`);
          }),
          { seed, numRuns: RUNS, endOnFailure: true },
        );
        if (result.failed) {
          const reproduce = `FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npm run fuzz (this route as ${caller.name}: fast-check seed ${seed}, path ${result.counterexamplePath})`;
          throw new Error(`${key} as ${caller.name}: ${String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance)}\n  ${reproduce}`);
        }
      }
      const after = await snapshot();
      expect(after, `${key} changed the company's data`).toEqual(before);
      // The owner's session is still the one the fuzzing used (nothing logged it out).
      expect((await call('GET', '/v1/systems/me', { token: accounts[0]!.token })).status).toBe(200);
    },
    Math.max(60_000, RUNS * 4_000),
  );
});

/** What the fuzzing found, kept as cases of their own. */
describe('findings of the fuzzing', () => {
  it('a path parameter with a malformed escape is refused, not a 500 of the local host; so is such a console path', async () => {
    for (const segment of ['%zz', '%', '%E0%A4%A']) {
      const answer = await send(
        routes.find((r) => r.method === 'GET' && r.path === '/v1/employees/{employeeKey}')!,
        { segments: { employeeKey: segment }, query: '', broke: segment },
        accounts[0]!.token,
      );
      expect(problemsOf(answer), segment).toEqual([]);
      // A console path: index.html (or 503 before the console is built), never the 500 of a failure.
      const page = await fetch(`${baseUrl()}/docs/${segment}`);
      expect(page.status, segment).not.toBe(500);
    }
  });

  it('an upload of an unknown kind is refused in the caller’s language, naming the field, without zod’s English', async () => {
    const body = multipart([
      { name: 'kind', data: Buffer.from('other') },
      { name: 'file', filename: 'a.png', data: Buffer.from('X') },
    ]);
    const upload = routes.find((r) => r.path === '/v1/files/uploads')!;
    for (const language of ['en_US', 'ja_JP']) {
      const answer = await send(
        upload,
        { segments: {}, query: '', body, contentType: 'multipart/form-data; boundary=fuzzboundary', language, broke: 'kind' },
        accounts[0]!.token,
      );
      expect(problemsOf(answer), language).toEqual([]);
      const envelope = JSON.parse(answer.text) as { code: number; data: { issues: { path: string; message: string }[] } };
      expect(envelope.code).toBe(422);
      expect(envelope.data.issues.map((i) => i.path)).toEqual(['kind']);
      if (language === 'ja_JP') expect(envelope.data.issues[0]!.message).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    }
  });
});
