import { useState } from 'react';
import { Alert, Badge, Button, Group, Paper, Select, Stack, Text, Tooltip } from '@mantine/core';
import { DatePickerInput, MonthPickerInput, type DatesRangeValue } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { IconDownload, IconRefresh, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import type { DayStatus } from '@passcloud/functions/domain/attendance/index';
import type { DayJson as StoredDay, MonthJson as MonthTotals } from '@passcloud/functions/contract/attendance';
import { downloadFile } from '../../app/download.ts';
import { formatDate, formatDateTime, formatDecimal, formatNumber, formatTemperature } from '../../app/format.ts';
import { showFailure, useList, useUrlFilters } from '../../app/queries.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import type { Page } from './api.ts';
import { RecomputeButton, RecomputeStatus, useRecompute } from './Recompute.tsx';
import {
  DAY_STATUSES,
  DayTrace,
  PAGE_SIZE,
  STATUS_COLORS,
  WhoFilters,
  lastDayOf,
  thisDay,
  useDuration,
  useFilterChoices,
  useStatusLabels,
} from './statisticsParts.tsx';

export type { MonthTotals, StoredDay };

/** Each employee's days: status, clock-ins, and every figure, which opens its trace. */
export function DailyStatisticsPage() {
  const { t } = useLingui();
  const labels = useStatusLabels();
  const duration = useDuration();
  const today = thisDay();
  const [filters, setFilters] = useUrlFilters({ from: today, to: today, departmentKey: '', attendanceGroupKey: '', status: '', keyword: '' });
  const [draft, setDraft] = useState(filters);
  const [traced, setTraced] = useState<StoredDay | null>(null);
  const recomputation = useRecompute();
  const choices = useFilterChoices();
  const list = useList<StoredDay, Page<StoredDay> & { rulesChangedAt: string | null }>({
    resource: 'attendanceDays',
    path: '/v1/attendance/daily',
    query: {
      from: filters.from,
      to: filters.to,
      departmentKey: filters.departmentKey || undefined,
      attendanceGroupKey: filters.attendanceGroupKey || undefined,
      status: filters.status || undefined,
      keyword: filters.keyword || undefined,
    },
    pageSize: PAGE_SIZE,
  });
  const search = () => setFilters({ ...draft, keyword: draft.keyword.trim() }) || void list.refetch();
  const range: DatesRangeValue<string> = [draft.from, draft.to];
  // Days on this page computed before the rules last changed may not follow them yet.
  const rulesChangedAt = list.page?.rulesChangedAt ?? null;
  const outdated = !!rulesChangedAt && !recomputation.running && list.items.some((day) => day.computedAt < rulesChangedAt);

  const figure = (day: StoredDay, value: number, text: string, testId?: string) =>
    value ? (
      <Text
        size="sm"
        component="button"
        type="button"
        c="blue.7"
        td="underline"
        bg="none"
        bd="none"
        p={0}
        style={{ cursor: 'pointer' }}
        onClick={() => setTraced(day)}
        data-testid={testId}
      >
        {text}
      </Text>
    ) : (
      <Text size="sm" c="dimmed">
        –
      </Text>
    );

  const columns: Column<StoredDay>[] = [
    {
      key: 'name',
      title: t`Name`,
      sticky: 'start',
      render: (day) => (
        <Text
          size="sm"
          component="button"
          type="button"
          bg="none"
          bd="none"
          p={0}
          c="blue.7"
          style={{ cursor: 'pointer' }}
          onClick={() => setTraced(day)}
          data-testid="day-open"
          title={day.personId}
        >
          {day.name}
        </Text>
      ),
    },
    { key: 'personId', title: t`Personnel ID`, render: (day) => day.personId },
    { key: 'department', title: t`Department`, render: (day) => choices.departmentName(day.departmentKey) },
    { key: 'date', title: t`Date`, render: (day) => formatDate(day.date) },
    { key: 'shift', title: t`Shift`, render: (day) => day.shiftName ?? (day.kind === 'holiday' ? t`Holiday` : t`Rest`) },
    {
      key: 'status',
      title: t`Status`,
      render: (day) => (
        <Group gap={4} wrap="nowrap" w="max-content">
          {day.kind !== 'workday' && day.status.length === 0 ? (
            <Badge variant="light" color="gray" size="sm" style={{ flexShrink: 0 }}>
              {day.kind === 'holiday' ? t`Holiday` : t`Rest day`}
            </Badge>
          ) : (
            day.status.map((s) => (
              <Badge key={s} variant="light" color={STATUS_COLORS[s as DayStatus]} size="sm" style={{ flexShrink: 0 }}>
                {labels[s as DayStatus]}
              </Badge>
            ))
          )}
          {day.open && (
            <Tooltip label={t`The day is still going on`}>
              <Badge variant="outline" color="gray" size="sm" style={{ flexShrink: 0 }}>
                {t`Today`}
              </Badge>
            </Tooltip>
          )}
        </Group>
      ),
    },
    { key: 'firstIn', title: t`First clock-in`, render: (day) => day.firstIn ?? '–' },
    { key: 'lastOut', title: t`Last clock-out`, render: (day) => day.lastOut ?? '–' },
    { key: 'late', title: t`Late`, render: (day) => figure(day, day.late, duration(day.late), 'day-late') },
    { key: 'earlyLeave', title: t`Left early`, render: (day) => figure(day, day.earlyLeave, duration(day.earlyLeave)) },
    { key: 'absence', title: t`Absence (days)`, render: (day) => figure(day, day.absence, formatDecimal(day.absence, 2)) },
    { key: 'missing', title: t`Missing`, render: (day) => figure(day, day.missingIn + day.missingOut, formatNumber(day.missingIn + day.missingOut)) },
    {
      key: 'overtime',
      title: t`Overtime`,
      render: (day) => {
        const total = day.overtimeWorkday + day.overtimeRestDay + day.overtimeHoliday;
        return figure(day, total, duration(total));
      },
    },
    { key: 'work', title: t`Work`, render: (day) => figure(day, day.work, duration(day.work)) },
    { key: 'temperature', title: t`Temperature`, render: (day) => (day.temperature === null ? '–' : formatTemperature(day.temperature)) },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <Group align="flex-end" gap="sm" wrap="wrap">
            <DatePickerInput
              type="range"
              allowSingleDateInRange
              label={t`Dates`}
              valueFormat="L"
              value={range}
              maxDate={today}
              onChange={([from, to]) => setDraft({ ...draft, from: from ? from.slice(0, 10) : draft.from, to: (to ?? from ?? draft.to).slice(0, 10) })}
              w={250}
              data-testid="daily-range"
            />
            <WhoFilters name="daily" choices={choices} value={draft} onChange={(who) => setDraft({ ...draft, ...who })} />
            <Select
              label={t`Status`}
              placeholder={t`Any status`}
              data={DAY_STATUSES.map((value) => ({ value, label: labels[value] }))}
              clearable
              value={draft.status || null}
              onChange={(value) => setDraft({ ...draft, status: value ?? '' })}
              w={170}
              data-testid="daily-status"
            />
            <KeywordInput
              hint={t`Name or personnel ID`}
              value={draft.keyword}
              onChange={(keyword) => setDraft({ ...draft, keyword })}
              onSearch={search}
              testId="daily-keyword"
            />
            <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="daily-search">
              <Trans>Search</Trans>
            </Button>
            <RecomputeButton recomputation={recomputation} from={filters.from} to={filters.to} testId="daily-recompute" />
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => downloadFile('/v1/attendance/daily/export', { ...filters }).catch(showFailure)}
              data-testid="daily-export"
            >
              <Trans>Export</Trans>
            </Button>
          </Group>
          {outdated && (
            <Alert color="yellow" variant="light" title={t`The rules changed after some of these days were computed`} data-testid="daily-outdated">
              <Group justify="space-between" gap="sm">
                <Text size="sm">
                  <Trans>
                    Shifts, groups, their staff or holidays changed at {formatDateTime(rulesChangedAt)}. Days computed before then show figures under the
                    earlier rules until they are computed again.
                  </Trans>
                </Text>
                {recomputation.maySettle && (
                  <Button
                    size="xs"
                    variant="light"
                    color="yellow"
                    leftSection={<IconRefresh size={14} />}
                    onClick={() => recomputation.start(filters.from, filters.to)}
                    data-testid="daily-outdated-recompute"
                  >
                    <Trans>Compute again</Trans>
                  </Button>
                )}
              </Group>
            </Alert>
          )}
          <RecomputeStatus recomputation={recomputation} />
          <ListFrame
            list={list}
            name="daily"
            columns={columns}
            rowKey={(day) => `${day.date}#${day.personKey}`}
            rowProps={() => ({ 'data-testid': 'daily-row' })}
            filtered={!!(filters.departmentKey || filters.attendanceGroupKey || filters.status || filters.keyword)}
            empty={<Text c="dimmed">{t`No attendance for these days yet. Days are computed as punches arrive and when each day ends.`}</Text>}
          />
        </Stack>
      </Paper>
      {traced && <DayTrace day={traced} onClose={() => setTraced(null)} />}
    </ScreenPage>
  );
}

/** Each employee's month: counts and durations summed from the days. */
export function MonthlyStatisticsPage() {
  const { t } = useLingui();
  const duration = useDuration();
  const thisMonth = thisDay().slice(0, 7);
  const [filters, setFilters] = useUrlFilters({ month: thisMonth, departmentKey: '', attendanceGroupKey: '', keyword: '' });
  const [draft, setDraft] = useState(filters);
  const choices = useFilterChoices();
  const list = useList<MonthTotals, Page<MonthTotals>>({
    resource: 'attendanceMonths',
    path: '/v1/attendance/monthly',
    query: {
      month: filters.month,
      departmentKey: filters.departmentKey || undefined,
      attendanceGroupKey: filters.attendanceGroupKey || undefined,
      keyword: filters.keyword || undefined,
    },
    pageSize: PAGE_SIZE,
  });
  const search = () => setFilters({ ...draft, keyword: draft.keyword.trim() }) || void list.refetch();
  const recomputation = useRecompute();

  const columns: Column<MonthTotals>[] = [
    { key: 'name', title: t`Name`, sticky: 'start', render: (m) => m.name },
    { key: 'personId', title: t`Personnel ID`, render: (m) => m.personId },
    { key: 'department', title: t`Department`, render: (m) => choices.departmentName(m.departmentKey) },
    { key: 'group', title: t`Attendance group`, render: (m) => choices.groupName(m.attendanceGroupKey) },
    { key: 'attended', title: t`Attendance (days)`, render: (m) => `${formatNumber(m.attended)} / ${formatNumber(m.workdays)}` },
    { key: 'late', title: t`Late`, render: (m) => (m.lateCount ? `${formatNumber(m.lateCount)} · ${duration(m.late)}` : '–') },
    { key: 'earlyLeave', title: t`Left early`, render: (m) => (m.earlyLeaveCount ? `${formatNumber(m.earlyLeaveCount)} · ${duration(m.earlyLeave)}` : '–') },
    { key: 'work', title: t`Work`, render: (m) => duration(m.work) },
    { key: 'absence', title: t`Absence (days)`, render: (m) => (m.absence ? formatDecimal(m.absence, 2) : '–') },
    { key: 'missing', title: t`Missing`, render: (m) => (m.missing ? formatNumber(m.missing) : '–') },
    { key: 'overtimeWorkday', title: t`Workday overtime`, render: (m) => duration(m.overtimeWorkday) },
    { key: 'overtimeRestDay', title: t`Rest day overtime`, render: (m) => duration(m.overtimeRestDay) },
    { key: 'overtimeHoliday', title: t`Holiday overtime`, render: (m) => duration(m.overtimeHoliday) },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <Group align="flex-end" gap="sm" wrap="wrap">
            <MonthPickerInput
              label={t`Month`}
              valueFormat="YYYY-MM"
              value={`${draft.month}-01`}
              maxDate={thisDay()}
              onChange={(value) => value && setDraft({ ...draft, month: value.slice(0, 7) })}
              w={150}
              data-testid="monthly-month"
            />
            <WhoFilters name="monthly" choices={choices} value={draft} onChange={(who) => setDraft({ ...draft, ...who })} />
            <KeywordInput
              hint={t`Name or personnel ID`}
              value={draft.keyword}
              onChange={(keyword) => setDraft({ ...draft, keyword })}
              onSearch={search}
              testId="monthly-keyword"
            />
            <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="monthly-search">
              <Trans>Search</Trans>
            </Button>
            <RecomputeButton recomputation={recomputation} from={`${filters.month}-01`} to={lastDayOf(filters.month)} testId="monthly-recompute" />
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => downloadFile('/v1/attendance/monthly/export', { ...filters }).catch(showFailure)}
              data-testid="monthly-export"
            >
              <Trans>Export</Trans>
            </Button>
          </Group>
          <RecomputeStatus recomputation={recomputation} />
          <ListFrame
            list={list}
            name="monthly"
            columns={columns}
            rowKey={(m) => m.personKey}
            rowProps={() => ({ 'data-testid': 'monthly-row' })}
            filtered={!!(filters.departmentKey || filters.attendanceGroupKey || filters.keyword)}
            empty={<Text c="dimmed">{t`No attendance in this month yet.`}</Text>}
          />
        </Stack>
      </Paper>
    </ScreenPage>
  );
}
