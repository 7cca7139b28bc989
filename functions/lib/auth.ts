import type { EntityItem } from 'electrodb';
import { AUTH_CODES, type AuthCode } from '#contract/menu';
import { accounts } from '#data/accounts';
import { sessions } from '#data/sessions';
import { isConditionFailure } from '#data/entity';
import { countAttempt, refundAttempt } from '#data/throttles';
import { isExpired, parseApiKey, useApiKey, type ApiKeyItem } from '#data/apiKeys';
import { THROTTLES, throttleLimit } from '#domain/throttle';
import { rsaDecrypt, sha256, verifyPassword } from './crypto.ts';
import { AppError, LoginRequiredError, NoPermissionError, SessionEndedError, ThrottledError } from './errors.ts';
import { env, type EnvName } from './env.ts';

export type AccountRecord = EntityItem<ReturnType<typeof accounts>>;
export type SessionRecord = EntityItem<ReturnType<typeof sessions>>;

/** A person calling through a console session. */
export interface SessionAuth {
  via: 'session';
  tenantId: string;
  accountId: string;
  account: AccountRecord;
  session: SessionRecord;
}

/** How the audit log names a key as the one who made a change: `apiKey:<apiKeyKey>`. */
export const API_KEY_ACTOR = 'apiKey:';

/** What the routes a key may use read of their caller: its name (the audit log's) and codes. */
export interface KeyCaller {
  username: string;
  authCodes: string[];
  owner: false;
  email?: undefined;
}

/** A machine calling with an API key (data/apiKeys.ts): it never reaches a route that needs a person (routes.ts `keyMayUse`). */
export interface KeyAuth {
  via: 'key';
  tenantId: string;
  /** `apiKey:<apiKeyKey>`: who made a change, in the audit log. */
  accountId: string;
  account: KeyCaller;
  key: ApiKeyItem;
}

/** Who is calling: the tenant comes from here and nowhere else. */
export type Auth = SessionAuth | KeyAuth;

/** The session of a route only people use (routes.ts `keyMayUse` keeps keys from it before the handler runs). */
export function sessionOf(auth: Auth): SessionAuth {
  if (auth.via !== 'session') throw new AppError(401, 'apiKey.sessionOnly');
  return auth;
}

const minutes = (name: EnvName, fallback: number): number => Number(env(name) ?? fallback) * 60_000;
export const sessionIdleMs = (): number => minutes('SESSION_IDLE_MINUTES', 120);
export const sessionMaxMs = (): number => minutes('SESSION_MAX_MINUTES', 12 * 60);
const TOUCH_EVERY_MS = 60_000;

/** Tokens are `<tenantId>.<secret>`: the tenant picks the partition, the hash of the whole token the item. */
export function makeToken(tenantId: string, secret: string): string {
  return `${tenantId}.${secret}`;
}

export function parseToken(authorization: string | undefined): { tenantId: string; tokenHash: string } | undefined {
  const match = /^Bearer\s+([a-z0-9]{1,40})\.([A-Za-z0-9_-]{20,100})$/.exec(authorization?.trim() ?? '');
  if (!match) return undefined;
  return { tenantId: match[1]!, tokenHash: sha256(`${match[1]}.${match[2]}`) };
}

/**
 * The account as its codes apply: a company's owner holds every code, also those the product
 * gained after the owner's account was made.
 */
export function withOwnerCodes<T extends { owner: boolean; authCodes: string[] }>(account: T): T {
  return account.owner && account.authCodes.length !== AUTH_CODES.length ? { ...account, authCodes: [...AUTH_CODES] } : account;
}

/** Whether an account holds at least one of the codes. */
export const holdsAny = (held: readonly string[], codes: readonly AuthCode[]): boolean => codes.some((code) => held.includes(code));

/** Whether the session must enrol in two-factor login before anything else (its company requires it and the account has none). */
export const mustEnrolTwoFactor = (session: Pick<SessionRecord, 'enrolTwoFactor'>, account: Pick<AccountRecord, 'totpSecret'>): boolean =>
  !!session.enrolTwoFactor && !account.totpSecret;

/**
 * Whether a living session may do what a route asks, as every way into the service checks it
 * (the HTTP API here, the live channel's authorizer too): throws as `authenticate` answers.
 */
export function admit(
  session: SessionRecord,
  account: AccountRecord,
  authCode?: AuthCode | readonly AuthCode[],
  beforePasswordChange = false,
  beforeTwoFactor = false,
): void {
  if (authCode && !holdsAny(account.authCodes, typeof authCode === 'string' ? [authCode] : authCode)) throw new NoPermissionError();
  if (account.mustChangePassword && !beforePasswordChange) throw new AppError(401, 'auth.mustChangePassword');
  if (!beforeTwoFactor && mustEnrolTwoFactor(session, account)) throw new AppError(401, 'auth.mustEnrolTwoFactor');
}

/**
 * The caller's session and account. `beforePasswordChange` marks the routes an account whose
 * password someone else chose may still use (the route table's flag: change it, read itself and
 * its menu, log out); every other answers 401. `beforeTwoFactor` likewise marks what a session
 * that must first enrol in two-factor login may use (those, and enrolling).
 */
export async function authenticate(
  authorization: string | undefined,
  authCode?: AuthCode | readonly AuthCode[],
  beforePasswordChange = false,
  beforeTwoFactor = false,
  keysAllowed = false,
): Promise<Auth> {
  const presented = /^Bearer\s+(pck_\S+)$/.exec(authorization?.trim() ?? '')?.[1];
  if (presented) return authenticateKey(presented, authCode, keysAllowed);
  const parsed = parseToken(authorization);
  if (!parsed) throw new LoginRequiredError();
  const { tenantId, tokenHash } = parsed;
  const { session, account } = await liveSession(tenantId, tokenHash, true);
  admit(session, account, authCode, beforePasswordChange, beforeTwoFactor);
  if (Date.now() - session.lastSeenAt > TOUCH_EVERY_MS) {
    await sessions().patch({ tenantId, tokenHash }).set({ lastSeenAt: Date.now() }).go();
  }
  return { via: 'session', tenantId, accountId: account.accountId, account, session };
}

/**
 * The caller of an API key: a key of a form, company, item and secret that match, not expired,
 * within its window's requests (429 with the wait past it), and holding the route's code. A
 * revoked key, or one whose secret was replaced, answers as a logged-out session; an expired one as
 * a session that timed out. A route only people use answers 401 before the key is even looked up.
 */
async function authenticateKey(presented: string, authCode: AuthCode | readonly AuthCode[] | undefined, keysAllowed: boolean): Promise<KeyAuth> {
  const parsed = parseApiKey(presented);
  if (!parsed) throw new LoginRequiredError();
  if (!keysAllowed) throw new AppError(401, 'apiKey.sessionOnly');
  const { tenantId, apiKeyKey, keyHash } = parsed;
  const windowMs = THROTTLES.apiKey.windowMs;
  const used = await useApiKey(tenantId, apiKeyKey, keyHash, throttleLimit('apiKey'), windowMs);
  if (!used.ok) {
    if ('gone' in used) throw new LoginRequiredError();
    throw new ThrottledError('apiKey.rateLimited', { seconds: Math.max(1, Math.ceil(used.retryAfterMs / 1000)), limit: throttleLimit('apiKey') });
  }
  const key = used.item;
  if (isExpired(key)) throw new SessionEndedError(666);
  if (authCode && !holdsAny(key.authCodes, typeof authCode === 'string' ? [authCode] : authCode)) throw new NoPermissionError();
  return { via: 'key', tenantId, accountId: `${API_KEY_ACTOR}${apiKeyKey}`, account: { username: key.name, authCodes: key.authCodes, owner: false }, key };
}

/**
 * The session of a token and its account, while it lives: not expired, not idle too long, its
 * account enabled and unchanged since the login, and no newer login of the account. Throws as
 * `authenticate` answers. A request removes an expired session; the live channel's authorizer,
 * which only reads, leaves that to the next request.
 */
export async function liveSession(tenantId: string, tokenHash: string, removeExpired = false): Promise<{ session: SessionRecord; account: AccountRecord }> {
  const session = (await sessions().get({ tenantId, tokenHash }).go()).data;
  if (!session) throw new LoginRequiredError();
  const now = Date.now();
  if (now > session.expiresAt || now - session.lastSeenAt > sessionIdleMs()) {
    if (removeExpired) await sessions().delete({ tenantId, tokenHash }).go();
    throw new SessionEndedError(666);
  }
  const stored = (await accounts().get({ tenantId, accountId: session.accountId }).go()).data;
  const account = stored && withOwnerCodes(stored);
  if (!account || account.disabled || account.authVersion !== session.authVersion) throw new SessionEndedError(661);
  if (account.activeSession !== tokenHash) throw new SessionEndedError(662);
  return { session, account };
}

/** The header a request confirms the caller's password in, sealed with the session's key (RSA-OAEP, as the login). */
export const CONFIRM_PASSWORD_HEADER = 'x-confirm-password';

/** How long a confirmed password covers the session's next sensitive actions. */
export const CONFIRMATION_MS = 5 * 60_000;

/**
 * Re-authentication before a sensitive action (route table `reauth`): the session's own account
 * password, sealed with the session's key. A password confirmed in this session less than
 * CONFIRMATION_MS ago covers the action. Missing answers 401 with `data.reauth` `required`, wrong
 * answers `wrong`; both before anything is done. Each try is counted against the account's name,
 * as a failed login is (429 past the limit), and a right one is given back.
 */
export async function confirmPassword(auth: SessionAuth, sealed: string | undefined): Promise<void> {
  const now = Date.now();
  if (!sealed) {
    if (auth.session.confirmedAt && now - auth.session.confirmedAt < CONFIRMATION_MS) return;
    throw new AppError(401, 'auth.passwordRequired', {}, { reauth: 'required' });
  }
  const name = auth.account.username.toLowerCase();
  await countAttempt('account', name);
  const password = sealed.length <= 4096 ? rsaDecrypt(auth.session.privateKey, sealed) : undefined;
  if (password === undefined || !(await verifyPassword(password, auth.account.passwordHash))) {
    throw new AppError(401, 'auth.passwordWrong', {}, { reauth: 'wrong' });
  }
  await refundAttempt('account', name);
  try {
    await sessions().patch({ tenantId: auth.tenantId, tokenHash: auth.session.tokenHash }).set({ confirmedAt: now }).go();
  } catch (error) {
    // The session ended meanwhile: the next request answers for it.
    if (!isConditionFailure(error)) throw error;
  }
}
