import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Avatar, Group, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useThrottledCallback } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  PASS_STATES,
  RECORD_TYPES,
  REFUSAL_REASONS,
  TEMPERATURE_FILTERS,
  type PassState,
  type RecordType,
  type RefusalReason,
} from '@passcloud/functions/contract/passRecords';
import { formatShortTime } from '../../../app/format.ts';
import { itemKey, useList } from '../../../app/queries.ts';
import { useLive } from '../../../app/live/channel.ts';
import { ListFrame, openingRow, type Column } from '../../../components/ListFrame.tsx';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import { useListFilters } from '../../../components/useListFilters.ts';
import { usePageSize } from '../../../components/usePageSize.ts';
import classes from './RecordListPage.module.css';
import { loadRecord, recordsPath, useDeviceOptions, type PassRecordItem, type PassRecordPage } from './api.ts';
import { defaultFilters, filtersNarrowed, rangeAllowed, recordQuery, useRecordUrlFilters, type RecordFilters, type RecordScreen } from './filters.ts';
import { useRecordLabels } from './labels.ts';
import { RecordPhoto, StateBadge, Temperature, TypeBadge, personName } from './parts.tsx';
import { RecordDetail } from './RecordDetail.tsx';
import { ExportDialog } from './ExportDialog.tsx';
import { DeviceFilter } from '../../filters.tsx';
import { EmptyRecords, RecordFilterBar } from './RecordFilterBar.tsx';
import { PersonFilterChip } from './PersonFilterChip.tsx';
import { JumpToDay } from './JumpToDay.tsx';

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
  // The applied filters live in the URL: a link to one person's or terminal's passes survives a reload.
  const applied = useRecordUrlFilters();
  const filterState = useListFilters<RecordFilters>(() => defaultFilters(), { check: (draft) => rangeAllowed(draft.range), applied });
  const { draft, filters } = filterState;
  const [open, setOpen] = useState<PassRecordItem | null>(null);
  const [exporting, setExporting] = useState(false);

  // A link of an alert mail names one record (`?record=<key>`): it opens over the list.
  const [params, setParams] = useSearchParams();
  const linked = params.get('record');
  const linkedRecord = useQuery({
    queryKey: itemKey('passRecords', `${recordsPath(screen)}/${linked}`),
    queryFn: () => loadRecord(screen, linked!),
    enabled: !!linked,
  }).data;
  useEffect(() => {
    if (linked && linkedRecord) setOpen(linkedRecord);
  }, [linked, linkedRecord]);
  const closeRecord = () => {
    setOpen(null);
    if (linked) {
      const next = new URLSearchParams(params);
      next.delete('record');
      setParams(next, { replace: true });
    }
  };

  const query = useMemo(() => recordQuery(filters, screen), [filters, screen]);
  const pageSize = usePageSize(screen === 'blacklist' ? 'blacklistRecords' : 'passRecords');
  // A jump to a day starts the list there, within the filter's days: the day becomes the list's
  // last day. Other filters forget it; the export keeps the filter's own days.
  const queryText = JSON.stringify(query);
  const [jump, setJump] = useState<{ of: string; day: string | null }>({ of: '', day: null });
  useEffect(() => setJump((current) => (current.day && current.of !== queryText ? { of: '', day: null } : current)), [queryText]);
  const jumpDay = jump.of === queryText ? jump.day : null;
  const startDay = jumpDay && jumpDay !== query.to ? jumpDay : null;
  const jumped = !!startDay;
  const listQuery = useMemo(() => (startDay ? { ...query, to: startDay } : query), [query, startDay]);

  // The first page follows new records on its own: read again as the live channel announces them,
  // or every LIVE_REFRESH_MS while it is not open. A later page, or an open record, stays as it is.
  const [liveOpen, setLiveOpen] = useState(false);
  const list = useList<PassRecordItem, PassRecordPage>({
    resource: 'passRecords',
    path: recordsPath(screen),
    query: listQuery,
    pageSize: pageSize.value,
    refreshMs: (_page, pageIndex) => (pageIndex === 0 && !jumped && !open && !exporting && !liveOpen ? LIVE_REFRESH_MS : false),
  });
  const page = list.page;
  const following = list.cursors.length === 1 && !jumped && !open && !exporting;
  const refetch = useThrottledCallback(() => void list.refetch(), LIVE_READ_MS);
  const live = useLive(screen === 'blacklist' ? 'blacklist' : 'passes', refetch, { enabled: following, onOpen: refetch });
  useEffect(() => setLiveOpen(live), [live]);

  // Records that arrived since the page was first shown are marked as new.
  const seen = useRef<{ of: string; keys: Set<string> }>({ of: '', keys: new Set() });
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  const pageOf = JSON.stringify([listQuery, list.cursors.at(-1) ?? null]);
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

  const deviceOptions = useDeviceOptions(page?.items);
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
      // The photos scroll away under the name, which stays in place.
      sticky: 'start',
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
    // When the cloud stored the record is nearly always the verify time: the detail shows both.
    { key: 'verifyTime', title: t`Verify time`, render: (record) => formatShortTime(record.verifyTime) },
    { key: 'source', title: t`Source`, render: (record) => labels.source[record.source] },
  ];

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <RecordFilterBar name="record" filters={filterState} list={list} onExport={() => setExporting(true)} canExport={!!page && items.length > 0}>
            <DeviceFilter
              options={deviceOptions}
              value={draft.deviceKey}
              onChange={(deviceKey) => filterState.change({ deviceKey })}
              w={200}
              testId="record-device"
            />
            {filters.personKey && (
              <PersonFilterChip
                name={items.find((r) => r.personKey === filters.personKey)?.name ?? null}
                onClear={() => filterState.apply({ ...draft, personKey: null })}
              />
            )}
            {screen === 'pass' && (
              <Select
                label={t`Type`}
                placeholder={t`All types`}
                data={RECORD_TYPES.map((value) => ({ value, label: labels.type[value] }))}
                clearable
                value={draft.type}
                onChange={(type) => filterState.change({ type: type as RecordType | null })}
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
              onChange={(temperature) => filterState.change({ temperature: temperature as RecordFilters['temperature'] })}
              w={180}
              data-testid="record-temperature-filter"
            />
            <Select
              label={t`Pass state`}
              placeholder={t`Any state`}
              data={PASS_STATES.map((value) => ({ value, label: labels.passState[value] }))}
              clearable
              value={draft.passState}
              onChange={(passState) => filterState.change({ passState: passState as PassState | null })}
              w={150}
              data-testid="record-state-filter"
            />
            <Select
              label={t`Refused for`}
              placeholder={t`Any reason`}
              data={REFUSAL_REASONS.map((value) => ({ value, label: labels.refusedFor[value] }))}
              clearable
              value={draft.refusedFor}
              onChange={(refusedFor) => filterState.change({ refusedFor: refusedFor as RefusalReason | null })}
              w={190}
              data-testid="record-refusal-filter"
            />
            <TextInput
              label={t`Keyword`}
              placeholder={t`Name`}
              value={draft.keyword}
              maxLength={64}
              onChange={(e) => filterState.change({ keyword: e.currentTarget.value })}
              onKeyDown={(e) => e.key === 'Enter' && filterState.search(list.refetch)}
              w={180}
              data-testid="record-keyword"
            />
          </RecordFilterBar>

          <ListFrame
            list={list}
            name="record"
            columns={columns}
            rowKey={(record) => record.recordKey}
            showTotal
            pageSize={pageSize}
            position={<JumpToDay name="record" value={jumpDay} from={query.from} to={query.to} onChange={(day) => setJump({ of: queryText, day })} />}
            rowProps={(record) => ({
              ...openingRow(() => setOpen(record)),
              'aria-label': personName(record, labels),
              className: fresh.has(record.recordKey) ? classes.fresh : undefined,
              'data-testid': 'record-row',
              'data-type': record.type,
              'data-record': record.recordKey,
              'data-new': fresh.has(record.recordKey) || undefined,
            })}
            empty={
              <EmptyRecords
                list={list}
                text={<Trans>Nothing matches among the records read so far.</Trans>}
                testId="record-search-further"
                otherwise={
                  filtersNarrowed(filters)
                    ? t`No records match these filters.`
                    : screen === 'blacklist'
                      ? t`No blacklist hits on these days.`
                      : t`No passes on these days.`
                }
              />
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
