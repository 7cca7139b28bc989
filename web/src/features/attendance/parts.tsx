import type { ReactNode } from 'react';
import { Button, Group, Loader, Menu } from '@mantine/core';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { useItem, useWrite } from '../../app/queries.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { RowMenu } from '../../components/ListFrame.tsx';
import { confirmAction } from '../confirm.tsx';
import { MissingItem } from '../parts.tsx';

/** What the attendance rule screens (and the survey list) share: the search bar, the row menu with its delete, the detail loader. */

/** A rule to delete: the confirmation's words, its path and version, and what the toast says once it is gone. */
export interface Deletion {
  title: string;
  text: string;
  path: string;
  version: number;
  done: string;
}

/** Asks, then deletes a rule at its version; the rules of `resource` are read again either way (a refusal may mean it changed). */
export function useConfirmDelete(resource: string): (deletion: Deletion) => void {
  const { t } = useLingui();
  const deletion = useWrite(({ path, version }: Deletion) => api.del(path, { query: { version } }), {
    touches: [resource],
    refreshOnFailure: true,
    success: (_, { done }) => done,
  });
  return (rule) =>
    confirmAction({ title: rule.title, text: rule.text, confirm: t`Delete`, color: 'red', testId: 'delete', onConfirm: () => deletion.mutate(rule) });
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
export function Detail<T extends { version: number }>({
  resource,
  path,
  name,
  missing,
  back,
  children,
}: {
  resource: string;
  path: string;
  name: string;
  missing: ReactNode;
  back: string;
  children: (record: T) => ReactNode;
}) {
  const read = useItem<T>({ resource, path });
  if (read.gone) return <MissingItem text={missing} back={back} testId={`${name}-missing`} />;
  return read.item ? children(read.item) : <Loader />;
}
