import * as z from 'zod';
import { DEVICE_REASONS } from '#contract/protocol';
import { uploadFields } from '#contract/files';
import type { HandlerDef } from '#lib/http';
import pkg from './package.json' with { type: 'json' };
import { keyMayUse, routes, routeKey, type RouteEntry } from './routes.ts';
import { THROTTLES } from '#domain/throttle';
import { ROUTE_SUMMARIES, TAG_DESCRIPTIONS } from './routeSummaries.ts';
import { SEALED_EXTENSION } from '#contract/sealed';
import { exampleOf } from './openapiExamples.ts';
import { CONFIRM_PASSWORD_HEADER } from '#lib/auth';

/**
 * The HTTP API as an OpenAPI 3.1 document, generated from the route table (every URL, method,
 * access and authCode) and the zod schemas each resource's handlers declare for their body,
 * query and path parameters. `npm run openapi` writes it to docs/openapi.json, a test holds the
 * file equal to what this makes, and `GET /v1/openapi.json` serves that file.
 */

type Json = Record<string, unknown>;

/** The media type of the workbooks the `…/export` routes answer. */
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Multipart fields beside the `file` part of a binary route. */
const MULTIPART_FIELDS: Partial<Record<string, z.ZodObject>> = {
  'POST /v1/files/uploads': uploadFields,
};

/** Device routes called without the device's credentials, and what they are called with instead. */
const DEVICE_WITHOUT_CREDENTIALS: Partial<Record<string, string>> = {
  'POST /v1/devices/bind': 'the company’s device binding code (`userCode` in the body)',
};

/** The route that serves this document: it answers the document itself, not the envelope. */
export const OPENAPI_ROUTE = 'GET /v1/openapi.json';

/** Every resource's declared handlers, from `functions/resources/<resource>.ts` as the stack bundles them. */
export async function declaredHandlers(): Promise<Record<string, HandlerDef>> {
  const table: Record<string, HandlerDef> = {};
  for (const resource of new Set(routes.map((r) => r.resource))) {
    const mod = (await import(`./resources/${resource}.ts`)) as Record<string, { handlers?: Record<string, HandlerDef> } | undefined>;
    const handlers = mod[resource]?.handlers;
    if (!handlers) throw new Error(`functions/resources/${resource}.ts exports no resource named ${resource}`);
    Object.assign(table, handlers);
  }
  return table;
}

/** Named schemas a recursive schema defines (a menu item holds menu items), lifted to `components.schemas`. */
const lifted = new Map<string, Json>();

/** A zod schema as JSON Schema 2020-12 (what OpenAPI 3.1 uses): as a client sends it, or (`output`) as the server answers it. */
function jsonSchema(schema: z.ZodType, where: string, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _dialect, $defs, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  if (!$defs) return json;
  // Definitions inside a schema would be resolved against the document's root: each must have a
  // name of its own (`.meta({ id })`), and moves to components, where every operation shares it.
  for (const name of Object.keys($defs as Json)) {
    if (name.startsWith('__schema')) throw new Error(`${where}: a recursive schema needs a name: .meta({ id })`);
  }
  const moved = (value: Json): Json => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  for (const [name, def] of Object.entries($defs as Record<string, Json>)) lifted.set(name, moved(def));
  return moved(json);
}

/** The properties of an object schema (a query or the path parameters), each with whether it is required. */
function objectFields(schema: z.ZodType, where: string): { name: string; schema: Json; required: boolean }[] {
  const json = jsonSchema(schema, where);
  const properties = json.properties as Record<string, Json> | undefined;
  if (json.type !== 'object' || !properties) throw new Error(`${where}: expected an object schema`);
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({ name, schema: property, required: required.has(name) }));
}

const paramsOf = (route: RouteEntry): string[] => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const codesOf = (route: RouteEntry): readonly string[] => route.authCodes ?? (route.authCode ? [route.authCode] : []);
const operationId = (route: RouteEntry): string =>
  route.method.toLowerCase() +
  route.path
    .replace(/^\/v1\//, '/')
    .split(/[/.]/)
    .filter(Boolean)
    .map((part) => part.replace(/[{}]/g, ''))
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

function accessText(route: RouteEntry, key: string): string {
  if (route.access === 'public') return 'Public: no credentials.';
  if (route.access === 'device') {
    const instead = DEVICE_WITHOUT_CREDENTIALS[key];
    return instead
      ? `Called by a terminal with ${instead}, before it has credentials (docs/device-protocol.md).`
      : 'Called by a bound terminal with HTTP Basic credentials: its thing name and the MQTT password binding gave (docs/device-protocol.md).';
  }
  const codes = codesOf(route);
  const who =
    codes.length === 0
      ? 'Any console session; the handler checks the permission the record or list at hand needs.'
      : codes.length === 1
        ? `A console session whose account holds \`${codes[0]}\`.`
        : `A console session whose account holds any one of ${codes.map((c) => `\`${c}\``).join(', ')}.`;
  const open = [
    route.beforePasswordChange ? ' Open to an account that must still choose its own password.' : '',
    route.beforeTwoFactor ? ' Open to a session that must still enrol in two-factor login.' : '',
    keyMayUse(route) ? ' An API key holding the code may call it too.' : ' People only: an API key is refused (401).',
  ].join('');
  return `${who}${open}`;
}

/** Statuses a route answers beyond what its access, parameters and method imply. */
const EXTRA_STATUSES: Partial<Record<string, number[]>> = {
  // A wrong name or password, or a disabled account (401); the account's or address's tries used up (429).
  'POST /v1/systems/login': [401],
  'POST /v1/systems/login/twoFactor': [401],
  // The code mail could not be sent (sign-up only; recovery answers as for an unknown name).
  'POST /v1/systems/validateCodes': [503],
  // A link that is unknown, used or expired answers 404 with `data.reason`.
  'POST /v1/surveys/open': [404],
  'POST /v1/surveys/answers': [404],
  // An invitation mail the company's server refused (the change is taken back, or audited).
  'POST /v1/accounts': [503],
  'POST /v1/accounts/{accountKey}/password': [503],
};

/** Whether the route is a versioned write or delete: a stale `version` answers 409. */
function versioned(def: HandlerDef): boolean {
  for (const schema of [def.body, def.query]) {
    if (!schema) continue;
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
    if ((json.properties as Json | undefined)?.version) return true;
  }
  return false;
}

/** Which errors the route's own checks can answer; every route may also answer 500 (`default`). */
function errorStatuses(route: RouteEntry, def: HandlerDef): number[] {
  const statuses = new Set<number>(EXTRA_STATUSES[routeKey(route)] ?? []);
  const takesBody = route.method !== 'GET' && route.method !== 'DELETE';
  if (route.access !== 'public') statuses.add(401).add(403);
  if (paramsOf(route).length > 0) statuses.add(404);
  if ((takesBody && route.access !== 'public') || versioned(def)) statuses.add(409);
  if (takesBody) statuses.add(413);
  if (def.body || def.query || def.params || takesBody || route.binary) statuses.add(422);
  if (route.access !== 'session' || takesBody || route.reauth || keyMayUse(route)) statuses.add(429);
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * The static segments beside a path parameter: `/v1/devices/requests` and
 * `/v1/devices/{deviceKey}` both have four segments, so the parameter's schema says it is never
 * `requests`, and a validator matches one operation only (the server tries static paths first).
 */
function siblingsOf(route: RouteEntry, param: string): string[] {
  const parts = route.path.split('/');
  const at = parts.indexOf(`{${param}}`);
  const words = new Set<string>();
  for (const other of routes as readonly RouteEntry[]) {
    const theirs = other.path.split('/');
    if (theirs.length <= at || theirs.slice(0, at).join('/') !== parts.slice(0, at).join('/')) continue;
    const word = theirs[at]!;
    if (!word.startsWith('{')) words.add(word);
  }
  return [...words].sort();
}

const ERROR_TEXT: Record<number, string> = {
  401: 'No permission (the account lacks the authCode), or the session ended: `code` 661 (forced offline), 662 (logged in elsewhere) or 666 (timed out), sent with HTTP 401; on a route that asks for the password again, `data.reauth` is `required` (send `x-confirm-password`) or `wrong`',
  403: 'Log in again: no token, or one that is unknown',
  404: 'No such record, or one of another company',
  409: 'A stale `version`, or a value that must be unique is taken (`data.issues` names the field)',
  413: 'The request is larger than a function takes (6 MB)',
  422: 'Invalid input: `data.issues` lists each field and why',
  429: 'Too many attempts, or too many background jobs of the company at once: ask again after `Retry-After` seconds (also `data.retryAfterSeconds`)',
  503: 'A mail could not be sent (the company’s mail server refused it or could not be reached); nothing was changed, or the change is in the audit log',
  500: 'An unexpected failure; the message tells no internals',
};

function successResponse(route: RouteEntry, key: string, def: HandlerDef): Json {
  if (key === OPENAPI_ROUTE) {
    return { description: 'This document', content: { 'application/json': { schema: { type: 'object', description: 'OpenAPI 3.1' } } } };
  }
  if (route.method === 'GET' && route.path.endsWith('/export')) {
    return { description: 'The workbook itself (not the envelope)', content: { [XLSX]: { schema: { type: 'string', contentMediaType: XLSX } } } };
  }
  const data = def.answer;
  return {
    description: 'Success: HTTP 200 with `code` 200 (read), 201 (created or changed), 202 (queued) or 204 (deleted)',
    content: {
      'application/json': {
        schema: data
          ? {
              allOf: [
                { $ref: '#/components/schemas/Success' },
                { type: 'object', required: ['data'], properties: { data: jsonSchema(data, `${key} data`, 'output') } },
              ],
            }
          : { $ref: '#/components/schemas/Success' },
      },
    },
  };
}

function operation(route: RouteEntry, def: HandlerDef): Json {
  const key = routeKey(route);
  const codes = codesOf(route);
  const pathParameter = (f: { name: string; schema: Json }) => {
    const taken = siblingsOf(route, f.name);
    return { name: f.name, in: 'path', required: true, schema: taken.length ? { ...f.schema, not: { enum: taken } } : f.schema };
  };
  const parameters: Json[] = [
    ...(def.params ? objectFields(def.params, `${key} params`).map(pathParameter) : []),
    ...(def.query ? objectFields(def.query, `${key} query`).map((f) => ({ name: f.name, in: 'query', required: f.required, schema: f.schema })) : []),
    ...(route.reauth ? [{ $ref: '#/components/parameters/ConfirmPassword' }] : []),
  ];
  const missing = paramsOf(route).filter((name) => !parameters.some((p) => p.in === 'path' && p.name === name));
  const summary = ROUTE_SUMMARIES[key as keyof typeof ROUTE_SUMMARIES];
  if (!summary) throw new Error(`${key}: no summary in functions/routeSummaries.ts`);
  if (missing.length > 0) throw new Error(`${key}: no schema for the path parameters ${missing.join(', ')}`);

  let requestBody: Json | undefined;
  if (route.binary) {
    const fields = MULTIPART_FIELDS[key];
    const schema = fields ? jsonSchema(fields, `${key} fields`) : { type: 'object', properties: {} };
    requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            ...schema,
            properties: { ...(schema.properties as Json), file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file' } },
            required: [...((schema.required as string[] | undefined) ?? []), 'file'],
          },
        },
      },
    };
  } else if (def.body) {
    requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(def.body, `${key} body`) } } };
  }

  const deviceError = route.access === 'device';
  const responses: Json = { '200': successResponse(route, key, def) };
  for (const status of errorStatuses(route, def)) {
    responses[String(status)] = { $ref: `#/components/responses/${status === 422 ? 'Invalid' : deviceError ? 'DeviceError' : 'Error'}${status}` };
  }
  responses.default = { $ref: `#/components/responses/${deviceError ? 'DeviceError' : 'Error'}` };

  const credentialFree = route.access === 'public' || DEVICE_WITHOUT_CREDENTIALS[key] !== undefined;
  return {
    operationId: operationId(route),
    summary,
    tags: [route.resource],
    description: [
      accessText(route, key),
      codes.length ? `authCode: ${codes.join(' | ')}` : '',
      route.reauth
        ? 'Asks for the password again: send `x-confirm-password` unless this session confirmed it within the last 5 minutes; without it the answer is 401 with `data.reauth` `required`.'
        : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
    'x-access': route.access,
    'x-authCodes': [...codes],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    security: credentialFree ? [] : keyMayUse(route) ? [{ session: [] }, { apiKey: [] }] : [{ [route.access]: [] }],
    responses,
  };
}

function errorResponses(): Json {
  const responses: Json = {
    Error: { description: 'Any other failure, in the envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    DeviceError: {
      description: 'Any other failure, in the envelope with the reason a terminal acts on',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/DeviceError' } } },
    },
  };
  for (const [status, text] of Object.entries(ERROR_TEXT)) {
    if (status === '422') {
      responses[`Invalid${status}`] = { description: text, content: { 'application/json': { schema: { $ref: '#/components/schemas/Invalid' } } } };
      continue;
    }
    const retry = status === '429' ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } } : {};
    responses[`Error${status}`] = {
      description: text,
      ...retry,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${status === '429' ? 'Throttled' : 'Error'}` } } },
    };
    responses[`DeviceError${status}`] = {
      description: text,
      ...retry,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/DeviceError' } } },
    };
  }
  return responses;
}

const envelope = (code: Json, data: Json = {}): Json => ({
  type: 'object',
  required: ['code', 'message', 'data'],
  properties: { code, message: { type: 'string', description: 'In the caller’s language (`Accept-Language`, e.g. `ja_JP`)' }, data },
});

function schemas(): Json {
  const issue = { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } };
  return {
    Success: envelope({ type: 'integer', enum: [200, 201, 202, 204] }, { description: 'Left open where the operation declares no answer' }),
    Error: envelope({ type: 'integer', description: 'The HTTP status, or 661, 662 or 666 (session ended) with HTTP 401' }),
    Throttled: envelope(
      { type: 'integer', enum: [429] },
      {
        type: 'object',
        required: ['retryAfterSeconds'],
        properties: { retryAfterSeconds: { type: 'integer', minimum: 1, description: 'The same wait as the `Retry-After` header' } },
        description: 'A company’s jobs all running add `jobKey`, `startTime` and `limit`',
      },
    ),
    Invalid: envelope(
      { type: 'integer', enum: [422] },
      { type: 'object', required: ['issues'], properties: { issues: { type: 'array', items: issue } }, description: 'Device routes add `reason`' },
    ),
    DeviceError: envelope(
      { type: 'integer' },
      {
        type: 'object',
        required: ['reason'],
        properties: { reason: { type: 'string', enum: [...DEVICE_REASONS] }, retryAfterSeconds: { type: 'integer' } },
        description: 'The reason a terminal acts on (docs/device-protocol.md, Reasons)',
      },
    ),
  };
}

export async function openApiDocument(): Promise<Json> {
  const handlers = await declaredHandlers();
  lifted.clear();
  const paths: Record<string, Json> = {};
  for (const route of routes as readonly RouteEntry[]) {
    const def = handlers[routeKey(route)];
    if (!def) throw new Error(`${routeKey(route)} has no handler`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, def);
  }
  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Pass Cloud API',
      version: pkg.version,
      description: [
        'Every route of functions/routes.ts, with the body, query and path parameters its handler checks (functions/contract). Generated; do not edit: `npm run openapi` writes it.',
        'Every answer is the envelope `{ code, message, data }`. A success is HTTP 200 with `code` 200, 201, 202 or 204; an error has the HTTP status of its `code`, except the session codes 661, 662 and 666, sent with HTTP 401. A 422 lists each refused field in `data.issues`.',
        '`data` of a success is described for every operation whose handler declares its answer (a schema of functions/contract, held to it at run time on the local host and in the tests); an operation that declares none leaves `data` open.',
        'Console routes take the session token of `POST /v1/systems/login` as `Authorization: Bearer <token>` and need the authCode(s) in `x-authCodes`, any one of them where there are several. Machines use an API key instead, sent the same way (security scheme `apiKey`); the routes for people only (their own session, password and two-factor login, accounts, keys, security settings, and every route that asks for the password again) refuse it. The device routes are described in docs/device-protocol.md.',
        [
          '## Logging in, and sealed fields',
          'Passwords (and the username at login) never travel readable in a body: each such field is marked `x-sealed` and is sealed by the client. Encode the text as UTF-8, cut it into blocks of at most 190 bytes, encrypt each block with RSA-OAEP (SHA-256 for the hash and MGF1) under the named 2048-bit public key (base64 of its DER SubjectPublicKeyInfo encoding), base64-encode each block and join them with `:`.',
          '1. `POST /v1/systems/security` answers `{ securityId, publicKey }`: a login key that serves one request.',
          '2. `POST /v1/systems/login` with `{ securityId, account: seal(publicKey, username), password: seal(publicKey, password) }` answers the session: `data.token` (send it as `Authorization: Bearer <token>`) and `data.key`, the session’s own public key. An account with two-factor login answers `data.twoFactor.challenge` instead; send it with a code to `POST /v1/systems/login/twoFactor`.',
          '3. Fields sealed with the session key (`x-sealed.key` is `session`), and the `x-confirm-password` header of the routes that ask for the password again, use `data.key`.',
          'Worked example (Node.js): `publicEncrypt({ key: createPublicKey({ key: Buffer.from(publicKey, "base64"), format: "der", type: "spki" }), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from("s3cret-pass", "utf8")).toString("base64")` gives one block; a text over 190 bytes is several blocks joined by `:`. In a browser: `crypto.subtle.encrypt({ name: "RSA-OAEP" }, key, bytes)` with the key imported as `spki` with `{ name: "RSA-OAEP", hash: "SHA-256" }`. docs/examples/typescript/client.ts does it.',
        ].join('\n\n'),
        'A 429 says when to come back: `Retry-After` in seconds, and the same wait in `data.retryAfterSeconds`.',
      ].join('\n\n'),
    },
    servers: [{ url: '/', description: 'The console’s origin: on AWS the CloudFront domain, which forwards /v1/* to the API' }],
    tags: [...new Set(routes.map((r) => r.resource))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths,
    components: {
      securitySchemes: {
        session: { type: 'http', scheme: 'bearer', description: 'The token `POST /v1/systems/login` answers: `<tenantId>.<secret>`' },
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: `An API key (\`pck_<tenantId>_<apiKeyKey>_<secret>\`), made in Settings › API keys or by \`POST /v1/apiKeys\`, sent as \`Authorization: Bearer <key>\`. It opens the routes its authCodes open, except those for people only; each key may make ${THROTTLES.apiKey.limit} requests a minute (429 with \`Retry-After\` past it).`,
        },
        device: { type: 'http', scheme: 'basic', description: 'A bound terminal: its thing name and the MQTT password binding gave' },
      },
      schemas: { ...schemas(), ...Object.fromEntries([...lifted].sort(([a], [b]) => a.localeCompare(b))) },
      responses: errorResponses(),
      parameters: {
        ConfirmPassword: {
          name: CONFIRM_PASSWORD_HEADER,
          in: 'header',
          required: false,
          description:
            'The caller’s password again, sealed like a password field (`x-sealed`: RSA-OAEP with SHA-256 under the session’s `key`, base64). Needed unless this session confirmed it within the last 5 minutes.',
          schema: {
            type: 'string',
            minLength: 1,
            maxLength: 4096,
            [SEALED_EXTENSION]: { key: 'session', algorithm: 'RSA-OAEP', hash: 'SHA-256', encoding: 'base64', blockBytes: 190, separator: ':' },
          },
        },
      },
      headers: {
        RetryAfter: { description: 'Seconds to wait before asking again', schema: { type: 'integer', minimum: 1 } },
      },
    },
  };
  addExamples(document);
  return document;
}

/**
 * An example for every JSON request body and answer (functions/openapiExamples.ts): each media
 * type object of an operation and of the shared error answers gets `example`.
 */
function addExamples(document: Json): void {
  const components = document.components as Json;
  const media = (content: Json | undefined, seed: string) => {
    const json = content?.['application/json'] as Json | undefined;
    if (json?.schema && json.example === undefined) json.example = exampleOf(json.schema as Json, components, seed);
  };
  for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(operations)) {
      media((op.requestBody as Json | undefined)?.content as Json | undefined, `${method} ${path} body`);
      media(((op.responses as Record<string, Json>)['200'] as Json | undefined)?.content as Json | undefined, `${method} ${path} answer`);
    }
  }
  for (const [name, response] of Object.entries(components.responses as Record<string, Json>)) media(response.content as Json | undefined, name);
}

/** The published file's text. */
export const openApiText = async (): Promise<string> => `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
