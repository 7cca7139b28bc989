import { Anchor, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Trans, useLingui } from '@lingui/react/macro';
import dayjs from 'dayjs';
import { Link } from 'react-router-dom';
import { RECORD_RANGE_MAX_DAYS } from '@passcloud/functions/contract/passRecords';
import { api } from '../../../app/api.ts';
import { formatShortTime } from '../../../app/format.ts';
import { wholeList } from '../../../app/queries.ts';
import { getAuthorities } from '../../../app/session.ts';
import { ListFrame, type Column } from '../../../components/ListFrame.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import { today } from './alerts.ts';
import type { PassRecordItem, PassRecordPage } from './api.ts';
import { recordsLink } from './filters.ts';
import { useRecordLabels } from './labels.ts';
import { RecordPhoto, StateBadge, Temperature, personName } from './parts.tsx';

/** How many passes the panel shows; the link opens them all. */
const RECENT = 5;
const RECORDS_SCREEN = '/pass-platform/passage/record';

type Filter = { personKey: string; deviceKey?: undefined } | { deviceKey: string; personKey?: undefined };

/**
 * The newest passes of one person (`personKey`: where and when they passed) or one terminal
 * (`deviceKey`: who passed it), over the longest range the record list takes, with a link to the
 * record list filtered the same way. Shown only to accounts that may see pass records.
 */
export function RecentPasses(props: { filter: Filter }) {
  if (!getAuthorities().includes('pass:record')) return null;
  return <RecentPassesTable {...props} />;
}

function RecentPassesTable({ filter }: { filter: Filter }) {
  const { t } = useLingui();
  const labels = useRecordLabels();
  const to = today();
  const from = dayjs(to)
    .subtract(RECORD_RANGE_MAX_DAYS - 1, 'day')
    .format('YYYY-MM-DD');
  const query = { from, to, ...filter };
  const result = useQuery({
    queryKey: ['passRecords', 'recent', query],
    queryFn: () => api.get<PassRecordPage>('/v1/passRecords', { query: { ...query, pageSize: 20 } }).then((page) => page.items.slice(0, RECENT)),
  });
  const list = wholeList(result);

  const columns: Column<PassRecordItem>[] = [
    { key: 'time', title: t`Verify time`, render: (record) => formatShortTime(record.verifyTime) },
    filter.personKey
      ? { key: 'device', title: t`Terminal`, render: (record) => <Truncated text={record.deviceName} maw={200} /> }
      : { key: 'name', title: t`Name`, render: (record) => <Truncated text={personName(record, labels)} maw={200} /> },
    { key: 'passState', title: t`Pass state`, render: (record) => <StateBadge record={record} labels={labels} /> },
    { key: 'temperature', title: t`Temperature`, render: (record) => <Temperature record={record} /> },
    { key: 'capture', title: t`Capture`, render: (record) => <RecordPhoto src={record.capture} size={40} alt={t`Capture`} testId="recent-capture" /> },
  ];

  return (
    <Paper withBorder radius="md" p="md" data-testid="recent-passes">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={3} size="h5">
            {filter.personKey ? <Trans>Recent passes</Trans> : <Trans>Recent passes at this terminal</Trans>}
          </Title>
          <Anchor component={Link} to={recordsLink(RECORDS_SCREEN, query)} size="sm" data-testid="recent-passes-all">
            <Trans>All passes in the record list</Trans>
          </Anchor>
        </Group>
        <ListFrame
          list={list}
          name="recent"
          columns={columns}
          rowKey={(record) => record.recordKey}
          rowProps={(record) => ({ 'data-testid': 'recent-row', 'data-record': record.recordKey })}
          empty={
            <Text c="dimmed" size="sm">
              {filter.personKey
                ? t`No passes in the last ${RECORD_RANGE_MAX_DAYS} days.`
                : t`Nobody passed this terminal in the last ${RECORD_RANGE_MAX_DAYS} days.`}
            </Text>
          }
          footer={null}
          paged={false}
        />
      </Stack>
    </Paper>
  );
}
