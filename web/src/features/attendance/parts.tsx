import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { Button, Group, Loader, Menu, Paper, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { invalidate } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { RowMenu } from '../../components/ListFrame.tsx';

/** What the attendance rule screens share: the search bar, the row menu with its delete, the detail loader. */

/** Asks, then deletes a rule at its version; the list is read again either way. */
export function confirmDelete(options: { title: string; text: string; path: string; version: number; done: string; cancel: string; confirm: string; list: string }): void {
  modals.openConfirmModal({
    title: options.title,
    children: <Text size="sm">{options.text}</Text>,
    labels: { confirm: options.confirm, cancel: options.cancel },
    confirmProps: { color: 'red', 'data-testid': 'confirm-delete' } as never,
    onConfirm: async () => {
      try {
        await api.del(options.path, { query: { version: options.version } });
        notifySuccess(options.done);
      } finally {
        await invalidate(options.list);
      }
    },
  });
}

/** A row's Edit (a link, or an action) and Delete. */
export function EditDeleteMenu({ name, edit, onDelete }: { name: string; edit: string | (() => void); onDelete: () => void }) {
  return (
    <RowMenu testId={`${name}-actions`}>
      {typeof edit === 'string' ? (
        <Menu.Item component={Link} to={edit}>
          <Trans>Edit</Trans>
        </Menu.Item>
      ) : (
        <Menu.Item onClick={edit} data-testid={`${name}-edit`}>
          <Trans>Edit</Trans>
        </Menu.Item>
      )}
      <Menu.Item color="red" onClick={onDelete} data-testid={`${name}-delete`}>
        <Trans>Delete</Trans>
      </Menu.Item>
    </RowMenu>
  );
}

/** A rule list's bar: its filters, the keyword and Search, and Add (a page to go to, or an action). */
export function SearchBar({
  name,
  hint,
  keyword,
  onKeyword,
  onSearch,
  add,
  children,
}: {
  name: string;
  hint: string;
  keyword: string;
  onKeyword: (value: string) => void;
  onSearch: () => void;
  add: string | (() => void);
  children?: ReactNode;
}) {
  return (
    <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
      <Group align="flex-end" gap="sm" wrap="nowrap" style={{ flex: '1 1 auto' }}>
        {children}
        <KeywordInput hint={hint} value={keyword} onChange={onKeyword} onSearch={onSearch} wide testId={`${name}-keyword`} />
        <Button leftSection={<IconSearch size={16} />} onClick={onSearch} data-testid={`${name}-search`}>
          <Trans>Search</Trans>
        </Button>
      </Group>
      {typeof add === 'string' ? (
        <Button leftSection={<IconPlus size={16} />} component={Link} to={add} data-testid={`${name}-add`}>
          <Trans>Add</Trans>
        </Button>
      ) : (
        <Button leftSection={<IconPlus size={16} />} onClick={add} data-testid={`${name}-add`}>
          <Trans>Add</Trans>
        </Button>
      )}
    </Group>
  );
}

/**
 * A detail page's record: read once, a loader meanwhile, and a note with the way back when it does
 * not exist (any more).
 */
export function Detail<T extends { version: number }>({ path, name, missing, back, children }: { path: string; name: string; missing: ReactNode; back: string; children: (record: T) => ReactNode }) {
  const [record, setRecord] = useState<T | null>(null);
  const [gone, setGone] = useState(false);
  const load = useCallback(async () => {
    try {
      setRecord(await api.get<T>(path, { silent: true }));
    } catch (error) {
      if (error instanceof RequestError && (error.status === 404 || error.status === 422)) setGone(true);
      else if (error instanceof RequestError) toast(error.message);
    }
  }, [path]);
  useEffect(() => {
    void load();
  }, [load]);
  if (gone) {
    return (
      <Paper withBorder p="xl" radius="md">
        <Stack gap="sm" align="flex-start">
          <Text c="dimmed" data-testid={`${name}-missing`}>
            {missing}
          </Text>
          <Button variant="light" component={Link} to={back}>
            <Trans>Back to the list</Trans>
          </Button>
        </Stack>
      </Paper>
    );
  }
  return record ? children(record) : <Loader />;
}

/** The labels of confirmDelete's buttons. */
export function useDeleteLabels(): { cancel: string; confirm: string } {
  const { t } = useLingui();
  return { cancel: t`Cancel`, confirm: t`Delete` };
}
