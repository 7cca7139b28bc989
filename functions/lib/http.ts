import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { Locale } from '#contract/locales';
import { findEntry, keyMayUse, routeKey, routes, type Access, type Resource, type RouteEntry, type RouteKey, type RouteKeyOf, type RouteOf } from '../routes.ts';
import { CONFIRM_PASSWORD_HEADER, authenticate, confirmPassword, sessionOf, type Auth, type SessionAuth } from './auth.ts';
import { auditRequest, auditedItemBefore } from './audit.ts';
import type { AuditItem } from '#data/auditItems';
import { AppError, ConflictError, LoginRequiredError, NotFoundError, ThrottledError, UnsupportedEncodingError, ValidationError, fieldError, retryAfterSeconds } from './errors.ts';
import { DEVICE_REASONS, type DeviceReason } from '#contract/protocol';
import { safeEqualText, sha256 } from './crypto.ts';
import { localeFromHeader, translate } from './i18n.ts';
import { conflictIssue, issueSummary, issueText, zodIssues } from './issues.ts';
import { addLogContext, log, withLogContext } from './log.ts';
import { env } from './env.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

/** What a handler returns: a success code of SPEC.md §8 with its data, or a raw response (exports). */
export type Reply<T = unknown> = { code: 200 | 201 | 202 | 204; data: T } | { raw: HttpResult };

export const ok = <T>(data: T): Reply<T> => ({ code: 200, data });
export const created = <T = null>(data: T = null as T): Reply<T> => ({ code: 201, data });
export const queued = <T = null>(data: T = null as T): Reply<T> => ({ code: 202, data });
export const deleted = (): Reply<null> => ({ code: 204, data: null });

export interface Request<B, Q, P, A> {
  body: B;
  query: Q;
  params: P;
  auth: A;
  locale: Locale;
  requestId: string;
  sourceIp: string;
  headers: Record<string, string | undefined>;
  /** The undecoded body, for multipart uploads. */
  rawBody: Buffer;
}

type AuthFor<A extends Access> = A extends 'session' ? Auth : null;

export interface HandlerDef<A extends Access = Access> {
  access: A;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Read the body as bytes instead of JSON. */
  raw?: boolean;
  /** Told of every request refused as invalid (422) before the answer goes: a device route logs it for the device. `routeKey` is the entry's (`GET /v1/deviceSync/faces`). */
  refused?(request: { headers: Record<string, string | undefined>; routeKey: string }, error: ValidationError): Promise<void>;
  /**
   * The `data` of a success, as the OpenAPI document publishes it (functions/openapi.ts). The
   * handler's result is held to it by type, and at run time on the local host and in tests
   * (`ANSWER_CHECK`), where an answer that strays from it fails with 500.
   */
  answer?: z.ZodType;
  /** Made by `sessionOnlyRoute`: its route must be one no key may use. */
  sessionOnly?: true;
  handle(req: Request<unknown, unknown, unknown, AuthFor<A>>): Promise<Reply>;
}

interface Schemas<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, D extends z.ZodType> {
  body?: B;
  query?: Q;
  params?: P;
  raw?: boolean;
  refused?: HandlerDef['refused'];
  answer?: D;
}

type Inferred<S> = S extends z.ZodType ? z.output<S> : undefined;
/** What the handler may answer: anything where no `answer` is declared, else what the schema takes. */
type Answered<D> = D extends z.ZodUndefined ? unknown : D extends z.ZodType ? z.input<D> : unknown;

function define<A extends Access>(access: A) {
  return <B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined, D extends z.ZodType = z.ZodUndefined>(
    def: Schemas<B, Q, P, D> & { handle(req: Request<Inferred<B>, Inferred<Q>, Inferred<P>, AuthFor<A>>): Promise<Reply<Answered<D>>> },
  ): HandlerDef<A> => ({ ...def, access }) as unknown as HandlerDef<A>;
}

/** Whether answers are checked against their schemas at run time: the local host and the tests only. */
const checkingAnswers = (): boolean => env('ANSWER_CHECK') === '1';

/** Holds a success's `data` to the route's declared answer; a stray one fails loudly where checks are on. */
function checkAnswer(key: string, def: HandlerDef, reply: Reply): void {
  if (!def.answer || 'raw' in reply || !checkingAnswers()) return;
  const result = def.answer.safeParse(reply.data);
  if (result.success) return;
  const problems = result.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || 'data'}: ${i.message}`);
  throw new Error(`${key} answered data its contract does not describe: ${problems.join('; ')}`);
}

/** A handler for a route anyone may call. */
export const publicRoute = define('public');
/** A handler for a route that needs a console session (and the route's authCode). */
export const sessionRoute = define('session');
/** A handler for a route called by a device. */
export const deviceRoute = define('device');

/**
 * A handler for a session route only people use (routes.ts `keyMayUse` is false for it): it is
 * given the person's session, and a key that reached it anyway is refused before it runs.
 */
export function sessionOnlyRoute<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined, D extends z.ZodType = z.ZodUndefined>(
  def: Schemas<B, Q, P, D> & { handle(req: Request<Inferred<B>, Inferred<Q>, Inferred<P>, SessionAuth>): Promise<Reply<Answered<D>>> },
): HandlerDef<'session'> {
  return { ...sessionRoute({ ...def, handle: (req: Request<Inferred<B>, Inferred<Q>, Inferred<P>, Auth>) => def.handle({ ...req, auth: sessionOf(req.auth) }) } as never), sessionOnly: true };
}

export type ResourceHandlers<R extends Resource> = { [K in RouteKeyOf<R>]: HandlerDef<RouteOf<K & RouteKey>['access']> };

/**
 * Declares every handler of one resource; a missing or extra route is a type error. The API
 * sends the function every request under the path prefixes its resource owns
 * (functions/apiRoutes.ts), and the handler picks the entry by method and path.
 */
export function defineResource<R extends Resource>(resource: R, handlers: ResourceHandlers<R>) {
  const table = handlers as unknown as Record<string, HandlerDef>;
  const entries = (routes as readonly RouteEntry[]).filter((route) => route.resource === resource);
  return {
    resource,
    handlers: table,
    handler: (event: HttpEvent): Promise<HttpResult> => withLogContext({ requestId: event.requestContext?.requestId ?? 'local' }, () => dispatch(entries, table, event)),
  };
}

/** Validates `value`; a failure is a 422 naming each field, in the caller's language. */
export function parse<S extends z.ZodType | undefined>(schema: S, value: unknown, locale: Locale, prefix: string): unknown {
  if (!schema) return undefined;
  // The input is reported so that a missing field reads "is required" rather than "has the wrong type".
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw new ValidationError(zodIssues(result.error.issues, locale, prefix));
}

function decodeBody(event: HttpEvent): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** Whether a request's Content-Encoding leaves its body as sent: absent, or `identity`. */
export const identityEncoding = (encoding: string | undefined): boolean => !encoding?.trim() || encoding.trim().toLowerCase() === 'identity';

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw fieldError('body', 'error.invalidJson');
  }
}

function lowerHeaders(headers: HttpEvent['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers ?? {})) out[k.toLowerCase()] = v;
  return out;
}

export function envelopeResult(status: number, body: Envelope, requestId: string): HttpResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  };
}

/** The one place an error becomes a response: known errors keep their code, anything else is a 500 without details. */
export function errorResult(error: unknown, locale: Locale, requestId: string, extra?: Record<string, unknown>): HttpResult {
  const withExtra = (data: unknown) => (extra ? { ...((data as Record<string, unknown> | null) ?? {}), ...extra } : data);
  if (error instanceof ValidationError) {
    const issues = error.issues.map((issue) => ({ path: issue.path, message: issueText(issue, locale) }));
    return envelopeResult(422, { code: 422, message: issueSummary(error.issues, locale), data: withExtra({ issues }) }, requestId);
  }
  if (error instanceof ConflictError && error.field) {
    const message = issueText(conflictIssue(error.field, error), locale);
    return envelopeResult(409, { code: 409, message, data: withExtra({ issues: [{ path: error.field, message }] }) }, requestId);
  }
  if (error instanceof AppError && error.httpStatus === 429) {
    // When to come back, for people, keys and terminals alike: the header, and the same wait in `data`.
    const wait = retryAfterSeconds(error);
    const data = { ...((withExtra(error.data) as Record<string, unknown> | null) ?? {}), retryAfterSeconds: wait };
    const result = envelopeResult(429, { code: 429, message: translate(locale, error.messageId, error.params), data }, requestId);
    return { ...result, headers: { ...result.headers, 'retry-after': String(wait) } };
  }
  if (error instanceof AppError) {
    return envelopeResult(error.httpStatus, { code: error.code, message: translate(locale, error.messageId, error.params), data: withExtra(error.data) }, requestId);
  }
  log('error', 'unhandled error', { requestId, error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
  return envelopeResult(500, { code: 500, message: translate(locale, 'status.500'), data: withExtra(null) }, requestId);
}

/**
 * The reason a terminal acts on, added to every refused answer of a device route (`data.reason`,
 * DEVICE_REASONS), with the wait of a throttle in seconds.
 */
export function deviceReason(error: unknown): { reason: DeviceReason; retryAfterSeconds?: number } {
  const given = error instanceof AppError ? (error.data as { reason?: unknown } | null)?.reason : undefined;
  if (typeof given === 'string' && (DEVICE_REASONS as readonly string[]).includes(given)) return { reason: given as DeviceReason };
  if (error instanceof ValidationError) return { reason: error.issues.some((i) => i.message === 'devices.unknownUserCode') ? 'unknownBindingCode' : 'invalid' };
  if (error instanceof ThrottledError) return { reason: 'throttled', retryAfterSeconds: retryAfterSeconds(error) };
  if (!(error instanceof AppError)) return { reason: 'serverError' };
  if (error.messageId === 'devices.noLicence') return { reason: 'noLicence' };
  if (error.messageId === 'devices.noSeat') return { reason: 'noFreeSeat' };
  const byStatus: Record<number, DeviceReason> = { 401: 'unauthorized', 403: 'unauthorized', 404: 'notFound', 409: 'conflict', 413: 'tooLarge', 422: 'invalid', 429: 'throttled' };
  return { reason: byStatus[error.httpStatus] ?? (error.httpStatus >= 500 ? 'serverError' : 'invalid') };
}

/** The header CloudFront adds to every request it forwards to the API (infra/aws/web.ts). */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * The caller's address, which the throttles count by. On AWS (`ORIGIN_VERIFY_SECRET` set) the
 * API is reached through CloudFront only: a request without CloudFront's secret header is
 * refused, and the viewer address CloudFront forwards is used, since the API itself sees an edge
 * address. Without the secret (the local host) headers are never trusted: any client can set them.
 */
export function clientAddress(event: HttpEvent, headers: Record<string, string | undefined>): string {
  const secret = env('ORIGIN_VERIFY_SECRET');
  const source = event.requestContext?.http?.sourceIp ?? 'unknown';
  if (!secret) return source;
  if (!safeEqualText(sha256(headers[ORIGIN_VERIFY_HEADER] ?? ''), sha256(secret))) {
    log('warn', 'request without the CloudFront origin header refused', { sourceIp: source, method: event.requestContext?.http?.method, path: event.rawPath });
    throw new LoginRequiredError();
  }
  const viewer = headers['cloudfront-viewer-address'];
  return viewer ? viewer.replace(/:\d+$/, '') : source;
}

const successMessage = { 200: 'status.200', 201: 'status.201', 202: 'status.202', 204: 'status.204' } as const;

/**
 * Answers one request of the resource's function. API Gateway's `routeKey` and `pathParameters`
 * are those of the prefix's route (`ANY /v1/employees/{proxy+}`, `{ proxy }`): the entry is the
 * one of this resource's with the request's method and path, and its path parameters are read
 * from the path. A path or method the resource does not have answers 404.
 */
async function dispatch(entries: readonly RouteEntry[], handlers: Record<string, HandlerDef>, event: HttpEvent): Promise<HttpResult> {
  const started = Date.now();
  const requestId = event.requestContext?.requestId ?? 'local';
  const headers = lowerHeaders(event.headers);
  const locale = localeFromHeader(headers['accept-language']);
  let result: HttpResult;
  let tenantId: string | undefined;
  let access: Access | undefined;
  const found = findEntry(entries, event.requestContext?.http?.method ?? '', event.rawPath ?? '');
  const key = found ? routeKey(found.route) : undefined;
  const def = key ? handlers[key] : undefined;
  const route = found?.route;
  addLogContext({ route: key ?? `${event.requestContext?.http?.method} ${event.rawPath}` });
  let auth: Auth | null = null;
  let sent: unknown;
  // Once the handler has started, a change is audited whatever it answers: one that fails
  // unexpectedly (5xx) may have changed something before the error (an account made, then its
  // invitation mail refused). A refusal (4xx) changes nothing, as the sweep and the fuzz prove.
  let handled = false;
  let item: AuditItem | null = null;
  let answer: unknown;
  const audit = (code: number) =>
    auditRequest({
      route: route!,
      auth: auth!,
      params: Object.keys(found!.params).length ? found!.params : undefined,
      item,
      answer,
      body: sent,
      query: event.queryStringParameters,
      code,
      sourceIp: clientAddress(event, headers),
      userAgent: headers['user-agent'],
      requestId,
    });
  try {
    access = route?.access;
    if (!route || !def) throw new NotFoundError('error.routeNotFound', { path: event.rawPath });
    const sourceIp = clientAddress(event, headers);
    auth =
      route.access === 'session'
        ? await authenticate(headers.authorization, 'authCodes' in route ? route.authCodes : route.authCode, route.beforePasswordChange === true, route.beforeTwoFactor === true, keyMayUse(route))
        : null;
    tenantId = auth?.tenantId;
    if (tenantId) addLogContext({ tenantId });
    if (!identityEncoding(headers['content-encoding'])) throw new UnsupportedEncodingError();
    const rawBody = decodeBody(event);
    const params = parse(def.params, found.params, locale, '');
    const query = parse(def.query, event.queryStringParameters ?? {}, locale, '');
    // What was sent, before its schema fills in defaults: the audit log names these fields.
    sent = def.raw ? undefined : parseJson(rawBody);
    const body = def.raw ? undefined : parse(def.body, sent, locale, '');
    if (route.reauth && auth) await confirmPassword(sessionOf(auth), headers[CONFIRM_PASSWORD_HEADER]);
    if (auth) item = await auditedItemBefore(route, auth, found.params);
    handled = true;
    const reply: Reply = await def.handle({
      body,
      query,
      params,
      auth: auth as never,
      locale,
      requestId,
      sourceIp,
      headers,
      rawBody,
    });
    checkAnswer(key!, def, reply);
    if (!('raw' in reply)) answer = reply.data;
    result =
      'raw' in reply
        ? reply.raw
        : envelopeResult(200, { code: reply.code, message: translate(locale, successMessage[reply.code]), data: reply.data }, requestId);
    if (auth) await audit('raw' in reply ? reply.raw.statusCode ?? 200 : reply.code);
  } catch (error) {
    if (error instanceof ValidationError && def?.refused) {
      await def.refused({ headers, routeKey: key! }, error).catch((failure: unknown) => log('warn', 'refusal not recorded', { requestId, error: String(failure) }));
    }
    result = errorResult(error, locale, requestId, access === 'device' ? deviceReason(error) : undefined);
    if (handled && auth && (result.statusCode ?? 500) >= 500) await audit(result.statusCode ?? 500);
  }
  // The request's id, route and tenant come from the log context, as on every line of the request.
  log('info', 'request', { status: result.statusCode, ms: Date.now() - started });
  return result;
}
