import { Badge, CloseButton, Input } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';

/**
 * The record list narrowed to one person's passes (the link of their recent passes): who, as the
 * records name them, and a button that shows everyone's again.
 */
export function PersonFilterChip({ name, onClear }: { name: string | null; onClear: () => void }) {
  const { t } = useLingui();
  return (
    <Input.Wrapper label={t`Person`} labelElement="div">
      <Badge
        size="lg"
        h={36}
        variant="light"
        radius="sm"
        tt="none"
        maw={220}
        rightSection={<CloseButton size="sm" aria-label={t`Show everyone’s passes`} onClick={onClear} data-testid="record-person-clear" />}
        data-testid="record-person"
      >
        {name ?? t`One person`}
      </Badge>
    </Input.Wrapper>
  );
}
