import { inject } from 'vitest';
import { createTenantWithOwner, openSession, requireAccount } from '@passcloud/functions/data/identity';
import { newRsaKeyPair, type RsaKeyPair } from '@passcloud/functions/lib/crypto';
import { translate } from '@passcloud/functions/lib/i18n';
import type { Locale } from '@passcloud/functions/contract/locales';

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

export interface Answer<T = unknown> {
  status: number;
  body: Envelope<T>;
  ms: number;
  headers: Headers;
}

export const baseUrl = (): string => inject('baseUrl');

/** One call to the API as the console makes it: JSON in, the envelope out. */
export async function call<T = unknown>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; form?: FormData; locale?: string; headers?: Record<string, string>; confirm?: boolean } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}), ...(options.confirm && options.token ? await confirmHeader(options.token) : {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.locale) headers['accept-language'] = options.locale;
  let body: FormData | string | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const started = performance.now();
  const res = await fetch(baseUrl() + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  const ms = performance.now() - started;
  let parsed: Envelope<T>;
  try {
    parsed = JSON.parse(text) as Envelope<T>;
  } catch {
    // Downloads (exports) answer a file, not the envelope.
    if (res.ok && !(res.headers.get('content-type') ?? '').includes('json')) return { status: res.status, body: { code: res.status, message: '', data: text as T }, ms, headers: res.headers };
    throw new Error(`${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, body: parsed, ms, headers: res.headers };
}

/** RSA-OAEP with SHA-256 through WebCrypto, exactly as the browser console encrypts. */
export async function encrypt(publicKeyBase64: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('spki', Buffer.from(publicKeyBase64, 'base64'), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  const bytes = new TextEncoder().encode(text);
  const blocks: string[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 190) {
    const cipher = await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, bytes.slice(i, i + 190));
    blocks.push(Buffer.from(cipher).toString('base64'));
  }
  return blocks.join(':');
}

export async function securityKey(): Promise<{ securityId: string; publicKey: string }> {
  const answer = await call<{ securityId: string; publicKey: string }>('POST', '/v1/systems/security');
  if (answer.status !== 200) throw new Error(`security answered ${answer.status}`);
  return answer.body.data;
}

export interface UserInfo {
  token: string;
  username: string;
  nickname: string;
  userCode: string;
  companyName: string;
  key: string;
  authCodes: string[];
  mustChangePassword?: boolean;
  twoFactorEnabled?: boolean;
  mustEnrolTwoFactor?: boolean;
}

export async function loginAnswer(username: string, password: string): Promise<Answer<UserInfo>> {
  const { securityId, publicKey } = await securityKey();
  return call<UserInfo>('POST', '/v1/systems/login', {
    body: { securityId, account: await encrypt(publicKey, username), password: await encrypt(publicKey, password) },
  });
}

/** What each session's login knew, so a request can confirm the password (routes with `reauth`). */
const sessionsByToken = new Map<string, { key: string; password: string }>();

export async function login(username: string, password: string): Promise<UserInfo> {
  const answer = await loginAnswer(username, password);
  if (answer.status !== 200) throw new Error(`login of ${username} answered ${answer.status}: ${answer.body.message}`);
  if (answer.body.data.token) sessionsByToken.set(answer.body.data.token, { key: answer.body.data.key, password });
  return answer.body.data;
}

/** The header that confirms the password of the session `token` was logged in with (a `reauth` route), as the console sends it. */
export async function confirmHeader(token: string, password?: string): Promise<Record<string, string>> {
  const known = sessionsByToken.get(token);
  if (!known) throw new Error('confirmHeader: no login of this token in this test file');
  return { 'x-confirm-password': await encrypt(known.key, password ?? known.password) };
}

export interface CapturedMail {
  to: string[];
  subject: string;
  text: string;
}

export async function mailsTo(address: string): Promise<CapturedMail[]> {
  const res = await call<CapturedMail[]>('GET', `/_local/mails?to=${encodeURIComponent(address)}`);
  return res.body.data.filter((m) => m.to.includes(address));
}

/** The 6-digit code of the newest mail to `address`. */
export async function latestCode(address: string): Promise<string> {
  const mails = await mailsTo(address);
  const code = /\b(\d{6})\b/.exec(mails.at(-1)?.text ?? '')?.[1];
  if (!code) throw new Error(`no code mailed to ${address}`);
  return code;
}

let counter = 0;
export const unique = (prefix: string): string => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

/** Registers a new company through the public API, reading the code from the captured mail. */
export async function registerTenant(overrides: { username?: string; password?: string; companyName?: string; locale?: string } = {}) {
  const username = overrides.username ?? unique('owner');
  const password = overrides.password ?? 'correct-horse-9';
  const email = `${username}@example.test`;
  const sent = await call('POST', '/v1/systems/validateCodes', { body: { purpose: 'register', email } });
  if (sent.status !== 200) throw new Error(`validateCodes answered ${sent.status}: ${sent.body.message}`);
  const code = await latestCode(email);
  const { securityId, publicKey } = await securityKey();
  const answer = await call<{ username: string; userCode: string }>('POST', '/v1/systems/register', {
    body: { securityId, companyName: overrides.companyName ?? `Company ${username}`, username, email, password: await encrypt(publicKey, password), code, agree: true },
    ...(overrides.locale ? { locale: overrides.locale } : {}),
  });
  if (answer.body.code !== 201) throw new Error(`register answered ${answer.status}: ${answer.body.message}`);
  return { username, password, email, userCode: answer.body.data.userCode };
}

/** One login key pair for the sessions this test file opens directly (a login makes a new one each time). */
let fixtureKeyPair: Promise<RsaKeyPair> | undefined;

/**
 * A new company, its owner and the owner's session, made through the data layer with the functions
 * sign-up and login use after their checks: no mailed code, no login key round trip. The public
 * sign-up keeps its own tests through the HTTP API (`registerTenant`, tests/integration/register.test.ts).
 */
export async function newCompany(overrides: { username?: string; password?: string; companyName?: string; locale?: Locale } = {}) {
  const username = overrides.username ?? unique('owner');
  const password = overrides.password ?? 'correct-horse-9';
  const email = `${username}@example.test`;
  const locale = overrides.locale ?? 'en_US';
  const { tenantId, accountId, userCode } = await createTenantWithOwner({
    companyName: overrides.companyName ?? `Company ${username}`,
    username,
    email,
    password,
    defaultGroups: { employee: translate(locale, 'groups.defaultEmployees'), visitor: translate(locale, 'groups.defaultVisitors') },
    locale,
  });
  fixtureKeyPair ??= newRsaKeyPair();
  const pair = await fixtureKeyPair;
  const token = await openSession(await requireAccount(tenantId, accountId), pair);
  sessionsByToken.set(token, { key: pair.publicKey, password });
  const me = await call<UserInfo>('GET', '/v1/systems/me', { token });
  if (me.status !== 200) throw new Error(`the new company's session answered ${me.status}: ${me.body.message}`);
  return { username, password, email, userCode, tenantId, session: { ...me.body.data, token } };
}

/** How far the host's clock (functions/lib/clock.ts) was moved by this test file. */
let hostClockOffset = 0;

/** Moves the clock the host's time-dependent rules read to `offsetMs` from the wall clock (a file that does runs alone: the host is shared). */
export async function setHostClock(offsetMs: number): Promise<void> {
  const answer = await fetch(`${baseUrl()}/_local/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offsetMs }) });
  if (!answer.ok) throw new Error(`moving the host's clock answered ${answer.status}`);
  hostClockOffset = offsetMs;
}

/** The time the host's rules see now. */
export const hostNow = (): number => Date.now() + hostClockOffset;

/** Moves the host's clock on by `ms`, instead of waiting for them to pass. */
export const advanceHostClock = (ms: number): Promise<void> => setHostClock(hostClockOffset + Math.ceil(ms));

/**
 * Waits until the host has no background work due or running: workers, queued pieces, webhook
 * deliveries due now and the actions of the IoT rules (functions/lib/localWork.ts). What has not
 * happened by then will not, so a test asserts "nothing more was sent" after this, not after a sleep.
 */
export async function hostIdle(): Promise<void> {
  const answer = await fetch(`${baseUrl()}/_local/idle`);
  if (!answer.ok) throw new Error(`waiting for the host's background work answered ${answer.status}`);
  const { data } = (await answer.json()) as { data: { idle: boolean } };
  if (!data.idle) throw new Error('the host still had background work running after a minute');
}

/**
 * A list exported through its background job (`POST <list>/exports`, confirmed with the caller's
 * password where the route asks for it, then `GET <list>/exports/{jobKey}` until it ends): the
 * finished job and the workbook's bytes.
 */
export async function exportThroughJob(
  token: string,
  list: string,
  body: Record<string, string>,
  options: { locale?: string; confirm?: boolean } = {},
): Promise<{ job: { state: string; done: number; total: number | null; url: string | null; error: string | null }; bytes: Buffer }> {
  const started = await call<{ jobKey: string }>('POST', `${list}/exports`, { token, body, confirm: options.confirm ?? true, ...(options.locale ? { locale: options.locale } : {}) });
  if (started.body.code !== 202) throw new Error(`the export answered ${started.body.code}: ${started.body.message}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await call<{ state: string; done: number; total: number | null; url: string | null; error: string | null }>('GET', `${list}/exports/${started.body.data.jobKey}`, { token });
    const job = read.body.data;
    if (job.state === 'done' || job.state === 'failed') {
      if (job.state === 'failed' || !job.url) throw new Error(`the export failed: ${job.error ?? 'no link'}`);
      return { job, bytes: Buffer.from(await (await fetch(job.url)).arrayBuffer()) };
    }
    if (Date.now() > deadline) throw new Error('the export did not end within a minute');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
