import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { extname, join, normalize, resolve } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { decodePathPart } from '@passcloud/functions/routes';
import { apiRouteKey, apiRoutes, matchApiRoute, type ApiRouteMatch } from '@passcloud/functions/apiRoutes';
import type { HttpResult } from '@passcloud/functions/lib/http';
import { envelopeResult, errorResult } from '@passcloud/functions/lib/http';
import { AppError, NotFoundError, PayloadTooLargeError, fieldError } from '@passcloud/functions/lib/errors';
import { localeFromHeader } from '@passcloud/functions/lib/i18n';
import { log } from '@passcloud/functions/lib/log';
import { LAMBDA_PAYLOAD_MAX_BYTES } from '@passcloud/functions/domain/uploads';

/**
 * Lambda takes at most 6 MB per invocation, request and response alike; this host refuses what
 * Lambda would. A body larger than that never fits, so reading stops there; whether a smaller one
 * fits is decided on the event that carries it (binary bodies base64-encoded, 4/3 of their bytes).
 */
const MAX_BODY_BYTES = LAMBDA_PAYLOAD_MAX_BYTES;

/** The size of what Lambda receives or returns: the event or the result as JSON. */
const payloadBytes = (payload: unknown): number => Buffer.byteLength(JSON.stringify(payload));

type LambdaHandler = (event: APIGatewayProxyEventV2) => Promise<HttpResult>;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new PayloadTooLargeError());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolvePromise(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const textual = (contentType: string | undefined): boolean =>
  !contentType || /^(application\/(json|x-www-form-urlencoded)|text\/)/i.test(contentType);

/**
 * Builds the API Gateway v2 event a Lambda would get for this request: the API route it matched
 * (a prefix's, `ANY /v1/employees/{proxy+}`) and that route's path parameters, as AWS gives them.
 * Bodies of a type that is not text arrive base64-encoded.
 */
export function toEvent(req: IncomingMessage, url: URL, matched: ApiRouteMatch, body: Buffer, sourceIp: string): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const key = apiRouteKey(matched.route);
  const binary = !textual(headers['content-type']);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(matched.pathParameters).length ? { pathParameters: matched.pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: { method: req.method ?? 'GET', path: url.pathname, protocol: 'HTTP/1.1', sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: body.toString(binary ? 'base64' : 'utf8') } : {}),
    isBase64Encoded: binary && body.length > 0,
  };
}

function send(res: ServerResponse, result: HttpResult): void {
  const headers: Record<string, string | number | boolean> = { ...(result.headers ?? {}) };
  res.writeHead(result.statusCode ?? 200, headers as Record<string, string>);
  const body = result.body ?? '';
  res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.txt': 'text/plain; charset=utf-8',
};

/** The same security headers CloudFront adds in AWS. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data: blob: http://127.0.0.1:* https:; connect-src 'self' http://127.0.0.1:* ws://127.0.0.1:*; media-src 'self' http://127.0.0.1:*; style-src 'self' 'unsafe-inline'; script-src 'self'; font-src 'self' data:; frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt']);
const gzipped = new Map<string, Buffer>();

/** Serves the built console; unknown paths get index.html (SPA fallback), like CloudFront. */
function serveStatic(req: IncomingMessage, res: ServerResponse, root: string, pathname: string): void {
  const index = join(root, 'index.html');
  let file = normalize(join(root, decodePathPart(pathname)));
  if (!file.startsWith(resolve(root)) || !existsSync(file) || statSync(file).isDirectory()) file = index;
  if (!existsSync(file)) {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('The console has not been built yet: run `npm run build`.');
    return;
  }
  const immutable = pathname.startsWith('/assets/');
  const headers = {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'accept-encoding',
    ...SECURITY_HEADERS,
  };
  // Compressed like CloudFront does it, so local measurements match what users download.
  if (COMPRESSIBLE.has(extname(file)) && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    const key = `${file}:${statSync(file).mtimeMs}`;
    let body = gzipped.get(key);
    if (!body) {
      body = gzipSync(readFileSync(file));
      gzipped.set(key, body);
    }
    res.writeHead(200, { ...headers, 'content-encoding': 'gzip', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  res.writeHead(200, headers);
  if (req.method === 'HEAD') res.end();
  else createReadStream(file).pipe(res);
}

export interface HostOptions {
  port: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  handlers: Record<string, LambdaHandler>;
  webRoot: string;
  /** Extra local-only endpoints under `/_local/`, answered only to loopback callers: what GET reads, given the request's query. */
  local?: Record<string, (query: URLSearchParams) => unknown>;
  /** Local-only endpoints that change the host, answered to POST from loopback callers with a JSON body (the test stack's clock). */
  localActions?: Record<string, (body: unknown) => unknown>;
  /** API requests wait for this (the demo company is made), so the first login already works. */
  ready?: Promise<unknown>;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The captured mails as a page to read in a browser: newest first, each with its subject, sender, recipients and text. */
export function mailsPage(mails: readonly { from: string; to: string[]; subject: string; text: string; receivedAt: string }[]): string {
  const items = [...mails]
    .reverse()
    .map(
      (m) => `<article>
  <h2>${escapeHtml(m.subject || '(no subject)')}</h2>
  <p class="meta"><time datetime="${escapeHtml(m.receivedAt)}">${escapeHtml(m.receivedAt.replace('T', ' ').slice(0, 19))} UTC</time> · from ${escapeHtml(m.from)} · to ${escapeHtml(m.to.join(', '))}</p>
  <pre>${escapeHtml(m.text)}</pre>
</article>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Captured mails (${mails.length})</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1a1b1e;background:#f8f9fa}article{background:#fff;border:1px solid #dee2e6;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}h1{font-size:1.4rem}h2{font-size:1.1rem;margin:0 0 .25rem}.meta{color:#495057;font-size:.85rem;margin:0 0 .75rem}pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0}</style></head>
<body><h1>Mails the product sent on this machine (${mails.length}), newest first</h1>
<p class="meta">The same list as JSON: <code>curl -H 'accept: application/json' …/_local/mails</code></p>
${items || '<p>No mail yet.</p>'}
</body></html>`;
}

/** True when the caller asks for a page rather than data (a browser), not for JSON. */
const wantsPage = (accept: string | undefined): boolean => !!accept && accept.includes('text/html') && !accept.includes('application/json');

export interface Host {
  server: Server;
  url: string;
  close(): Promise<void>;
}

const isLoopback = (ip: string): boolean => ip === '127.0.0.1' || ip === '::1' || ip === '::ffff:127.0.0.1';

export async function startHost(options: HostOptions): Promise<Host> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const sourceIp = req.socket.remoteAddress ?? 'unknown';
      const locale = localeFromHeader(req.headers['accept-language']);
      if (url.pathname.startsWith('/_local/')) {
        const name = url.pathname.slice('/_local/'.length);
        const action = req.method === 'POST' ? options.localActions?.[name] : undefined;
        const local = req.method === 'GET' ? options.local?.[name] : undefined;
        if ((!local && !action) || !isLoopback(sourceIp)) return send(res, errorResult(new NotFoundError('error.routeNotFound', { path: url.pathname }), locale, 'local'));
        if (action) {
          try {
            const text = (await readBody(req)).toString('utf8');
            let body: unknown = null;
            try {
              if (text) body = JSON.parse(text);
            } catch {
              throw fieldError('body', 'error.invalidJson');
            }
            return send(res, envelopeResult(200, { code: 200, message: 'Success', data: (await action(body)) ?? null }, 'local'));
          } catch (error) {
            return send(res, errorResult(error, locale, 'local'));
          }
        }
        if (url.pathname === '/_local/mails' && wantsPage(req.headers.accept)) {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...SECURITY_HEADERS });
          res.end(mailsPage(local!(url.searchParams) as Parameters<typeof mailsPage>[0]));
          return;
        }
        return send(res, envelopeResult(200, { code: 200, message: 'Success', data: (await local!(url.searchParams)) ?? null }, 'local'));
      }
      if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) {
        // Until the demo company exists, its printed login would be refused: requests wait for it.
        await options.ready;
        // The API route AWS would choose (functions/apiRoutes.ts), and the function it is integrated
        // with, which answers a path or method of its prefix that its resource does not have.
        const matched = matchApiRoute(apiRoutes, req.method ?? 'GET', url.pathname);
        if (!matched) return send(res, errorResult(new NotFoundError('error.routeNotFound', { path: url.pathname }), locale, 'local'));
        let body: Buffer;
        try {
          body = await readBody(req);
        } catch (error) {
          return send(res, errorResult(error, locale, 'local'));
        }
        const handler = options.handlers[matched.route.resource];
        if (!handler) throw new Error(`no handler for resource ${matched.route.resource}`);
        const event = toEvent(req, url, matched, body, sourceIp);
        if (payloadBytes(event) > LAMBDA_PAYLOAD_MAX_BYTES) return send(res, errorResult(new PayloadTooLargeError(), locale, event.requestContext.requestId));
        const result = await handler(event);
        const resultBytes = payloadBytes(result);
        if (resultBytes > LAMBDA_PAYLOAD_MAX_BYTES) {
          // Lambda refuses the response and API Gateway answers 500.
          const requestId = event.requestContext.requestId;
          log('error', 'response larger than Lambda returns', { requestId, route: event.routeKey, path: url.pathname, bytes: resultBytes, max: LAMBDA_PAYLOAD_MAX_BYTES });
          return send(res, errorResult(new AppError(500, 'status.500'), locale, requestId));
        }
        return send(res, result);
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        return send(res, errorResult(new NotFoundError('error.routeNotFound', { path: url.pathname }), locale, 'local'));
      }
      serveStatic(req, res, options.webRoot, url.pathname);
    })().catch((error: unknown) => {
      if (!res.headersSent) send(res, errorResult(error, 'en_US', 'local'));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolvePromise());
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}
