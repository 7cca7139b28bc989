import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The front door of the local S3 stand-in. s3rver stores what it is sent without checking
 * signatures; S3 itself refuses a presigned URL that has expired or whose signature does not
 * match the request, and so the promises a presigned upload makes (this size, this type) hold
 * only if someone checks them. This gate checks every presigned (query-signed) request as S3
 * does: the signature over the method, path, query and signed headers (Content-Length and
 * Content-Type when they were signed), and the expiry; then it passes the request on.
 * Requests the SDK signs in a header are the host's own and pass unchecked, as before.
 */
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

function refuse(res: ServerResponse, code: string, message: string): void {
  res.writeHead(403, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

async function presignedProblem(req: IncomingMessage, accessKeyId: string, secretAccessKey: string, now = Date.now()): Promise<[string, string] | undefined> {
  const [path = '/', search = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
  const params = new URLSearchParams(search);
  const given = params.get('X-Amz-Signature') ?? '';
  const credential = params.get('X-Amz-Credential') ?? '';
  const [keyId, , region = 'us-east-1', service = 's3'] = credential.split('/');
  if (keyId !== accessKeyId) return ['InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'];
  const stamp = AMZ_DATE.exec(params.get('X-Amz-Date') ?? '');
  const expires = Number(params.get('X-Amz-Expires'));
  if (!stamp || !Number.isInteger(expires)) return ['AuthorizationQueryParametersError', 'X-Amz-Date and X-Amz-Expires must be given.'];
  const [, y, mo, d, h, mi, s] = stamp.map(Number) as number[];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  if (now > date.getTime() + expires * 1000) return ['AccessDenied', 'Request has expired'];
  const signedHeaders = (params.get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return ['SignatureDoesNotMatch', `Signed header ${name} is missing.`];
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = [...params]
    .filter(([key]) => key !== 'X-Amz-Signature')
    .map(([key, value]) => [encode(key), encode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const canonicalHeaders = [...signedHeaders]
    .sort()
    .map((name) => `${name}:${headers[name]!.trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [
    req.method ?? 'GET',
    path,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders.join(';'),
    params.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const [scopeDate = ''] = credential.split('/').slice(1, 2);
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', params.get('X-Amz-Date'), scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  let key: Buffer = Buffer.from(`AWS4${secretAccessKey}`);
  for (const part of [scopeDate, region, service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  const computed = createHmac('sha256', key).update(stringToSign).digest('hex');
  if (computed.length !== given.length || !timingSafeEqual(Buffer.from(computed), Buffer.from(given))) {
    return ['SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
  }
  return undefined;
}

/** Whether s3rver holds an object at `path` (`/<bucket>/<key>`). */
function exists(upstreamPort: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const head = request({ host: '127.0.0.1', port: upstreamPort, method: 'HEAD', path }, (answer) => {
      answer.resume();
      resolve(answer.statusCode === 200);
    });
    head.on('error', () => resolve(false));
    head.end();
  });
}

/**
 * Listens on `port` and passes checked requests to s3rver on `upstreamPort`. A PUT with
 * `If-None-Match: *` (S3's conditional write) is refused with 412 when the key holds an object,
 * and conditional writes of one key are taken one at a time, so of two racing only one lands:
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html
 */
export function startS3Gate(port: number, upstreamPort: number, credentials: { accessKeyId: string; secretAccessKey: string }): Promise<Server> {
  const conditional = new Map<string, Promise<void>>();
  const server = createServer((req, res) => {
    const forward = (finished: () => void = () => undefined) => {
      const upstream = request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', finished);
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
        finished();
      });
      req.pipe(upstream);
    };
    const pass = () => {
      if (req.method !== 'PUT' || req.headers['if-none-match'] !== '*') return forward();
      const path = (req.url ?? '/').split('?', 1)[0]!;
      const before = conditional.get(path) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = before.then(() => mine);
      conditional.set(path, tail);
      void before.then(async () => {
        const done = () => {
          release();
          if (conditional.get(path) === tail) conditional.delete(path);
        };
        if (await exists(upstreamPort, path)) {
          req.resume();
          res.writeHead(412, { 'content-type': 'application/xml' });
          res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>');
          return done();
        }
        forward(done);
      });
    };
    // A CORS preflight carries the link but none of its signed headers; S3 answers it from the bucket's CORS rules.
    if (req.method === 'OPTIONS' || !(req.url ?? '').includes('X-Amz-Signature=')) return pass();
    presignedProblem(req, credentials.accessKeyId, credentials.secretAccessKey).then(
      (problem) => {
        if (!problem) return pass();
        req.resume();
        refuse(res, ...problem);
      },
      () => refuse(res, 'SignatureDoesNotMatch', 'The request could not be checked.'),
    );
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
