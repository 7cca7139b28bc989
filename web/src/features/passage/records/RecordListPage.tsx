import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Avatar, Button, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useThrottledCallback } from '@mantine/hooks';
import { IconDownload, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  PASS_STATES,
  RECORD_TYPES,
  TEMPERATURE_FILTERS,
  type PassState,
  type RecordType,
} from '@passcloud/functions/contract/passRecords';
import { formatShortTime } from '../../../app/format.ts';
import { useList } from '../../../app/queries.ts';
import { useLive } from '../../../app/live/channel.ts';
import { ListFrame, type Column } from '../../../components/ListFrame.tsx';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import classes from './RecordListPage.module.css';
import { loadDeviceOptions, loadRecord, recordsPath, type DeviceOption, type PassRecordItem, type PassRecordPage } from './api.ts';
import { defaultFilters, filtersNarrowed, rangeAllowed, recordQuery, type RecordFilters, type RecordScreen } from './filters.ts';
import { useRecordLabels } from './labels.ts';
import { RecordPhoto, StateBadge, Temperature, TypeBadge, personName } from './parts.tsx';
import { RecordDetail } from './RecordDetail.tsx';
import { ExportDialog } from './ExportDialog.tsx';
import { DayRangeInput } from './DayRangeInput.tsx';

const PAGE_SIZE = 20;
/** Without the live channel, the first page follows new records this often while it is shown and no record is open. */
const LIVE_REFRESH_MS = 5000;
/** With it, the first page is read again as records arrive, at most this often. */
const LIVE_READ_MS = 1000;

/**
 * Pass records, newest first: days (today unless chosen), device, type, temperature, pass state
 * and name; server-side pages; a row opens the capture next to the enrolled photo; the filtered
 * records export as a background job. The blacklist's screen is the same list with its type fixed.
 */
export function RecordListPage({ screen }: { screen: RecordScreen }) {
  const { t } = useLingui();
  const labels = useRecordLabels();
  const [draft, setDraft] = useState<RecordFilters>(() => defaultFilters());
  const [filters, setFilters] = useState<RecordFilters>(draft);
  const [rangeError, setRangeError] = useState(false);
  const [devices, setDevices] = useState<DeviceOption[]>([]);
  const [open, setOpen] = useState<PassRecordItem | null>(null);
  const [exporting, setExporting] = useState(false);

  // A link of an alert mail names one record (`?record=<key>`): it opens over the list.
  const [params, setParams] = useSearchParams();
  const linked = params.get('record');
  useEffect(() => {
    if (!linked) return;
    let live = true;
    loadRecord(screen, linked).then(
      (record) => live && setOpen(record),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [linked, screen]);
  const closeRecord = () => {
    setOpen(null);
    if (linked) {
      const next = new URLSearchParams(params);
      next.delete('record');
      setParams(next, { replace: true });
    }
  };

  useEffect(() => {
    // The terminal list needs its own right; without it the device filter offers the devices of the records read.
    loadDeviceOptions().then(setDevices, () => undefined);
  }, []);

  const query = useMemo(() => recordQuery(filters, screen), [filters, screen]);

  // The first page follows new records on its own: read again as the live channel announces them,
  // or every LIVE_REFRESH_MS while it is not open. A later page, or an open record, stays as it is.
  const [liveOpen, setLiveOpen] = useState(false);
  const list = useList<PassRecordItem, PassRecordPage>({
    resource: 'passRecords',
    path: recordsPath(screen),
    query,
    pageSize: PAGE_SIZE,
    refreshMs: (_page, pageIndex) => (pageIndex === 0 && !open && !exporting && !liveOpen ? LIVE_REFRESH_MS : false),
  });
  const page = list.page;
  const following = list.cursors.length === 1 && !open && !exporting;
  const refetch = useThrottledCallback(() => void list.refetch(), LIVE_READ_MS);
  const live = useLive(screen === 'blacklist' ? 'blacklist' : 'passes', refetch, { enabled: following, onOpen: refetch });
  useEffect(() => setLiveOpen(live), [live]);

  // Records that arrived since the page was first shown are marked as new.
  const seen = useRef<{ of: string; keys: Set<string> }>({ of: '', keys: new Set() });
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const pageOf = JSON.stringify([query, list.cursors.at(-1) ?? null]);
  useEffect(() => {
    if (!page || list.isPlaceholderData) return;
    const keys = page.items.map((r) => r.recordKey);
    if (seen.current.of === pageOf) {
      const added = keys.filter((k) => !seen.current.keys.has(k));
      if (added.length > 0) setFresh((current) => new Set([...current, ...added]));
      for (const k of keys) seen.current.keys.add(k);
    } else {
      seen.current = { of: pageOf, keys: new Set(keys) };
      setFresh(new Set());
    }
  }, [page, pageOf, list.isPlaceholderData]);

  const search = () => {
    if (!rangeAllowed(draft.range)) {
      setRangeError(true);
      return;
    }
    if (JSON.stringify(draft) === JSON.stringify(filters)) void list.refetch();
    else setFilters(draft);
  };
  const reset = () => {
    const initial = defaultFilters();
    setRangeError(false);
    setDraft(initial);
    setFilters(initial);
  };

  // Devices the terminal list does not offer still come from the records.
  const deviceOptions = useMemo(() => {
    const known = new Map(devices.map((d) => [d.value, d]));
    for (const record of page?.items ?? [])
      if (!known.has(record.deviceKey)) known.set(record.deviceKey, { value: record.deviceKey, label: record.deviceName });
    return [...known.values()];
  }, [devices, page]);

  const items = list.items;

  const columns: Column<PassRecordItem>[] = [
    { key: 'capture', title: t`Capture`, render: (record) => <RecordPhoto src={record.capture} size={40} alt={t`Capture`} testId="record-capture" /> },
    {
      key: 'avatar',
      title: t`Avatar`,
      render: (record) => (
        <Avatar src={record.avatar} size={36} radius="xl" alt="">
          {record.name?.slice(0, 1)}
        </Avatar>
      ),
    },
    {
      key: 'name',
      title: t`Name`,
      render: (record) => {
        const name = personName(record, labels);
        return (
          <Text size="sm" fw={500} c={record.name ? undefined : 'dimmed'} truncate="end" maw={180} title={name}>
            {name}
          </Text>
        );
      },
    },
    {
      key: 'type',
      title: t`Type`,
      render: (record) => (
        <Group gap={6} wrap="nowrap">
          <TypeBadge record={record} labels={labels} />
          <Truncated text={record.groupName} maw={140} />
        </Group>
      ),
    },
    { key: 'temperature', title: t`Temperature`, render: (record) => <Temperature record={record} /> },
    { key: 'passState', title: t`Pass state`, render: (record) => <StateBadge record={record} labels={labels} /> },
    { key: 'device', title: t`Device`, render: (record) => <Truncated text={record.deviceName} maw={180} /> },
    { key: 'time', title: t`Time`, render: (record) => formatShortTime(record.time) },
    { key: 'verifyTime', title: t`Verify time`, render: (record) => formatShortTime(record.verifyTime) },
    { key: 'source', title: t`Source`, render: (record) => labels.source[record.source] },
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
              testId="record-range"
            />
            <Select
              label={t`Device`}
              placeholder={t`All devices`}
              data={deviceOptions}
              searchable
              clearable
              nothingFoundMessage={t`No such device`}
              value={draft.deviceKey}
              onChange={(deviceKey) => setDraft({ ...draft, deviceKey })}
              w={200}
              data-testid="record-device"
            />
            {screen === 'pass' && (
              <Select
                label={t`Type`}
                placeholder={t`All types`}
                data={RECORD_TYPES.map((value) => ({ value, label: labels.type[value] }))}
                clearable
                value={draft.type}
                onChange={(type) => setDraft({ ...draft, type: type as RecordType | null })}
                w={150}
                data-testid="record-type-filter"
              />
            )}
            <Select
              label={t`Temperature`}
              placeholder={t`Any temperature`}
              data={TEMPERATURE_FILTERS.map((value) => ({ value, label: labels.temperature[value] }))}
              clearable
              value={draft.temperature}
              onChange={(temperature) => setDraft({ ...draft, temperature: temperature as RecordFilters['temperature'] })}
              w={180}
              data-testid="record-temperature-filter"
            />
            <Select
              label={t`Pass state`}
              placeholder={t`Any state`}
              data={PASS_STATES.map((value) => ({ value, label: labels.passState[value] }))}
              clearable
              value={draft.passState}
              onChange={(passState) => setDraft({ ...draft, passState: passState as PassState | null })}
              w={150}
              data-testid="record-state-filter"
            />
            <TextInput
              label={t`Keyword`}
              placeholder={t`Name`}
              value={draft.keyword}
              maxLength={64}
              onChange={(e) => setDraft({ ...draft, keyword: e.currentTarget.value })}
              onKeyDown={(e) => e.key === 'Enter' && search()}
              w={180}
              data-testid="record-keyword"
            />
            <Group gap="xs" wrap="nowrap">
              <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="record-search">
                <Trans>Search</Trans>
              </Button>
              <Button variant="default" onClick={reset} data-testid="record-reset">
                <Trans>Reset</Trans>
              </Button>
              <Button
                variant="default"
                leftSection={<IconDownload size={16} />}
                onClick={() => setExporting(true)}
                disabled={!page || items.length === 0}
                data-testid="record-export-button"
              >
                <Trans>Export</Trans>
              </Button>
            </Group>
          </Group>

          <ListFrame
            list={list}
            name="record"
            columns={columns}
            rowKey={(record) => record.recordKey}
            rowProps={(record) => ({
              onClick: () => setOpen(record),
              onKeyDown: (e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  setOpen(record);
                }
              },
              tabIndex: 0,
              'aria-label': personName(record, labels),
              style: { cursor: 'pointer' },
              className: fresh.has(record.recordKey) ? classes.fresh : undefined,
              'data-testid': 'record-row',
              'data-type': record.type,
              'data-record': record.recordKey,
              'data-new': fresh.has(record.recordKey) || undefined,
            })}
            empty={
              page?.nextCursor ? (
                // A filtered read stops after a bounded number of records; the next page goes on from there.
                <>
                  <Text c="dimmed">
                    <Trans>Nothing matches among the records read so far.</Trans>
                  </Text>
                  <Button variant="light" onClick={() => list.setCursors([...list.cursors, page.nextCursor!])} data-testid="record-search-further">
                    <Trans>Search further</Trans>
                  </Button>
                </>
              ) : (
                <Text c="dimmed">
                  {filtersNarrowed(filters)
                    ? t`No records match these filters.`
                    : screen === 'blacklist'
                      ? t`No blacklist hits on these days.`
                      : t`No passes on these days.`}
                </Text>
              )
            }
          />
        </Stack>
      </Paper>
      <RecordDetail record={open} onClose={closeRecord} />
      <ExportDialog
        path={recordsPath(screen)}
        title={screen === 'blacklist' ? t`Export blacklist records` : t`Export pass records`}
        body={query}
        opened={exporting}
        onClose={() => setExporting(false)}
      />
    </ScreenPage>
  );
}
