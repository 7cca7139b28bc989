import { Tabs, Paper, Text } from '@mantine/core';
import { Trans } from '@lingui/react/macro';
import { useLocation, useNavigate, useRouteLoaderData } from 'react-router-dom';
import type { MenuItem } from '@passcloud/functions/contract/menu';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { SETTINGS_TAB_KEY } from '../../app/session.ts';
import { menuTitle } from '../../app/menuTitles.ts';

/** System settings: one tab per permitted section; the open tab is kept for the browser session. */
export function SettingsPage() {
  const { menu } = useRouteLoaderData('main') as { menu: MenuItem[] };
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const tabs = menu.find((m) => m.path === '/settings')?.children ?? [];
  const fromPath = tabs.find((tab) => pathname === tab.path)?.path;
  const stored = sessionStorage.getItem(SETTINGS_TAB_KEY);
  const current = fromPath ?? tabs.find((tab) => tab.path === stored)?.path ?? tabs[0]?.path;
  if (fromPath) sessionStorage.setItem(SETTINGS_TAB_KEY, fromPath);
  return (
    <Tabs
      value={current ?? null}
      onChange={(value) => {
        if (!value) return;
        sessionStorage.setItem(SETTINGS_TAB_KEY, value);
        navigate(value);
      }}
      keepMounted={false}
    >
      <Tabs.List mb="md">
        {tabs.map((tab) => (
          <Tabs.Tab key={tab.path} value={tab.path}>
            {menuTitle(tab.title)}
          </Tabs.Tab>
        ))}
      </Tabs.List>
      {tabs.map((tab) => (
        <Tabs.Panel key={tab.path} value={tab.path}>
          <Paper withBorder p="xl" radius="md">
            <Text fw={600} mb="xs" data-testid="screen-title">
              {menuTitle(tab.title)}
            </Text>
            <Text c="dimmed">
              <Trans>This screen is not available yet.</Trans>
            </Text>
          </Paper>
        </Tabs.Panel>
      ))}
    </Tabs>
  );
}

export const AccountCreatePage = () => <ScreenPage />;
export const AccountDetailPage = () => <ScreenPage />;
