import { Badge } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';
import dayjs from 'dayjs';

export function OnlineBadge({ online }: { online: boolean }) {
  const { t } = useLingui();
  return (
    <Badge color={online ? 'teal' : 'gray'} variant={online ? 'light' : 'outline'} data-testid="online-badge" data-online={online}>
      {online ? t`Online` : t`Offline`}
    </Badge>
  );
}

/** A moment in the current language's date and time format. */
export const formatTime = (iso: string | null | undefined): string => (iso ? dayjs(iso).format('L LTS') : '—');

/** A moment in few characters: the time alone when it is today. */
export const formatShortTime = (iso: string | null | undefined): string => {
  if (!iso) return '—';
  const moment = dayjs(iso);
  return moment.isSame(dayjs(), 'day') ? moment.format('LTS') : moment.format('L LT');
};
