import { Alert, Button, Group, Stack, Table, Text } from '@mantine/core';
import { IconReplace } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { useWrite } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';
import { devicePath, type Device } from './api.ts';
import { formatTime } from '../../app/format.ts';

/**
 * A terminal bound itself again under this device's serial number (a replaced or reset unit, or
 * someone posing as one). Its credentials work only once approved here; the old and the new facts
 * are shown side by side so the administrator can tell.
 */
export function ReplacementPanel({ device, onDone }: { device: Device; onDone: (device: Device) => void }) {
  const { t } = useLingui();
  const act = useWrite(
    (kind: 'approve' | 'reject') =>
      kind === 'approve'
        ? api.post<Device>(`${devicePath(device.deviceKey)}/replacement`, { version: device.version })
        : api.del<Device>(`${devicePath(device.deviceKey)}/replacement`, { query: { version: device.version } }),
    {
      success: (_, kind) => (kind === 'approve' ? t`Replacement approved` : t`Replacement rejected`),
      onSuccess: onDone,
    },
  );
  const busy = act.isPending ? act.variables : null;
  const replacement = device.replacement;
  if (!replacement) return null;

  const rows: [string, string, string][] = [
    [t`MAC address`, device.mac, replacement.mac],
    [t`IP address`, device.ip, replacement.ip],
    [t`Model`, device.model, replacement.model ?? ''],
    [t`Firmware`, device.firmware, replacement.firmware],
    [t`App version`, device.appVersion, replacement.appVersion],
  ];
  const requested = formatTime(replacement.requestTime);
  const serial = device.serial;

  const confirmApprove = () =>
    confirmAction({
      title: t`Approve the replacement`,
      text: (
        <Text size="sm">
          <Trans>
            Approve only if you replaced or reset this terminal yourself. The new terminal takes over this device's settings, authorizations and commands; the
            old one can no longer connect.
          </Trans>
        </Text>
      ),
      confirm: t`Approve`,
      color: 'orange',
      onConfirm: () => act.mutate('approve'),
    });
  const confirmReject = () =>
    confirmAction({
      title: t`Reject the replacement`,
      text: (
        <Text size="sm">
          <Trans>The terminal that asked cannot connect as this device. The current terminal keeps working.</Trans>
        </Text>
      ),
      confirm: t`Reject`,
      color: 'red',
      onConfirm: () => act.mutate('reject'),
    });

  return (
    <Alert color="orange" variant="light" icon={<IconReplace size={18} />} title={t`A terminal asks to replace this device`} data-testid="replacement">
      <Stack gap="sm">
        <Text size="sm">
          <Trans>
            On {requested} a terminal bound itself with serial number {serial} and your device binding code. It cannot connect until you approve it.
          </Trans>
        </Text>
        <Table withTableBorder fz="sm" maw={560}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th />
              <Table.Th>{t`Current terminal`}</Table.Th>
              <Table.Th>{t`New terminal`}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map(([label, current, next]) => (
              <Table.Tr key={label}>
                <Table.Td c="dimmed">{label}</Table.Td>
                <Table.Td>{current || '—'}</Table.Td>
                <Table.Td fw={current !== next ? 600 : undefined}>{next || '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Group gap="xs">
          <Button size="xs" color="orange" loading={busy === 'approve'} disabled={busy !== null} onClick={confirmApprove} data-testid="replacement-approve">
            <Trans>Approve</Trans>
          </Button>
          <Button size="xs" variant="default" loading={busy === 'reject'} disabled={busy !== null} onClick={confirmReject} data-testid="replacement-reject">
            <Trans>Reject</Trans>
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
