import { Badge } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';

export function OnlineBadge({ online }: { online: boolean }) {
  const { t } = useLingui();
  return (
    <Badge color={online ? 'teal' : 'gray'} variant={online ? 'light' : 'outline'} data-testid="online-badge" data-online={online}>
      {online ? t`Online` : t`Offline`}
    </Badge>
  );
}
