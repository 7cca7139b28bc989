import type { ReactNode } from 'react';
import { Anchor, Breadcrumbs, Paper, Stack, Tabs, Title } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';
import { Link, useNavigate, useRouteLoaderData } from 'react-router-dom';
import type { AuthCode, MenuItem } from '@passcloud/functions/contract/menu';
import { getAuthorities } from '../../app/session.ts';
import { menuTitle } from '../../app/menuTitles.ts';

/** The sections of system settings by their menu path, in the menu's order, with the code each needs. */
export const SECTION_CODES = {
  '/settings/system': 'settings:system',
  '/settings/email': 'settings:email',
  '/settings/account': 'settings:account',
  '/settings/privacy': 'settings:privacy',
  '/settings/licence': 'settings:licence',
  '/settings/mail': 'settings:mail',
  '/settings/audit': 'settings:audit',
  '/settings/webhooks': 'settings:webhooks',
  '/settings/apikeys': 'settings:apikeys',
} as const satisfies Record<string, AuthCode>;
export type SectionPath = keyof typeof SECTION_CODES;

const isSection = (path: string): path is SectionPath => path in SECTION_CODES;

/** The settings menu entry and the sections of it the account may open (each with its authCode held). */
export function useSettingsSections(): { settings: MenuItem | undefined; sections: (MenuItem & { path: SectionPath })[] } {
  const { menu } = useRouteLoaderData('main') as { menu: MenuItem[] };
  const held = new Set(getAuthorities());
  const settings = menu.find((m) => m.path === '/settings');
  const sections = (settings?.children ?? []).filter(
    (item): item is MenuItem & { path: SectionPath } =>
      isSection(item.path) && item.authCode === SECTION_CODES[item.path] && held.has(SECTION_CODES[item.path]),
  );
  return { settings, sections };
}

/**
 * The frame of every settings screen: the breadcrumb (Pass Cloud, Settings, the section, and the
 * page within it, such as one account), the side list of the sections the account may open with
 * `section` chosen, and the page's title above its content. A page within a section (`page`) links
 * its section in the breadcrumb.
 */
export function SettingsFrame({ section, page, children }: { section: SectionPath; page?: string; children: ReactNode }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const { settings, sections } = useSettingsSections();
  const current = sections.find((item) => item.path === section);
  const sectionTitle = menuTitle(current?.title ?? 'menu.settings');
  return (
    <Stack gap="md">
      <Breadcrumbs c="dimmed" fz="sm" data-testid="settings-breadcrumb">
        <span>Pass Cloud</span>
        <span>{menuTitle(settings?.title ?? 'menu.settings')}</span>
        {page ? (
          <Anchor component={Link} to={section} fz="sm" data-testid="settings-breadcrumb-section">
            {sectionTitle}
          </Anchor>
        ) : (
          <span>{sectionTitle}</span>
        )}
        {page && <span>{page}</span>}
      </Breadcrumbs>
      <Tabs
        orientation="vertical"
        variant="pills"
        value={section}
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
        <Tabs.Panel value={section}>
          <Stack gap="md">
            <Title order={2} size="h3" data-testid="screen-title">
              {page ?? sectionTitle}
            </Title>
            {children}
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
