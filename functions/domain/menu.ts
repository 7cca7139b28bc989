import { MENU, type AuthCode, type MenuItem } from '#contract/menu';

/**
 * The menu tree an account may see: an item with an authCode it lacks is dropped with its
 * children; an item without an authCode stays unless it is a group left with no child.
 */
export function permittedMenu(codes: ReadonlySet<AuthCode>, tree: readonly MenuItem[] = MENU): MenuItem[] {
  const out: MenuItem[] = [];
  for (const item of tree) {
    if (item.authCode && !codes.has(item.authCode)) continue;
    if (!item.children) {
      out.push({ ...item });
      continue;
    }
    const children = permittedMenu(codes, item.children);
    if (!item.authCode && children.length === 0) continue;
    out.push({ ...item, children });
  }
  return out;
}

/** Every path of the tree, depth first, for checks that walk the whole console. */
export function menuPaths(tree: readonly MenuItem[] = MENU): string[] {
  return tree.flatMap((item) => [item.path, ...menuPaths(item.children ?? [])]);
}
