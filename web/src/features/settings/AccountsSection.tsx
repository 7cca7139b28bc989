import { useState } from 'react';
import { Badge, Button, Group, Stack, Text } from '@mantine/core';
import { IconPlus, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { formatDateTime } from '../../app/format.ts';
import { useList, useUrlFilters } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { LinkCell, ListFrame, type Column } from '../../components/ListFrame.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { ACCOUNTS_PATH, accountPath, type Account, type AccountPage } from './api.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';

/** Owner, disabled and must-change-password marks of an account. */
export function AccountBadges({ account }: { account: Account }) {
  return (
    <Group gap={4} wrap="nowrap" w="max-content">
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
      {account.twoFactor && (
        <Badge size="sm" variant="light" color="teal" data-testid="badge-two-factor">
          <Trans>Two-factor</Trans>
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
  const [filters, setFilters] = useUrlFilters({ keyword: '' });
  const [draft, setDraft] = useState(filters.keyword);
  const pageSize = usePageSize('accounts');
  const list = useList<Account, AccountPage>({
    resource: 'accounts',
    path: '/v1/accounts',
    query: { keyword: filters.keyword || undefined },
    pageSize: pageSize.value,
  });
  const search = () => setFilters({ keyword: draft.trim() }) || void list.refetch();

  const columns: Column<Account>[] = [
    {
      key: 'username',
      title: t`Username`,
      sticky: 'start',
      render: (account) => <LinkCell to={accountPath(account.accountKey)} text={account.username} maw={200} />,
    },
    { key: 'nickname', title: t`Nickname`, render: (account) => <Truncated text={account.nickname} maw={160} /> },
    { key: 'state', title: t`State`, render: (account) => <AccountBadges account={account} /> },
    { key: 'email', title: t`Email`, render: (account) => <Truncated text={account.email} maw={220} /> },
    { key: 'phone', title: t`Phone`, render: (account) => account.phone },
    { key: 'remark', title: t`Remark`, render: (account) => <Truncated text={account.remark} maw={200} /> },
    { key: 'created', title: t`Creation time`, render: (account) => formatDateTime(account.createTime) },
  ];

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Group align="flex-end" gap="sm" wrap="nowrap" style={{ flex: '1 1 auto' }}>
          <KeywordInput
            hint={t`Username, nickname, email, phone or remark`}
            value={draft}
            onChange={setDraft}
            onSearch={search}
            wide
            testId="account-keyword"
          />
          <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="account-search">
            <Trans>Search</Trans>
          </Button>
        </Group>
        <Button leftSection={<IconPlus size={16} />} component={Link} to={`${ACCOUNTS_PATH}/create`} data-testid="account-add">
          <Trans>Add</Trans>
        </Button>
      </Group>
      <ListFrame
        list={list}
        name="account"
        pageSize={pageSize}
        columns={columns}
        rowKey={(account) => account.accountKey}
        rowProps={() => ({ 'data-testid': 'account-row' })}
        filtered={!!filters.keyword}
        empty={<Text c="dimmed">{t`No one here yet.`}</Text>}
        showTotal
      />
    </Stack>
  );
}
