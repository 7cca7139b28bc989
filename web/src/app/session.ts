import type { UserInfo } from '@passcloud/functions/contract/systems';

/**
 * What a login leaves in local storage (SPEC.md §4): token, public key, user info and
 * authorities; the settings tab lives in session storage.
 */
const KEYS = { token: 'token', publicKey: 'publicKey', userInfo: 'userInfo', authorities: 'authorities', authCode: 'authCode' } as const;
export const SETTINGS_TAB_KEY = 'settingsTab';

export type StoredUser = Omit<UserInfo, 'token'>;

export const getToken = (): string | null => localStorage.getItem(KEYS.token);
export const getPublicKey = (): string | null => localStorage.getItem(KEYS.publicKey);

export function getUser(): StoredUser | null {
  const raw = localStorage.getItem(KEYS.userInfo);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as StoredUser;
  } catch {
    return null;
  }
}

export function getAuthorities(): string[] {
  try {
    return JSON.parse(localStorage.getItem(KEYS.authorities) ?? '[]') as string[];
  } catch {
    return [];
  }
}

export function saveLogin(info: UserInfo): void {
  const { token, ...user } = info;
  if (token) localStorage.setItem(KEYS.token, token);
  localStorage.setItem(KEYS.publicKey, info.key);
  localStorage.setItem(KEYS.userInfo, JSON.stringify(user));
  localStorage.setItem(KEYS.authorities, JSON.stringify(info.authCodes));
}

const passwordListeners = new Set<() => void>();

/** Whether the account must choose its own password before it may use anything else. */
export const mustChangePassword = (): boolean => !!getUser()?.mustChangePassword;

/** Calls `listener` when the account has chosen its own password; answers the unsubscribe. */
export function onPasswordChanged(listener: () => void): () => void {
  passwordListeners.add(listener);
  return () => passwordListeners.delete(listener);
}

/** After the user chose their own password: the console no longer asks for one, and the screens may load. */
export function passwordChanged(): void {
  const user = getUser();
  if (user) localStorage.setItem(KEYS.userInfo, JSON.stringify({ ...user, mustChangePassword: false }));
  for (const listener of passwordListeners) listener();
}

const enrolListeners = new Set<() => void>();

/** Whether the company requires two-factor login and the account must turn it on before anything else. */
export const mustEnrolTwoFactor = (): boolean => !!getUser()?.mustEnrolTwoFactor;

/** Calls `listener` when the account has turned two-factor login on or off; answers the unsubscribe. */
export function onTwoFactorChanged(listener: () => void): () => void {
  enrolListeners.add(listener);
  return () => enrolListeners.delete(listener);
}

/** Two-factor login was turned on (or off): the console stops asking for it, and the screens may load. */
export function twoFactorChanged(enabled: boolean): void {
  const user = getUser();
  if (user) localStorage.setItem(KEYS.userInfo, JSON.stringify({ ...user, twoFactorEnabled: enabled, mustEnrolTwoFactor: user.mustEnrolTwoFactor && !enabled }));
  for (const listener of enrolListeners) listener();
}

export function clearLogin(): void {
  for (const key of Object.values(KEYS)) localStorage.removeItem(key);
  sessionStorage.removeItem(SETTINGS_TAB_KEY);
}
