import { useCallback, useEffect, useState } from 'react';
import { ActionIcon, Button, Group, Modal, Select, Stack, Table, Tabs, Text, TextInput } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconCheck, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { api, notifySuccess } from '../../app/api.ts';
import { flattenDepartments, loadDepartments, type Department, type Kind } from './api.ts';

/** What a group holds: employees, visitors or devices. */
export type GroupKind = Kind | 'device';

interface AnyGroup {
  groupKey: string;
  name: string;
  version: number;
}

const loadGroups = (kind: GroupKind) => api.get<{ items: AnyGroup[] }>('/v1/groups', { query: { type: kind } }).then((p) => p.items);

/** Groups of the kind (and, for employees, the department tree): add, rename, delete. */
export function GroupManager({ kind, opened, onClose, onChanged }: { kind: GroupKind; opened: boolean; onClose: () => void; onChanged: () => void }) {
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
            <Groups kind={kind} onChanged={onChanged} />
          </Tabs.Panel>
          <Tabs.Panel value="departments">
            <Departments onChanged={onChanged} />
          </Tabs.Panel>
        </Tabs>
      ) : (
        <Groups kind={kind} onChanged={onChanged} />
      )}
    </Modal>
  );
}

function Groups({ kind, onChanged }: { kind: GroupKind; onChanged: () => void }) {
  const { t } = useLingui();
  const [groups, setGroups] = useState<AnyGroup[]>([]);
  const [name, setName] = useState('');
  const [names, setNames] = useState<Record<string, string>>({});
  const reload = useCallback(() => {
    loadGroups(kind).then((list) => {
      setGroups(list);
      setNames(Object.fromEntries(list.map((g) => [g.groupKey, g.name])));
    }, () => undefined);
  }, [kind]);
  useEffect(reload, [reload]);
  const changed = () => {
    reload();
    onChanged();
  };
  /** Deleting asks first, naming the group; Cancel leaves it as it is. */
  const confirmDelete = (group: AnyGroup) => {
    const name = group.name;
    modals.openConfirmModal({
      title: t`Delete group`,
      children: <Text size="sm">{t`Delete the group “${name}”? This cannot be undone.`}</Text>,
      labels: { confirm: t`Delete`, cancel: t`Cancel` },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        void api.del(`/v1/groups/${group.groupKey}`, { query: { version: group.version } }).then(() => {
          notifySuccess(t`Deleted`);
          changed();
        }, () => undefined),
    });
  };
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label={t`New group`} value={name} onChange={(e) => setName(e.currentTarget.value)} style={{ flex: 1 }} data-testid="new-group-name" />
        <Button
          disabled={!name.trim()}
          onClick={() =>
            api.post('/v1/groups', { name: name.trim(), type: kind }).then(() => {
              setName('');
              notifySuccess(t`Added`);
              changed();
            }, () => undefined)
          }
        >
          <Trans>Add</Trans>
        </Button>
      </Group>
      {groups.length === 0 ? (
        <Text c="dimmed" size="sm">
          <Trans>No groups yet.</Trans>
        </Text>
      ) : (
        <Table>
          <Table.Tbody>
            {groups.map((g) => (
              <Table.Tr key={g.groupKey}>
                <Table.Td>
                  <TextInput aria-label={t`Name`} value={names[g.groupKey] ?? ''} onChange={(e) => setNames({ ...names, [g.groupKey]: e.currentTarget.value })} size="xs" />
                </Table.Td>
                <Table.Td w={90}>
                  <Group gap={4} wrap="nowrap">
                    <ActionIcon
                      variant="subtle"
                      aria-label={t`Save`}
                      disabled={!names[g.groupKey]?.trim() || names[g.groupKey] === g.name}
                      onClick={() => api.patch(`/v1/groups/${g.groupKey}`, { name: names[g.groupKey]!.trim(), version: g.version }).then(changed, () => undefined)}
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

function Departments({ onChanged }: { onChanged: () => void }) {
  const { t } = useLingui();
  const [tree, setTree] = useState<Department[]>([]);
  const [name, setName] = useState('');
  const [parentKey, setParentKey] = useState<string | null>(null);
  const reload = useCallback(() => loadDepartments().then(setTree, () => undefined), []);
  useEffect(() => {
    void reload();
  }, [reload]);
  const flat = flattenDepartments(tree);
  const changed = () => {
    void reload();
    onChanged();
  };
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label={t`New department`} value={name} onChange={(e) => setName(e.currentTarget.value)} style={{ flex: 1 }} />
        <Select label={t`Under`} clearable data={flat.map(({ department, depth }) => ({ value: department.departmentKey, label: `${'— '.repeat(depth)}${department.name}` }))} value={parentKey} onChange={setParentKey} w={180} />
        <Button
          disabled={!name.trim()}
          onClick={() =>
            api.post('/v1/departments', { name: name.trim(), ...(parentKey ? { parentKey } : {}) }).then(() => {
              setName('');
              changed();
            }, () => undefined)
          }
        >
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
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={t`Delete`}
                    onClick={() => api.del(`/v1/departments/${department.departmentKey}`, { query: { version: department.version } }).then(changed, () => undefined)}
                  >
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
