import { useEffect, useState } from 'react';
import { Button, Group, Menu, Paper, Select, Stack, Text } from '@mantine/core';
import { IconPlus, IconRefresh } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { SYNC_STATES, VALIDITY_STATES } from '@passcloud/functions/contract/authorities';
import { invalidate, useList, useUrlFilters, useWrite } from '../../../app/queries.ts';
import { usePageSize } from '../../../components/usePageSize.ts';
import { ListFrame, RowMenu, type Column } from '../../../components/ListFrame.tsx';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import {
  PENDING_REFRESH_MS,
  SCREENS,
  useAllDevices,
  retrySync,
  revoke,
  type AuthorityItem,
  type AuthorityPage,
  type SetType,
  type SyncState,
  type ValidityState,
} from './api.ts';
import { EditValidityModal } from './EditValidityModal.tsx';
import { SyncStateCell, ValidityCell, syncTime, useAuthorityLabels } from './parts.tsx';
import { KeywordInput } from '../../../components/KeywordInput.tsx';
import { PersonName } from '../../../components/PersonName.tsx';
import { useListFilters } from '../../../components/useListFilters.ts';
import { confirmAction } from '../../confirm.tsx';
import { SearchButtons } from '../../filters.tsx';
import { ScheduleSelect } from '../schedules/ScheduleSelect.tsx';

type Filters = {
  keyword: string;
  deviceKey: string;
  validity: ValidityState | '';
  state: SyncState | '';
  scheduleKey: string;
};
const NO_FILTERS: Filters = { keyword: '', deviceKey: '', validity: '', state: '', scheduleKey: '' };

/**
 * Pass authority (setType 0) or blacklist monitoring (setType 1): who may pass (or is watched
 * for) on which device, until when, and whether the device has it yet. Rows waiting for their
 * device are read again every few seconds.
 */
export function AuthorityListPage({ setType }: { setType: SetType }) {
  const { t } = useLingui();
  const labels = useAuthorityLabels();
  const devices = useAllDevices().data ?? [];
  const filterState = useListFilters(() => NO_FILTERS, { applied: useUrlFilters<Filters>(NO_FILTERS) });
  const { draft, filters } = filterState;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<AuthorityItem | null>(null);

  const pageSize = usePageSize('authorities');
  const list = useList<AuthorityItem, AuthorityPage>({
    resource: 'authorities',
    path: '/v1/authorities',
    query: {
      setType,
      keyword: filters.keyword.trim() || undefined,
      deviceKey: filters.deviceKey || undefined,
      validity: filters.validity || undefined,
      state: filters.state || undefined,
      scheduleKey: (setType === 0 && filters.scheduleKey) || undefined,
    },
    pageSize: pageSize.value,
    // Rows waiting for their device are read again every few seconds.
    refreshMs: (page) => (page?.items.some((i) => i.syncState === 'pending') ? PENDING_REFRESH_MS : false),
  });
  const items = list.items;
  // Only rows whose sync failed can be chosen (to send again); a row that is no longer failed drops out.
  const failedKeys = items
    .filter((i) => i.syncState === 'failed')
    .map((i) => i.authorityKey)
    .join();
  useEffect(() => {
    const failed = new Set(failedKeys.split(','));
    setSelected((current) => (current.size === 0 ? current : new Set([...current].filter((k) => failed.has(k)))));
  }, [failedKeys]);

  const search = () => filterState.search(list.refetch);
  const reload = () => void invalidate('authorities');

  // Sent again or not (the request client says why), the rows are read again.
  const retrying = useWrite((keys: string[]) => retrySync(keys), {
    touches: ['authorities'],
    refreshOnFailure: true,
    success: (_, keys) => plural(keys.length, { one: 'Sent to the device again', other: '# authorizations sent to their devices again' }),
    onSuccess: () => setSelected(new Set()),
  });
  const retry = (keys: string[]) => retrying.mutate(keys);
  const removal = useWrite((item: AuthorityItem) => revoke(item), { touches: ['authorities'], refreshOnFailure: true, success: t`Removed` });

  const remove = (item: AuthorityItem) =>
    confirmAction({
      title: setType === 0 ? t`Remove authorization` : t`Remove from the blacklist`,
      text:
        setType === 0
          ? t`${item.name} will no longer pass on ${item.deviceName}. The device removes the face at its next sync.`
          : t`${item.name} will no longer be watched for on ${item.deviceName}. The device removes the face at its next sync.`,
      confirm: t`Remove`,
      color: 'red',
      testId: 'remove',
      onConfirm: () => removal.mutate(item),
    });

  const columns: Column<AuthorityItem>[] = [
    {
      key: 'name',
      title: t`Name`,
      sticky: 'start',
      render: (item) => <PersonName name={item.name} avatar={item.avatar} maw={160} />,
    },
    { key: 'personId', title: t`Personnel ID`, render: (item) => <Truncated text={item.personId} maw={140} /> },
    {
      key: 'kind',
      title: t`Type`,
      render: (item) => labels.kind[item.personKind],
      folds: (item) => labels.kind[item.personKind],
      caption: (item) => (item.personKind === 'visitor' ? t`Everyone on this page is a visitor.` : t`Everyone on this page is an employee.`),
    },
    {
      key: 'device',
      title: t`Device`,
      render: (item) => <Truncated text={item.deviceName} maw={160} />,
      folds: (item) => item.deviceName,
      caption: (item) => t`Every row on this page is for the device ${item.deviceName}.`,
    },
    { key: 'validity', title: t`Validity`, render: (item) => <ValidityCell item={item} labels={labels} /> },
    ...(setType === 0
      ? [
          {
            key: 'schedule',
            title: t`Access schedule`,
            // Shown when a row of the page has one: without, every row passes at any time.
            present: (item: AuthorityItem) => !!item.scheduleKey,
            render: (item: AuthorityItem) => <Truncated text={item.scheduleName ?? t`At any time`} maw={140} />,
          },
        ]
      : []),
    { key: 'sync', title: t`Sync state`, render: (item) => <SyncStateCell item={item} labels={labels} /> },
    { key: 'syncTime', title: t`Sync time`, render: (item) => syncTime(item) },
    {
      key: 'actions',
      sticky: 'end',
      width: 50,
      render: (item) => (
        <RowMenu testId="authority-actions">
          <Menu.Item onClick={() => setEditing(item)} data-testid="action-edit">
            <Trans>Change validity</Trans>
          </Menu.Item>
          {item.syncState === 'failed' && (
            <Menu.Item onClick={() => retry([item.authorityKey])} data-testid="action-retry">
              <Trans>Retry sync</Trans>
            </Menu.Item>
          )}
          <Menu.Item color="red" onClick={() => remove(item)} data-testid="action-remove">
            <Trans>Remove</Trans>
          </Menu.Item>
        </RowMenu>
      ),
    },
  ];
  const filtered = !!(filters.keyword.trim() || filters.deviceKey || filters.validity || filters.state || (setType === 0 && filters.scheduleKey));

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <KeywordInput
                hint={t`Name or personnel ID`}
                value={draft.keyword}
                onChange={(keyword) => filterState.change({ keyword })}
                onSearch={search}
                testId="authority-keyword"
              />
              <Select
                label={t`Device`}
                placeholder={t`Any device`}
                clearable
                searchable
                data={devices.map((d) => ({ value: d.deviceKey, label: d.name }))}
                value={draft.deviceKey || null}
                onChange={(deviceKey) => filterState.change({ deviceKey: deviceKey ?? '' })}
                w={200}
                data-testid="authority-device"
              />
              <Select
                label={t`Validity`}
                placeholder={t`Any validity`}
                clearable
                data={VALIDITY_STATES.map((value) => ({ value, label: labels.validity[value] }))}
                value={draft.validity || null}
                onChange={(validity) => filterState.change({ validity: (validity ?? '') as Filters['validity'] })}
                w={170}
                data-testid="authority-validity"
              />
              <Select
                label={t`Sync state`}
                placeholder={t`Any state`}
                clearable
                data={SYNC_STATES.map((value) => ({ value, label: labels.sync[value] }))}
                value={draft.state || null}
                onChange={(state) => filterState.change({ state: (state ?? '') as Filters['state'] })}
                w={160}
                data-testid="authority-state"
              />
              {setType === 0 && (
                <ScheduleSelect
                  value={draft.scheduleKey || null}
                  onChange={(scheduleKey) => filterState.change({ scheduleKey: scheduleKey ?? '' })}
                  placeholder={t`Any schedule`}
                  w={180}
                  testId="authority-schedule"
                />
              )}
              <SearchButtons name="authority" onSearch={search} onReset={filterState.reset} />
            </Group>
            <Button leftSection={<IconPlus size={16} />} component={Link} to={SCREENS[setType].setting} data-testid="authority-add">
              {setType === 0 ? <Trans>Authorize</Trans> : <Trans>Add to blacklist</Trans>}
            </Button>
          </Group>

          <ListFrame
            list={list}
            name="authority"
            pageSize={pageSize}
            columns={columns}
            rowKey={(item) => item.authorityKey}
            rowProps={(item) => ({ 'data-testid': 'authority-row', 'data-key': item.authorityKey, 'data-state': item.syncState })}
            filtered={filtered}
            empty={
              <>
                <Text c="dimmed">{setType === 0 ? t`No one is authorized yet.` : t`No one is on the blacklist yet.`}</Text>
                <Button variant="light" component={Link} to={SCREENS[setType].setting}>
                  {setType === 0 ? <Trans>Authorize</Trans> : <Trans>Add to blacklist</Trans>}
                </Button>
              </>
            }
            selection={{
              selected,
              onChange: setSelected,
              label: (item) => item.name,
              selectable: (item) => item.syncState === 'failed',
              allLabel: t`Select all that failed`,
            }}
            bulk={
              <Button
                size="xs"
                variant="light"
                leftSection={<IconRefresh size={14} />}
                loading={retrying.isPending}
                onClick={() => retry([...selected])}
                data-testid="authority-retry-selected"
              >
                <Trans>Retry sync</Trans>
              </Button>
            }
            footer={null}
          />
        </Stack>
      </Paper>
      <EditValidityModal item={editing} onClose={() => setEditing(null)} onSaved={() => setEditing(null)} onReload={reload} />
    </ScreenPage>
  );
}
