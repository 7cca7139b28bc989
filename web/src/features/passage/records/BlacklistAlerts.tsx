import { useEffect, useRef, useState } from 'react';
import { Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { DEFAULT_PAGE_SIZE } from '@passcloud/functions/contract/paging';
import { api } from '../../../app/api.ts';
import { formatShortTime } from '../../../app/format.ts';
import { getAuthorities } from '../../../app/session.ts';
import type { PassRecordItem, PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { BLACKLIST_RECORDS_SCREEN, today, unseenRecords, type SeenRecords } from './alerts.ts';
import { CAPTURE_RETRIES, RecordPhoto } from './parts.tsx';
import { useLive } from '../../../app/live/channel.ts';
import { AlertLink } from '../../parts.tsx';
import { alertStore as alerts } from '../../../app/layout/AlertArea.tsx';

const POLL_MS = 15_000;
/** The newest records each read looks at (of the smallest page the list answers). */
const LATEST = 5;

/**
 * Blacklist hits while the console is open: for an account holding pass:blacklist, each blacklist
 * record the live channel announces raises an alert with the capture, the name, the device and
 * the time. While the channel is not open, the day's latest blacklist records are read every
 * 15 s while the tab is visible instead, and each newer than those already seen raises one. The
 * records there when the console opened are not alerts.
 */
export function BlacklistAlerts() {
  const [watching] = useState(() => getAuthorities().includes('pass:blacklist'));
  const navigate = useNavigate();
  // A route change does not start the watch over (nor lose what it has seen).
  const go = useRef(navigate);
  go.current = navigate;

  const show = (record: PassRecordItem) => {
    const id = `blacklist-${record.recordKey}`;
    const name = record.name ?? t`Unknown person`;
    notifications.show(
      {
        id,
        color: 'red',
        icon: <IconAlertTriangle size={18} />,
        title: t`Blacklist alert`,
        autoClose: false,
        withCloseButton: true,
        closeButtonProps: { 'aria-label': t`Close` },
        'data-testid': 'blacklist-alert',
        'data-record': record.recordKey,
        message: (
          <Group gap="sm" wrap="nowrap" align="flex-start" mt={4}>
            <RecordPhoto src={record.capture} size={64} alt={t`Capture`} retries={record.capture ? CAPTURE_RETRIES : 0} />
            <Stack gap={2} miw={0}>
              <Text size="sm" fw={600} c="bright" truncate="end" title={name}>
                {name}
              </Text>
              <Text size="xs" c="dimmed" truncate="end" title={record.deviceName}>
                {record.deviceName}
              </Text>
              <Text size="xs" c="dimmed">
                {formatShortTime(record.time)}
              </Text>
              <AlertLink id={id} onOpen={() => go.current(BLACKLIST_RECORDS_SCREEN)}>
                <Trans>Blacklist records</Trans>
              </AlertLink>
            </Stack>
          </Group>
        ),
      },
      alerts,
    );
  };

  // What was seen, shared by the reads and the live channel, kept across route changes.
  const seen = useRef<SeenRecords | null>(null);
  const reading = useRef(false);
  const poll = useRef(async () => {
    if (reading.current || document.visibilityState !== 'visible') return;
    reading.current = true;
    try {
      // In the background: no loading bar and no toast every 15 s when the network is down.
      const page = await api.get<PassRecordPage>('/v1/blacklistRecords', { query: { from: today(), pageSize: DEFAULT_PAGE_SIZE }, quiet: true, silent: true });
      const next = unseenRecords(seen.current, page.items.slice(0, LATEST));
      seen.current = next.seen;
      next.fresh.forEach(show);
    } catch {
      // The next round tries again.
    } finally {
      reading.current = false;
    }
  });
  // A record the live channel announces is new by definition, even before the first read answered.
  const live = useLive(
    'blacklist',
    (items) => {
      const next = unseenRecords(seen.current ?? { time: 0, keys: new Set() }, items);
      seen.current = next.seen;
      next.fresh.forEach(show);
    },
    { enabled: watching, onOpen: () => void poll.current() },
  );

  // The first read sets what counts as seen; later ones come from the timer, the tab coming back or the channel reopening.
  const started = useRef(false);
  useEffect(() => {
    if (!watching) return;
    if (!started.current) {
      started.current = true;
      void poll.current();
    }
    // Without the live channel, the day's latest are read every POLL_MS.
    const timer = live ? undefined : setInterval(() => void poll.current(), POLL_MS);
    // A tab coming back catches up at once rather than within the next round.
    const onVisibility = () => void poll.current();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [watching, live]);
  return null;
}
