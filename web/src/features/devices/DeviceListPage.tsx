import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ActionIcon, Badge, Button, Checkbox, CopyButton, Group, Input, Menu, Paper, SegmentedControl, Select, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconAdjustments, IconCheck, IconCopy, IconDots, IconDoorEnter, IconEye, IconRefresh, IconSearch, IconTrash, IconUsersGroup } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { api, notifySuccess } from '../../app/api.ts';
import { getUser } from '../../app/session.ts';
import { CursorPager } from '../../components/CursorPager.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { ScrollTable } from '../../components/ScrollTable.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import tables from '../../components/DataTable.module.css';
import { GroupManager } from '../people/GroupManager.tsx';
import { BatchSettingsModal } from './BatchSettingsModal.tsx';
import { RequestsPanel } from './RequestsPanel.tsx';
import { devicePath, deviceScreen, loadDeviceGroups, sendCommand, type Device, type DeviceGroup, type DevicePage } from './api.ts';
import { OnlineBadge } from './parts.tsx';
import { formatNumber } from '../../app/format.ts';

const PAGE_SIZE = 20;
/** While some online device on the page has unconfirmed settings, the page refreshes this often. */
const PENDING_REFRESH_MS = 3000;
/** Offline devices confirm nothing until they are back; their pending settings are followed slowly. */
const OFFLINE_REFRESH_MS = 15_000;

type Presence = 'all' | 'online' | 'offline';

interface Filters {
  keyword: string;
  groupKey: string | null;
  presence: Presence;
}

/** Face terminals: search, filters, totals, server-side pages, commands and batch configuration. */
export function DeviceListPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const [groups, setGroups] = useState<DeviceGroup[]>([]);
  const [draft, setDraft] = useState<Filters>({ keyword: '', groupKey: null, presence: 'all' });
  const [filters, setFilters] = useState<Filters>(draft);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<DevicePage | null>(null);
  const [failed, setFailed] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [groupsOpen, setGroupsOpen] = useState(false);
  const [batchOpen, setBatchOpen] = useState(false);

  const refreshGroups = useCallback(() => {
    loadDeviceGroups().then(setGroups, () => undefined);
  }, []);
  useEffect(refreshGroups, [refreshGroups]);

  const query = useMemo(
    () => ({
      keyword: filters.keyword.trim() || undefined,
      groupKey: filters.groupKey ?? undefined,
      online: filters.presence === 'all' ? undefined : String(filters.presence === 'online'),
    }),
    [filters],
  );

  // An answer to an older request (a search typed since) is dropped.
  const latest = useRef(0);
  const load = useCallback(
    async (quiet = false) => {
      const request = ++latest.current;
      if (!quiet) setFailed(false);
      try {
        const result = await api.get<DevicePage>('/v1/devices', { query: { ...query, pageSize: PAGE_SIZE, cursor: cursors.at(-1) }, quiet, silent: quiet });
        if (request !== latest.current) return;
        setPage(result);
        // Keep the choice of devices that are still on the page.
        setSelected((current) => new Set(result.items.map((d) => d.deviceKey).filter((k) => current.has(k))));
        setFailed(false);
      } catch {
        if (!quiet && request === latest.current) setFailed(true);
      }
    },
    [cursors, query],
  );
  useEffect(() => {
    setSelected(new Set());
    void load();
  }, [load]);

  // Settings just sent are confirmed by the devices within seconds; follow them.
  const unconfirmed = page?.items.filter((d) => d.pending.length > 0) ?? [];
  const refreshMs = unconfirmed.length === 0 ? 0 : unconfirmed.some((d) => d.online) ? PENDING_REFRESH_MS : OFFLINE_REFRESH_MS;
  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(() => void load(true), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, load]);

  const search = () => {
    setFilters(draft);
    setCursors([undefined]);
  };

  const items = page?.items ?? [];
  const total = formatNumber(page?.total ?? 0);
  const online = formatNumber(page?.online ?? 0);
  const offline = formatNumber(page?.offline ?? 0);
  const groupName = (key: string | null) => (key ? (groups.find((g) => g.groupKey === key)?.name ?? '') : '');
  const allChecked = items.length > 0 && items.every((d) => selected.has(d.deviceKey));
  const filtered = !!(filters.keyword.trim() || filters.groupKey || filters.presence !== 'all');

  const toggle = (key: string) => {
    const next = new Set(selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setSelected(next);
  };

  const openDoor = (device: Device) => {
    const deviceName = device.name;
    return sendCommand(device.deviceKey, 'openDoor').then(
      () => notifySuccess(t`Open-door command sent to ${deviceName}`),
      () => undefined,
    );
  };

  const remove = (device: Device) => {
    const deviceName = device.name;
    modals.openConfirmModal({
      title: t`Unbind device`,
      children: (
        <Stack gap="xs">
          <Text size="sm">{t`Unbind ${deviceName}? It leaves this company and stops receiving settings and authorizations.`}</Text>
          <Text size="sm" c="dimmed">{t`If the terminal binds again, it waits here until you add it again.`}</Text>
        </Stack>
      ),
      labels: { confirm: t`Unbind`, cancel: t`Cancel` },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        void api.del(devicePath(device.deviceKey), { query: { version: device.version } }).then(
          () => {
            void load();
            notifySuccess(t`Deleted`);
          },
          () => undefined,
        ),
    });
  };

  return (
    <ScreenPage>
      <RequestsPanel onApproved={() => void load()} />
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group gap="sm" data-testid="device-totals">
            <Badge size="lg" variant="light" color="blue">
              <Trans>Total {total}</Trans>
            </Badge>
            <Badge size="lg" variant="light" color="teal">
              <Trans>Online {online}</Trans>
            </Badge>
            <Badge size="lg" variant="light" color="gray">
              <Trans>Offline {offline}</Trans>
            </Badge>
          </Group>
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <TextInput
                label={t`Keyword`}
                placeholder={t`Name, serial number, IP or MAC`}
                title={t`Name, serial number, IP or MAC`}
                value={draft.keyword}
                onChange={(e) => setDraft({ ...draft, keyword: e.currentTarget.value })}
                onKeyDown={(e) => e.key === 'Enter' && search()}
                style={{ flex: '1 1 300px', maxWidth: 400 }}
                miw={260}
                data-testid="device-keyword"
              />
              <Select
                label={t`Group`}
                clearable
                data={groups.map((g) => ({ value: g.groupKey, label: g.name }))}
                value={draft.groupKey}
                onChange={(v) => setDraft({ ...draft, groupKey: v })}
                w={180}
                data-testid="device-group-filter"
              />
              <Input.Wrapper label={t`State`} labelElement="div" data-testid="device-presence-field">
                <SegmentedControl
                  display="flex"
                  value={draft.presence}
                  onChange={(v) => {
                    const next = { ...draft, presence: v as Presence };
                    setDraft(next);
                    setFilters(next);
                    setCursors([undefined]);
                  }}
                  data={[
                    { value: 'all', label: t`All` },
                    { value: 'online', label: t`Online` },
                    { value: 'offline', label: t`Offline` },
                  ]}
                  data-testid="device-presence"
                />
              </Input.Wrapper>
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="device-search">
                <Trans>Search</Trans>
              </Button>
            </Group>
            <Group gap="xs">
              <Tooltip label={t`Refresh`}>
                <ActionIcon variant="default" size="lg" aria-label={t`Refresh`} onClick={() => void load()}>
                  <IconRefresh size={16} />
                </ActionIcon>
              </Tooltip>
              <Button variant="default" leftSection={<IconUsersGroup size={16} />} onClick={() => setGroupsOpen(true)}>
                <Trans>Groups</Trans>
              </Button>
            </Group>
          </Group>

          {selected.size > 0 && (
            <Group gap="xs" data-testid="batch-bar">
              <Text size="sm">
                <Trans>{selected.size} selected</Trans>
              </Text>
              <Button size="xs" variant="light" leftSection={<IconAdjustments size={14} />} onClick={() => setBatchOpen(true)} data-testid="batch-configure">
                <Trans>Batch configuration</Trans>
              </Button>
            </Group>
          )}

          <ScrollTable>
            <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="device-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={40}>
                    <Checkbox aria-label={t`Select all`} checked={allChecked} onChange={() => setSelected(allChecked ? new Set() : new Set(items.map((d) => d.deviceKey)))} />
                  </Table.Th>
                  <Table.Th>{t`Device name`}</Table.Th>
                  <Table.Th>{t`State`}</Table.Th>
                  <Table.Th>{t`Group`}</Table.Th>
                  <Table.Th>{t`App version`}</Table.Th>
                  <Table.Th>{t`IP address`}</Table.Th>
                  <Table.Th>{t`MAC address`}</Table.Th>
                  <Table.Th>{t`Sync`}</Table.Th>
                  <Table.Th w={50} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((device) => {
                  const waiting = device.pending.length;
                  return (
                    <Table.Tr key={device.deviceKey} data-testid={`device-row-${device.deviceKey}`} className="device-row">
                      <Table.Td>
                        <Checkbox aria-label={device.name} checked={selected.has(device.deviceKey)} onChange={() => toggle(device.deviceKey)} />
                      </Table.Td>
                      <Table.Td>
                        <Stack gap={0}>
                          <Text size="sm" component={Link} to={deviceScreen(device.deviceKey)} c="blue.7" td="none" fw={500} truncate="end" maw={240} title={device.name}>
                            {device.name}
                          </Text>
                          <Text size="xs" c="dimmed">
                            {device.serial}
                          </Text>
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <OnlineBadge online={device.online} />
                          {device.replacement && (
                            <Tooltip label={t`A terminal asks to replace this device; open it to approve or reject`}>
                              <Badge color="orange" variant="filled" data-testid="replacement-pending">
                                <Trans>Replacement pending</Trans>
                              </Badge>
                            </Tooltip>
                          )}
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <Truncated text={groupName(device.groupKey)} maw={160} />
                      </Table.Td>
                      <Table.Td>{device.appVersion}</Table.Td>
                      <Table.Td>{device.ip}</Table.Td>
                      <Table.Td ff="monospace" fz="sm">
                        {device.mac}
                      </Table.Td>
                      <Table.Td>
                        {waiting > 0 ? (
                          <Tooltip label={t`Settings the device has not confirmed yet`}>
                            <Badge color="orange" variant="light" data-testid="pending-sync">
                              <Trans>Pending sync {waiting}</Trans>
                            </Badge>
                          </Tooltip>
                        ) : (
                          <Badge color="gray" variant="transparent">
                            <Trans>Synced</Trans>
                          </Badge>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Menu position="bottom-end" withinPortal>
                          <Menu.Target>
                            <ActionIcon variant="subtle" aria-label={t`Actions`}>
                              <IconDots size={16} />
                            </ActionIcon>
                          </Menu.Target>
                          <Menu.Dropdown>
                            <Menu.Item leftSection={<IconEye size={14} />} onClick={() => navigate(deviceScreen(device.deviceKey))}>
                              <Trans>Details</Trans>
                            </Menu.Item>
                            <Menu.Item leftSection={<IconDoorEnter size={14} />} onClick={() => void openDoor(device)}>
                              <Trans>Open door</Trans>
                            </Menu.Item>
                            <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => remove(device)}>
                              <Trans>Delete</Trans>
                            </Menu.Item>
                          </Menu.Dropdown>
                        </Menu>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </ScrollTable>

          {page && items.length === 0 && !failed && (
            <Stack align="center" py="xl" gap="xs" data-testid="device-empty">
              <Text c="dimmed">{filtered ? t`No device matches these filters.` : t`No devices yet.`}</Text>
              {!filtered && <AddTerminalHint />}
            </Stack>
          )}
          {failed && (
            <Stack align="center" py="xl" gap="xs" data-testid="device-error">
              <Text c="red">
                <Trans>The list could not be loaded.</Trans>
              </Text>
              <Button variant="light" onClick={() => void load()}>
                <Trans>Retry</Trans>
              </Button>
            </Stack>
          )}

          <Group justify="flex-end">
            <CursorPager cursors={cursors} nextCursor={page?.nextCursor} onChange={setCursors} />
          </Group>
        </Stack>
      </Paper>
      <GroupManager kind="device" opened={groupsOpen} onClose={() => setGroupsOpen(false)} onChanged={refreshGroups} />
      <BatchSettingsModal
        deviceKeys={[...selected]}
        opened={batchOpen}
        onClose={() => setBatchOpen(false)}
        onDone={() => void load()}
      />
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
            <Button size="xs" variant="light" leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />} onClick={copy} data-testid="copy-binding-code">
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
