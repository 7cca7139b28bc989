import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconDeviceDesktopPlus } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { formatNumber, formatTime } from '../../app/format.ts';
import { useList, useWrite } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import type { DeviceRequest } from './api.ts';

const PAGE_SIZE = 10;
const REFRESH_MS = 30_000;

/**
 * Terminals that bound themselves again under the serial number of a device this company deleted.
 * Nothing exists for them until an administrator approves one here: approval adds it back as a new
 * device (it takes a licence seat), rejection leaves it out. Shown only while there are any.
 */
export function RequestsPanel() {
  const { t } = useLingui();
  // Terminals ask at any time; the panel follows them while the device list is open.
  const list = useList<DeviceRequest>({ resource: 'deviceRequests', path: '/v1/devices/requests', pageSize: PAGE_SIZE, refreshMs: REFRESH_MS });
  const page = list.page;
  // Settled or not (someone else settled it first), the requests are read again; an approval adds a device and takes a seat.
  const settle = useWrite(
    ({ request, approve }: { request: DeviceRequest; approve: boolean }) => {
      const path = `/v1/devices/requests/${request.requestKey}`;
      return approve ? api.post(path, { version: request.version }) : api.del(path, { query: { version: request.version } });
    },
    {
      touches: (_, { approve }) => ['deviceRequests', ...(approve ? ['devices', 'licences', 'pickers'] : [])],
      refreshOnFailure: true,
      success: (_, { request, approve }) => {
        const serial = request.serial;
        return approve ? t`${serial} is added again` : t`${serial} stays deleted`;
      },
    },
  );
  const busy = settle.isPending ? settle.variables.request.requestKey : null;

  if (list.isError && !page) {
    return (
      <Alert color="red" variant="light" data-testid="device-requests-failed">
        <Group justify="space-between">
          <Text size="sm">
            <Trans>Terminals asking to be added again could not be loaded.</Trans>
          </Text>
          <Button size="xs" variant="default" onClick={() => void list.refetch()}>
            <Trans>Retry</Trans>
          </Button>
        </Group>
      </Alert>
    );
  }
  if (!page || (page.items.length === 0 && list.cursors.length === 1)) return null;

  const confirm = (request: DeviceRequest, approve: boolean) => {
    const serial = request.serial;
    confirmAction({
      title: approve ? t`Add the terminal again` : t`Reject the terminal`,
      text: approve
        ? t`Approve only if you know why ${serial} is back. It is added as a new device with the default settings and no authorizations, and takes a licence seat.`
        : t`${serial} cannot connect. If it binds again, it asks again.`,
      confirm: approve ? t`Add again` : t`Reject`,
      color: approve ? 'orange' : 'red',
      // The last request of a later page settled: back to the first page.
      onConfirm: () => settle.mutate({ request, approve }, { onSettled: () => page.items.length === 1 && list.restart() }),
    });
  };

  const count = formatNumber(page.items.length);
  const columns: Column<DeviceRequest>[] = [
    { key: 'serial', title: t`Serial number`, sticky: 'start', render: (request) => request.serial },
    { key: 'model', title: t`Model`, render: (request) => request.model || '—' },
    { key: 'mac', title: t`MAC address`, render: (request) => request.mac },
    { key: 'deleted', title: t`Deleted at`, render: (request) => formatTime(request.deleteTime) },
    { key: 'asked', title: t`Asked at`, render: (request) => formatTime(request.requestTime) },
    {
      key: 'actions',
      sticky: 'end',
      render: (request) => (
        <Group gap="xs" wrap="nowrap">
          <Button
            size="compact-xs"
            color="orange"
            loading={busy === request.requestKey}
            disabled={busy !== null}
            onClick={() => confirm(request, true)}
            data-testid="device-request-approve"
          >
            <Trans>Add again</Trans>
          </Button>
          <Button size="compact-xs" variant="default" disabled={busy !== null} onClick={() => confirm(request, false)} data-testid="device-request-reject">
            <Trans>Reject</Trans>
          </Button>
        </Group>
      ),
    },
  ];
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconDeviceDesktopPlus size={18} />}
      title={t`Deleted terminals ask to be added again`}
      data-testid="device-requests"
    >
      <Stack gap="sm">
        <Text size="sm">
          <Trans>
            These terminals bound themselves with your device binding code under the serial number of a device you deleted ({count} on this page). They cannot
            connect until you add them again.
          </Trans>
        </Text>
        <ListFrame
          list={list}
          name="device-requests"
          columns={columns}
          rowKey={(request) => request.requestKey}
          rowProps={() => ({ 'data-testid': 'device-request' })}
          empty={null}
          striped={false}
          footer={null}
          paged={list.cursors.length > 1 || !!page.nextCursor}
        />
      </Stack>
    </Alert>
  );
}
