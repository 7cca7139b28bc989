import { Badge, Group, Text, Tooltip } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';
import type { CallStatus } from '@passcloud/functions/contract/intercom';
import { api } from '../../app/api.ts';
import { useWrite, type Touched } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';
import { intercomPath, type IntercomItem, type IntercomKind } from './api.ts';

/**
 * Deleting an intercom after a confirmation that names it: it leaves the company, its number is
 * freed, and its seat with it. `touches`: what the screen reads again; `onDeleted`: where it goes then.
 */
export function useDeleteIntercom({ touches, onDeleted }: { touches: Touched[]; onDeleted?: () => void }): (device: IntercomItem) => void {
  const { t } = useLingui();
  const deletion = useWrite((device: IntercomItem) => api.del(intercomPath(device.deviceKey), { query: { version: device.version } }), {
    touches,
    success: t`Deleted`,
    onSuccess: onDeleted,
  });
  return (device) => {
    const deviceName = device.name;
    confirmAction({
      title: t`Delete intercom`,
      text: t`Delete ${deviceName}? It leaves this company, its number is freed and it can no longer connect.`,
      confirm: t`Delete`,
      color: 'red',
      onConfirm: () => deletion.mutate(device),
    });
  };
}

export function useKindLabels(): Record<IntercomKind, string> {
  const { t } = useLingui();
  return { doorStation: t`Door station`, indoorMonitor: t`Indoor monitor` };
}

export function KindBadge({ kind }: { kind: IntercomKind }) {
  const labels = useKindLabels();
  return (
    <Badge variant="light" color={kind === 'doorStation' ? 'indigo' : 'cyan'} w="max-content">
      {labels[kind]}
    </Badge>
  );
}

/** Signal strength as four bars from the reported dBm (-50 and above: four; below -100: none). */
export const barsOf = (dbm: number): number => (dbm >= -50 ? 4 : dbm >= -65 ? 3 : dbm >= -80 ? 2 : dbm >= -100 ? 1 : 0);

export function SignalBars({ dbm }: { dbm: number | null }) {
  const { t } = useLingui();
  if (dbm === null)
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  const bars = barsOf(dbm);
  const label = t`${dbm} dBm`;
  return (
    <Tooltip label={label}>
      <Group gap={2} align="flex-end" wrap="nowrap" aria-label={label} data-testid="signal" data-bars={bars}>
        {[1, 2, 3, 4].map((n) => (
          <span
            key={n}
            style={{
              display: 'inline-block',
              width: 4,
              height: 4 + n * 3,
              borderRadius: 1,
              background: n <= bars ? 'var(--mantine-color-teal-6)' : 'var(--mantine-color-gray-3)',
            }}
          />
        ))}
        <Text size="xs" c="dimmed" ml={4}>
          {dbm}
        </Text>
      </Group>
    </Tooltip>
  );
}

export function useStatusLabels(): Record<CallStatus, string> {
  const { t } = useLingui();
  return { 1: t`Incoming`, 2: t`Outgoing`, 3: t`Not connected` };
}

export function StatusBadge({ status, live }: { status: CallStatus; live: boolean }) {
  const { t } = useLingui();
  const labels = useStatusLabels();
  return (
    <Group gap={4} wrap="nowrap">
      {live ? (
        <Badge color="red" variant="filled" w="max-content" data-testid="call-live">
          {status === 3 ? t`Ringing` : t`In call`}
        </Badge>
      ) : (
        <Badge color={status === 3 ? 'orange' : status === 1 ? 'teal' : 'blue'} variant="light" w="max-content" data-testid="call-status" data-status={status}>
          {labels[status]}
        </Badge>
      )}
    </Group>
  );
}

/** Seconds as m:ss (h:mm:ss from an hour). */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = Math.floor(seconds % 60);
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}
