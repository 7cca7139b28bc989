import { useEffect, useState } from 'react';
import { ActionIcon, Button, Group, Modal, Select, Stack, Table, Tabs, Text, TextInput } from '@mantine/core';
import { IconCheck, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { useWrite } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';
import { flattenDepartments, useDepartments, useGroups, type Group as AnyGroup, type GroupKind } from './api.ts';

export type { GroupKind };

/** What a change to groups touches: the groups of every kind, and the pickers that offer them. */
const GROUPS = ['groups', 'pickers'];
const DEPARTMENTS = ['departments', 'pickers'];

/** Groups of the kind (and, for employees, the department tree): add, rename, delete. Every screen that shows them follows. */
export function GroupManager({ kind, opened, onClose }: { kind: GroupKind; opened: boolean; onClose: () => void }) {
  const { t } = useLingui();
  const title = kind === 'employee' ? t`Groups and departments` : kind === 'device' ? t`Device groups` : t`Groups`;
  return (
    <Modal opened={opened} onClose={onClose} title={title} size="lg">
      {kind === 'employee' ? (
        <Tabs defaultValue="groups">
          <Tabs.List mb="md">
            <Tabs.Tab value="groups">{t`Groups`}</Tabs.Tab>
            <Tabs.Tab value="departments">{t`Departments`}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="groups">
            <Groups kind={kind} />
          </Tabs.Panel>
          <Tabs.Panel value="departments">
            <Departments />
          </Tabs.Panel>
        </Tabs>
      ) : (
        <Groups kind={kind} />
      )}
    </Modal>
  );
}

function Groups({ kind }: { kind: GroupKind }) {
  const { t } = useLingui();
  const groups = useGroups(kind).data;
  const [name, setName] = useState('');
  const [names, setNames] = useState<Record<string, string>>({});
  // Each reading of the groups puts their names back in the fields.
  useEffect(() => {
    if (groups) setNames(Object.fromEntries(groups.map((g) => [g.groupKey, g.name])));
  }, [groups]);

  const add = useWrite((groupName: string) => api.post('/v1/groups', { name: groupName, type: kind }), {
    touches: GROUPS,
    success: t`Added`,
    onSuccess: () => setName(''),
  });
  const rename = useWrite((group: AnyGroup) => api.patch(`/v1/groups/${group.groupKey}`, { name: names[group.groupKey]!.trim(), version: group.version }), {
    touches: GROUPS,
  });
  const remove = useWrite((group: AnyGroup) => api.del(`/v1/groups/${group.groupKey}`, { query: { version: group.version } }), {
    touches: GROUPS,
    success: t`Deleted`,
  });
  /** Deleting asks first, naming the group; Cancel leaves it as it is. */
  const confirmDelete = (group: AnyGroup) => {
    const name = group.name;
    confirmAction({
      title: t`Delete group`,
      text: t`Delete the group “${name}”? This cannot be undone.`,
      confirm: t`Delete`,
      color: 'red',
      onConfirm: () => remove.mutate(group),
    });
  };
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label={t`New group`} value={name} onChange={(e) => setName(e.currentTarget.value)} style={{ flex: 1 }} data-testid="new-group-name" />
        <Button disabled={!name.trim()} onClick={() => add.mutate(name.trim())}>
          <Trans>Add</Trans>
        </Button>
      </Group>
      {!groups?.length ? (
        <Text c="dimmed" size="sm">
          <Trans>No groups yet.</Trans>
        </Text>
      ) : (
        <Table>
          <Table.Tbody>
            {groups.map((g) => (
              <Table.Tr key={g.groupKey}>
                <Table.Td>
                  <TextInput
                    aria-label={t`Name`}
                    value={names[g.groupKey] ?? ''}
                    onChange={(e) => setNames({ ...names, [g.groupKey]: e.currentTarget.value })}
                    size="xs"
                  />
                </Table.Td>
                <Table.Td w={90}>
                  <Group gap={4} wrap="nowrap">
                    <ActionIcon
                      variant="subtle"
                      aria-label={t`Save`}
                      disabled={!names[g.groupKey]?.trim() || names[g.groupKey] === g.name}
                      onClick={() => rename.mutate(g)}
                    >
                      <IconCheck size={16} />
                    </ActionIcon>
                    <ActionIcon variant="subtle" color="red" aria-label={t`Delete`} onClick={() => confirmDelete(g)}>
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function Departments() {
  const { t } = useLingui();
  const flat = flattenDepartments(useDepartments().data ?? []);
  const [name, setName] = useState('');
  const [parentKey, setParentKey] = useState<string | null>(null);
  const add = useWrite(() => api.post('/v1/departments', { name: name.trim(), ...(parentKey ? { parentKey } : {}) }), {
    touches: DEPARTMENTS,
    onSuccess: () => setName(''),
  });
  const remove = useWrite(
    (department: { departmentKey: string; version: number }) =>
      api.del(`/v1/departments/${department.departmentKey}`, { query: { version: department.version } }),
    { touches: DEPARTMENTS },
  );
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label={t`New department`} value={name} onChange={(e) => setName(e.currentTarget.value)} style={{ flex: 1 }} />
        <Select
          label={t`Under`}
          clearable
          data={flat.map(({ department, depth }) => ({ value: department.departmentKey, label: `${'— '.repeat(depth)}${department.name}` }))}
          value={parentKey}
          onChange={setParentKey}
          w={180}
        />
        <Button disabled={!name.trim()} onClick={() => add.mutate()}>
          <Trans>Add</Trans>
        </Button>
      </Group>
      {flat.length === 0 ? (
        <Text c="dimmed" size="sm">
          <Trans>No departments yet.</Trans>
        </Text>
      ) : (
        <Table>
          <Table.Tbody>
            {flat.map(({ department, depth }) => (
              <Table.Tr key={department.departmentKey}>
                <Table.Td pl={12 + depth * 20}>{department.name}</Table.Td>
                <Table.Td w={50}>
                  <ActionIcon variant="subtle" color="red" aria-label={t`Delete`} onClick={() => remove.mutate(department)}>
                    <IconTrash size={16} />
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
