import { Button, Menu } from '@mantine/core';
import { IconLanguage } from '@tabler/icons-react';
import { useLingui } from '@lingui/react/macro';
import { LOCALES, LOCALE_NAMES, chooseLocale, storedLocale } from '../app/locales.ts';

/** The 11 languages; the choice is kept in local storage and the page reloads. */
export function LanguageMenu() {
  const { t } = useLingui();
  const current = storedLocale();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" color="gray" leftSection={<IconLanguage size={18} />} aria-label={t`Language`} data-testid="language-menu">
          {LOCALE_NAMES[current]}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {LOCALES.map((locale) => (
          <Menu.Item key={locale} onClick={() => locale !== current && chooseLocale(locale)} data-locale={locale} fw={locale === current ? 700 : undefined}>
            {LOCALE_NAMES[locale]}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
