import { useState } from 'react';
import { Button, Group, MultiSelect, Select, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { ListFrame, type Column } from '../../../components/ListFrame.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import { useList } from '../../../app/queries.ts';
import { pickedKey as keyOf, type PickerDepartment, type PickerGroup, type PickerPerson as Person } from '../../../app/pickers.ts';
import { flattenDepartments, type Kind } from '../../people/api.ts';
import { KeywordInput } from '../../../components/KeywordInput.tsx';
import { PersonName } from '../../../components/PersonName.tsx';

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

  /** The people now chosen, by key: those of other pages stay, those of the page shown come or go. */
  const choose = (keys: ReadonlySet<string>, shown: Person[]) => {
    const next = new Map([...value.people].filter(([key]) => keys.has(key)));
    for (const p of shown) {
      const key = keyOf(p);
      if (keys.has(key) && !next.has(key)) next.set(key, { key, name: p.name, personId: p.personId, kind: p.employeeKey ? 'employee' : 'visitor' });
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
          <PersonPicker kind="employee" picked={value.people} onChoose={choose} groups={groups.filter((g) => g.type === 'employee')} departmentOptions={departmentOptions} />
        </Tabs.Panel>
        <Tabs.Panel value="visitor" pt="sm">
          <PersonPicker kind="visitor" picked={value.people} onChoose={choose} groups={groups.filter((g) => g.type === 'visitor')} departmentOptions={[]} />
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
  onChoose,
  groups,
  departmentOptions,
}: {
  kind: Kind;
  picked: Map<string, PickedPerson>;
  onChoose: (keys: ReadonlySet<string>, shown: Person[]) => void;
  groups: PickerGroup[];
  departmentOptions: { value: string; label: string }[];
}) {
  const { t } = useLingui();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const list = useList<Person>({
    resource: 'people',
    path: '/v1/pickers/people',
    query: { type: kind, keyword: filters.keyword.trim() || undefined, groupKey: filters.groupKey ?? undefined, departmentKey: filters.departmentKey ?? undefined },
    pageSize: PAGE_SIZE,
  });
  const search = () => {
    if (draft === filters) void list.refetch();
    else setFilters(draft);
  };
  const groupName = (key: string) => groups.find((g) => g.groupKey === key)?.name ?? '';

  const columns: Column<Person>[] = [
    {
      key: 'name',
      title: t`Name`,
      render: (person) => <PersonName name={person.name} avatar={person.avatarUrl} maw={200} size={28} />,
    },
    { key: 'personId', title: t`Personnel ID`, render: (person) => <Truncated text={person.personId} maw={160} /> },
    { key: 'group', title: t`Group`, render: (person) => <Truncated text={groupName(person.groupKey)} maw={160} /> },
    {
      key: 'photo',
      title: t`Photo`,
      render: (person) => (
        <Text size="sm" c={person.hasPhoto ? undefined : 'orange.8'}>
          {person.hasPhoto ? t`Has a photo` : t`No face photo`}
        </Text>
      ),
    },
  ];

  return (
    <Stack gap="sm">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <KeywordInput hint={t`Name, personnel ID, phone or IC card`} value={draft.keyword} onChange={(keyword) => setDraft({ ...draft, keyword })} onSearch={search} testId="wizard-keyword" />
        <Select label={t`Group`} placeholder={t`Any group`} clearable data={groups.map((g) => ({ value: g.groupKey, label: g.name }))} value={draft.groupKey} onChange={(groupKey) => setDraft({ ...draft, groupKey })} w={180} />
        {kind === 'employee' && (
          <Select label={t`Department`} placeholder={t`Any department`} clearable data={departmentOptions} value={draft.departmentKey} onChange={(departmentKey) => setDraft({ ...draft, departmentKey })} w={180} />
        )}
        <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="wizard-search">
          <Trans>Search</Trans>
        </Button>
      </Group>
      <ListFrame
        list={list}
        name="wizard-people"
        columns={columns}
        rowKey={keyOf}
        rowProps={(person) => ({ 'data-testid': 'wizard-person-row', 'data-key': keyOf(person) })}
        empty={<Text c="dimmed">{t`No one here yet.`}</Text>}
        filtered={!!(filters.keyword || filters.groupKey || filters.departmentKey)}
        selection={{ selected: new Set(picked.keys()), onChange: (keys) => onChoose(keys, list.items), label: (person) => person.name, allLabel: t`Select this page` }}
      />
    </Stack>
  );
}
