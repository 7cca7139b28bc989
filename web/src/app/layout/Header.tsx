import { useRef, useState } from 'react';
import { ActionIcon, Group, Menu, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconKey, IconLogout, IconSettings, IconShieldLock, IconUserCircle } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useLocation } from 'react-router-dom';
import type { MenuItem } from '@passcloud/functions/contract/menu';
import { Brand } from '../../components/Brand.tsx';
import { getUser } from '../session.ts';
import { logout } from '../auth.ts';
import { firstPermitted, flatten } from '../menu.ts';
import { menuTitle } from '../menuTitles.ts';
import { LanguageMenu } from '../../components/LanguageMenu.tsx';
import { ChangePasswordDialog } from './ChangePasswordDialog.tsx';
import { TwoFactorDialog } from './TwoFactorDialog.tsx';
import { useToastBand } from '../toasts.ts';
import classes from './Header.module.css';

/** Default page of each platform (SPEC.md §2). */
const PLATFORM_HOME: Record<string, string> = {
  '/pass-platform': '/pass-platform/dashboard',
  '/intercom-platform': '/intercom-platform/device/management',
};

export function Header({ menu }: { menu: MenuItem[] }) {
  const { pathname } = useLocation();
  const { t } = useLingui();
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [twoFactorOpen, setTwoFactorOpen] = useState(false);
  const start = useRef<HTMLDivElement>(null);
  const end = useRef<HTMLDivElement>(null);
  useToastBand(start, end);
  const user = getUser();
  const platforms = menu.filter((item) => item.isShow);
  const settings = menu.find((item) => item.path === '/settings');
  const inSettings = pathname === '/settings' || pathname.startsWith('/settings/');

  const homeOf = (platform: MenuItem) => {
    const preferred = PLATFORM_HOME[platform.path];
    const reachable = !!preferred && flatten(platform.children ?? []).some((item) => item.path === preferred);
    return reachable ? preferred : firstPermitted(platform.children ?? []);
  };

  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap" className={classes.header}>
      <Group gap="xl" wrap="nowrap" style={{ minWidth: 0 }} ref={start}>
        <Brand />
        <Group gap={4} component="nav" aria-label={t`Platforms`} wrap="nowrap">
          {platforms.map((platform) => {
            const active = pathname.startsWith(`${platform.path}/`) || pathname === platform.path;
            return (
              <UnstyledButton
                key={platform.path}
                component={Link}
                to={homeOf(platform)}
                className={classes.platform}
                data-active={active || undefined}
                aria-current={active ? 'page' : undefined}
              >
                {menuTitle(platform.title)}
              </UnstyledButton>
            );
          })}
        </Group>
      </Group>
      <Group gap="xs" wrap="nowrap" ref={end}>
        {settings && (
          <Tooltip label={menuTitle(settings.title)}>
            <ActionIcon
              component={Link}
              to="/settings"
              size="lg"
              variant={inSettings ? 'filled' : 'subtle'}
              aria-label={menuTitle(settings.title)}
              aria-current={inSettings ? 'page' : undefined}
              data-testid="settings-button"
            >
              <IconSettings size={20} />
            </ActionIcon>
          </Tooltip>
        )}
        <LanguageMenu />
        <Menu position="bottom-end" width={260} withinPortal>
          <Menu.Target>
            <UnstyledButton className={classes.user} data-testid="user-menu">
              <Group gap={6} wrap="nowrap">
                <IconUserCircle size={22} />
                <Text size="sm" fw={500} truncate maw={160}>
                  {user?.nickname ?? user?.username}
                </Text>
                <IconChevronDown size={14} />
              </Group>
            </UnstyledButton>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>
              <Trans>Device binding code</Trans>
            </Menu.Label>
            <Text px="sm" pb="xs" ff="monospace" fw={600} data-testid="user-code">
              {user?.userCode}
            </Text>
            <Menu.Divider />
            <Menu.Item leftSection={<IconKey size={16} />} onClick={() => setPasswordOpen(true)}>
              <Trans>Change password</Trans>
            </Menu.Item>
            <Menu.Item leftSection={<IconShieldLock size={16} />} onClick={() => setTwoFactorOpen(true)} data-testid="menu-two-factor">
              <Trans>Two-factor login</Trans>
            </Menu.Item>
            <Menu.Item leftSection={<IconLogout size={16} />} color="red" onClick={() => void logout()}>
              <Trans>Log out</Trans>
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>
      {/* A password an administrator set (or an invitation made up) is changed before anything else. */}
      <ChangePasswordDialog opened={passwordOpen || !!user?.mustChangePassword} required={!!user?.mustChangePassword} onClose={() => setPasswordOpen(false)} />
      {/* Then, where the company requires two-factor login and the account has none, it is set up before anything else. */}
      <TwoFactorDialog
        opened={twoFactorOpen || (!!user?.mustEnrolTwoFactor && !user.mustChangePassword)}
        required={!!user?.mustEnrolTwoFactor && !user.mustChangePassword}
        onClose={() => setTwoFactorOpen(false)}
      />
    </Group>
  );
}
