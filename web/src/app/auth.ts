import type { LoginChallengeAnswer, UserInfo } from '@passcloud/functions/contract/systems';
import { api } from './api.ts';
import { encryptText } from './crypto.ts';
import { clearLogin, getToken, saveLogin } from './session.ts';
import { forgetMenu } from './menu.ts';
import { withRedirect } from './redirect.ts';

const resetListeners = new Set<() => void>();

/** The app rebuilds its router (dropping the permitted routes) when this fires. */
export function onReset(listener: () => void): () => void {
  resetListeners.add(listener);
  return () => resetListeners.delete(listener);
}

const leaveListeners = new Set<() => void>();

/** Called as a logout starts, before the server hears of it: what runs on the session stops first. */
export function onLeave(listener: () => void): () => void {
  leaveListeners.add(listener);
  return () => leaveListeners.delete(listener);
}

export class KeyFetchError extends Error {}

/** A fresh login key from the server; used for login, sign-up and recovery. */
export async function securityKey(): Promise<{ securityId: string; publicKey: string }> {
  try {
    return await api.post<{ securityId: string; publicKey: string }>('/v1/systems/security', undefined, { silent: true });
  } catch {
    throw new KeyFetchError();
  }
}

/** The second step a login takes when the account has two-factor login on: send a code with `challenge`. */
export type LoginChallenge = LoginChallengeAnswer['twoFactor'];

/**
 * The first step of a login: the session (saved), or, for an account with two-factor login, the
 * challenge to send with a code to `loginWithCode`.
 */
export async function login(username: string, password: string): Promise<{ user: UserInfo } | { challenge: LoginChallenge }> {
  const { securityId, publicKey } = await securityKey();
  const answer = await api.post<UserInfo | LoginChallengeAnswer>('/v1/systems/login', {
    securityId,
    account: await encryptText(publicKey, username),
    password: await encryptText(publicKey, password),
  });
  if ('twoFactor' in answer) return { challenge: answer.twoFactor };
  return { user: started(answer) };
}

/** The second step: a code from the authenticator app, or a recovery code. */
export async function loginWithCode(challenge: string, code: string): Promise<UserInfo> {
  return started(await api.post<UserInfo>('/v1/systems/login/twoFactor', { challenge, code }));
}

function started(info: UserInfo): UserInfo {
  saveLogin(info);
  forgetMenu();
  return info;
}

/**
 * Logs out: tells the server unless told not to, clears token, key, user info, authorities and
 * the settings tab, drops the permitted routes and goes to /login.
 */
export async function logout(options: { skipServer?: boolean; returnTo?: string } = {}): Promise<void> {
  for (const listener of leaveListeners) listener();
  if (!options.skipServer && getToken()) {
    await api.post('/v1/systems/logout', undefined, { silent: true }).catch(() => undefined);
  }
  clearLogin();
  forgetMenu();
  window.history.replaceState(null, '', withRedirect('/login', options.returnTo));
  for (const listener of resetListeners) listener();
}
