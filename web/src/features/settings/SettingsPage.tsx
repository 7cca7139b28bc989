import { useEffect, type ComponentType } from 'react';
import { Breadcrumbs, Paper, Stack, Text, Title } from '@mantine/core';
import { Trans } from '@lingui/react/macro';
import { useLocation, useNavigate } from 'react-router-dom';
import { SETTINGS_TAB_KEY } from '../../app/session.ts';
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
import { SettingsFrame, useSettingsSections, type SectionPath } from './SettingsFrame.tsx';

/** The screen of each section (SettingsFrame.tsx says which code opens it). */
const SECTIONS: Record<SectionPath, ComponentType> = {
  '/settings/system': SystemSection,
  '/settings/email': EmailSection,
  '/settings/account': AccountsSection,
  '/settings/privacy': PrivacySection,
  '/settings/licence': LicencesSection,
  '/settings/mail': MailRecordsSection,
  '/settings/audit': AuditSection,
  '/settings/webhooks': WebhooksSection,
  '/settings/apikeys': ApiKeysSection,
};

/**
 * System settings: a side list of the sections the account may open (the permitted menu's, each
 * with its authCode held), the chosen one kept in session storage for the browser session.
 */
export function SettingsPage() {
  const { settings, sections } = useSettingsSections();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const fromPath = sections.find((item) => item.path === pathname)?.path;
  const stored = sessionStorage.getItem(SETTINGS_TAB_KEY);
  const current = sections.find((item) => item.path === (fromPath ?? stored)) ?? sections[0];

  useEffect(() => {
    if (!current) return;
    sessionStorage.setItem(SETTINGS_TAB_KEY, current.path);
    // /settings, or a section not offered here, shows the remembered (or first) section at its own path.
    if (pathname !== current.path) navigate(current.path, { replace: true });
  }, [current, pathname, navigate]);

  if (!current) {
    return (
      <Stack gap="md">
        <Breadcrumbs c="dimmed" fz="sm">
          <span>Pass Cloud</span>
          <span>{menuTitle(settings?.title ?? 'menu.settings')}</span>
        </Breadcrumbs>
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
      </Stack>
    );
  }
  const Section = SECTIONS[current.path];
  return (
    <SettingsFrame section={current.path}>
      <Paper withBorder radius="md" p="md">
        <Section />
      </Paper>
    </SettingsFrame>
  );
}
