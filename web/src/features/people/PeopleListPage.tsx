import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ActionIcon, Avatar, Button, Checkbox, Group, Menu, Paper, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconDots, IconDownload, IconPlus, IconSearch, IconUpload, IconUsersGroup } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { formatDateTime, formatNumber } from '../../app/format.ts';
import { CursorPager } from '../../components/CursorPager.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { ScrollTable } from '../../components/ScrollTable.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import tables from '../../components/DataTable.module.css';
import { basePath, downloadExport, flattenDepartments, keyOf, loadDepartments, loadGroups, screens, type Department, type Group as PersonGroup, type Kind, type Page, type Person } from './api.ts';
import { GroupManager } from './GroupManager.tsx';

const PAGE_SIZE = 20;

interface Filters {
  keyword: string;
  groupKey: string | null;
  departmentKey: string | null;
}

/** Employees or visitors: search, filters, server-side pages, batch actions, export. */
export function PeopleListPage({ kind, resigned = false }: { kind: Kind; resigned?: boolean }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const paths = screens(kind);
  const [groups, setGroups] = useState<PersonGroup[]>([]);
  const [departments, setDepartments] = useState<Department[]>([]);
  const [draft, setDraft] = useState<Filters>({ keyword: '', groupKey: null, departmentKey: null });
  const [filters, setFilters] = useState<Filters>(draft);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page<Person> | null>(null);
  const [total, setTotal] = useState<{ value: number; atLeast: boolean } | null>(null);
  const [failed, setFailed] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [groupsOpen, setGroupsOpen] = useState(false);
  const [busy, setBusy] = useState(false);

  const refreshReferences = useCallback(() => {
    loadGroups(kind).then(setGroups, () => undefined);
    if (kind === 'employee') loadDepartments().then(setDepartments, () => undefined);
  }, [kind]);
  useEffect(refreshReferences, [refreshReferences]);

  const query = useMemo(
    () => ({
      keyword: filters.keyword || undefined,
      groupKey: filters.groupKey ?? undefined,
      departmentKey: filters.departmentKey ?? undefined,
      ...(kind === 'employee' ? { state: resigned ? 'resigned' : 'active' } : {}),
    }),
    [filters, kind, resigned],
  );

  // An answer to an older request (a search typed since) is dropped.
  const latest = useRef(0);
  const load = useCallback(async () => {
    const request = ++latest.current;
    setFailed(false);
    try {
      const cursor = cursors.at(-1);
      const result = await api.get<Page<Person>>(basePath(kind), { query: { ...query, pageSize: PAGE_SIZE, cursor } });
      if (request !== latest.current) return;
      setPage(result);
      if (result.total !== undefined) setTotal({ value: result.total, atLeast: false });
      else if (result.totalAtLeast !== undefined) setTotal({ value: result.totalAtLeast, atLeast: true });
      setSelected(new Set());
    } catch {
      if (request === latest.current) setFailed(true);
    }
  }, [cursors, kind, query]);
  useEffect(() => {
    void load();
  }, [load]);

  const search = () => {
    setFilters(draft);
    setCursors([undefined]);
  };

  const count = formatNumber(total?.value ?? 0);
  const groupName = (key: string) => groups.find((g) => g.groupKey === key)?.name ?? '';
  const items = page?.items ?? [];
  const allChecked = items.length > 0 && items.every((p) => selected.has(keyOf(p)));

  /** Runs one request per person, then reloads; stops on the first refusal. */
  const batch = async (people: Person[], work: (person: Person) => Promise<unknown>, done: string) => {
    setBusy(true);
    try {
      for (const person of people) await work(person);
      notifySuccess(done);
    } catch {
      // The request client has shown why.
    } finally {
      setBusy(false);
      void load();
    }
  };

  const confirm = (title: string, text: string, label: string, onConfirm: () => void) =>
    modals.openConfirmModal({ title, children: <Text size="sm">{text}</Text>, labels: { confirm: label, cancel: t`Cancel` }, confirmProps: { color: 'red' }, onConfirm });

  const remove = (people: Person[]) =>
    confirm(t`Delete`, plural(people.length, { one: 'Delete # person? Their photo and records go with them.', other: 'Delete # people? Their photos and records go with them.' }), t`Delete`, () =>
      void batch(people, (p) => api.del(`${basePath(kind)}/${keyOf(p)}`, { query: { version: p.version } }), t`Deleted`),
    );
  const setState = (people: Person[], action: 'resign' | 'entry') =>
    confirm(
      action === 'resign' ? t`Resign` : t`Re-enter`,
      action === 'resign'
        ? plural(people.length, { one: 'Mark # employee as resigned?', other: 'Mark # employees as resigned?' })
        : plural(people.length, { one: 'Bring # employee back?', other: 'Bring # employees back?' }),
      t`Confirm`,
      () => void batch(people, (p) => api.post(`${basePath(kind)}/${keyOf(p)}/${action}`, { version: p.version }), t`Operation succeeded`),
    );
  const chosen = () => items.filter((p) => selected.has(keyOf(p)));

  const departmentOptions = flattenDepartments(departments).map(({ department, depth }) => ({ value: department.departmentKey, label: `${'— '.repeat(depth)}${department.name}` }));

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <TextInput
                label={t`Keyword`}
                placeholder={t`Name, personnel ID, phone or IC card`}
                title={t`Name, personnel ID, phone or IC card`}
                value={draft.keyword}
                onChange={(e) => setDraft({ ...draft, keyword: e.currentTarget.value })}
                onKeyDown={(e) => e.key === 'Enter' && search()}
                style={{ flex: '1 1 300px', maxWidth: 440 }}
                miw={260}
                data-testid="people-keyword"
              />
              <Select label={t`Group`} clearable data={groups.map((g) => ({ value: g.groupKey, label: g.name }))} value={draft.groupKey} onChange={(v) => setDraft({ ...draft, groupKey: v })} w={180} />
              {kind === 'employee' && (
                <Select label={t`Department`} clearable data={departmentOptions} value={draft.departmentKey} onChange={(v) => setDraft({ ...draft, departmentKey: v })} w={180} />
              )}
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="people-search">
                <Trans>Search</Trans>
              </Button>
            </Group>
            <Group gap="xs">
              {!resigned && (
                <Button leftSection={<IconPlus size={16} />} component={Link} to={paths.create}>
                  <Trans>Add</Trans>
                </Button>
              )}
              {!resigned && (
                <Button variant="default" leftSection={<IconUpload size={16} />} component={Link} to={paths.importInfo}>
                  <Trans>Import</Trans>
                </Button>
              )}
              <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => downloadExport(kind, query).catch((e: Error) => toast(e.message))}>
                <Trans>Export</Trans>
              </Button>
              <Button variant="default" leftSection={<IconUsersGroup size={16} />} onClick={() => setGroupsOpen(true)}>
                <Trans>Groups</Trans>
              </Button>
              {kind === 'employee' && (
                <Button variant="subtle" component={Link} to={resigned ? paths.list : paths.resigned}>
                  {resigned ? <Trans>Active employees</Trans> : <Trans>Resigned employees</Trans>}
                </Button>
              )}
            </Group>
          </Group>

          {selected.size > 0 && (
            <Group gap="xs" data-testid="batch-bar">
              <Text size="sm">
                <Trans>{selected.size} selected</Trans>
              </Text>
              {kind === 'employee' && (
                <Button size="xs" variant="light" loading={busy} onClick={() => setState(chosen(), resigned ? 'entry' : 'resign')}>
                  {resigned ? <Trans>Re-enter</Trans> : <Trans>Resign</Trans>}
                </Button>
              )}
              <Button size="xs" variant="light" color="red" loading={busy} onClick={() => remove(chosen())}>
                <Trans>Delete</Trans>
              </Button>
            </Group>
          )}

          <ScrollTable>
            <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="people-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={40} miw={40} className={tables.stickyStart}>
                    <Checkbox aria-label={t`Select all`} checked={allChecked} onChange={() => setSelected(allChecked ? new Set() : new Set(items.map(keyOf)))} />
                  </Table.Th>
                  <Table.Th className={tables.stickyStart} style={{ '--sticky-offset': '40px' }}>
                    {t`Name`}
                  </Table.Th>
                  <Table.Th>{t`Personnel ID`}</Table.Th>
                  <Table.Th>{t`Role`}</Table.Th>
                  <Table.Th>{t`Gender`}</Table.Th>
                  <Table.Th>{t`Group`}</Table.Th>
                  <Table.Th>{t`Phone`}</Table.Th>
                  <Table.Th>{t`IC card number`}</Table.Th>
                  <Table.Th>{resigned ? t`Resignation time` : t`Creation time`}</Table.Th>
                  <Table.Th w={50} className={tables.stickyEnd} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((person) => {
                  const key = keyOf(person);
                  return (
                    <Table.Tr key={key} data-testid="people-row">
                      <Table.Td className={tables.stickyStart}>
                        <Checkbox
                          aria-label={person.name}
                          checked={selected.has(key)}
                          onChange={() => {
                            const next = new Set(selected);
                            if (next.has(key)) next.delete(key);
                            else next.add(key);
                            setSelected(next);
                          }}
                        />
                      </Table.Td>
                      <Table.Td className={tables.stickyStart} style={{ '--sticky-offset': '40px' }}>
                        <Group gap="xs" wrap="nowrap">
                          <Avatar src={person.avatarUrl} size={32} radius="xl" alt="">
                            {person.name.slice(0, 1)}
                          </Avatar>
                          <Text size="sm" component={Link} to={paths.detail(key)} c="blue.7" td="none" truncate="end" maw={180} title={person.name}>
                            {person.name}
                          </Text>
                        </Group>
                      </Table.Td>
                      <Table.Td>{person.personId}</Table.Td>
                      <Table.Td>
                        <Truncated text={person.role} maw={150} />
                      </Table.Td>
                      <Table.Td>{person.gender === 'male' ? t`Male` : t`Female`}</Table.Td>
                      <Table.Td>
                        <Truncated text={groupName(person.groupKey)} maw={150} />
                      </Table.Td>
                      <Table.Td>{person.phone}</Table.Td>
                      <Table.Td>{person.icCard}</Table.Td>
                      <Table.Td>{formatDateTime(resigned ? person.resignedAt : person.createTime)}</Table.Td>
                      <Table.Td className={tables.stickyEnd}>
                        <Menu position="bottom-end" withinPortal>
                          <Menu.Target>
                            <ActionIcon variant="subtle" aria-label={t`Actions`}>
                              <IconDots size={16} />
                            </ActionIcon>
                          </Menu.Target>
                          <Menu.Dropdown>
                            <Menu.Item onClick={() => navigate(paths.detail(key))}>
                              <Trans>Edit</Trans>
                            </Menu.Item>
                            {kind === 'employee' && (
                              <Menu.Item onClick={() => setState([person], resigned ? 'entry' : 'resign')}>{resigned ? <Trans>Re-enter</Trans> : <Trans>Resign</Trans>}</Menu.Item>
                            )}
                            <Menu.Item color="red" onClick={() => remove([person])}>
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

          {page && items.length === 0 && (
            <Stack align="center" py="xl" gap="xs" data-testid="people-empty">
              <Text c="dimmed">{filters.keyword || filters.groupKey || filters.departmentKey ? t`Nothing matches these filters.` : t`No one here yet.`}</Text>
              {!resigned && !filters.keyword && (
                <Button variant="light" component={Link} to={paths.create}>
                  <Trans>Add the first one</Trans>
                </Button>
              )}
            </Stack>
          )}
          {failed && (
            <Stack align="center" py="xl" gap="xs">
              <Text c="red">
                <Trans>The list could not be loaded.</Trans>
              </Text>
              <Button variant="light" onClick={() => void load()}>
                <Trans>Retry</Trans>
              </Button>
            </Stack>
          )}

          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="people-total">
              {total && (total.atLeast ? <Trans>More than {count} in all</Trans> : <Trans>{count} in all</Trans>)}
            </Text>
            <CursorPager cursors={cursors} nextCursor={page?.nextCursor} onChange={setCursors} />
          </Group>
        </Stack>
      </Paper>
      <GroupManager kind={kind} opened={groupsOpen} onClose={() => setGroupsOpen(false)} onChanged={refreshReferences} />
    </ScreenPage>
  );
}
