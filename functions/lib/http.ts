import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { z } from 'zod';
import type { Locale } from '#contract/locales';
import { findRoute, type Access, type Resource, type RouteKey, type RouteKeyOf, type RouteOf } from '../routes.ts';
import { authenticate, type Auth } from './auth.ts';
import { AppError, ConflictError, LoginRequiredError, NotFoundError, ValidationError, fieldError, type FieldIssue } from './errors.ts';
import { safeEqualText, sha256 } from './crypto.ts';
import { isMessageId, localeFromHeader, translate } from './i18n.ts';
import { log } from './log.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

/** What a handler returns: a success code of SPEC.md §8 with its data, or a raw response (exports). */
export type Reply = { code: 200 | 201 | 202 | 204; data: unknown } | { raw: HttpResult };

export const ok = (data: unknown): Reply => ({ code: 200, data });
export const created = (data: unknown = null): Reply => ({ code: 201, data });
export const queued = (data: unknown = null): Reply => ({ code: 202, data });
export const deleted = (): Reply => ({ code: 204, data: null });

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
  handle(req: Request<unknown, unknown, unknown, AuthFor<A>>): Promise<Reply>;
}

interface Schemas<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  body?: B;
  query?: Q;
  params?: P;
  raw?: boolean;
}

type Inferred<S> = S extends z.ZodType ? z.output<S> : undefined;

function define<A extends Access>(access: A) {
  return <B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined>(
    def: Schemas<B, Q, P> & { handle(req: Request<Inferred<B>, Inferred<Q>, Inferred<P>, AuthFor<A>>): Promise<Reply> },
  ): HandlerDef<A> => ({ ...def, access }) as unknown as HandlerDef<A>;
}

/** A handler for a route anyone may call. */
export const publicRoute = define('public');
/** A handler for a route that needs a console session (and the route's authCode). */
export const sessionRoute = define('session');
/** A handler for a route called by a device. */
export const deviceRoute = define('device');

export type ResourceHandlers<R extends Resource> = { [K in RouteKeyOf<R>]: HandlerDef<RouteOf<K & RouteKey>['access']> };

/** Declares every handler of one resource; a missing or extra route is a type error. */
export function defineResource<R extends Resource>(resource: R, handlers: ResourceHandlers<R>) {
  const table = handlers as unknown as Record<string, HandlerDef>;
  return {
    resource,
    handlers: table,
    handler: (event: HttpEvent): Promise<HttpResult> => dispatch(table, event),
  };
}

const zodLocales: Record<Locale, () => { localeError: z.core.$ZodErrorMap }> = {
  en_US: z.locales.en,
  zh_CN: z.locales.zhCN,
  zh_TW: z.locales.zhTW,
  ja_JP: z.locales.ja,
  ko_KR: z.locales.ko,
  it_IT: z.locales.it,
  de_DE: z.locales.de,
  ru_RU: z.locales.ru,
  fr_FR: z.locales.fr,
  es_ES: z.locales.es,
  id_ID: z.locales.id,
};
const zodErrorMaps = new Map<Locale, z.core.$ZodErrorMap>();
function zodErrorMap(locale: Locale): z.core.$ZodErrorMap {
  let map = zodErrorMaps.get(locale);
  if (!map) {
    map = zodLocales[locale]().localeError;
    zodErrorMaps.set(locale, map);
  }
  return map;
}

/** Validates `value` with messages in the caller's language; a failure is a 422 naming each field. */
export function parse<S extends z.ZodType | undefined>(schema: S, value: unknown, locale: Locale, prefix: string): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value, { error: zodErrorMap(locale) });
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || prefix || 'body',
      message: isMessageId(issue.message) ? issue.message : { text: issue.message },
    })),
  );
}

function decodeBody(event: HttpEvent): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

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

export function issueText(issue: FieldIssue, locale: Locale): string {
  return typeof issue.message === 'string' ? translate(locale, issue.message, issue.params) : issue.message.text;
}

/** The one place an error becomes a response: known errors keep their code, anything else is a 500 without details. */
export function errorResult(error: unknown, locale: Locale, requestId: string): HttpResult {
  if (error instanceof ValidationError) {
    const issues = error.issues.map((issue) => ({ path: issue.path, message: issueText(issue, locale) }));
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    return envelopeResult(422, { code: 422, message: `${translate(locale, 'status.422')} (${summary})`, data: { issues } }, requestId);
  }
  if (error instanceof ConflictError && error.field) {
    const message = translate(locale, error.messageId, error.params);
    return envelopeResult(409, { code: 409, message, data: { issues: [{ path: error.field, message }] } }, requestId);
  }
  if (error instanceof AppError) {
    return envelopeResult(error.httpStatus, { code: error.code, message: translate(locale, error.messageId, error.params), data: error.data }, requestId);
  }
  log('error', 'unhandled error', { requestId, error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error) });
  return envelopeResult(500, { code: 500, message: translate(locale, 'status.500'), data: null }, requestId);
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
  const secret = process.env.ORIGIN_VERIFY_SECRET;
  const source = event.requestContext?.http?.sourceIp ?? 'unknown';
  if (!secret) return source;
  if (!safeEqualText(sha256(headers[ORIGIN_VERIFY_HEADER] ?? ''), sha256(secret))) {
    log('warn', 'request without the CloudFront origin header refused', { sourceIp: source, route: event.routeKey });
    throw new LoginRequiredError();
  }
  const viewer = headers['cloudfront-viewer-address'];
  return viewer ? viewer.replace(/:\d+$/, '') : source;
}

const successMessage = { 200: 'status.200', 201: 'status.201', 202: 'status.202', 204: 'status.204' } as const;

async function dispatch(handlers: Record<string, HandlerDef>, event: HttpEvent): Promise<HttpResult> {
  const started = Date.now();
  const requestId = event.requestContext?.requestId ?? 'local';
  const headers = lowerHeaders(event.headers);
  const locale = localeFromHeader(headers['accept-language']);
  let result: HttpResult;
  let tenantId: string | undefined;
  try {
    const route = findRoute(event.routeKey);
    const def = handlers[event.routeKey];
    if (!route || !def) throw new NotFoundError('error.routeNotFound', { path: event.rawPath });
    const sourceIp = clientAddress(event, headers);
    const auth = route.access === 'session' ? await authenticate(headers.authorization, route.authCode) : null;
    tenantId = auth?.tenantId;
    const rawBody = decodeBody(event);
    const params = parse(def.params, event.pathParameters ?? {}, locale, '');
    const query = parse(def.query, event.queryStringParameters ?? {}, locale, '');
    const body = def.raw ? undefined : parse(def.body, parseJson(rawBody), locale, '');
    const reply = await def.handle({
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
    result =
      'raw' in reply
        ? reply.raw
        : envelopeResult(200, { code: reply.code, message: translate(locale, successMessage[reply.code]), data: reply.data }, requestId);
  } catch (error) {
    result = errorResult(error, locale, requestId);
  }
  log('info', 'request', { requestId, route: event.routeKey, status: result.statusCode, ms: Date.now() - started, tenantId });
  return result;
}
