import { inject } from 'vitest';

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

export interface Answer<T = unknown> {
  status: number;
  body: Envelope<T>;
  ms: number;
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
    if (res.ok && !(res.headers.get('content-type') ?? '').includes('json')) return { status: res.status, body: { code: res.status, message: '', data: text as T }, ms };
    throw new Error(`${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
  return { status: res.status, body: parsed, ms };
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
  const res = await call<CapturedMail[]>('GET', '/_local/mails');
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
