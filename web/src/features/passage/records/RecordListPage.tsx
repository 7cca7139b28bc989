import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Avatar, Button, Center, Group, Loader, Paper, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { IconDownload, IconSearch } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  PASS_STATES,
  RECORD_RANGE_MAX_DAYS,
  RECORD_TYPES,
  TEMPERATURE_FILTERS,
  type PassState,
  type RecordType,
} from '@passcloud/functions/contract/passRecords';
import { api } from '../../../app/api.ts';
import { formatNumber, formatShortTime } from '../../../app/format.ts';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { ScrollTable } from '../../../components/ScrollTable.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import tables from '../../../components/DataTable.module.css';
import { loadDeviceOptions, loadRecord, recordsPath, type DeviceOption, type PassRecordItem, type PassRecordPage } from './api.ts';
import { defaultFilters, filtersNarrowed, pickableDays, rangeAllowed, recordQuery, type RecordFilters, type RecordScreen } from './filters.ts';
import { useRecordLabels } from './labels.ts';
import { RecordPhoto, StateBadge, Temperature, TypeBadge, personName } from './parts.tsx';
import { RecordDetail } from './RecordDetail.tsx';
import { ExportDialog } from './ExportDialog.tsx';

const PAGE_SIZE = 20;

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
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<PassRecordPage | null>(null);
  const [failed, setFailed] = useState(false);
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

  // An answer to an older request (filters or page changed since) is dropped.
  const latest = useRef(0);
  const load = useCallback(async () => {
    const request = ++latest.current;
    setFailed(false);
    try {
      const answer = await api.get<PassRecordPage>(recordsPath(screen), { query: { ...query, pageSize: PAGE_SIZE, cursor: cursors.at(-1) } });
      if (request === latest.current) setPage(answer);
    } catch {
      if (request === latest.current) {
        setPage(null);
        setFailed(true);
      }
    }
  }, [cursors, query, screen]);
  useEffect(() => {
    void load();
  }, [load]);

  const search = () => {
    if (!rangeAllowed(draft.range)) {
      setRangeError(true);
      return;
    }
    setFilters(draft);
    setCursors([undefined]);
  };
  const reset = () => {
    const initial = defaultFilters();
    setRangeError(false);
    setDraft(initial);
    setFilters(initial);
    setCursors([undefined]);
  };

  // Devices the terminal list does not offer still come from the records.
  const deviceOptions = useMemo(() => {
    const known = new Map(devices.map((d) => [d.value, d]));
    for (const record of page?.items ?? [])
      if (!known.has(record.deviceKey)) known.set(record.deviceKey, { value: record.deviceKey, label: record.deviceName });
    return [...known.values()];
  }, [devices, page]);

  const items = page?.items ?? [];
  const shown = formatNumber(items.length);
  const pickable = pickableDays(draft.range);

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group align="flex-end" gap="sm" wrap="wrap">
            <DatePickerInput
              type="range"
              label={t`Date`}
              valueFormat="L"
              allowSingleDateInRange
              value={draft.range}
              minDate={pickable.minDate}
              maxDate={pickable.maxDate}
              onChange={(range) => {
                setRangeError(false);
                setDraft({ ...draft, range });
              }}
              error={rangeError ? plural(RECORD_RANGE_MAX_DAYS, { one: 'Choose at most # day', other: 'Choose at most # days' }) : undefined}
              w={240}
              data-testid="record-range"
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

          <ScrollTable>
            <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="record-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t`Capture`}</Table.Th>
                  <Table.Th>{t`Avatar`}</Table.Th>
                  <Table.Th>{t`Name`}</Table.Th>
                  <Table.Th>{t`Type`}</Table.Th>
                  <Table.Th>{t`Temperature`}</Table.Th>
                  <Table.Th>{t`Pass state`}</Table.Th>
                  <Table.Th>{t`Device`}</Table.Th>
                  <Table.Th>{t`Time`}</Table.Th>
                  <Table.Th>{t`Verify time`}</Table.Th>
                  <Table.Th>{t`Source`}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((record) => {
                  const name = personName(record, labels);
                  return (
                    <Table.Tr
                      key={record.recordKey}
                      onClick={() => setOpen(record)}
                      onKeyDown={(e) => {
                        if (e.key === 'Enter' || e.key === ' ') {
                          e.preventDefault();
                          setOpen(record);
                        }
                      }}
                      tabIndex={0}
                      aria-label={name}
                      style={{ cursor: 'pointer' }}
                      data-testid="record-row"
                      data-type={record.type}
                      data-record={record.recordKey}
                    >
                      <Table.Td>
                        <RecordPhoto src={record.capture} size={40} alt={t`Capture`} testId="record-capture" />
                      </Table.Td>
                      <Table.Td>
                        <Avatar src={record.avatar} size={36} radius="xl" alt="">
                          {record.name?.slice(0, 1)}
                        </Avatar>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" fw={500} c={record.name ? undefined : 'dimmed'} truncate="end" maw={180} title={name}>
                          {name}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Group gap={6} wrap="nowrap">
                          <TypeBadge record={record} labels={labels} />
                          <Truncated text={record.groupName} maw={140} />
                        </Group>
                      </Table.Td>
                      <Table.Td>
                        <Temperature record={record} />
                      </Table.Td>
                      <Table.Td>
                        <StateBadge record={record} labels={labels} />
                      </Table.Td>
                      <Table.Td>
                        <Truncated text={record.deviceName} maw={180} />
                      </Table.Td>
                      <Table.Td>{formatShortTime(record.time)}</Table.Td>
                      <Table.Td>{formatShortTime(record.verifyTime)}</Table.Td>
                      <Table.Td>{labels.source[record.source]}</Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </ScrollTable>

          {!page && !failed && (
            <Center py="xl" data-testid="record-loading">
              <Loader size="sm" />
            </Center>
          )}
          {page && items.length === 0 && !page.nextCursor && (
            <Text c="dimmed" ta="center" py="xl" data-testid="record-empty">
              {filtersNarrowed(filters)
                ? t`No records match these filters.`
                : screen === 'blacklist'
                  ? t`No blacklist hits on these days.`
                  : t`No passes on these days.`}
            </Text>
          )}
          {/* A filtered read stops after a bounded number of records; the next page goes on from there. */}
          {page && items.length === 0 && page.nextCursor && (
            <Stack align="center" py="xl" gap="xs" data-testid="record-empty">
              <Text c="dimmed">
                <Trans>Nothing matches among the records read so far.</Trans>
              </Text>
              <Button variant="light" onClick={() => setCursors([...cursors, page.nextCursor!])} data-testid="record-search-further">
                <Trans>Search further</Trans>
              </Button>
            </Stack>
          )}
          {failed && (
            <Stack align="center" py="xl" gap="xs" data-testid="record-failed">
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
        </Stack>
      </Paper>
      <RecordDetail record={open} onClose={closeRecord} />
      <ExportDialog screen={screen} body={query} opened={exporting} onClose={() => setExporting(false)} />
    </ScreenPage>
  );
}
