import { useEffect, type ComponentType } from 'react';
import { Breadcrumbs, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { useLocation, useNavigate, useRouteLoaderData } from 'react-router-dom';
import type { AuthCode, MenuItem } from '@passcloud/functions/contract/menu';
import { SETTINGS_TAB_KEY, getAuthorities } from '../../app/session.ts';
import { menuTitle } from '../../app/menuTitles.ts';
import { AccountsSection } from './AccountsSection.tsx';
import { ApiKeysSection } from './ApiKeysSection.tsx';
import { AuditSection } from './AuditSection.tsx';
import { EmailSection } from './EmailSection.tsx';
import { LicencesSection } from './LicencesSection.tsx';
import { MailRecordsSection } from './MailRecordsSection.tsx';
import { PrivacySection } from './PrivacySection.tsx';
import { SystemSection } from './SystemSection.tsx';
import { WebhooksSection } from './WebhooksSection.tsx';

/** The sections by their menu path, in the menu's order; the side list offers those the account holds. */
const SECTIONS: Record<string, { authCode: AuthCode; Component: ComponentType }> = {
  '/settings/system': { authCode: 'settings:system', Component: SystemSection },
  '/settings/email': { authCode: 'settings:email', Component: EmailSection },
  '/settings/account': { authCode: 'settings:account', Component: AccountsSection },
  '/settings/privacy': { authCode: 'settings:privacy', Component: PrivacySection },
  '/settings/licence': { authCode: 'settings:licence', Component: LicencesSection },
  '/settings/mail': { authCode: 'settings:mail', Component: MailRecordsSection },
  '/settings/audit': { authCode: 'settings:audit', Component: AuditSection },
  '/settings/webhooks': { authCode: 'settings:webhooks', Component: WebhooksSection },
  '/settings/apikeys': { authCode: 'settings:apikeys', Component: ApiKeysSection },
};

/**
 * System settings: a side list of the sections the account may open (the permitted menu's, each
 * with its authCode held), the chosen one kept in session storage for the browser session.
 */
export function SettingsPage() {
  const { t } = useLingui();
  const { menu } = useRouteLoaderData('main') as { menu: MenuItem[] };
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const held = new Set(getAuthorities());
  const settings = menu.find((m) => m.path === '/settings');
  const sections = (settings?.children ?? []).filter((item) => {
    const section = SECTIONS[item.path];
    return section && item.authCode === section.authCode && held.has(section.authCode);
  });
  const fromPath = sections.find((item) => item.path === pathname)?.path;
  const stored = sessionStorage.getItem(SETTINGS_TAB_KEY);
  const current = sections.find((item) => item.path === (fromPath ?? stored)) ?? sections[0];

  useEffect(() => {
    if (!current) return;
    sessionStorage.setItem(SETTINGS_TAB_KEY, current.path);
    // /settings, or a section not offered here, shows the remembered (or first) section at its own path.
    if (pathname !== current.path) navigate(current.path, { replace: true });
  }, [current, pathname, navigate]);

  const Section = current ? SECTIONS[current.path]!.Component : null;
  return (
    <Stack gap="md">
      <Breadcrumbs c="dimmed" fz="sm">
        <span>Pass Cloud</span>
        <span>{menuTitle(settings?.title ?? 'menu.settings')}</span>
        {current && <span>{menuTitle(current.title)}</span>}
      </Breadcrumbs>
      {!current || !Section ? (
        <>
          <Title order={2} size="h3" data-testid="screen-title">
            {menuTitle('menu.settings')}
          </Title>
          <Paper withBorder p="xl" radius="md" data-testid="settings-empty">
            <Text fw={600} mb={4}>
              <Trans>No settings to show</Trans>
            </Text>
            <Text c="dimmed" size="sm">
              <Trans>Your account has no permission for any settings section. Ask an administrator if you need one.</Trans>
            </Text>
          </Paper>
        </>
      ) : (
        <Tabs
          orientation="vertical"
          variant="pills"
          value={current.path}
          onChange={(value) => value && navigate(value)}
          keepMounted={false}
          styles={{ list: { minWidth: 200 }, panel: { minWidth: 0 } }}
        >
          <Paper withBorder radius="md" p="xs" me="md" style={{ alignSelf: 'flex-start' }}>
            <Tabs.List aria-label={t`Settings sections`} data-testid="settings-sections">
              {sections.map((item) => (
                <Tabs.Tab key={item.path} value={item.path}>
                  {menuTitle(item.title)}
                </Tabs.Tab>
              ))}
            </Tabs.List>
          </Paper>
          <Tabs.Panel value={current.path}>
            <Stack gap="md">
              <Title order={2} size="h3" data-testid="screen-title">
                {menuTitle(current.title)}
              </Title>
              <Paper withBorder radius="md" p="md">
                <Section />
              </Paper>
            </Stack>
          </Tabs.Panel>
        </Tabs>
      )}
    </Stack>
  );
}
