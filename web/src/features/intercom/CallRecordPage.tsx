import { useMemo, useState } from 'react';
import { Badge, Button, Paper, Select, Stack, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconDoorEnter, IconListDetails, IconPlayerPlay } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { CALL_STATUSES, type CallStatus } from '@passcloud/functions/contract/intercom';
import { api } from '../../app/api.ts';
import { formatShortTime, formatTime } from '../../app/format.ts';
import { useList, useWrite } from '../../app/queries.ts';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { ExportDialog } from '../passage/records/ExportDialog.tsx';
import { rangeAllowed, rangeQuery } from '../passage/records/filters.ts';
import { DeviceFilter } from '../filters.tsx';
import { EmptyRecords, RecordFilterBar } from '../passage/records/RecordFilterBar.tsx';
import { today } from '../passage/records/alerts.ts';
import { CALLS_PATH, callPath, loadIntercomNames, type CallItem, type CallPage } from './api.ts';
import { StatusBadge, formatDuration, useKindLabels, useStatusLabels } from './parts.tsx';
import { CallDetail } from './CallDetail.tsx';
import { RecordingPlayer } from './RecordingPlayer.tsx';

/** Live calls ring and end within seconds: while one is on the page it is read this often. */
const LIVE_REFRESH_MS = 2000;
const REFRESH_MS = 10_000;

interface Filters {
  range: [string | null, string | null];
  status: CallStatus | null;
  deviceKey: string | null;
}
const initial = (): Filters => ({ range: [today(), today()], status: null, deviceKey: null });

const queryOf = (filters: Filters): Record<string, string | undefined> => ({
  ...rangeQuery(filters.range),
  status: filters.status ? String(filters.status) : undefined,
  deviceKey: filters.deviceKey ?? undefined,
});

/**
 * Call records, newest first, one row per call with both ends (each end's own report in its
 * details): days (today unless chosen), status and an intercom at either end; server-side pages;
 * a recording plays in the browser; a live, answered call with a door station can open its door;
 * the filtered calls export as a background job.
 */
export function CallRecordPage() {
  const { t } = useLingui();
  const statusLabels = useStatusLabels();
  const kindLabels = useKindLabels();
  const filterState = useListFilters(initial, { check: (draft) => rangeAllowed(draft.range) });
  const { draft, filters } = filterState;
  const names = useQuery({ queryKey: ['intercom', 'names'], queryFn: () => loadIntercomNames() }).data ?? [];
  const [playing, setPlaying] = useState<CallItem | null>(null);
  const [shown, setShown] = useState<CallItem | null>(null);
  const [exporting, setExporting] = useState(false);
  const query = useMemo(() => queryOf(filters), [filters]);
  const pageSize = usePageSize('intercomCalls');
  const list = useList<CallItem, CallPage>({
    resource: 'intercom',
    path: CALLS_PATH,
    query,
    pageSize: pageSize.value,
    refreshMs: (page, pageIndex) =>
      playing || exporting || shown ? false : page?.items.some((c) => c.live) ? LIVE_REFRESH_MS : pageIndex === 0 ? REFRESH_MS : false,
  });
  const page = list.page;

  // The call shows the door opened once the intercom reports it.
  const openDoor = useWrite((call: CallItem) => api.post(`${callPath(call.callKey)}/openDoor`, {}), {
    touches: ['intercom'],
    success: t`Open-door command sent`,
  });

  const deviceOptions = names
    .map((d) => ({ value: d.deviceKey, label: d.number ? `${d.name} (${d.number})` : d.name }))
    .sort((a, b) => a.label.localeCompare(b.label));
  const party = (p: CallItem['calling']) => (
    <Stack gap={0}>
      <Text size="sm" truncate="end" maw={200} title={p.name ?? undefined}>
        {p.name ?? t`Unknown intercom`}
      </Text>
      <Text size="xs" c="dimmed">
        {[p.kind ? kindLabels[p.kind] : null, p.number].filter(Boolean).join(' · ')}
      </Text>
    </Stack>
  );

  const columns: Column<CallItem>[] = [
    {
      key: 'callTime',
      title: t`Call time`,
      render: (call) => (
        <Tooltip label={formatTime(call.callTime)}>
          <span>{formatShortTime(call.callTime)}</span>
        </Tooltip>
      ),
    },
    { key: 'status', title: t`Status`, render: (call) => <StatusBadge status={call.status} live={call.live} /> },
    { key: 'calling', title: t`Calling device`, render: (call) => party(call.calling) },
    { key: 'called', title: t`Called device`, render: (call) => party(call.called) },
    { key: 'duration', title: t`Duration`, render: (call) => (call.duration === null ? '—' : formatDuration(call.duration)) },
    {
      key: 'door',
      title: t`Door`,
      render: (call) =>
        call.doorOpenedAt ? (
          <Tooltip label={formatTime(call.doorOpenedAt)}>
            <Badge color="green" variant="light" w="max-content" data-testid="call-door-opened">
              {t`Opened`}
            </Badge>
          </Tooltip>
        ) : call.canOpenDoor ? (
          <Button
            size="xs"
            variant="light"
            color="green"
            leftSection={<IconDoorEnter size={14} />}
            loading={openDoor.isPending && openDoor.variables?.callKey === call.callKey}
            onClick={() => openDoor.mutate(call)}
            data-testid="call-open-door"
          >
            <Trans>Open door</Trans>
          </Button>
        ) : (
          '—'
        ),
    },
    {
      key: 'recording',
      title: t`Recording`,
      render: (call) => {
        switch (call.recording.state) {
          case 'ready':
            return (
              <Button size="xs" variant="light" leftSection={<IconPlayerPlay size={14} />} onClick={() => setPlaying(call)} data-testid="call-play">
                <Trans>Play</Trans>
              </Button>
            );
          case 'pending':
            return (
              <Text size="sm" c="dimmed" data-testid="call-recording-pending">
                {t`Uploading`}
              </Text>
            );
          case 'expired':
            return (
              <Text size="sm" c="dimmed" data-testid="call-recording-expired">
                {t`Expired`}
              </Text>
            );
          default:
            return (
              <Text size="sm" c="dimmed" data-testid="call-no-recording">
                {t`No recording`}
              </Text>
            );
        }
      },
    },
    {
      key: 'details',
      title: t`Details`,
      render: (call) => (
        <Button size="xs" variant="subtle" leftSection={<IconListDetails size={14} />} onClick={() => setShown(call)} data-testid="call-details">
          <Trans>Details</Trans>
        </Button>
      ),
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <RecordFilterBar name="call" filters={filterState} list={list} onExport={() => setExporting(true)} canExport={!!page && list.items.length > 0}>
            <Select
              label={t`Status`}
              placeholder={t`Any status`}
              data={CALL_STATUSES.map((value) => ({ value: String(value), label: statusLabels[value] }))}
              clearable
              value={draft.status ? String(draft.status) : null}
              onChange={(value) => filterState.change({ status: value ? (Number(value) as CallStatus) : null })}
              w={170}
              data-testid="call-status-filter"
            />
            <DeviceFilter
              options={deviceOptions}
              all={t`All intercoms`}
              value={draft.deviceKey}
              onChange={(deviceKey) => filterState.change({ deviceKey })}
              w={220}
              testId="call-device-filter"
            />
          </RecordFilterBar>
          <ListFrame
            list={list}
            name="call"
            pageSize={pageSize}
            columns={columns}
            rowKey={(call) => call.callKey}
            rowProps={(call) => ({ 'data-testid': 'call-row', 'data-call': call.callKey, 'data-live': call.live || undefined })}
            empty={
              <EmptyRecords
                list={list}
                text={<Trans>Nothing matches among the calls read so far.</Trans>}
                otherwise={filters.status || filters.deviceKey ? t`No calls match these filters.` : t`No calls on these days.`}
              />
            }
          />
        </Stack>
      </Paper>
      <RecordingPlayer call={playing} onClose={() => setPlaying(null)} />
      <CallDetail call={shown} onClose={() => setShown(null)} />
      <ExportDialog path={CALLS_PATH} title={t`Export call records`} body={query} opened={exporting} onClose={() => setExporting(false)} />
    </ScreenPage>
  );
}
