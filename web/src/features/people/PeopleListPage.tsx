import { useEffect, useState } from 'react';
import { Button, Group, Menu, Paper, Select, Stack, Text } from '@mantine/core';
import { IconDownload, IconPlus, IconSearch, IconUpload, IconUsersGroup } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { formatDateTime } from '../../app/format.ts';
import { useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { ListFrame, RowMenu, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { confirmAction } from '../confirm.tsx';
import { basePath, flattenDepartments, keyOf, screens, useDepartments, useGroups, type Kind, type Page, type Person } from './api.ts';
import { EraseDialog } from './EraseDialog.tsx';
import { GroupManager } from './GroupManager.tsx';
import { ExportDialog } from '../passage/records/ExportDialog.tsx';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { PersonName } from '../../components/PersonName.tsx';
import { GroupFilter } from '../../components/GroupFilter.tsx';

type Filters = {
  keyword: string;
  groupKey: string;
  departmentKey: string;
};
const NO_FILTERS: Filters = { keyword: '', groupKey: '', departmentKey: '' };

/** Employees or visitors: search, filters, server-side pages, batch actions, export. */
export function PeopleListPage({ kind, resigned = false }: { kind: Kind; resigned?: boolean }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const paths = screens(kind);
  const groups = useGroups(kind).data ?? [];
  const departments = useDepartments(kind === 'employee').data ?? [];
  const filterState = useListFilters(() => NO_FILTERS, { applied: useUrlFilters<Filters>(NO_FILTERS) });
  const { draft, filters } = filterState;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [groupsOpen, setGroupsOpen] = useState(false);
  const [erasing, setErasing] = useState<Person | null>(null);
  /** The export dialog is open: it starts a background export of the filtered list and follows it. */
  const [exporting, setExporting] = useState(false);

  const query = {
    keyword: filters.keyword || undefined,
    groupKey: filters.groupKey || undefined,
    departmentKey: filters.departmentKey || undefined,
    ...(kind === 'employee' ? { state: resigned ? 'resigned' : 'active' } : {}),
  };
  const pageSize = usePageSize(`${kind}s`);
  const list = useList<Person, Page<Person>>({ resource: 'people', path: basePath(kind), query, pageSize: pageSize.value });
  const items = list.items;
  // A new page, or new filters, start with nothing chosen.
  const shown = items.map(keyOf).join();
  useEffect(() => setSelected(new Set()), [shown]);

  const search = () => filterState.search(list.refetch);
  const groupName = (key: string) => groups.find((g) => g.groupKey === key)?.name ?? '';

  /**
   * One request per person, stopping at the first refusal. The lists are read again either way:
   * those before the refusal have changed, and a new photo or name goes to the devices.
   */
  const batch = useWrite(
    async ({ people, work }: { people: Person[]; work: (person: Person) => Promise<unknown>; done: string }) => {
      for (const person of people) await work(person);
    },
    { touches: ['people', 'authorities'], refreshOnFailure: true, success: (_, { done }) => done },
  );
  const busy = batch.isPending;

  const confirm = (title: string, text: string, label: string, onConfirm: () => void) =>
    confirmAction({ title, text, confirm: label, color: 'red', onConfirm });

  const remove = (people: Person[]) =>
    confirm(
      t`Delete`,
      plural(people.length, {
        one: 'Delete # person? Their photo and face go with them; their pass records stay until the retention period ends. Erase the person to remove those too.',
        other:
          'Delete # people? Their photos and faces go with them; their pass records stay until the retention period ends. Erase each person to remove those too.',
      }),
      t`Delete`,
      () => batch.mutate({ people, work: (p) => api.del(`${basePath(kind)}/${keyOf(p)}`, { query: { version: p.version } }), done: t`Deleted` }),
    );
  const setState = (people: Person[], action: 'resign' | 'entry') =>
    confirm(
      action === 'resign' ? t`Resign` : t`Re-enter`,
      action === 'resign'
        ? plural(people.length, { one: 'Mark # employee as resigned?', other: 'Mark # employees as resigned?' })
        : plural(people.length, { one: 'Bring # employee back?', other: 'Bring # employees back?' }),
      t`Confirm`,
      () => batch.mutate({ people, work: (p) => api.post(`${basePath(kind)}/${keyOf(p)}/${action}`, { version: p.version }), done: t`Operation succeeded` }),
    );
  const chosen = () => items.filter((p) => selected.has(keyOf(p)));

  const departmentOptions = flattenDepartments(departments).map(({ department, depth }) => ({
    value: department.departmentKey,
    label: `${'— '.repeat(depth)}${department.name}`,
  }));

  const columns: Column<Person>[] = [
    {
      key: 'name',
      title: t`Name`,
      sticky: 'start',
      render: (person) => <PersonName name={person.name} avatar={person.avatarUrl} to={paths.detail(keyOf(person))} />,
    },
    { key: 'personId', title: t`Personnel ID`, render: (person) => person.personId },
    { key: 'role', title: t`Role`, render: (person) => <Truncated text={person.role} maw={150} /> },
    { key: 'gender', title: t`Gender`, render: (person) => (person.gender === 'male' ? t`Male` : t`Female`) },
    { key: 'group', title: t`Group`, render: (person) => <Truncated text={groupName(person.groupKey)} maw={150} /> },
    { key: 'phone', title: t`Phone`, render: (person) => person.phone },
    { key: 'icCard', title: t`IC card number`, render: (person) => person.icCard },
    {
      key: 'time',
      title: resigned ? t`Resignation time` : t`Creation time`,
      render: (person) => formatDateTime(resigned ? person.resignedAt : person.createTime),
    },
    {
      key: 'actions',
      sticky: 'end',
      width: 50,
      render: (person) => (
        <RowMenu>
          <Menu.Item onClick={() => navigate(paths.detail(keyOf(person)))}>
            <Trans>Edit</Trans>
          </Menu.Item>
          {kind === 'employee' && (
            <Menu.Item onClick={() => setState([person], resigned ? 'entry' : 'resign')}>
              {resigned ? <Trans>Re-enter</Trans> : <Trans>Resign</Trans>}
            </Menu.Item>
          )}
          <Menu.Item color="red" onClick={() => remove([person])}>
            <Trans>Delete</Trans>
          </Menu.Item>
          <Menu.Item color="red" onClick={() => setErasing(person)} data-testid="erase-person">
            <Trans>Erase</Trans>
          </Menu.Item>
        </RowMenu>
      ),
    },
  ];

  return (
    <ScreenPage>
      {erasing && <EraseDialog kind={kind} person={erasing} onClose={() => setErasing(null)} />}
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: '1 1 auto' }}>
              <KeywordInput
                hint={t`Name, personnel ID, phone or IC card`}
                value={draft.keyword}
                onChange={(keyword) => filterState.change({ keyword })}
                onSearch={search}
                wide
                testId="people-keyword"
              />
              <GroupFilter groups={groups} value={draft.groupKey} onChange={(groupKey) => filterState.change({ groupKey })} />
              {kind === 'employee' && (
                <Select
                  label={t`Department`}
                  placeholder={t`Any department`}
                  clearable
                  data={departmentOptions}
                  value={draft.departmentKey || null}
                  onChange={(v) => filterState.change({ departmentKey: v ?? '' })}
                  w={180}
                  data-testid="people-department-filter"
                />
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
              <Button variant="default" leftSection={<IconDownload size={16} />} onClick={() => setExporting(true)} data-testid="people-export">
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

          <ListFrame
            list={list}
            name="people"
            pageSize={pageSize}
            columns={columns}
            rowKey={keyOf}
            rowProps={() => ({ 'data-testid': 'people-row' })}
            filtered={!!(filters.keyword || filters.groupKey || filters.departmentKey)}
            empty={
              <>
                <Text c="dimmed">{t`No one here yet.`}</Text>
                {!resigned && (
                  <Button variant="light" component={Link} to={paths.create}>
                    <Trans>Add the first one</Trans>
                  </Button>
                )}
              </>
            }
            selection={{ selected, onChange: setSelected, label: (person) => person.name }}
            bulk={
              <>
                {kind === 'employee' && (
                  <Button size="xs" variant="light" loading={busy} onClick={() => setState(chosen(), resigned ? 'entry' : 'resign')}>
                    {resigned ? <Trans>Re-enter</Trans> : <Trans>Resign</Trans>}
                  </Button>
                )}
                <Button size="xs" variant="light" color="red" loading={busy} onClick={() => remove(chosen())}>
                  <Trans>Delete</Trans>
                </Button>
              </>
            }
            showTotal
          />
        </Stack>
      </Paper>
      <GroupManager kind={kind} opened={groupsOpen} onClose={() => setGroupsOpen(false)} />
      <ExportDialog
        path={basePath(kind)}
        title={kind === 'employee' ? t`Export employees` : t`Export visitors`}
        body={query}
        opened={exporting}
        onClose={() => setExporting(false)}
      />
    </ScreenPage>
  );
}
