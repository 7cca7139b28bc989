import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Group, Stack, Table, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconDeviceDesktopPlus } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { api, notifySuccess } from '../../app/api.ts';
import { formatNumber, formatTime } from '../../app/format.ts';
import { CursorPager } from '../../components/CursorPager.tsx';
import { ScrollTable } from '../../components/ScrollTable.tsx';
import tables from '../../components/DataTable.module.css';
import type { DeviceRequest, RequestPage } from './api.ts';

const PAGE_SIZE = 10;

/**
 * Terminals that bound themselves again under the serial number of a device this company deleted.
 * Nothing exists for them until an administrator approves one here: approval adds it back as a new
 * device (it takes a licence seat), rejection leaves it out. Shown only while there are any.
 */
export function RequestsPanel({ onApproved }: { onApproved: () => void }) {
  const { t } = useLingui();
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<RequestPage | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(() => {
    setFailed(false);
    api.get<RequestPage>('/v1/devices/requests', { query: { pageSize: PAGE_SIZE, cursor: cursors.at(-1) }, quiet: true, silent: true }).then(setPage, () => setFailed(true));
  }, [cursors]);
  useEffect(load, [load]);

  // The last request of a later page settled: go back to the first page.
  useEffect(() => {
    if (page && page.items.length === 0 && cursors.length > 1) setCursors([undefined]);
  }, [page, cursors]);

  if (failed) {
    return (
      <Alert color="red" variant="light" data-testid="device-requests-failed">
        <Group justify="space-between">
          <Text size="sm">
            <Trans>Terminals asking to be added again could not be loaded.</Trans>
          </Text>
          <Button size="xs" variant="default" onClick={load}>
            <Trans>Retry</Trans>
          </Button>
        </Group>
      </Alert>
    );
  }
  if (!page || (page.items.length === 0 && cursors.length === 1)) return null;

  const settle = (request: DeviceRequest, approve: boolean) => {
    setBusy(request.requestKey);
    const path = `/v1/devices/requests/${request.requestKey}`;
    const serial = request.serial;
    (approve ? api.post(path, { version: request.version }) : api.del(path, { query: { version: request.version } }))
      .then(
        () => {
          notifySuccess(approve ? t`${serial} is added again` : t`${serial} stays deleted`);
          if (approve) onApproved();
        },
        () => undefined,
      )
      .finally(() => {
        setBusy(null);
        load();
      });
  };

  const confirm = (request: DeviceRequest, approve: boolean) => {
    const serial = request.serial;
    modals.openConfirmModal({
      title: approve ? t`Add the terminal again` : t`Reject the terminal`,
      children: (
        <Text size="sm">
          {approve
            ? t`Approve only if you know why ${serial} is back. It is added as a new device with the default settings and no authorizations, and takes a licence seat.`
            : t`${serial} cannot connect. If it binds again, it asks again.`}
        </Text>
      ),
      labels: { confirm: approve ? t`Add again` : t`Reject`, cancel: t`Cancel` },
      confirmProps: { color: approve ? 'orange' : 'red' },
      onConfirm: () => settle(request, approve),
    });
  };

  const count = formatNumber(page.items.length);
  return (
    <Alert color="orange" variant="light" icon={<IconDeviceDesktopPlus size={18} />} title={t`Deleted terminals ask to be added again`} data-testid="device-requests">
      <Stack gap="sm">
        <Text size="sm">
          <Trans>
            These terminals bound themselves with your device binding code under the serial number of a device you deleted ({count} on this page). They cannot connect until you add them again.
          </Trans>
        </Text>
        <ScrollTable>
          <Table withTableBorder fz="sm" verticalSpacing={4} className={tables.oneLine} data-testid="device-requests-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t`Serial number`}</Table.Th>
                <Table.Th>{t`Model`}</Table.Th>
                <Table.Th>{t`MAC address`}</Table.Th>
                <Table.Th>{t`Deleted at`}</Table.Th>
                <Table.Th>{t`Asked at`}</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.items.map((request) => (
                <Table.Tr key={request.requestKey} data-testid="device-request">
                  <Table.Td>{request.serial}</Table.Td>
                  <Table.Td>{request.model || '—'}</Table.Td>
                  <Table.Td>{request.mac}</Table.Td>
                  <Table.Td>{formatTime(request.deleteTime)}</Table.Td>
                  <Table.Td>{formatTime(request.requestTime)}</Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="compact-xs" color="orange" loading={busy === request.requestKey} disabled={busy !== null} onClick={() => confirm(request, true)} data-testid="device-request-approve">
                        <Trans>Add again</Trans>
                      </Button>
                      <Button size="compact-xs" variant="default" disabled={busy !== null} onClick={() => confirm(request, false)} data-testid="device-request-reject">
                        <Trans>Reject</Trans>
                      </Button>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
        {(cursors.length > 1 || page.nextCursor) && (
          <Group justify="flex-end">
            <CursorPager cursors={cursors} nextCursor={page.nextCursor} onChange={setCursors} />
          </Group>
        )}
      </Stack>
    </Alert>
  );
}
