import { useMemo } from 'react';
import { Badge, Group, List, Modal, Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useLingui } from '@lingui/react/macro';
import type { DayStatus } from '@passcloud/functions/domain/attendance/index';
import type { DayJson as StoredDay } from '@passcloud/functions/contract/attendance';
import { api } from '../../app/api.ts';
import { formatDate, formatDateTime } from '../../app/format.ts';
import { pickDepartments, type PickerDepartment } from '../../app/pickers.ts';
import { getAuthorities } from '../../app/session.ts';
import { CloseFooter } from '../parts.tsx';
import type { Page } from './api.ts';
import { useTraceText } from './traceText.ts';

/** What the daily and monthly statistics share: days, statuses, durations, the filters of who, and one day's trace. */

/** The statuses a day may have, as the daily filter offers them. */
export const DAY_STATUSES = ['normal', 'late', 'earlyLeave', 'missingIn', 'missingOut', 'absence'] as const satisfies readonly DayStatus[];

export const PAGE_SIZE = 20;
const isoDay = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
export const thisDay = (): string => isoDay(new Date());
/** The last date of a month `YYYY-MM`. */
export const lastDayOf = (month: string): string => isoDay(new Date(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0));

/** Departments as a flat list of names, the tree's order kept. */
function flatDepartments(nodes: PickerDepartment[], out: { value: string; label: string }[] = [], depth = 0): { value: string; label: string }[] {
  for (const node of nodes) {
    out.push({ value: node.departmentKey, label: `${'  '.repeat(depth)}${node.name}` });
    flatDepartments(node.children, out, depth + 1);
  }
  return out;
}

export function useStatusLabels(): Record<DayStatus, string> {
  const { t } = useLingui();
  return {
    normal: t({ message: 'Normal', context: 'attendance status' }),
    late: t`Late`,
    earlyLeave: t`Left early`,
    missingIn: t`Missing clock-in`,
    missingOut: t`Missing clock-out`,
    absence: t`Absent`,
  };
}
export const STATUS_COLORS: Record<DayStatus, string> = {
  normal: 'teal',
  late: 'orange',
  earlyLeave: 'yellow',
  missingIn: 'grape',
  missingOut: 'grape',
  absence: 'red',
};

/** Minutes as "1 h 05 min" or "25 min"; none as a dash. */
export function useDuration() {
  const { t } = useLingui();
  return (minutes: number): string => {
    if (!minutes) return '–';
    const h = Math.floor(minutes / 60);
    const m = String(minutes % 60).padStart(2, '0');
    return h ? t`${h} h ${m} min` : t`${minutes} min`;
  };
}

/** Filters both statistics screens share: department, attendance group, keyword. */
export function useFilterChoices() {
  const { t } = useLingui();
  const departments = useQuery({
    queryKey: ['pickers', 'departments'],
    queryFn: pickDepartments,
    enabled: getAuthorities().includes('pass:employee') || getAuthorities().includes('pass:attendance-statistics'),
  });
  const groups = useQuery({
    queryKey: ['attendanceGroups', 'names'],
    queryFn: () => api.get<Page<{ attendanceGroupKey: string; name: string }>>('/v1/attendance/groupNames').then((p) => p.items),
  });
  const departmentChoices = useMemo(() => flatDepartments(departments.data ?? []), [departments.data]);
  // A department or group deleted since the day was computed is said to be so, never shown by its key.
  const departmentName = (key: string | null) =>
    key ? (departmentChoices.find((d) => d.value === key)?.label.trim() ?? (departments.data ? t`Deleted department` : '')) : '';
  const groupChoices = (groups.data ?? []).map((g) => ({ value: g.attendanceGroupKey, label: g.name }));
  const groupName = (key: string) => groupChoices.find((g) => g.value === key)?.label ?? (groups.data ? t`Deleted attendance group` : '');
  return { departmentChoices, departmentName, groupChoices, groupName };
}

/** The department and attendance group filters both statistics screens have. */
export function WhoFilters({
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
export function DayTrace({ day, onClose }: { day: StoredDay; onClose: () => void }) {
  const { t } = useLingui();
  const labels = useStatusLabels();
  const traceText = useTraceText();
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
          {day.trace.map((step, i) => (
            <List.Item key={i} data-code={step.code}>
              <Text size="sm">{traceText(step)}</Text>
            </List.Item>
          ))}
        </List>
        <Text size="xs" c="dimmed" data-testid="day-computed">
          {day.open ? t`The day is still going on. Computed at ${formatDateTime(day.computedAt)}.` : t`Computed at ${formatDateTime(day.computedAt)}.`}
        </Text>
        <CloseFooter onClose={onClose} testId="day-trace-close" />
      </Stack>
    </Modal>
  );
}
