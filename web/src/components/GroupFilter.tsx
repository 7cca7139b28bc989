import { Select } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';

/** A list's group filter: one of the company's groups of the list's kind, or any ('' when cleared). */
export function GroupFilter({ groups, value, onChange, label, testId }: { groups: { groupKey: string; name: string }[]; value: string; onChange: (groupKey: string) => void; label?: string; testId?: string }) {
  const { t } = useLingui();
  return (
    <Select
      label={label ?? t`Group`}
      placeholder={t`Any group`}
      clearable
      data={groups.map((g) => ({ value: g.groupKey, label: g.name }))}
      value={value || null}
      onChange={(v) => onChange(v ?? '')}
      w={180}
      data-testid={testId}
    />
  );
}
