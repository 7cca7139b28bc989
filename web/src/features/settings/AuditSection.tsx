import { useState } from 'react';
import { Badge, Button, Group, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { type DatesRangeValue } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { IconDownload } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { AUDIT_KINDS, type AuditEntryJson, type AuditKind } from '@passcloud/functions/contract/audit';
import { downloadFile } from '../../app/download.ts';
import { dayBound, formatTime } from '../../app/format.ts';
import { showFailure, useList, useUrlFilters } from '../../app/queries.ts';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { DaysFilter, SearchButtons } from '../filters.tsx';
import { AuditAction } from './AuditAction.tsx';

const KIND_COLOR: Record<AuditKind, string> = { change: 'blue', login: 'teal', loginFailed: 'red', logout: 'gray', export: 'grape', playback: 'orange' };

interface Filters {
  range: DatesRangeValue<string>;
  kind: AuditKind | null;
  username: string;
}

const NO_FILTERS: Filters = { range: [null, null], kind: null, username: '' };
/** The filters as they stand in the URL: `from` and `to` are days (`YYYY-MM-DD`). */
const URL_DEFAULTS = { from: '', to: '', kind: '', username: '' };

/**
 * The audit log: who did what and when, from which address, newest first; filtered by day,
 * kind and account, and exported as a workbook with the same filters. Nothing here changes it.
 */
export function AuditSection() {
  const { t } = useLingui();
  const [inUrl, setInUrl] = useUrlFilters(URL_DEFAULTS);
  const filters: Filters = {
    range: [inUrl.from || null, inUrl.to || null],
    kind: AUDIT_KINDS.includes(inUrl.kind as AuditKind) ? (inUrl.kind as AuditKind) : null,
    username: inUrl.username,
  };
  const setFilters = (next: Filters) => setInUrl({ from: next.range[0] ?? '', to: next.range[1] ?? '', kind: next.kind ?? '', username: next.username.trim() });
  const filterState = useListFilters(() => NO_FILTERS, { applied: [filters, setFilters] });
  const { draft } = filterState;
  const [exporting, setExporting] = useState(false);

  const kindLabel: Record<AuditKind, string> = {
    change: t`Change`,
    login: t`Login`,
    loginFailed: t`Failed login`,
    logout: t`Logout`,
    export: t`Export`,
    playback: t`Recording played`,
  };
  const reasonLabel: Record<string, string> = {
    badCredentials: t`Wrong username or password`,
    disabled: t`Account disabled`,
    throttled: t`Too many tries`,
    secondFactor: t`Wrong two-factor code`,
  };

  const [from, to] = filters.range;
  const query = { from: dayBound(from), to: dayBound(to ?? from, true), kind: filters.kind ?? undefined, username: filters.username || undefined };
  const pageSize = usePageSize('audit');
  const list = useList<AuditEntryJson>({ resource: 'audit', path: '/v1/audit', query, pageSize: pageSize.value });

  const search = () => filterState.search(list.refetch);
  const exportAll = () => {
    setExporting(true);
    downloadFile('/v1/audit/export', query, 'audit.xlsx')
      .catch(showFailure)
      .finally(() => setExporting(false));
  };

  /** The key's id, which its prefix in the API keys section also shows. */
  const apiKeyNote = (key: string) => t`Made with the API key ${key}`;
  const filtered = !!(filters.range[0] || filters.kind || filters.username);
  const columns: Column<AuditEntryJson>[] = [
    { key: 'time', title: t`Time`, sticky: 'start', render: (entry) => formatTime(entry.time) },
    {
      key: 'username',
      title: t`Account`,
      render: (entry) =>
        entry.apiKey === null ? (
          <Truncated text={entry.username} maw={160} />
        ) : (
          // A change made by a machine with an API key: the name is the key's.
          <Group gap={6} wrap="nowrap">
            <Truncated text={entry.username} maw={160} />
            <Tooltip label={apiKeyNote(entry.apiKey)} withinPortal>
              <Badge size="xs" variant="outline" color="gray" miw="max-content" data-testid="audit-api-key">
                <Trans>API key</Trans>
              </Badge>
            </Tooltip>
          </Group>
        ),
    },
    {
      key: 'kind',
      title: t`Kind`,
      render: (entry) => (
        <Badge size="sm" variant="light" color={KIND_COLOR[entry.kind]} miw="max-content" data-testid="audit-kind">
          {kindLabel[entry.kind]}
        </Badge>
      ),
      folds: (entry) => kindLabel[entry.kind],
    },
    {
      key: 'action',
      title: t`Action`,
      wrap: true,
      render: (entry) => <AuditAction entry={entry} reason={entry.reason ? (reasonLabel[entry.reason] ?? entry.reason) : null} />,
    },
    {
      key: 'address',
      title: t`Address`,
      wrap: true,
      // The whole address, wrapped where it must be (an IPv6 one is long); the browser is in the entry's details.
      render: (entry) => (
        <Text size="sm" miw={120} style={{ overflowWrap: 'anywhere' }} data-testid="audit-address">
          {entry.sourceIp}
        </Text>
      ),
    },
    { key: 'code', title: t`Answer code`, render: (entry) => entry.code },
  ];
  return (
    <Stack gap="md">
      <Text c="dimmed" size="sm">
        <Trans>
          Every change made in the console or with an API key, every login and failed login, every export and every recording played. Entries cannot be changed
          or removed, and are kept for 400 days.
        </Trans>
      </Text>
      <Group align="flex-end" gap="sm" wrap="wrap">
        <DaysFilter value={draft.range} onChange={(range) => filterState.change({ range })} w={260} testId="audit-range" />
        <Select
          label={t`Kind`}
          placeholder={t`Any kind`}
          data={AUDIT_KINDS.map((value) => ({ value, label: kindLabel[value] }))}
          clearable
          value={draft.kind}
          onChange={(kind) => filterState.change({ kind: kind as AuditKind | null })}
          w={180}
          data-testid="audit-kind-filter"
        />
        <TextInput
          label={t`Account`}
          placeholder={t`Username`}
          value={draft.username}
          maxLength={64}
          onChange={(event) => filterState.change({ username: event.currentTarget.value })}
          onKeyDown={(event) => event.key === 'Enter' && search()}
          w={180}
          data-testid="audit-username"
        />
        <SearchButtons name="audit" onSearch={search} onReset={filterState.reset} />
        <Button variant="light" leftSection={<IconDownload size={16} />} loading={exporting} onClick={exportAll} ms="auto" data-testid="audit-export">
          <Trans>Export</Trans>
        </Button>
      </Group>

      <ListFrame
        list={list}
        name="audit"
        pageSize={pageSize}
        columns={columns}
        rowKey={(entry) => entry.auditKey}
        rowProps={(entry) => ({ 'data-testid': 'audit-row', 'data-kind': entry.kind })}
        filtered={filtered}
        empty={<Text c="dimmed">{t`Nothing has been recorded yet.`}</Text>}
      />
    </Stack>
  );
}
