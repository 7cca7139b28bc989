import { matchPath } from 'react-router-dom';
import { MENU, type MenuItem } from '@passcloud/functions/contract/menu';
import { api } from './api.ts';

/** The permitted menu tree from `GET /v1/systems/routes`, fetched once per session. */
let cached: Promise<MenuItem[]> | undefined;

export function loadMenu(): Promise<MenuItem[]> {
  cached ??= api.get<MenuItem[]>('/v1/systems/routes').catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}

export function forgetMenu(): void {
  cached = undefined;
}

export function flatten(tree: readonly MenuItem[]): MenuItem[] {
  return tree.flatMap((item) => [item, ...flatten(item.children ?? [])]);
}

/** Where an account lands: the first visible screen of its menu. */
export function firstPermitted(tree: readonly MenuItem[]): string {
  const visible = flatten(tree).find((item) => item.isShow && !item.children?.some((c) => c.isShow) && !item.redirect);
  if (visible) return visible.path;
  const settings = tree.find((item) => item.path === '/settings' && item.children?.length);
  return settings ? '/settings' : '/404';
}

/** True when `path` is a screen of the console, permitted or not. */
export function isConsolePath(path: string): boolean {
  return flatten(MENU).some((item) => matchPath({ path: item.path, end: true }, path));
}

/** The platform (header entry) a path belongs to. */
export function platformOf(tree: readonly MenuItem[], path: string): MenuItem | undefined {
  return tree.find((item) => path === item.path || path.startsWith(`${item.path}/`));
}

/** The menu entry to highlight: the deepest visible entry whose path contains the current one. */
export function activeEntry(tree: readonly MenuItem[], path: string): MenuItem | undefined {
  let best: MenuItem | undefined;
  for (const item of flatten(tree)) {
    if (!item.isShow) continue;
    if (path === item.path || path.startsWith(`${item.path}/`)) {
      if (!best || item.path.length > best.path.length) best = item;
    }
  }
  return best;
}
