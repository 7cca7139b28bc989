import { useEffect, useRef, useState } from 'react';
import { Anchor, Group, Stack, Text } from '@mantine/core';
import { Notifications, createNotificationsStore, notifications } from '@mantine/notifications';
import { IconAlertTriangle } from '@tabler/icons-react';
import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { api } from '../../../app/api.ts';
import { formatShortTime } from '../../../app/format.ts';
import { getAuthorities } from '../../../app/session.ts';
import type { PassRecordItem, PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { BLACKLIST_RECORDS_SCREEN, today, unseenRecords, type SeenRecords } from './alerts.ts';
import { RecordPhoto } from './parts.tsx';
import classes from './BlacklistAlerts.module.css';

const POLL_MS = 15_000;
const LATEST = 5;

/** Alerts have their own place (top right), so they neither queue behind nor push away the console's single toast. */
const alerts = createNotificationsStore();

/**
 * Blacklist hits while the console is open: for an account holding pass:blacklist, the day's
 * latest blacklist records are read every 15 s while the tab is visible, and each record newer
 * than those already seen raises an alert with the capture, the name, the device and the time.
 * The records there when the console opened are not alerts.
 */
export function BlacklistAlerts() {
  const [watching] = useState(() => getAuthorities().includes('pass:blacklist'));
  const navigate = useNavigate();
  // A route change does not start the watch over (nor lose what it has seen).
  const go = useRef(navigate);
  go.current = navigate;

  useEffect(() => {
    if (!watching) return;
    let seen: SeenRecords | null = null;
    let stopped = false;
    let reading = false;

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
              <RecordPhoto src={record.capture} size={64} alt={t`Capture`} />
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
                <Anchor
                  component="button"
                  type="button"
                  size="xs"
                  ta="start"
                  onClick={() => {
                    notifications.hide(id, alerts);
                    go.current(BLACKLIST_RECORDS_SCREEN);
                  }}
                >
                  <Trans>Blacklist records</Trans>
                </Anchor>
              </Stack>
            </Group>
          ),
        },
        alerts,
      );
    };

    const poll = async () => {
      if (reading || stopped || document.visibilityState !== 'visible') return;
      reading = true;
      try {
        // In the background: no loading bar and no toast every 15 s when the network is down.
        const page = await api.get<PassRecordPage>('/v1/blacklistRecords', { query: { from: today(), pageSize: LATEST }, quiet: true, silent: true });
        if (stopped) return;
        const next = unseenRecords(seen, page.items);
        seen = next.seen;
        next.fresh.forEach(show);
      } catch {
        // The next round tries again.
      } finally {
        reading = false;
      }
    };

    void poll();
    const timer = setInterval(() => void poll(), POLL_MS);
    // A tab coming back catches up at once rather than within the next 15 s.
    const onVisibility = () => void poll();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
      notifications.clean(alerts);
    };
  }, [watching]);

  if (!watching) return null;
  return <Notifications store={alerts} position="top-right" limit={4} notificationMaxHeight={320} classNames={{ root: classes.alerts }} />;
}
