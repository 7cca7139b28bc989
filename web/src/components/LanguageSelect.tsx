import { NativeSelect } from '@mantine/core';
import { IconLanguage } from '@tabler/icons-react';
import { useLingui } from '@lingui/react/macro';
import { LOCALES, LOCALE_NAMES, chooseLocale, storedLocale, type Locale } from '../app/locales.ts';

/** The language choice of the public screens: a native select, light enough for the first page. */
export function LanguageSelect() {
  const { t } = useLingui();
  return (
    <NativeSelect
      aria-label={t`Language`}
      data-testid="language-select"
      leftSection={<IconLanguage size={16} />}
      value={storedLocale()}
      onChange={(event) => chooseLocale(event.currentTarget.value as Locale)}
      data={LOCALES.map((locale) => ({ value: locale, label: LOCALE_NAMES[locale] }))}
      variant="filled"
      w={190}
    />
  );
}
