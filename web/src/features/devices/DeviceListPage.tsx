import { useEffect, useState } from 'react';
import { ActionIcon, Badge, Button, CopyButton, Group, Menu, Paper, Stack, Text, Tooltip } from '@mantine/core';
import {
  IconAdjustments,
  IconCheck,
  IconCopy,
  IconDoorEnter,
  IconEye,
  IconLock,
  IconRefresh,
  IconShieldCheck,
  IconSearch,
  IconTrash,
  IconUsersGroup,
} from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { getUser } from '../../app/session.ts';
import { invalidate, useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { ListFrame, MonoCell, RowMenu, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { confirmAction } from '../confirm.tsx';
import { GroupManager } from '../people/GroupManager.tsx';
import { useGroups } from '../people/api.ts';
import { BatchSettingsModal } from './BatchSettingsModal.tsx';
import { DoorModeBadge, DoorModeDialog, ExemptionsDialog } from './DoorModes.tsx';
import { RequestsPanel } from './RequestsPanel.tsx';
import { SeatsLine } from './SeatsLine.tsx';
import { commandsKey, devicePath, deviceScreen, sendCommand, type Device, type DevicePage } from './api.ts';
import { DeviceNameCell, OnlineBadge, PresenceFilter, PresenceTotals, type Presence } from './parts.tsx';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { GroupFilter } from '../../components/GroupFilter.tsx';

/** While some online device on the page has unconfirmed settings, the page refreshes this often. */
const PENDING_REFRESH_MS = 3000;
/** Offline devices confirm nothing until they are back; their pending settings are followed slowly. */
const OFFLINE_REFRESH_MS = 15_000;

/** Presence and sync marks are followed this often while nothing is pending. */
const PRESENCE_REFRESH_MS = 15_000;

type Filters = { keyword: string; groupKey: string; presence: Presence };
const NO_FILTERS: Filters = { keyword: '', groupKey: '', presence: 'all' };

/** Face terminals: search, filters, totals, server-side pages, commands and batch configuration. */
export function DeviceListPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const groups = useGroups('device').data ?? [];
  const filterState = useListFilters(() => NO_FILTERS, { applied: useUrlFilters<Filters>(NO_FILTERS) });
  const { draft, filters } = filterState;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [groupsOpen, setGroupsOpen] = useState(false);
  const [batchOpen, setBatchOpen] = useState(false);
  const [doorModeOpen, setDoorModeOpen] = useState(false);
  const [exemptionsOpen, setExemptionsOpen] = useState(false);

  const pageSize = usePageSize('devices');
  const list = useList<Device, DevicePage>({
    resource: 'devices',
    path: '/v1/devices',
    query: {
      keyword: filters.keyword.trim() || undefined,
      groupKey: filters.groupKey || undefined,
      online: filters.presence === 'all' ? undefined : String(filters.presence === 'online'),
    },
    pageSize: pageSize.value,
    // Settings just sent are confirmed within seconds by online devices; offline ones confirm
    // nothing until they are back; presence changes at any time.
    refreshMs: (page) => {
      const unconfirmed = page?.items.filter((d) => d.pending.length > 0) ?? [];
      return unconfirmed.some((d) => d.online) ? PENDING_REFRESH_MS : unconfirmed.length > 0 ? OFFLINE_REFRESH_MS : PRESENCE_REFRESH_MS;
    },
  });
  const page = list.page;
  // Keep the choice of devices that are still on the page.
  const shownKeys = list.items.map((d) => d.deviceKey).join();
  useEffect(() => {
    const shown = new Set(shownKeys.split(','));
    setSelected((current) => (current.size === 0 ? current : new Set([...current].filter((k) => shown.has(k)))));
  }, [shownKeys]);

  // Search with the filters already applied reads the list again.
  const search = () => filterState.search(list.refetch);

  const groupName = (key: string | null) => (key ? (groups.find((g) => g.groupKey === key)?.name ?? '') : '');
  const filtered = !!(filters.keyword.trim() || filters.groupKey || filters.presence !== 'all');

  const openDoor = useWrite((device: Device) => sendCommand(device.deviceKey, 'openDoor'), {
    touches: (_, device) => [commandsKey(device.deviceKey)],
    success: (_, device) => {
      const deviceName = device.name;
      return t`Open-door command sent to ${deviceName}`;
    },
  });

  const unbind = useWrite((device: Device) => api.del(devicePath(device.deviceKey), { query: { version: device.version } }), {
    touches: ['devices', 'licences', 'pickers'],
    success: t`Deleted`,
  });
  const remove = (device: Device) => {
    const deviceName = device.name;
    confirmAction({
      title: t`Unbind device`,
      text: (
        <Stack gap="xs">
          <Text size="sm">{t`Unbind ${deviceName}? It leaves this company and stops receiving settings and authorizations.`}</Text>
          <Text size="sm" c="dimmed">{t`If the terminal binds again, it waits here until you add it again.`}</Text>
        </Stack>
      ),
      confirm: t`Unbind`,
      color: 'red',
      onConfirm: () => unbind.mutate(device),
    });
  };

  const columns: Column<Device>[] = [
    {
      key: 'name',
      title: t`Device name`,
      sticky: 'start',
      render: (device) => <DeviceNameCell device={device} to={deviceScreen(device.deviceKey)} maw={240} />,
    },
    {
      key: 'state',
      title: t`State`,
      render: (device) => (
        <Group gap={4} wrap="nowrap">
          <OnlineBadge online={device.online} />
          <DoorModeBadge doorMode={device.doorMode} />
          {device.replacement && (
            <Tooltip label={t`A terminal asks to replace this device; open it to approve or reject`}>
              <Badge color="orange" variant="filled" data-testid="replacement-pending">
                <Trans>Replacement pending</Trans>
              </Badge>
            </Tooltip>
          )}
        </Group>
      ),
    },
    { key: 'group', title: t`Group`, render: (device) => <Truncated text={groupName(device.groupKey)} maw={160} /> },
    { key: 'appVersion', title: t`App version`, render: (device) => device.appVersion },
    { key: 'ip', title: t`IP address`, render: (device) => device.ip },
    {
      key: 'mac',
      title: t`MAC address`,
      render: (device) => <MonoCell text={device.mac} />,
    },
    {
      key: 'sync',
      title: t`Sync`,
      render: (device) => {
        const waiting = device.pending.length;
        return waiting > 0 ? (
          <Tooltip label={t`Settings the device has not confirmed yet`}>
            <Badge color="orange" variant="light" data-testid="pending-sync">
              <Trans>Pending sync {waiting}</Trans>
            </Badge>
          </Tooltip>
        ) : (
          <Badge color="gray" variant="transparent">
            <Trans>Synced</Trans>
          </Badge>
        );
      },
    },
    {
      key: 'actions',
      sticky: 'end',
      width: 50,
      render: (device) => (
        <RowMenu>
          <Menu.Item leftSection={<IconEye size={14} />} onClick={() => navigate(deviceScreen(device.deviceKey))}>
            <Trans>Details</Trans>
          </Menu.Item>
          <Menu.Item leftSection={<IconDoorEnter size={14} />} onClick={() => openDoor.mutate(device)}>
            <Trans>Open door</Trans>
          </Menu.Item>
          <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => remove(device)}>
            <Trans>Delete</Trans>
          </Menu.Item>
        </RowMenu>
      ),
    },
  ];

  return (
    <ScreenPage>
      <RequestsPanel />
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <PresenceTotals page={page} testId="device-totals" />
          <SeatsLine />
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <KeywordInput
                hint={t`Name, serial number, IP or MAC`}
                value={draft.keyword}
                onChange={(keyword) => filterState.change({ keyword })}
                onSearch={search}
                wide
                testId="device-keyword"
              />
              <GroupFilter groups={groups} value={draft.groupKey} onChange={(groupKey) => filterState.change({ groupKey })} testId="device-group-filter" />
              <PresenceFilter value={draft.presence} onChange={(presence) => filterState.apply({ ...draft, presence })} testId="device-presence" />
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="device-search">
                <Trans>Search</Trans>
              </Button>
            </Group>
            <Group gap="xs">
              <Tooltip label={t`Refresh`}>
                <ActionIcon variant="default" size="lg" aria-label={t`Refresh`} onClick={() => void invalidate('devices')}>
                  <IconRefresh size={16} />
                </ActionIcon>
              </Tooltip>
              <Button variant="default" leftSection={<IconUsersGroup size={16} />} onClick={() => setGroupsOpen(true)}>
                <Trans>Groups</Trans>
              </Button>
              <Button variant="default" color="red" leftSection={<IconLock size={16} />} onClick={() => setDoorModeOpen(true)} data-testid="door-mode-open">
                <Trans>Door mode</Trans>
              </Button>
              <Button variant="default" leftSection={<IconShieldCheck size={16} />} onClick={() => setExemptionsOpen(true)} data-testid="exemptions-open">
                <Trans>Exempt from lockdown</Trans>
              </Button>
            </Group>
          </Group>

          <ListFrame
            list={list}
            name="device"
            pageSize={pageSize}
            columns={columns}
            rowKey={(device) => device.deviceKey}
            rowProps={(device) => ({ 'data-testid': `device-row-${device.deviceKey}`, className: 'device-row' })}
            filtered={filtered}
            empty={
              <>
                <Text c="dimmed">{t`No devices yet.`}</Text>
                <AddTerminalHint />
              </>
            }
            selection={{ selected, onChange: setSelected, label: (device) => device.name }}
            bulk={
              <Button size="xs" variant="light" leftSection={<IconAdjustments size={14} />} onClick={() => setBatchOpen(true)} data-testid="batch-configure">
                <Trans>Batch configuration</Trans>
              </Button>
            }
            footer={null}
          />
        </Stack>
      </Paper>
      <GroupManager kind="device" opened={groupsOpen} onClose={() => setGroupsOpen(false)} />
      <BatchSettingsModal deviceKeys={[...selected]} opened={batchOpen} onClose={() => setBatchOpen(false)} />
      <DoorModeDialog opened={doorModeOpen} onClose={() => setDoorModeOpen(false)} />
      <ExemptionsDialog opened={exemptionsOpen} onClose={() => setExemptionsOpen(false)} />
    </ScreenPage>
  );
}

/** How a first terminal gets here: the binding code to type on it, with a copy button. */
function AddTerminalHint() {
  const { t } = useLingui();
  const userCode = getUser()?.userCode ?? '';
  return (
    <Stack align="center" gap="xs" maw={560} data-testid="device-add-hint">
      <Text size="sm" ta="center">
        <Trans>To add a terminal, open its settings, choose cloud binding and enter the server address and this device binding code:</Trans>
      </Text>
      <Group gap="xs">
        <Text ff="monospace" fw={700} size="lg" data-testid="device-binding-code">
          {userCode}
        </Text>
        <CopyButton value={userCode}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant="light"
              leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
              onClick={copy}
              data-testid="copy-binding-code"
            >
              {copied ? t`Copied` : t`Copy`}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Text size="xs" c="dimmed" ta="center">
        <Trans>The server address is under Settings, Ports and versions. Each terminal takes a licence seat; it appears here once it is bound.</Trans>
      </Text>
    </Stack>
  );
}
