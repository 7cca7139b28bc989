import type { UserInfo } from '@passcloud/functions/contract/systems';
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

export async function login(username: string, password: string): Promise<UserInfo> {
  const { securityId, publicKey } = await securityKey();
  const info = await api.post<UserInfo>('/v1/systems/login', {
    securityId,
    account: await encryptText(publicKey, username),
    password: await encryptText(publicKey, password),
  });
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
