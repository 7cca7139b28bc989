import { createHash, createHmac, randomBytes, timingSafeEqual, type Hash, type Hmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Signature V4 as IoT Core checks it on its data plane (./iotDataPlane.ts): the credentials the
 * stand-in makes up at start, the parts of a request's signature read before its body (a known
 * access key, a scope for this service and date, a date close to the clock), and the signature
 * computed again over the body and compared. A refusal says what IoT Core would answer.
 */

/** How far a request's x-amz-date may be from the clock. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** The service name `@aws-sdk/client-iot-data-plane` signs for. */
const SIGNING_SERVICE = 'iotdata';

export interface DataPlaneCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 and HMAC-SHA256 from node:crypto, in the shape SignatureV4 takes. */
class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

/** Credentials made up at start; the data plane answers only requests signed with them. */
export const newCredentials = (): DataPlaneCredentials => ({
  accessKeyId: `LOCAL${randomBytes(10).toString('hex').toUpperCase()}`,
  secretAccessKey: randomBytes(30).toString('base64'),
});

/** The signer `checkSignature` signs again with. */
export const signerFor = (credentials: DataPlaneCredentials): SignatureV4 =>
  new SignatureV4({ credentials, region: 'us-east-1', service: SIGNING_SERVICE, sha256: Sha256, applyChecksum: false });

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9-]+(?:;[a-z0-9-]+)*),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export interface Refusal {
  status: number;
  type: string;
  message: string;
}
const forbidden = (message: string): Refusal => ({ status: 403, type: 'ForbiddenException', message });

export interface SignedRequest {
  accessKeyId: string;
  region: string;
  service: string;
  date: Date;
  signedHeaders: string[];
  signature: string;
}

/**
 * The parts of a request's signature that need no body, checked as IoT Core does: a known access
 * key, a scope for this service and date, and a date within five minutes of the clock.
 */
export function readSignature(req: IncomingMessage, credentials: DataPlaneCredentials, now = Date.now()): SignedRequest | Refusal {
  const header = req.headers.authorization;
  if (!header) return forbidden('Missing Authentication Token');
  const match = AUTHORIZATION.exec(header);
  if (!match) return forbidden('Authorization header is not a valid AWS4-HMAC-SHA256 signature');
  const [, accessKeyId, scopeDate, region, service, signedList, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) {
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  // Any region: the stand-in serves whichever one AWS_REGION names.
  if (service !== SIGNING_SERVICE) return forbidden(`Credential should be scoped to correct service: '${SIGNING_SERVICE}'.`);
  const stamp = req.headers['x-amz-date'];
  const parts = typeof stamp === 'string' ? AMZ_DATE.exec(stamp) : null;
  if (!parts) return forbidden('Missing or malformed X-Amz-Date header');
  const [, y, mo, d, h, mi, sec] = parts.map(Number) as number[];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!));
  if (Math.abs(now - date.getTime()) > MAX_CLOCK_SKEW_MS) return forbidden(`Signature expired: ${parts[0]} is not within 5 minutes of the server time.`);
  if (scopeDate !== parts[0].slice(0, 8)) return forbidden('Credential should be scoped to a valid date.');
  const signedHeaders = signedList!.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return forbidden('Host and X-Amz-Date must be signed.');
  return { accessKeyId: accessKeyId!, region: region!, service: service!, date, signedHeaders, signature: signature! };
}

/** Signs the request again with the stand-in's secret and compares, in constant time. */
export async function checkSignature(req: IncomingMessage, body: Buffer, signed: SignedRequest, signer: SignatureV4): Promise<Refusal | undefined> {
  const headers: Record<string, string> = {};
  for (const name of signed.signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return forbidden(`Signed header ${name} is missing.`);
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const declared = headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== bodyHash) return forbidden('The provided x-amz-content-sha256 header does not match what was computed.');
  const [path = '/', search = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const expected = await signer.sign(
    { method: req.method ?? 'GET', protocol: 'http:', hostname: '127.0.0.1', path, query, headers, body },
    { signingDate: signed.date, signingRegion: signed.region, signingService: signed.service, signableHeaders: new Set(signed.signedHeaders) },
  );
  const computed = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization ?? ''))?.[1] ?? '';
  const given = Buffer.from(signed.signature);
  if (computed.length !== given.length || !timingSafeEqual(Buffer.from(computed), given)) {
    return forbidden('The request signature we calculated does not match the signature you provided.');
  }
  return undefined;
}
