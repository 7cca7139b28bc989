import { useState } from 'react';
import { Alert, Badge, Button, Drawer, Group, Paper, Select, Stack, Text } from '@mantine/core';
import { type DatesRangeValue } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { useQuery } from '@tanstack/react-query';
import { IconRefresh } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { MAIL_GROUPS, MAIL_STATUSES, type MailRecordJson, type MailStatus } from '@passcloud/functions/contract/mail';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { dayBound, formatDateTime, formatNumber } from '../../app/format.ts';
import { itemKey, useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { ListFrame, OpenCell, type Column } from '../../components/ListFrame.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { confirmAction } from '../confirm.tsx';
import { DaysFilter, SearchButtons } from '../filters.tsx';
import { FactsTable } from '../parts.tsx';

const STATUS_COLOR: Record<MailStatus, string> = { queued: 'blue', sent: 'teal', failed: 'red', retrying: 'orange' };

interface Filters {
  range: DatesRangeValue<string>;
  status: MailStatus | null;
  group: string | null;
}

const NO_FILTERS: Filters = { range: [null, null], status: null, group: null };
/** The filters as they stand in the URL: `from` and `to` are days (`YYYY-MM-DD`). */
const URL_DEFAULTS = { from: '', to: '', status: '', group: '' };

/**
 * Mail records: every mail the company's account sent, newest first, filtered by send date,
 * status and group; one mail opens in a drawer with its content, and a failed one may be sent again.
 */
export function MailRecordsSection() {
  const { t } = useLingui();
  const [inUrl, setInUrl] = useUrlFilters(URL_DEFAULTS);
  const filters: Filters = {
    range: [inUrl.from || null, inUrl.to || null],
    status: MAIL_STATUSES.includes(inUrl.status as MailStatus) ? (inUrl.status as MailStatus) : null,
    group: inUrl.group || null,
  };
  const setFilters = (next: Filters) => setInUrl({ from: next.range[0] ?? '', to: next.range[1] ?? '', status: next.status ?? '', group: next.group ?? '' });
  const filterState = useListFilters(() => NO_FILTERS, { applied: [filters, setFilters] });
  const { draft } = filterState;
  /** The mail opened in the drawer: the row's copy until the whole mail is read. */
  const [chosen, setOpen] = useState<MailRecordJson | null>(null);
  const path = `/v1/mailRecords/${chosen?.mailKey}`;
  const whole = useQuery({ queryKey: itemKey('mailRecords', path), queryFn: () => api.get<MailRecordJson>(path), enabled: !!chosen }).data;
  const open = chosen && (whole ?? chosen);

  const statusLabel: Record<MailStatus, string> = { queued: t`Queued`, sent: t`Sent`, failed: t`Failed`, retrying: t`Retrying` };
  const groupLabel: Record<string, string> = {
    verification: t`Verification code`,
    invitation: t`Invitation`,
    test: t`Test mail`,
    feverAlert: t`Fever alert`,
    blacklistAlert: t`Blacklist alert`,
    questionnaireAlert: t`Questionnaire alert`,
    attendanceSummary: t`Attendance summary`,
    licenceReminder: t`Licence reminder`,
    webhookDisabled: t`Webhook turned off`,
    doorMode: t`Door mode`,
  };
  const groupName = (group: string) => groupLabel[group] ?? group;

  const [from, to] = filters.range;
  const pageSize = usePageSize('mailRecords');
  const list = useList<MailRecordJson>({
    resource: 'mailRecords',
    path: '/v1/mailRecords',
    query: { from: dayBound(from), to: dayBound(to ?? from, true), status: filters.status ?? undefined, group: filters.group ?? undefined },
    pageSize: pageSize.value,
  });

  const search = () => filterState.search(list.refetch);

  // A mail that could not be sent again says why in the red toast.
  const resending = useWrite(
    (record: MailRecordJson) =>
      api.post<{ mailKey: string; status: MailStatus; error: string | null }>(`/v1/mailRecords/${record.mailKey}/resend`, undefined, { silent: true }),
    {
      touches: ['mailRecords'],
      onSuccess: (answer) => {
        if (answer.status === 'failed') toast(answer.error ?? t`The mail was not sent`);
        else notifySuccess(answer.status === 'sent' ? t`The mail was sent again` : t`The mail is queued to be sent again`);
        setOpen(null);
      },
    },
  );
  const resend = (record: MailRecordJson) => {
    const to = record.to;
    confirmAction({
      title: t`Resend mail`,
      text: (
        <Text size="sm">
          <Trans>Send this mail to {to} again?</Trans>
        </Text>
      ),
      confirm: t`Resend`,
      testId: 'resend',
      onConfirm: () => resending.mutate(record),
    });
  };

  const filtered = !!(filters.range[0] || filters.status || filters.group);
  const columns: Column<MailRecordJson>[] = [
    {
      key: 'title',
      title: t`Title`,
      sticky: 'start',
      render: (record) => <OpenCell onOpen={() => setOpen(record)} text={record.title} maw={240} testId="mail-view" />,
    },
    { key: 'name', title: t`Name`, render: (record) => <Truncated text={record.name} maw={140} /> },
    { key: 'group', title: t`Group`, render: (record) => groupName(record.group), folds: (record) => groupName(record.group) },
    { key: 'from', title: t`From`, render: (record) => <Truncated text={record.from} maw={220} />, folds: (record) => record.from },
    { key: 'to', title: t`To`, render: (record) => <Truncated text={record.to} maw={220} /> },
    {
      key: 'status',
      title: t`Status`,
      render: (record) => (
        <Badge size="sm" variant="light" color={STATUS_COLOR[record.status]} miw="max-content" data-testid="mail-status-badge">
          {statusLabel[record.status]}
        </Badge>
      ),
    },
    { key: 'sendTime', title: t`Send time`, render: (record) => formatDateTime(record.sendTime) },
    { key: 'remarks', title: t`Remarks`, render: (record) => <Truncated text={record.remarks ?? record.error} maw={220} /> },
    {
      key: 'actions',
      title: t`Actions`,
      sticky: 'end',
      present: (record) => record.resendable,
      render: (record) =>
        record.resendable && (
          <Button
            size="compact-xs"
            variant="light"
            leftSection={<IconRefresh size={14} />}
            loading={resending.isPending}
            onClick={() => resend(record)}
            data-testid="mail-resend"
          >
            <Trans>Resend</Trans>
          </Button>
        ),
    },
  ];
  return (
    <Stack gap="md">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <DaysFilter label={t`Send date`} value={draft.range} onChange={(range) => filterState.change({ range })} w={260} testId="mail-range" />
        <Select
          label={t`Status`}
          placeholder={t`Any status`}
          data={MAIL_STATUSES.map((value) => ({ value, label: statusLabel[value] }))}
          clearable
          value={draft.status}
          onChange={(status) => filterState.change({ status: status as MailStatus | null })}
          w={160}
          data-testid="mail-status"
        />
        <Select
          label={t`Group`}
          placeholder={t`Any group`}
          data={MAIL_GROUPS.map((value) => ({ value, label: groupName(value) }))}
          clearable
          value={draft.group}
          onChange={(group) => filterState.change({ group })}
          w={200}
          data-testid="mail-group"
        />
        <SearchButtons name="mail" onSearch={search} onReset={filterState.reset} />
      </Group>

      <ListFrame
        list={list}
        name="mail"
        pageSize={pageSize}
        columns={columns}
        rowKey={(record) => record.mailKey}
        rowProps={(record) => ({ 'data-testid': 'mail-row', 'data-group': record.group, 'data-status': record.status })}
        filtered={filtered}
        empty={<Text c="dimmed">{t`No mail has been sent yet.`}</Text>}
      />

      <Drawer
        opened={!!open}
        onClose={() => setOpen(null)}
        position="right"
        size="lg"
        title={<Text fw={600}>{open?.title}</Text>}
        closeButtonProps={{ 'aria-label': t`Close` }}
        data-testid="mail-drawer"
      >
        {open && (
          <Stack gap="md">
            <FactsTable
              labelWidth="30%"
              wordBreak="break-all"
              rows={[
                [
                  t`Status`,
                  <Badge size="sm" variant="light" color={STATUS_COLOR[open.status]}>
                    {statusLabel[open.status]}
                  </Badge>,
                ],
                [t`Group`, groupName(open.group)],
                [t`Name`, open.name ?? '—'],
                [t`From`, open.from],
                [t`To`, open.to],
                [t`Send time`, formatDateTime(open.sendTime)],
                [t`Attempts`, formatNumber(open.attempts)],
                ...(open.lastAttemptTime ? [[t`Last attempt`, formatDateTime(open.lastAttemptTime)] as const] : []),
                ...(open.nextAttemptTime ? [[t`Next attempt`, formatDateTime(open.nextAttemptTime)] as const] : []),
                ...(open.remarks ? [[t`Remarks`, open.remarks] as const] : []),
              ]}
            />
            {open.error && (
              <Alert color="red" variant="light" title={t`The mail was not sent`}>
                <Text size="sm">{open.error}</Text>
              </Alert>
            )}
            <Paper withBorder radius="md" p="md" bg="gray.0">
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="mail-content">
                {open.content}
              </Text>
            </Paper>
            <Group justify="flex-end" gap="xs">
              <Button variant="default" onClick={() => setOpen(null)} data-testid="mail-drawer-close">
                <Trans>Close</Trans>
              </Button>
              {open.resendable && (
                <Button leftSection={<IconRefresh size={16} />} loading={resending.isPending} onClick={() => resend(open)} data-testid="mail-drawer-resend">
                  <Trans>Resend</Trans>
                </Button>
              )}
            </Group>
          </Stack>
        )}
      </Drawer>
    </Stack>
  );
}
