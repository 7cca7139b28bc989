import { Badge, Group, Input, SegmentedControl, Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatNumber } from '../../app/format.ts';
import { LinkCell } from '../../components/ListFrame.tsx';

export function OnlineBadge({ online }: { online: boolean }) {
  const { t } = useLingui();
  return (
    <Badge color={online ? 'teal' : 'gray'} variant={online ? 'light' : 'outline'} data-testid="online-badge" data-online={online}>
      {online ? t`Online` : t`Offline`}
    </Badge>
  );
}

/** Which devices a list shows by their state. */
export type Presence = 'all' | 'online' | 'offline';

/** A device list's state filter (face terminals, intercoms), applied as it is set. Test ids: `<testId>` and `<testId>-field`. */
export function PresenceFilter({ value, onChange, testId }: { value: Presence; onChange: (presence: Presence) => void; testId: string }) {
  const { t } = useLingui();
  return (
    <Input.Wrapper label={t`State`} labelElement="div" data-testid={`${testId}-field`}>
      <SegmentedControl
        display="flex"
        value={value}
        onChange={(v) => onChange(v as Presence)}
        data={[
          { value: 'all', label: t`All` },
          { value: 'online', label: t`Online` },
          { value: 'offline', label: t`Offline` },
        ]}
        data-testid={testId}
      />
    </Input.Wrapper>
  );
}

/** The counts a device list's first page answers: all the company's devices of the list, online and offline. */
export function PresenceTotals({ page, testId, w }: { page: { total?: number; online: number; offline: number } | undefined; testId: string; w?: string }) {
  const total = formatNumber(page?.total ?? 0);
  const online = formatNumber(page?.online ?? 0);
  const offline = formatNumber(page?.offline ?? 0);
  return (
    <Group gap="sm" data-testid={testId}>
      <Badge size="lg" variant="light" color="blue" w={w}>
        <Trans>Total {total}</Trans>
      </Badge>
      <Badge size="lg" variant="light" color="teal" w={w}>
        <Trans>Online {online}</Trans>
      </Badge>
      <Badge size="lg" variant="light" color="gray" w={w}>
        <Trans>Offline {offline}</Trans>
      </Badge>
    </Group>
  );
}

/** A device list's first column: the name, which opens the device's screen, over its serial number. */
export function DeviceNameCell({ device, to, maw }: { device: { name: string; serial: string }; to: string; maw: number }) {
  return (
    <Stack gap={0}>
      <LinkCell to={to} text={device.name} maw={maw} strong />
      <Text size="xs" c="dimmed">
        {device.serial}
      </Text>
    </Stack>
  );
}
