import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Input, Menu, Paper, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconEye, IconRefresh, IconSearch, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { api, notifySuccess } from '../../app/api.ts';
import { formatNumber, formatShortTime } from '../../app/format.ts';
import { invalidate, useList, useUrlFilters } from '../../app/queries.ts';
import { getUser } from '../../app/session.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { ListFrame, RowMenu, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { OnlineBadge } from '../devices/parts.tsx';
import { intercomPath, intercomScreen, type IntercomItem, type IntercomPage } from './api.ts';
import { KindBadge, SignalBars } from './parts.tsx';

const PAGE_SIZE = 20;
/** Presence changes at any time; the list follows it this often. */
const REFRESH_MS = 15_000;

type Filters = { keyword: string; kind: 'all' | 'doorStation' | 'indoorMonitor'; presence: 'all' | 'online' | 'offline' };
const NO_FILTERS: Filters = { keyword: '', kind: 'all', presence: 'all' };

/** Door stations and indoor monitors: search, type and state filters, totals, server-side pages, delete. */
export function IntercomListPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const [filters, setFilters] = useUrlFilters<Filters>(NO_FILTERS);
  const [draft, setDraft] = useState<Filters>(filters);

  const list = useList<IntercomItem, IntercomPage>({
    resource: 'intercom',
    path: '/v1/intercom/devices',
    query: {
      keyword: filters.keyword.trim() || undefined,
      kind: filters.kind === 'all' ? undefined : filters.kind,
      online: filters.presence === 'all' ? undefined : String(filters.presence === 'online'),
    },
    pageSize: PAGE_SIZE,
    refreshMs: REFRESH_MS,
  });
  const page = list.page;
  const search = () => setFilters(draft) || void list.refetch();
  const pick = (next: Filters) => {
    setDraft(next);
    setFilters(next);
  };
  const total = formatNumber(page?.total ?? 0);
  const online = formatNumber(page?.online ?? 0);
  const offline = formatNumber(page?.offline ?? 0);
  const filtered = !!(filters.keyword.trim() || filters.kind !== 'all' || filters.presence !== 'all');

  const remove = (device: IntercomItem) => {
    const deviceName = device.name;
    modals.openConfirmModal({
      title: t`Delete intercom`,
      children: <Text size="sm">{t`Delete ${deviceName}? It leaves this company, its number is freed and it can no longer connect.`}</Text>,
      labels: { confirm: t`Delete`, cancel: t`Cancel` },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        void api.del(intercomPath(device.deviceKey), { query: { version: device.version } }).then(
          () => {
            void invalidate('intercom', 'licences');
            notifySuccess(t`Deleted`);
          },
          () => undefined,
        ),
    });
  };

  const columns: Column<IntercomItem>[] = [
    {
      key: 'name',
      title: t`Device name`,
      sticky: 'start',
      render: (device) => (
        <Stack gap={0}>
          <Text size="sm" component={Link} to={intercomScreen(device.deviceKey)} c="blue.7" td="none" fw={500} truncate="end" maw={220} title={device.name}>
            {device.name}
          </Text>
          <Text size="xs" c="dimmed">
            {device.serial}
          </Text>
        </Stack>
      ),
    },
    {
      key: 'number',
      title: t`Number`,
      render: (device) =>
        device.number ? (
          <Text ff="monospace" size="sm" fw={600}>
            {device.number}
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            {t`Not set`}
          </Text>
        ),
    },
    { key: 'kind', title: t`Type`, render: (device) => <KindBadge kind={device.kind} /> },
    { key: 'model', title: t`Model`, render: (device) => device.model || '—' },
    {
      key: 'state',
      title: t`State`,
      render: (device) => (
        <Group wrap="nowrap" miw={80}>
          <OnlineBadge online={device.online} />
        </Group>
      ),
    },
    { key: 'signal', title: t`Signal strength`, render: (device) => <SignalBars dbm={device.signal} /> },
    { key: 'networkTime', title: t`Network access time`, render: (device) => formatShortTime(device.networkTime) },
    { key: 'clientName', title: t`Client name`, render: (device) => device.clientName || '—' },
    { key: 'lastSeen', title: t`Last online`, render: (device) => formatShortTime(device.lastSeenAt) },
    { key: 'appVersion', title: t`App version`, render: (device) => device.appVersion },
    {
      key: 'actions',
      sticky: 'end',
      width: 50,
      render: (device) => (
        <RowMenu>
          <Menu.Item leftSection={<IconEye size={14} />} onClick={() => navigate(intercomScreen(device.deviceKey))}>
            <Trans>Details</Trans>
          </Menu.Item>
          <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => remove(device)}>
            <Trans>Delete</Trans>
          </Menu.Item>
        </RowMenu>
      ),
    },
  ];

  const userCode = getUser()?.userCode ?? '';
  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group gap="sm" data-testid="intercom-totals">
            <Badge size="lg" variant="light" color="blue" w="max-content">
              <Trans>Total {total}</Trans>
            </Badge>
            <Badge size="lg" variant="light" color="teal" w="max-content">
              <Trans>Online {online}</Trans>
            </Badge>
            <Badge size="lg" variant="light" color="gray" w="max-content">
              <Trans>Offline {offline}</Trans>
            </Badge>
          </Group>
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <KeywordInput
                hint={t`Name, number, serial number, IP or MAC`}
                value={draft.keyword}
                onChange={(keyword) => setDraft({ ...draft, keyword })}
                onSearch={search}
                wide
                testId="intercom-keyword"
              />
              <Input.Wrapper label={t`Type`} labelElement="div">
                <SegmentedControl
                  display="flex"
                  value={draft.kind}
                  onChange={(v) => pick({ ...draft, kind: v as Filters['kind'] })}
                  data={[
                    { value: 'all', label: t`All` },
                    { value: 'doorStation', label: t`Door stations` },
                    { value: 'indoorMonitor', label: t`Indoor monitors` },
                  ]}
                  data-testid="intercom-kind"
                />
              </Input.Wrapper>
              <Input.Wrapper label={t`State`} labelElement="div">
                <SegmentedControl
                  display="flex"
                  value={draft.presence}
                  onChange={(v) => pick({ ...draft, presence: v as Filters['presence'] })}
                  data={[
                    { value: 'all', label: t`All` },
                    { value: 'online', label: t`Online` },
                    { value: 'offline', label: t`Offline` },
                  ]}
                  data-testid="intercom-presence"
                />
              </Input.Wrapper>
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="intercom-search">
                <Trans>Search</Trans>
              </Button>
            </Group>
            <Tooltip label={t`Refresh`}>
              <ActionIcon variant="default" size="lg" aria-label={t`Refresh`} onClick={() => void invalidate('intercom')}>
                <IconRefresh size={16} />
              </ActionIcon>
            </Tooltip>
          </Group>
          <ListFrame
            list={list}
            name="intercom"
            columns={columns}
            rowKey={(device) => device.deviceKey}
            rowProps={(device) => ({ 'data-testid': `intercom-row-${device.deviceKey}`, className: 'intercom-row' })}
            filtered={filtered}
            empty={
              <Stack align="center" gap="xs" maw={560}>
                <Text c="dimmed">{t`No intercoms yet.`}</Text>
                <Text size="sm" ta="center">
                  <Trans>
                    To add a door station or an indoor monitor, choose cloud binding in its settings and enter the server address and this device binding code:
                  </Trans>
                </Text>
                <Text ff="monospace" fw={700} size="lg" data-testid="intercom-binding-code">
                  {userCode}
                </Text>
              </Stack>
            }
            footer={null}
          />
        </Stack>
      </Paper>
    </ScreenPage>
  );
}
