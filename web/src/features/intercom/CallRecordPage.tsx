import { useEffect, useMemo, useState } from 'react';
import { Badge, Button, Group, Paper, Select, Stack, Text, Tooltip } from '@mantine/core';
import { IconDoorEnter, IconDownload, IconPlayerPlay, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { CALL_STATUSES, type CallStatus } from '@passcloud/functions/contract/intercom';
import { api, notifySuccess } from '../../app/api.ts';
import { formatShortTime, formatTime } from '../../app/format.ts';
import { useList } from '../../app/queries.ts';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { ExportDialog } from '../passage/records/ExportDialog.tsx';
import { rangeAllowed } from '../passage/records/filters.ts';
import { DayRangeInput } from '../passage/records/DayRangeInput.tsx';
import { today } from '../passage/records/alerts.ts';
import { CALLS_PATH, callPath, loadIntercomNames, type CallItem, type CallPage, type IntercomName } from './api.ts';
import { StatusBadge, formatDuration, useKindLabels, useStatusLabels } from './parts.tsx';
import { RecordingPlayer } from './RecordingPlayer.tsx';

const PAGE_SIZE = 20;
/** Live calls ring and end within seconds: while one is on the page it is read this often. */
const LIVE_REFRESH_MS = 2000;
const REFRESH_MS = 10_000;

interface Filters {
  range: [string | null, string | null];
  status: CallStatus | null;
  deviceKey: string | null;
}
const initial = (): Filters => ({ range: [today(), today()], status: null, deviceKey: null });

function queryOf(filters: Filters): Record<string, string | undefined> {
  const [first, second] = filters.range;
  const [from, to] = first && second && second < first ? [second, first] : [first ?? undefined, second ?? first ?? undefined];
  return { from, to, status: filters.status ? String(filters.status) : undefined, deviceKey: filters.deviceKey ?? undefined };
}

/**
 * Call records, newest first: days (today unless chosen), status and intercom; server-side pages;
 * a recording plays in the browser; a live, answered call with a door station can open its door;
 * the filtered calls export as a background job.
 */
export function CallRecordPage() {
  const { t } = useLingui();
  const statusLabels = useStatusLabels();
  const kindLabels = useKindLabels();
  const [draft, setDraft] = useState<Filters>(initial);
  const [filters, setFilters] = useState<Filters>(draft);
  const [rangeError, setRangeError] = useState(false);
  const [names, setNames] = useState<IntercomName[]>([]);
  const [playing, setPlaying] = useState<CallItem | null>(null);
  const [exporting, setExporting] = useState(false);
  const [opening, setOpening] = useState<string | null>(null);

  useEffect(() => {
    loadIntercomNames().then(setNames, () => undefined);
  }, []);
  const query = useMemo(() => queryOf(filters), [filters]);
  const list = useList<CallItem, CallPage>({
    resource: 'intercom',
    path: CALLS_PATH,
    query,
    pageSize: PAGE_SIZE,
    refreshMs: (page, pageIndex) => (playing || exporting ? false : page?.items.some((c) => c.live) ? LIVE_REFRESH_MS : pageIndex === 0 ? REFRESH_MS : false),
  });
  const page = list.page;

  const search = () => {
    if (!rangeAllowed(draft.range)) {
      setRangeError(true);
      return;
    }
    if (JSON.stringify(draft) === JSON.stringify(filters)) void list.refetch();
    else setFilters(draft);
  };
  const reset = () => {
    const fresh = initial();
    setRangeError(false);
    setDraft(fresh);
    setFilters(fresh);
  };
  const openDoor = (call: CallItem) => {
    setOpening(call.callKey);
    api
      .post(`${callPath(call.callKey)}/openDoor`, {})
      .then(
        () => notifySuccess(t`Open-door command sent`),
        () => undefined,
      )
      .finally(() => setOpening(null));
  };

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
            loading={opening === call.callKey}
            onClick={() => openDoor(call)}
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
      key: 'reportedBy',
      title: t`Reported by`,
      render: (call) => (
        <Text size="sm" truncate="end" maw={180}>
          {call.deviceName}
        </Text>
      ),
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group align="flex-end" gap="sm" wrap="wrap">
            <DayRangeInput
              value={draft.range}
              onChange={(range) => {
                setRangeError(false);
                setDraft({ ...draft, range });
              }}
              tooLong={rangeError}
              testId="call-range"
            />
            <Select
              label={t`Status`}
              placeholder={t`Any status`}
              data={CALL_STATUSES.map((value) => ({ value: String(value), label: statusLabels[value] }))}
              clearable
              value={draft.status ? String(draft.status) : null}
              onChange={(value) => setDraft({ ...draft, status: value ? (Number(value) as CallStatus) : null })}
              w={170}
              data-testid="call-status-filter"
            />
            <Select
              label={t`Device`}
              placeholder={t`All intercoms`}
              data={deviceOptions}
              searchable
              clearable
              nothingFoundMessage={t`No such device`}
              value={draft.deviceKey}
              onChange={(deviceKey) => setDraft({ ...draft, deviceKey })}
              w={220}
              data-testid="call-device-filter"
            />
            <Group gap="xs" wrap="nowrap">
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="call-search">
                <Trans>Search</Trans>
              </Button>
              <Button variant="default" onClick={reset} data-testid="call-reset">
                <Trans>Reset</Trans>
              </Button>
              <Button
                variant="default"
                leftSection={<IconDownload size={16} />}
                onClick={() => setExporting(true)}
                disabled={!page || list.items.length === 0}
                data-testid="call-export-button"
              >
                <Trans>Export</Trans>
              </Button>
            </Group>
          </Group>
          <ListFrame
            list={list}
            name="call"
            columns={columns}
            rowKey={(call) => call.callKey}
            rowProps={(call) => ({ 'data-testid': 'call-row', 'data-call': call.callKey, 'data-live': call.live || undefined })}
            empty={
              page?.nextCursor ? (
                <>
                  <Text c="dimmed">
                    <Trans>Nothing matches among the calls read so far.</Trans>
                  </Text>
                  <Button variant="light" onClick={() => list.setCursors([...list.cursors, page.nextCursor!])}>
                    <Trans>Search further</Trans>
                  </Button>
                </>
              ) : (
                <Text c="dimmed">{filters.status || filters.deviceKey ? t`No calls match these filters.` : t`No calls on these days.`}</Text>
              )
            }
          />
        </Stack>
      </Paper>
      <RecordingPlayer call={playing} onClose={() => setPlaying(null)} />
      <ExportDialog path={CALLS_PATH} title={t`Export call records`} body={query} opened={exporting} onClose={() => setExporting(false)} />
    </ScreenPage>
  );
}
