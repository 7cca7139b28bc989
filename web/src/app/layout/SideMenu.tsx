import { ActionIcon, NavLink, ScrollArea, Stack, Tooltip } from '@mantine/core';
import { IconLayoutSidebarLeftCollapse, IconLayoutSidebarLeftExpand } from '@tabler/icons-react';
import { useLingui } from '@lingui/react/macro';
import { Link, useLocation } from 'react-router-dom';
import type { MenuItem } from '@passcloud/functions/contract/menu';
import { activeEntry, firstPermitted } from '../menu.ts';
import { menuTitle } from '../menuTitles.ts';
import { MenuIcon } from './icons.tsx';

const visibleChildren = (item: MenuItem) => (item.children ?? []).filter((c) => c.isShow);

/** The side menu of the current platform: groups flagged open start open, the current entry is highlighted. */
export function SideMenu({ items, collapsed, onToggle }: { items: MenuItem[]; collapsed: boolean; onToggle: () => void }) {
  const { pathname } = useLocation();
  const { t } = useLingui();
  const active = activeEntry(items, pathname);
  const visible = items.filter((i) => i.isShow);

  const entry = (item: MenuItem, depth: number) => {
    const children = visibleChildren(item);
    const title = menuTitle(item.title);
    if (children.length === 0) {
      return (
        <NavLink
          key={item.path}
          component={Link}
          to={item.path}
          label={title}
          leftSection={depth === 0 ? <MenuIcon name={item.icon} /> : undefined}
          active={active?.path === item.path}
          pl={depth > 0 ? 16 + depth * 16 : undefined}
        />
      );
    }
    const containsActive = !!active && active.path.startsWith(`${item.path}/`);
    return (
      <NavLink
        key={item.path}
        label={title}
        leftSection={depth === 0 ? <MenuIcon name={item.icon} /> : undefined}
        defaultOpened={item.open || containsActive}
        childrenOffset={0}
        pl={depth > 0 ? 16 + depth * 16 : undefined}
      >
        {children.map((child) => entry(child, depth + 1))}
      </NavLink>
    );
  };

  return (
    <Stack h="100%" gap={0} data-testid="side-menu" data-collapsed={collapsed}>
      <ScrollArea style={{ flex: 1 }} type="hover">
        {collapsed ? (
          <Stack gap={4} align="center" py="sm">
            {visible.map((item) => {
              const target = visibleChildren(item).length ? firstPermitted([item]) : item.path;
              const isActive = !!active && (active.path === item.path || active.path.startsWith(`${item.path}/`));
              return (
                <Tooltip key={item.path} label={menuTitle(item.title)} position="right">
                  <ActionIcon component={Link} to={target} variant={isActive ? 'light' : 'subtle'} size="lg" aria-label={menuTitle(item.title)}>
                    <MenuIcon name={item.icon} />
                  </ActionIcon>
                </Tooltip>
              );
            })}
          </Stack>
        ) : (
          <nav aria-label={t`Side menu`}>{visible.map((item) => entry(item, 0))}</nav>
        )}
      </ScrollArea>
      <Stack align={collapsed ? 'center' : 'flex-end'} p="xs" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
        <ActionIcon variant="subtle" onClick={onToggle} aria-label={collapsed ? t`Expand menu` : t`Collapse menu`} data-testid="menu-toggle">
          {collapsed ? <IconLayoutSidebarLeftExpand size={20} /> : <IconLayoutSidebarLeftCollapse size={20} />}
        </ActionIcon>
      </Stack>
    </Stack>
  );
}
