import { useCallback, useEffect, useState } from 'react';
import { Badge, Button, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { formatDateTime, formatNumber } from '../../app/format.ts';
import { CursorPager } from '../../components/CursorPager.tsx';
import { ScrollTable } from '../../components/ScrollTable.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import tables from '../../components/DataTable.module.css';
import { ACCOUNTS_PATH, accountPath, type Account, type AccountPage } from './api.ts';

const PAGE_SIZE = 20;

/** Owner, disabled and must-change-password marks of an account. */
export function AccountBadges({ account }: { account: Account }) {
  return (
    <Group gap={4} wrap="nowrap">
      {account.owner && (
        <Badge size="sm" variant="light" color="grape" data-testid="badge-owner">
          <Trans>Owner</Trans>
        </Badge>
      )}
      {account.disabled && (
        <Badge size="sm" variant="light" color="gray" data-testid="badge-disabled">
          <Trans>Disabled</Trans>
        </Badge>
      )}
      {account.mustChangePassword && (
        <Badge size="sm" variant="light" color="orange" data-testid="badge-must-change">
          <Trans>Must change password</Trans>
        </Badge>
      )}
    </Group>
  );
}

/** Accounts of the company: keyword search, pages of 20, the owner first. */
export function AccountsSection() {
  const { t } = useLingui();
  const [draft, setDraft] = useState('');
  const [keyword, setKeyword] = useState('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<AccountPage | null>(null);
  const [failed, setFailed] = useState(false);

  /** Loads the page asked for; an answer to an older request (a search typed since) is dropped. */
  const load = useCallback(() => {
    let current = true;
    setFailed(false);
    api.get<AccountPage>('/v1/accounts', { query: { pageSize: PAGE_SIZE, cursor: cursors.at(-1), keyword: keyword || undefined } }).then(
      (answer) => current && setPage(answer),
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [cursors, keyword]);
  useEffect(() => load(), [load]);

  const search = () => {
    setKeyword(draft.trim());
    setCursors([undefined]);
  };
  const items = page?.items ?? [];
  const count = formatNumber(page?.total ?? 0);

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Group align="flex-end" gap="sm" wrap="nowrap" style={{ flex: '1 1 auto' }}>
          <TextInput
            label={t`Keyword`}
            placeholder={t`Username, nickname, email, phone or remark`}
            title={t`Username, nickname, email, phone or remark`}
            value={draft}
            onChange={(e) => setDraft(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Enter' && search()}
            style={{ flex: '1 1 300px', maxWidth: 440 }}
            miw={220}
            data-testid="account-keyword"
          />
          <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="account-search">
            <Trans>Search</Trans>
          </Button>
        </Group>
        <Button leftSection={<IconPlus size={16} />} component={Link} to={`${ACCOUNTS_PATH}/create`} data-testid="account-add">
          <Trans>Add</Trans>
        </Button>
      </Group>

      <ScrollTable>
        <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="account-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th className={tables.stickyStart}>{t`Username`}</Table.Th>
              <Table.Th>{t`Nickname`}</Table.Th>
              <Table.Th>{t`State`}</Table.Th>
              <Table.Th>{t`Email`}</Table.Th>
              <Table.Th>{t`Phone`}</Table.Th>
              <Table.Th>{t`Remark`}</Table.Th>
              <Table.Th>{t`Creation time`}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((account) => (
              <Table.Tr key={account.accountKey} data-testid="account-row">
                <Table.Td className={tables.stickyStart}>
                  <Text size="sm" component={Link} to={accountPath(account.accountKey)} c="blue.7" td="none" truncate="end" maw={200} display="block" title={account.username}>
                    {account.username}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Truncated text={account.nickname} maw={160} />
                </Table.Td>
                <Table.Td>
                  <AccountBadges account={account} />
                </Table.Td>
                <Table.Td>
                  <Truncated text={account.email} maw={220} />
                </Table.Td>
                <Table.Td>{account.phone}</Table.Td>
                <Table.Td>
                  <Truncated text={account.remark} maw={200} />
                </Table.Td>
                <Table.Td>{formatDateTime(account.createTime)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>

      {page && items.length === 0 && (
        <Text c="dimmed" ta="center" py="xl" data-testid="account-empty">
          {keyword ? t`Nothing matches these filters.` : t`No one here yet.`}
        </Text>
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
        <Text size="sm" c="dimmed" data-testid="account-total">
          {page && <Trans>{count} in all</Trans>}
        </Text>
        <CursorPager cursors={cursors} nextCursor={page?.nextCursor} onChange={setCursors} />
      </Group>
    </Stack>
  );
}
