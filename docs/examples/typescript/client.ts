/**
 * A Pass Cloud client an integrator writes from the OpenAPI document alone: `schema.d.ts` is
 * generated from docs/openapi.json by openapi-typescript (`npm run api-client`), and openapi-fetch
 * turns it into typed calls. Every answer read here is typed by the document; nothing is `unknown`.
 * docs/api.md explains the steps.
 */
import { constants, createPublicKey, publicEncrypt } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

export type PassCloud = Client<paths>;
/** A visitor as the API answers one. */
export type Visitor = Awaited<ReturnType<typeof createVisitor>>;

/** Seals a text for a field marked `x-sealed`: RSA-OAEP with SHA-256, blocks of 190 bytes, base64, joined by `:`. */
export function seal(publicKey: string, text: string): string {
  // The key comes as base64 of its DER (SubjectPublicKeyInfo) encoding.
  const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
  const bytes = Buffer.from(text, 'utf8');
  const blocks: string[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 190) {
    blocks.push(publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, bytes.subarray(i, i + 190)).toString('base64'));
  }
  return blocks.join(':');
}

/** The envelope's message of a failed call, for an error to show. */
const failure = (what: string, error: { message?: string } | undefined, status: number) => new Error(`${what}: ${status} ${error?.message ?? ''}`.trim());

/** Logs in with a name and a password (both sealed with a one-time key) and answers a client that sends the session token. */
export async function logIn(baseUrl: string, username: string, password: string): Promise<{ api: PassCloud; sessionKey: string }> {
  const anonymous = createClient<paths>({ baseUrl });
  const key = await anonymous.POST('/v1/systems/security');
  if (!key.data) throw failure('security key', key.error, key.response.status);
  const { securityId, publicKey } = key.data.data;
  const login = await anonymous.POST('/v1/systems/login', {
    body: { securityId, account: seal(publicKey, username), password: seal(publicKey, password) },
  });
  if (!login.data) throw failure('login', login.error, login.response.status);
  const session = login.data.data;
  if (!('token' in session)) throw new Error('this account logs in with a second factor: send session.twoFactor.challenge with a code');
  return { api: createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${session.token}` } }), sessionKey: session.key };
}

/**
 * Makes an API key for a machine, as a person whose session `api` is: making one asks for the
 * password again (`x-confirm-password`, sealed with the session's key). The key (`pck_…`) is
 * answered this once; store it where the machine keeps its secrets.
 */
export async function makeApiKey(api: PassCloud, sessionKey: string, password: string, name: string, authCodes: ApiKeyBody['authCodes']) {
  const made = await api.POST('/v1/apiKeys', { params: { header: { 'x-confirm-password': seal(sessionKey, password) } }, body: { name, authCodes } });
  if (!made.data) throw failure('API key', made.error, made.response.status);
  return made.data.data;
}
type ApiKeyBody = operations['postApiKeys']['requestBody']['content']['application/json'];

/** A client for a machine: it sends the API key instead of a person's session, and never ends one. */
export const withApiKey = (baseUrl: string, key: string): PassCloud => createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } });

/** Every employee's personnel ID and name, page by page. */
export async function employeeNames(api: PassCloud): Promise<{ personId: string; name: string }[]> {
  const names: { personId: string; name: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.GET('/v1/employees', { params: { query: { pageSize: 200, ...(cursor ? { cursor } : {}) } } });
    if (!page.data) throw failure('employees', page.error, page.response.status);
    names.push(...page.data.data.items.map((e) => ({ personId: e.personId, name: e.name })));
    cursor = page.data.data.nextCursor ?? undefined;
  } while (cursor);
  return names;
}

/** A visitor with a photo: the photo goes straight to storage through a presigned upload, then the visitor names it. */
export async function createVisitor(api: PassCloud, visitor: { personId: string; name: string; groupKey: string; photo: Buffer }) {
  const presigned = await api.POST('/v1/files/uploads/presign', {
    body: { kind: 'avatar', filename: 'visitor.png', size: visitor.photo.length, contentType: 'image/png' },
  });
  if (!presigned.data) throw failure('presign', presigned.error, presigned.response.status);
  const { uploadKey, upload } = presigned.data.data;
  const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: new Uint8Array(visitor.photo) });
  if (!put.ok) throw new Error(`photo upload: ${put.status}`);
  const stored = await api.POST('/v1/files/uploads/{uploadKey}/complete', { params: { path: { uploadKey } } });
  if (!stored.data) throw failure('upload', stored.error, stored.response.status);
  const made = await api.POST('/v1/visitors', {
    body: { personId: visitor.personId, name: visitor.name, role: 'Visitor', gender: 'female', groupKey: visitor.groupKey, avatar: stored.data.data.fileKey },
  });
  if (!made.data) throw failure('visitor', made.error, made.response.status);
  return made.data.data;
}

/** Lets people through on terminals from now on, without an end. */
export async function grant(api: PassCloud, personKeys: string[], deviceKeys: string[]) {
  const answer = await api.POST('/v1/authorities', { body: { setType: 0, personKeys, deviceKeys, validity: { permanent: true } } });
  if (!answer.data) throw failure('grant', answer.error, answer.response.status);
  return answer.data.data;
}

/** Every pass record of a day on one terminal, following the cursor, in pages of 20, 50 or 100. */
export async function passRecords(api: PassCloud, deviceKey: string, pageSize: 20 | 50 | 100 = 50) {
  const records: { recordKey: string; verifyTime: string; name: string | null }[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.GET('/v1/passRecords', { params: { query: { deviceKey, pageSize, ...(cursor ? { cursor } : {}) } } });
    if (!page.data) throw failure('pass records', page.error, page.response.status);
    records.push(...page.data.data.items.map((r) => ({ recordKey: r.recordKey, verifyTime: r.verifyTime, name: r.name })));
    cursor = page.data.data.nextCursor ?? undefined;
  } while (cursor);
  return records;
}

/**
 * Renames a visitor read at `version`. Someone else's change in between answers 409: read the
 * visitor again and apply the name to what it is now.
 */
export async function renameVisitor(api: PassCloud, visitor: Visitor, name: string): Promise<{ version: number; retried: boolean }> {
  const first = await api.PATCH('/v1/visitors/{visitorKey}', { params: { path: { visitorKey: visitor.visitorKey } }, body: { name, version: visitor.version } });
  if (first.data) return { version: first.data.data.version, retried: false };
  if (first.response.status !== 409) throw failure('rename', first.error, first.response.status);
  const current = await api.GET('/v1/visitors/{visitorKey}', { params: { path: { visitorKey: visitor.visitorKey } } });
  if (!current.data) throw failure('visitor', current.error, current.response.status);
  const again = await api.PATCH('/v1/visitors/{visitorKey}', { params: { path: { visitorKey: visitor.visitorKey } }, body: { name, version: current.data.data.version } });
  if (!again.data) throw failure('rename', again.error, again.response.status);
  return { version: again.data.data.version, retried: true };
}

/**
 * The answer of a 429, as the document describes it for that status (`components.schemas.Throttled`):
 * openapi-fetch types `error` as any error answer of the operation, so the status picks the shape.
 */
export function throttled(answer: { response: Response; error?: unknown }): components['schemas']['Throttled'] | undefined {
  return answer.response.status === 429 ? (answer.error as components['schemas']['Throttled']) : undefined;
}

/** Waits as a 429 says (`Retry-After` in seconds, also `data.retryAfterSeconds`) and asks once more. */
export async function politely<T extends { response: Response }>(call: () => Promise<T>, wait = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<T> {
  const first = await call();
  if (first.response.status !== 429) return first;
  await wait(Number(first.response.headers.get('retry-after') ?? '1') * 1000);
  return call();
}
