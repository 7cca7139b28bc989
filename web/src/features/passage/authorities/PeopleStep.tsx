import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Avatar, Button, Center, Checkbox, Group, Loader, MultiSelect, Select, SimpleGrid, Stack, Table, Tabs, Text, TextInput } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { ScrollTable } from '../../../components/ScrollTable.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import tables from '../../../components/DataTable.module.css';
import { pickPeople, pickedKey as keyOf, type PickerDepartment, type PickerGroup, type PickerPage, type PickerPerson as Person } from '../../../app/pickers.ts';
import { flattenDepartments, type Kind } from '../../people/api.ts';

const PAGE_SIZE = 20;

/** A person picked one by one; kept across tabs, searches and pages. */
export interface PickedPerson {
  key: string;
  name: string;
  personId: string;
  kind: Kind;
}

export interface PeopleChoice {
  people: Map<string, PickedPerson>;
  groupKeys: string[];
  departmentKeys: string[];
}

/**
 * Step 1: people one by one (employees or visitors, searched and filtered, page by page) and
 * whole person groups or departments, whose members the server expands when granting.
 */
export function PeopleStep({
  value,
  onChange,
  groups,
  departments,
  error,
}: {
  value: PeopleChoice;
  onChange: (value: PeopleChoice) => void;
  groups: PickerGroup[];
  departments: PickerDepartment[];
  error: string | null;
}) {
  const { t } = useLingui();
  const [kind, setKind] = useState<Kind>('employee');
  const departmentOptions = flattenDepartments(departments).map(({ department, depth }) => ({ value: department.departmentKey, label: `${'— '.repeat(depth)}${department.name}` }));
  const groupOptions = [
    { group: t`Employee groups`, items: groups.filter((g) => g.type === 'employee').map((g) => ({ value: g.groupKey, label: g.name })) },
    { group: t`Visitor groups`, items: groups.filter((g) => g.type === 'visitor').map((g) => ({ value: g.groupKey, label: g.name })) },
  ].filter((g) => g.items.length > 0);

  const toggle = (persons: Person[], on: boolean) => {
    const next = new Map(value.people);
    for (const p of persons) {
      const key = keyOf(p);
      if (on) next.set(key, { key, name: p.name, personId: p.personId, kind: p.employeeKey ? 'employee' : 'visitor' });
      else next.delete(key);
    }
    onChange({ ...value, people: next });
  };

  return (
    <Stack gap="md" data-testid="wizard-people">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <MultiSelect
          label={t`Whole groups`}
          description={t`Everyone in these groups, as they are when you confirm`}
          placeholder={t`None chosen`}
          data={groupOptions}
          value={value.groupKeys}
          onChange={(groupKeys) => onChange({ ...value, groupKeys })}
          searchable
          clearable
          data-testid="wizard-person-groups"
        />
        <MultiSelect
          label={t`Whole departments`}
          description={t`Every active employee of these departments`}
          placeholder={t`None chosen`}
          data={departmentOptions}
          value={value.departmentKeys}
          onChange={(departmentKeys) => onChange({ ...value, departmentKeys })}
          searchable
          clearable
          data-testid="wizard-departments"
        />
      </SimpleGrid>
      <Tabs value={kind} onChange={(v) => v && setKind(v as Kind)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="employee" data-testid="wizard-tab-employee">
            <Trans>Employees</Trans>
          </Tabs.Tab>
          <Tabs.Tab value="visitor" data-testid="wizard-tab-visitor">
            <Trans>Visitors</Trans>
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="employee" pt="sm">
          <PersonPicker kind="employee" picked={value.people} onToggle={toggle} groups={groups.filter((g) => g.type === 'employee')} departmentOptions={departmentOptions} />
        </Tabs.Panel>
        <Tabs.Panel value="visitor" pt="sm">
          <PersonPicker kind="visitor" picked={value.people} onToggle={toggle} groups={groups.filter((g) => g.type === 'visitor')} departmentOptions={[]} />
        </Tabs.Panel>
      </Tabs>
      {error && (
        <Text size="sm" c="red" role="alert" data-testid="wizard-people-error">
          {error}
        </Text>
      )}
    </Stack>
  );
}

interface Filters {
  keyword: string;
  groupKey: string | null;
  departmentKey: string | null;
}
const NO_FILTERS: Filters = { keyword: '', groupKey: null, departmentKey: null };

function PersonPicker({
  kind,
  picked,
  onToggle,
  groups,
  departmentOptions,
}: {
  kind: Kind;
  picked: Map<string, PickedPerson>;
  onToggle: (persons: Person[], on: boolean) => void;
  groups: PickerGroup[];
  departmentOptions: { value: string; label: string }[];
}) {
  const { t } = useLingui();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<PickerPage<Person> | null>(null);
  const [failed, setFailed] = useState(false);

  const query = useMemo(() => ({ keyword: filters.keyword.trim() || undefined, groupKey: filters.groupKey ?? undefined, departmentKey: filters.departmentKey ?? undefined }), [filters]);
  // An answer to an older request (a search typed since) is dropped.
  const latest = useRef(0);
  const load = useCallback(async () => {
    const request = ++latest.current;
    setFailed(false);
    try {
      const answer = await pickPeople(kind, { ...query, pageSize: PAGE_SIZE, cursor: cursors.at(-1) });
      if (request === latest.current) setPage(answer);
    } catch {
      if (request === latest.current) {
        setPage(null);
        setFailed(true);
      }
    }
  }, [cursors, kind, query]);
  useEffect(() => {
    void load();
  }, [load]);

  const search = () => {
    setFilters(draft);
    setCursors([undefined]);
  };
  const items = page?.items ?? [];
  const allChecked = items.length > 0 && items.every((p) => picked.has(keyOf(p)));
  const groupName = (key: string) => groups.find((g) => g.groupKey === key)?.name ?? '';

  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput
          label={t`Keyword`}
          placeholder={t`Name, personnel ID, phone or IC card`}
          value={draft.keyword}
          onChange={(e) => setDraft({ ...draft, keyword: e.currentTarget.value })}
          onKeyDown={(e) => e.key === 'Enter' && search()}
          w={240}
          data-testid="wizard-keyword"
        />
        <Select label={t`Group`} placeholder={t`Any group`} clearable data={groups.map((g) => ({ value: g.groupKey, label: g.name }))} value={draft.groupKey} onChange={(groupKey) => setDraft({ ...draft, groupKey })} w={180} />
        {kind === 'employee' && (
          <Select label={t`Department`} placeholder={t`Any department`} clearable data={departmentOptions} value={draft.departmentKey} onChange={(departmentKey) => setDraft({ ...draft, departmentKey })} w={180} />
        )}
        <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="wizard-search">
          <Trans>Search</Trans>
        </Button>
      </Group>
      <ScrollTable>
        <Table striped highlightOnHover withRowBorders={false} verticalSpacing={6} className={tables.oneLine} data-testid="wizard-people-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                <Checkbox aria-label={t`Select this page`} title={t`Select this page`} disabled={items.length === 0} checked={allChecked} onChange={() => onToggle(items, !allChecked)} data-testid="wizard-people-page" />
              </Table.Th>
              <Table.Th>{t`Name`}</Table.Th>
              <Table.Th>{t`Personnel ID`}</Table.Th>
              <Table.Th>{t`Group`}</Table.Th>
              <Table.Th>{t`Photo`}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((person) => {
              const key = keyOf(person);
              return (
                <Table.Tr key={key} data-testid="wizard-person-row" data-key={key}>
                  <Table.Td>
                    <Checkbox aria-label={person.name} checked={picked.has(key)} onChange={() => onToggle([person], !picked.has(key))} />
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Avatar src={person.avatarUrl} size={28} radius="xl" alt="">
                        {person.name.slice(0, 1)}
                      </Avatar>
                      <Truncated text={person.name} maw={200} />
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Truncated text={person.personId} maw={160} />
                  </Table.Td>
                  <Table.Td>
                    <Truncated text={groupName(person.groupKey)} maw={160} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c={person.hasPhoto ? undefined : 'orange.8'}>
                      {person.hasPhoto ? t`Has a photo` : t`No face photo`}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      {!page && !failed && (
        <Center py="md">
          <Loader size="sm" />
        </Center>
      )}
      {page && items.length === 0 && (
        <Text c="dimmed" ta="center" py="md">
          {filters.keyword || filters.groupKey || filters.departmentKey ? t`Nothing matches these filters.` : t`No one here yet.`}
        </Text>
      )}
      {failed && (
        <Stack align="center" py="md" gap="xs">
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
  );
}
