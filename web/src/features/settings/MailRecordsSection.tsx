import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert, Anchor, Badge, Button, Drawer, Group, Paper, Select, Stack, Table, Text } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { modals } from '@mantine/modals';
import { IconRefresh, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { MAIL_GROUPS, MAIL_STATUSES, type MailRecordJson, type MailStatus } from '@passcloud/functions/contract/mail';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { formatDateTime, formatNumber } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { CursorPager } from '../../components/CursorPager.tsx';
import { ScrollTable } from '../../components/ScrollTable.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import tables from '../../components/DataTable.module.css';

const PAGE_SIZE = 20;
const STATUS_COLOR: Record<MailStatus, string> = { queued: 'blue', sent: 'teal', failed: 'red', retrying: 'orange' };

interface MailPage {
  items: MailRecordJson[];
  nextCursor: string | null;
}

interface Filters {
  range: DatesRangeValue<string>;
  status: MailStatus | null;
  group: string | null;
}

const NO_FILTERS: Filters = { range: [null, null], status: null, group: null };

/** A day picked in the range (`YYYY-MM-DD`) as the instant its local day starts, or the next one starts. */
function dayBound(day: string | null, next = false): string | undefined {
  if (!day) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + (next ? 1 : 0)).toISOString();
}

/**
 * Mail records: every mail the company's account sent, newest first, filtered by send date,
 * status and group; one mail opens in a drawer with its content, and a failed one may be sent again.
 */
export function MailRecordsSection() {
  const { t } = useLingui();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<MailPage | null>(null);
  const [failed, setFailed] = useState(false);
  const [open, setOpen] = useState<MailRecordJson | null>(null);
  const [resending, setResending] = useState(false);

  const statusLabel: Record<MailStatus, string> = { queued: t`Queued`, sent: t`Sent`, failed: t`Failed`, retrying: t`Retrying` };
  const groupLabel: Record<string, string> = {
    verification: t`Verification code`,
    invitation: t`Invitation`,
    test: t`Test mail`,
    feverAlert: t`Fever alert`,
    blacklistAlert: t`Blacklist alert`,
    attendanceSummary: t`Attendance summary`,
    licenceReminder: t`Licence reminder`,
  };
  const groupName = (group: string) => groupLabel[group] ?? group;

  /** Loads the page asked for; an answer to an older request (filters changed since) is dropped. */
  const latest = useRef(0);
  const load = useCallback(async () => {
    const request = ++latest.current;
    setFailed(false);
    try {
      const [from, to] = filters.range;
      const answer = await api.get<MailPage>('/v1/mailRecords', {
        query: { pageSize: PAGE_SIZE, cursor: cursors.at(-1), from: dayBound(from), to: dayBound(to ?? from, true), status: filters.status, group: filters.group },
      });
      if (request === latest.current) setPage(answer);
    } catch {
      if (request === latest.current) setFailed(true);
    }
  }, [cursors, filters]);
  useEffect(() => {
    void load();
  }, [load]);

  const search = () => {
    setFilters(draft);
    setCursors([undefined]);
  };
  const reset = () => {
    setDraft(NO_FILTERS);
    setFilters(NO_FILTERS);
    setCursors([undefined]);
  };

  const view = async (record: MailRecordJson) => {
    setOpen(record);
    try {
      setOpen(await api.get<MailRecordJson>(`/v1/mailRecords/${record.mailKey}`));
    } catch {
      // The request client has shown why; the row's copy stays on screen.
    }
  };

  const resend = (record: MailRecordJson) => {
    const to = record.to;
    modals.openConfirmModal({
      title: t`Resend mail`,
      children: (
        <Text size="sm">
          <Trans>Send this mail to {to} again?</Trans>
        </Text>
      ),
      labels: { confirm: t`Resend`, cancel: t`Cancel` },
      confirmProps: { 'data-testid': 'confirm-resend' } as never,
      cancelProps: { 'data-testid': 'cancel-resend' } as never,
      onConfirm: () => {
        setResending(true);
        api
          .post<{ mailKey: string; status: MailStatus; error: string | null }>(`/v1/mailRecords/${record.mailKey}/resend`, undefined, { silent: true })
          .then(async (answer) => {
            if (answer.status === 'failed') toast(answer.error ?? t`The mail was not sent`);
            else notifySuccess(answer.status === 'sent' ? t`The mail was sent again` : t`The mail is queued to be sent again`);
            setOpen(null);
            await load();
          })
          .catch((error: unknown) => {
            if (error instanceof RequestError) toast(error.issues[0]?.message ?? error.message);
          })
          .finally(() => setResending(false));
      },
    });
  };

  const items = page?.items ?? [];
  const filtered = !!(filters.range[0] || filters.status || filters.group);
  const shown = formatNumber(items.length);
  return (
    <Stack gap="md">
      <Group align="flex-end" gap="sm" wrap="wrap">
        <DatePickerInput
          type="range"
          label={t`Send date`}
          placeholder={t`Any date`}
          allowSingleDateInRange
          clearable
          value={draft.range}
          onChange={(range) => setDraft({ ...draft, range })}
          w={260}
          data-testid="mail-range"
        />
        <Select
          label={t`Status`}
          placeholder={t`Any status`}
          data={MAIL_STATUSES.map((value) => ({ value, label: statusLabel[value] }))}
          clearable
          value={draft.status}
          onChange={(status) => setDraft({ ...draft, status: status as MailStatus | null })}
          w={160}
          data-testid="mail-status"
        />
        <Select
          label={t`Group`}
          placeholder={t`Any group`}
          data={MAIL_GROUPS.map((value) => ({ value, label: groupName(value) }))}
          clearable
          value={draft.group}
          onChange={(group) => setDraft({ ...draft, group })}
          w={200}
          data-testid="mail-group"
        />
        <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="mail-search">
          <Trans>Search</Trans>
        </Button>
        <Button variant="default" onClick={reset} data-testid="mail-reset">
          <Trans>Reset</Trans>
        </Button>
      </Group>

      <ScrollTable>
        <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="mail-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th className={tables.stickyStart}>{t`Title`}</Table.Th>
              <Table.Th>{t`Name`}</Table.Th>
              <Table.Th>{t`Group`}</Table.Th>
              <Table.Th>{t`From`}</Table.Th>
              <Table.Th>{t`To`}</Table.Th>
              <Table.Th>{t`Status`}</Table.Th>
              <Table.Th>{t`Send time`}</Table.Th>
              <Table.Th>{t`Remarks`}</Table.Th>
              <Table.Th className={tables.stickyEnd}>{t`Actions`}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((record) => (
              <Table.Tr key={record.mailKey} data-testid="mail-row" data-group={record.group} data-status={record.status}>
                <Table.Td className={tables.stickyStart}>
                  <Anchor component="button" type="button" size="sm" onClick={() => void view(record)} maw={240} truncate="end" display="block" title={record.title} data-testid="mail-view">
                    {record.title}
                  </Anchor>
                </Table.Td>
                <Table.Td>
                  <Truncated text={record.name} maw={140} />
                </Table.Td>
                <Table.Td>{groupName(record.group)}</Table.Td>
                <Table.Td>
                  <Truncated text={record.from} maw={220} />
                </Table.Td>
                <Table.Td>
                  <Truncated text={record.to} maw={220} />
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" color={STATUS_COLOR[record.status]} miw="max-content" data-testid="mail-status-badge">
                    {statusLabel[record.status]}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatDateTime(record.sendTime)}</Table.Td>
                <Table.Td>
                  <Truncated text={record.remarks ?? record.error} maw={220} />
                </Table.Td>
                <Table.Td className={tables.stickyEnd}>
                  {record.resendable && (
                    <Button size="compact-xs" variant="light" leftSection={<IconRefresh size={14} />} loading={resending} onClick={() => resend(record)} data-testid="mail-resend">
                      <Trans>Resend</Trans>
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>

      {page && items.length === 0 && (
        <Text c="dimmed" ta="center" py="xl" data-testid="mail-empty">
          {filtered ? t`Nothing matches these filters.` : t`No mail has been sent yet.`}
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
        <Text size="sm" c="dimmed">
          {page && items.length > 0 && <Trans>{shown} on this page</Trans>}
        </Text>
        <CursorPager cursors={cursors} nextCursor={page?.nextCursor} onChange={setCursors} />
      </Group>

      <Drawer opened={!!open} onClose={() => setOpen(null)} position="right" size="lg" title={<Text fw={600}>{open?.title}</Text>} closeButtonProps={{ 'aria-label': t`Close` }} data-testid="mail-drawer">
        {open && (
          <Stack gap="md">
            <Table withRowBorders={false} verticalSpacing={4} layout="fixed">
              <Table.Tbody>
                {(
                  [
                    [t`Status`, <Badge size="sm" variant="light" color={STATUS_COLOR[open.status]}>{statusLabel[open.status]}</Badge>],
                    [t`Group`, groupName(open.group)],
                    [t`Name`, open.name ?? '—'],
                    [t`From`, open.from],
                    [t`To`, open.to],
                    [t`Send time`, formatDateTime(open.sendTime)],
                    [t`Attempts`, formatNumber(open.attempts)],
                    ...(open.lastAttemptTime ? [[t`Last attempt`, formatDateTime(open.lastAttemptTime)]] : []),
                    ...(open.nextAttemptTime ? [[t`Next attempt`, formatDateTime(open.nextAttemptTime)]] : []),
                    ...(open.remarks ? [[t`Remarks`, open.remarks]] : []),
                  ] as [string, ReactNode][]
                ).map(([label, value]) => (
                  <Table.Tr key={label}>
                    <Table.Th w="30%" fw={500} c="dimmed">
                      {label}
                    </Table.Th>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{value}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
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
                <Button leftSection={<IconRefresh size={16} />} loading={resending} onClick={() => resend(open)} data-testid="mail-drawer-resend">
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
