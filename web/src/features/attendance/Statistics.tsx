import { useMemo, useState } from 'react';
import { Alert, Badge, Button, Group, List, Modal, Paper, Select, Stack, Text, Tooltip } from '@mantine/core';
import { DatePickerInput, MonthPickerInput, type DatesRangeValue } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useQuery } from '@tanstack/react-query';
import { IconDownload, IconRefresh, IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import type { DayStatus } from '@passcloud/functions/domain/attendance/index';
import type { DayJson as StoredDay, MonthJson as MonthTotals } from '@passcloud/functions/contract/attendance';
import { api, toast } from '../../app/api.ts';
import { downloadFile } from '../../app/download.ts';
import { formatDate, formatDateTime, formatDecimal, formatNumber, formatTemperature } from '../../app/format.ts';
import { pickDepartments, type PickerDepartment } from '../../app/pickers.ts';
import { useList, useUrlFilters } from '../../app/queries.ts';
import { getAuthorities } from '../../app/session.ts';
import { KeywordInput } from '../../components/KeywordInput.tsx';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import type { Page } from './api.ts';
import { RecomputeButton, RecomputeStatus, useRecompute } from './Recompute.tsx';

/** The statuses a day may have, as the daily filter offers them. */
const DAY_STATUSES = ['normal', 'late', 'earlyLeave', 'missingIn', 'missingOut', 'absence'] as const satisfies readonly DayStatus[];
export type { MonthTotals, StoredDay };

const PAGE_SIZE = 20;
const isoDay = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const thisDay = (): string => isoDay(new Date());
/** The last date of a month `YYYY-MM`. */
const lastDayOf = (month: string): string => isoDay(new Date(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0));

/** Departments as a flat list of names, the tree's order kept. */
function flatDepartments(nodes: PickerDepartment[], out: { value: string; label: string }[] = [], depth = 0): { value: string; label: string }[] {
  for (const node of nodes) {
    out.push({ value: node.departmentKey, label: `${'  '.repeat(depth)}${node.name}` });
    flatDepartments(node.children, out, depth + 1);
  }
  return out;
}

function useStatusLabels(): Record<DayStatus, string> {
  const { t } = useLingui();
  return { normal: t({ message: 'Normal', context: 'attendance status' }), late: t`Late`, earlyLeave: t`Left early`, missingIn: t`Missing clock-in`, missingOut: t`Missing clock-out`, absence: t`Absent` };
}
const STATUS_COLORS: Record<DayStatus, string> = { normal: 'teal', late: 'orange', earlyLeave: 'yellow', missingIn: 'grape', missingOut: 'grape', absence: 'red' };

/** Minutes as "1 h 05 min" or "25 min"; none as a dash. */
function useDuration() {
  const { t } = useLingui();
  return (minutes: number): string => {
    if (!minutes) return '–';
    const h = Math.floor(minutes / 60);
    const m = String(minutes % 60).padStart(2, '0');
    return h ? t`${h} h ${m} min` : t`${minutes} min`;
  };
}

/** Filters both statistics screens share: department, attendance group, keyword. */
function useFilterChoices() {
  const departments = useQuery({ queryKey: ['pickers', 'departments'], queryFn: pickDepartments, enabled: getAuthorities().includes('pass:employee') || getAuthorities().includes('pass:attendance-statistics') });
  const groups = useQuery({
    queryKey: ['attendanceGroups', 'names'],
    queryFn: () => api.get<Page<{ attendanceGroupKey: string; name: string }>>('/v1/attendance/groupNames').then((p) => p.items),
  });
  const departmentChoices = useMemo(() => flatDepartments(departments.data ?? []), [departments.data]);
  const departmentName = (key: string | null) => (key ? (departmentChoices.find((d) => d.value === key)?.label.trim() ?? '') : '');
  const groupChoices = (groups.data ?? []).map((g) => ({ value: g.attendanceGroupKey, label: g.name }));
  const groupName = (key: string) => groupChoices.find((g) => g.value === key)?.label ?? '';
  return { departmentChoices, departmentName, groupChoices, groupName };
}

/** The department and attendance group filters both statistics screens have. */
function WhoFilters({
  name,
  choices,
  value,
  onChange,
}: {
  name: string;
  choices: ReturnType<typeof useFilterChoices>;
  value: { departmentKey: string; attendanceGroupKey: string };
  onChange: (who: { departmentKey?: string; attendanceGroupKey?: string }) => void;
}) {
  const { t } = useLingui();
  return (
    <>
      <Select
        label={t`Department`}
        placeholder={t`Any department`}
        data={choices.departmentChoices}
        clearable
        searchable
        value={value.departmentKey || null}
        onChange={(departmentKey) => onChange({ departmentKey: departmentKey ?? '' })}
        w={180}
        data-testid={`${name}-department`}
      />
      <Select
        label={t`Attendance group`}
        placeholder={t`Any group`}
        data={choices.groupChoices}
        clearable
        value={value.attendanceGroupKey || null}
        onChange={(attendanceGroupKey) => onChange({ attendanceGroupKey: attendanceGroupKey ?? '' })}
        w={180}
        data-testid={`${name}-group`}
      />
    </>
  );
}

/** One day of one employee: every figure and the line of arithmetic behind it. */
function DayTrace({ day, onClose }: { day: StoredDay; onClose: () => void }) {
  const { t } = useLingui();
  const labels = useStatusLabels();
  return (
    <Modal opened onClose={onClose} title={`${day.name} · ${formatDate(day.date)}`} size="lg">
      <Stack gap="sm" data-testid="day-trace">
        <Group gap={4}>
          {day.status.map((s) => (
            <Badge key={s} color={STATUS_COLORS[s as DayStatus]} variant="light">
              {labels[s as DayStatus]}
            </Badge>
          ))}
        </Group>
        <List size="sm" spacing={4} data-testid="day-trace-lines">
          {day.trace.map((line, i) => (
            <List.Item key={i}>
              <Text size="sm" ff="monospace">
                {line}
              </Text>
            </List.Item>
          ))}
        </List>
        <Text size="xs" c="dimmed" data-testid="day-computed">
          {day.open ? t`The day is still going on. Computed at ${formatDateTime(day.computedAt)}.` : t`Computed at ${formatDateTime(day.computedAt)}.`}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-testid="day-trace-close">
            <Trans>Close</Trans>
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

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
      <Text size="sm" component="button" type="button" c="blue.7" td="underline" bg="none" bd="none" p={0} style={{ cursor: 'pointer' }} onClick={() => setTraced(day)} data-testid={testId}>
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
        <Text size="sm" component="button" type="button" bg="none" bd="none" p={0} c="blue.7" style={{ cursor: 'pointer' }} onClick={() => setTraced(day)} data-testid="day-open" title={day.personId}>
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
            <KeywordInput hint={t`Name or personnel ID`} value={draft.keyword} onChange={(keyword) => setDraft({ ...draft, keyword })} onSearch={search} testId="daily-keyword" />
            <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="daily-search">
              <Trans>Search</Trans>
            </Button>
            <RecomputeButton recomputation={recomputation} from={filters.from} to={filters.to} testId="daily-recompute" />
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => downloadFile('/v1/attendance/daily/export', { ...filters }).catch((e: Error) => toast(e.message))}
              data-testid="daily-export"
            >
              <Trans>Export</Trans>
            </Button>
          </Group>
          {outdated && (
            <Alert color="yellow" variant="light" title={t`The rules changed after some of these days were computed`} data-testid="daily-outdated">
              <Group justify="space-between" gap="sm">
                <Text size="sm">
                  <Trans>Shifts, groups, their staff or holidays changed at {formatDateTime(rulesChangedAt)}. Days computed before then show figures under the earlier rules until they are computed again.</Trans>
                </Text>
                {recomputation.maySettle && (
                  <Button
                    size="xs"
                    variant="light"
                    color="yellow"
                    leftSection={<IconRefresh size={14} />}
                    onClick={() => void recomputation.start(filters.from, filters.to)}
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
            <KeywordInput hint={t`Name or personnel ID`} value={draft.keyword} onChange={(keyword) => setDraft({ ...draft, keyword })} onSearch={search} testId="monthly-keyword" />
            <Button leftSection={<IconSearch size={16} />} onClick={search} data-testid="monthly-search">
              <Trans>Search</Trans>
            </Button>
            <RecomputeButton recomputation={recomputation} from={`${filters.month}-01`} to={lastDayOf(filters.month)} testId="monthly-recompute" />
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => downloadFile('/v1/attendance/monthly/export', { ...filters }).catch((e: Error) => toast(e.message))}
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
