import { isConsolePath } from './menu.ts';

/**
 * The query parameter that brings a visitor back to the console page they opened before logging
 * in: `/entrance?redirect=...` and `/login?redirect=...`.
 */
export const REDIRECT_PARAM = 'redirect';

const PLACEHOLDER_ORIGIN = 'http://console.invalid';

/**
 * The page to return to after login, read from untrusted input: only a screen of this console
 * (a path of its menu, with its query and hash), never another origin (`//host`, `/\host`,
 * `https:`), a public screen or the home path. Anything else answers null.
 */
export function safeRedirect(raw: string | null | undefined): string | null {
  if (!raw || !raw.startsWith('/')) return null;
  let url: URL;
  try {
    url = new URL(raw, PLACEHOLDER_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN || !isConsolePath(url.pathname)) return null;
  return url.pathname + url.search + url.hash;
}

/** The return target carried by a query string (`location.search`), checked. */
export function redirectIn(search: string): string | null {
  return safeRedirect(new URLSearchParams(search).get(REDIRECT_PARAM));
}

/** `path` carrying the return target, when there is a valid one. */
export function withRedirect(path: string, target: string | null | undefined): string {
  const safe = safeRedirect(target);
  return safe ? `${path}?${new URLSearchParams({ [REDIRECT_PARAM]: safe })}` : path;
}
