import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ActionIcon, Avatar, Button, Center, Checkbox, Group, Loader, Menu, Paper, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconDots, IconPlus, IconRefresh, IconSearch } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { SYNC_STATES, VALIDITY_STATES } from '@passcloud/functions/contract/authorities';
import { notifySuccess } from '../../../app/api.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { ScrollTable } from '../../../components/ScrollTable.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import tables from '../../../components/DataTable.module.css';
import type { PickerDevice } from '../../../app/pickers.ts';
import { PENDING_REFRESH_MS, SCREENS, listAuthorities, loadAllDevices, retrySync, revoke, type AuthorityItem, type AuthorityPage, type SetType, type SyncState, type ValidityState } from './api.ts';
import { EditValidityModal } from './EditValidityModal.tsx';
import { SyncStateCell, ValidityCell, syncTime, useAuthorityLabels } from './parts.tsx';

const PAGE_SIZE = 20;

interface Filters {
  keyword: string;
  deviceKey: string | null;
  validity: ValidityState | null;
  state: SyncState | null;
}
const NO_FILTERS: Filters = { keyword: '', deviceKey: null, validity: null, state: null };

/**
 * Pass authority (setType 0) or blacklist monitoring (setType 1): who may pass (or is watched
 * for) on which device, until when, and whether the device has it yet. Rows waiting for their
 * device are read again every few seconds.
 */
export function AuthorityListPage({ setType }: { setType: SetType }) {
  const { t } = useLingui();
  const labels = useAuthorityLabels();
  const [devices, setDevices] = useState<PickerDevice[]>([]);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<AuthorityPage | null>(null);
  const [failed, setFailed] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<AuthorityItem | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    loadAllDevices().then(setDevices, () => undefined);
  }, []);

  const query = useMemo(
    () => ({ setType, keyword: filters.keyword.trim() || undefined, deviceKey: filters.deviceKey ?? undefined, validity: filters.validity ?? undefined, state: filters.state ?? undefined }),
    [filters, setType],
  );

  // An answer to an older request (filters or page changed since) is dropped. A background
  // refresh shows neither the loading bar nor a toast, and keeps the rows on a failure.
  const latest = useRef(0);
  const load = useCallback(
    async (background = false) => {
      const request = ++latest.current;
      if (!background) setFailed(false);
      try {
        const answer = await listAuthorities({ ...query, pageSize: PAGE_SIZE, cursor: cursors.at(-1) }, background ? { quiet: true, silent: true } : {});
        if (request !== latest.current) return;
        setPage(answer);
        const failedKeys = new Set(answer.items.filter((i) => i.syncState === 'failed').map((i) => i.authorityKey));
        setSelected((current) => new Set([...current].filter((k) => failedKeys.has(k))));
      } catch {
        if (request === latest.current && !background) {
          setPage(null);
          setFailed(true);
        }
      }
    },
    [cursors, query],
  );
  useEffect(() => {
    void load();
  }, [load]);

  const items = page?.items ?? [];
  const anyPending = items.some((i) => i.syncState === 'pending');
  useEffect(() => {
    if (!anyPending) return;
    const timer = setTimeout(() => void load(true), PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [anyPending, page, load]);

  const search = () => {
    setFilters(draft);
    setCursors([undefined]);
  };
  const reset = () => {
    setDraft(NO_FILTERS);
    setFilters(NO_FILTERS);
    setCursors([undefined]);
  };

  const retry = async (keys: string[]) => {
    setBusy(true);
    try {
      await retrySync(keys);
      notifySuccess(plural(keys.length, { one: 'Sent to the device again', other: '# authorizations sent to their devices again' }));
      setSelected(new Set());
    } catch {
      // The request client has shown why.
    } finally {
      setBusy(false);
      void load();
    }
  };

  const remove = (item: AuthorityItem) =>
    modals.openConfirmModal({
      title: setType === 0 ? t`Remove authorization` : t`Remove from the blacklist`,
      children: (
        <Text size="sm">
          {setType === 0
            ? t`${item.name} will no longer pass on ${item.deviceName}. The device removes the face at its next sync.`
            : t`${item.name} will no longer be watched for on ${item.deviceName}. The device removes the face at its next sync.`}
        </Text>
      ),
      labels: { confirm: t`Remove`, cancel: t`Cancel` },
      confirmProps: { color: 'red', 'data-testid': 'confirm-remove' } as Record<string, string>,
      onConfirm: () =>
        void revoke(item).then(
          () => {
            notifySuccess(t`Removed`);
            void load();
          },
          () => void load(),
        ),
    });

  const failedOnPage = items.filter((i) => i.syncState === 'failed');
  const allChecked = failedOnPage.length > 0 && failedOnPage.every((i) => selected.has(i.authorityKey));
  const toggle = (key: string) => {
    const next = new Set(selected);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    setSelected(next);
  };
  const filtered = !!(filters.keyword.trim() || filters.deviceKey || filters.validity || filters.state);

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <TextInput
                label={t`Keyword`}
                placeholder={t`Name or personnel ID`}
                value={draft.keyword}
                onChange={(e) => setDraft({ ...draft, keyword: e.currentTarget.value })}
                onKeyDown={(e) => e.key === 'Enter' && search()}
                w={220}
                data-testid="authority-keyword"
              />
              <Select
                label={t`Device`}
                placeholder={t`Any device`}
                clearable
                searchable
                data={devices.map((d) => ({ value: d.deviceKey, label: d.name }))}
                value={draft.deviceKey}
                onChange={(deviceKey) => setDraft({ ...draft, deviceKey })}
                w={200}
                data-testid="authority-device"
              />
              <Select
                label={t`Validity`}
                placeholder={t`Any validity`}
                clearable
                data={VALIDITY_STATES.map((value) => ({ value, label: labels.validity[value] }))}
                value={draft.validity}
                onChange={(validity) => setDraft({ ...draft, validity: validity as ValidityState | null })}
                w={170}
                data-testid="authority-validity"
              />
              <Select
                label={t`Sync state`}
                placeholder={t`Any state`}
                clearable
                data={SYNC_STATES.map((value) => ({ value, label: labels.sync[value] }))}
                value={draft.state}
                onChange={(state) => setDraft({ ...draft, state: state as SyncState | null })}
                w={160}
                data-testid="authority-state"
              />
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="authority-search">
                <Trans>Search</Trans>
              </Button>
              <Button variant="default" onClick={reset} data-testid="authority-reset">
                <Trans>Reset</Trans>
              </Button>
            </Group>
            <Button leftSection={<IconPlus size={16} />} component={Link} to={SCREENS[setType].setting} data-testid="authority-add">
              {setType === 0 ? <Trans>Authorize</Trans> : <Trans>Add to blacklist</Trans>}
            </Button>
          </Group>

          {selected.size > 0 && (
            <Group gap="xs" data-testid="batch-bar">
              <Text size="sm">
                <Trans>{selected.size} selected</Trans>
              </Text>
              <Button size="xs" variant="light" leftSection={<IconRefresh size={14} />} loading={busy} onClick={() => void retry([...selected])} data-testid="authority-retry-selected">
                <Trans>Retry sync</Trans>
              </Button>
            </Group>
          )}

          <ScrollTable>
            <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="authority-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={40} miw={40} className={tables.stickyStart}>
                    <Checkbox
                      aria-label={t`Select all that failed`}
                      title={t`Select all that failed`}
                      disabled={failedOnPage.length === 0}
                      checked={allChecked}
                      onChange={() => setSelected(allChecked ? new Set() : new Set(failedOnPage.map((i) => i.authorityKey)))}
                      data-testid="authority-select-failed"
                    />
                  </Table.Th>
                  <Table.Th className={tables.stickyStart} style={{ '--sticky-offset': '40px' }}>
                    {t`Name`}
                  </Table.Th>
                  <Table.Th>{t`Personnel ID`}</Table.Th>
                  <Table.Th>{t`Type`}</Table.Th>
                  <Table.Th>{t`Device`}</Table.Th>
                  <Table.Th>{t`Validity`}</Table.Th>
                  <Table.Th>{t`Sync state`}</Table.Th>
                  <Table.Th>{t`Sync time`}</Table.Th>
                  <Table.Th w={50} className={tables.stickyEnd} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((item) => (
                  <Table.Tr key={item.authorityKey} data-testid="authority-row" data-key={item.authorityKey} data-state={item.syncState}>
                    <Table.Td className={tables.stickyStart}>
                      <Checkbox aria-label={item.name} disabled={item.syncState !== 'failed'} checked={selected.has(item.authorityKey)} onChange={() => toggle(item.authorityKey)} />
                    </Table.Td>
                    <Table.Td className={tables.stickyStart} style={{ '--sticky-offset': '40px' }}>
                      <Group gap="xs" wrap="nowrap">
                        <Avatar src={item.avatar} size={32} radius="xl" alt="">
                          {item.name.slice(0, 1)}
                        </Avatar>
                        <Truncated text={item.name} maw={160} />
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <Truncated text={item.personId} maw={140} />
                    </Table.Td>
                    <Table.Td>{labels.kind[item.personKind]}</Table.Td>
                    <Table.Td>
                      <Truncated text={item.deviceName} maw={160} />
                    </Table.Td>
                    <Table.Td>
                      <ValidityCell item={item} labels={labels} />
                    </Table.Td>
                    <Table.Td>
                      <SyncStateCell item={item} labels={labels} />
                    </Table.Td>
                    <Table.Td>{syncTime(item)}</Table.Td>
                    <Table.Td className={tables.stickyEnd}>
                      <Menu position="bottom-end" withinPortal>
                        <Menu.Target>
                          <ActionIcon variant="subtle" aria-label={t`Actions`} data-testid="authority-actions">
                            <IconDots size={16} />
                          </ActionIcon>
                        </Menu.Target>
                        <Menu.Dropdown>
                          <Menu.Item onClick={() => setEditing(item)} data-testid="action-edit">
                            <Trans>Change validity</Trans>
                          </Menu.Item>
                          {item.syncState === 'failed' && (
                            <Menu.Item onClick={() => void retry([item.authorityKey])} data-testid="action-retry">
                              <Trans>Retry sync</Trans>
                            </Menu.Item>
                          )}
                          <Menu.Item color="red" onClick={() => remove(item)} data-testid="action-remove">
                            <Trans>Remove</Trans>
                          </Menu.Item>
                        </Menu.Dropdown>
                      </Menu>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>

          {!page && !failed && (
            <Center py="xl">
              <Loader size="sm" />
            </Center>
          )}
          {page && items.length === 0 && (
            <Stack align="center" py="xl" gap="xs" data-testid="authority-empty">
              <Text c="dimmed">{filtered ? t`Nothing matches these filters.` : setType === 0 ? t`No one is authorized yet.` : t`No one is on the blacklist yet.`}</Text>
              {!filtered && (
                <Button variant="light" component={Link} to={SCREENS[setType].setting}>
                  {setType === 0 ? <Trans>Authorize</Trans> : <Trans>Add to blacklist</Trans>}
                </Button>
              )}
            </Stack>
          )}
          {failed && (
            <Stack align="center" py="xl" gap="xs" data-testid="authority-error">
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
      <EditValidityModal
        item={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          void load();
        }}
        onReload={() => void load()}
      />
    </ScreenPage>
  );
}
