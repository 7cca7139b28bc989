import { ActionIcon, Button, Group, Input, Menu, Paper, SegmentedControl, Stack, Text, Tooltip } from '@mantine/core';
import { IconEye, IconRefresh, IconSearch, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';

import { formatShortTime } from '../../app/format.ts';
import { invalidate, useList, useUrlFilters } from '../../app/queries.ts';
import { getUser } from '../../app/session.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { ListFrame, RowMenu, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { usePageSize } from '../../components/usePageSize.ts';

import { DeviceNameCell, OnlineBadge, PresenceFilter, PresenceTotals, type Presence } from '../devices/parts.tsx';
import { intercomScreen, type IntercomItem, type IntercomPage } from './api.ts';
import { KindBadge, SignalBars, useDeleteIntercom } from './parts.tsx';

/** Presence changes at any time; the list follows it this often. */
const REFRESH_MS = 15_000;

type Filters = { keyword: string; kind: 'all' | 'doorStation' | 'indoorMonitor'; presence: Presence };
const NO_FILTERS: Filters = { keyword: '', kind: 'all', presence: 'all' };

/** Door stations and indoor monitors: search, type and state filters, totals, server-side pages, delete. */
export function IntercomListPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const filterState = useListFilters(() => NO_FILTERS, { applied: useUrlFilters<Filters>(NO_FILTERS) });
  const { draft, filters } = filterState;

  const pageSize = usePageSize('intercoms');
  const list = useList<IntercomItem, IntercomPage>({
    resource: 'intercom',
    path: '/v1/intercom/devices',
    query: {
      keyword: filters.keyword.trim() || undefined,
      kind: filters.kind === 'all' ? undefined : filters.kind,
      online: filters.presence === 'all' ? undefined : String(filters.presence === 'online'),
    },
    pageSize: pageSize.value,
    refreshMs: REFRESH_MS,
  });
  const page = list.page;
  const search = () => filterState.search(list.refetch);
  const filtered = !!(filters.keyword.trim() || filters.kind !== 'all' || filters.presence !== 'all');

  const remove = useDeleteIntercom({ touches: ['intercom', 'licences'] });

  const columns: Column<IntercomItem>[] = [
    {
      key: 'name',
      title: t`Device name`,
      sticky: 'start',
      render: (device) => <DeviceNameCell device={device} to={intercomScreen(device.deviceKey)} maw={220} />,
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
          <PresenceTotals page={page} testId="intercom-totals" w="max-content" />
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <KeywordInput
                hint={t`Name, number, serial number, IP or MAC`}
                value={draft.keyword}
                onChange={(keyword) => filterState.change({ keyword })}
                onSearch={search}
                wide
                testId="intercom-keyword"
              />
              <Input.Wrapper label={t`Type`} labelElement="div">
                <SegmentedControl
                  display="flex"
                  value={draft.kind}
                  onChange={(v) => filterState.apply({ ...draft, kind: v as Filters['kind'] })}
                  data={[
                    { value: 'all', label: t`All` },
                    { value: 'doorStation', label: t`Door stations` },
                    { value: 'indoorMonitor', label: t`Indoor monitors` },
                  ]}
                  data-testid="intercom-kind"
                />
              </Input.Wrapper>
              <PresenceFilter value={draft.presence} onChange={(presence) => filterState.apply({ ...draft, presence })} testId="intercom-presence" />
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
            pageSize={pageSize}
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
