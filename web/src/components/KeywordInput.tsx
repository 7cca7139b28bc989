import { TextInput } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';

/**
 * A list's keyword filter: what it searches is its placeholder (and its title, for a placeholder
 * cut by a narrow screen); Enter searches as the Search button does.
 */
export function KeywordInput({
  value,
  onChange,
  onSearch,
  hint,
  testId,
  wide = false,
}: {
  value: string;
  onChange: (value: string) => void;
  onSearch?: () => void;
  /** What the keyword is matched against: "Name, serial number, IP or MAC". */
  hint: string;
  testId: string;
  /** Grows with the filter bar of a list screen (else a fixed width, in a picker). */
  wide?: boolean;
}) {
  const { t } = useLingui();
  return (
    <TextInput
      label={t`Keyword`}
      placeholder={hint}
      title={hint}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      onKeyDown={(e) => e.key === 'Enter' && onSearch?.()}
      {...(wide ? { style: { flex: '1 1 300px', maxWidth: 440 }, miw: 260 } : { w: 240 })}
      data-testid={testId}
    />
  );
}
