import { useEffect, useMemo, useState } from 'react';
import { Checkbox, Group, MultiSelect, NumberInput, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { TimePicker } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { currentTag, dayPeriods, formatDateTime, formatNumber, uses12HourClock } from '../../app/format.ts';
import { pickDevices } from '../../app/pickers.ts';
import { listKey, showFailure, useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { RequestError } from '../../app/request.ts';
import { LinkCell, ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { confirmAction, confirmDiscard } from '../confirm.tsx';
import { FormButtons } from '../parts.tsx';
import { Detail, EditDeleteMenu, SearchBar, useConfirmDelete } from './parts.tsx';
import {
  GROUPS_PATH,
  WEEK,
  allShifts,
  allStaff,
  groupPath,
  type AttendanceGroup,
  type AttendanceGroupDetail,
  type Page,
  type StaffMember,
  type Weekday,
} from './api.ts';

/** A Monday, from which the week's names are read in the reader's language. */
const MONDAY = Date.UTC(2026, 10, 23, 12);
const WEEK_INDEX: Record<Weekday, number> = { mon: 0, tue: 1, wed: 2, thu: 3, fri: 4, sat: 5, sun: 6 };

/** "Monday" or "Mon" in the console's language. */
export function weekdayName(day: Weekday, width: 'long' | 'short' = 'long', tag = currentTag()): string {
  return new Intl.DateTimeFormat(tag, { weekday: width, timeZone: 'UTC' }).format(new Date(MONDAY + WEEK_INDEX[day] * 86_400_000));
}

/** The time zones this browser knows, for a group's time zone. */
function timeZones(): string[] {
  const known = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return known.includes('UTC') ? known : ['UTC', ...known];
}

/** Attendance groups: how many staff, which days they work; search, add, edit, delete. */
export function AttendanceGroupListPage() {
  const { t } = useLingui();
  const [filters, setFilters] = useUrlFilters({ keyword: '' });
  const [draft, setDraft] = useState(filters.keyword);
  const pageSize = usePageSize('attendanceGroups');
  const list = useList<AttendanceGroup, Page<AttendanceGroup>>({
    resource: 'attendanceGroups',
    path: '/v1/attendance/groups',
    query: { keyword: filters.keyword || undefined },
    pageSize: pageSize.value,
  });
  const search = () => setFilters({ keyword: draft.trim() }) || void list.refetch();

  const confirmDelete = useConfirmDelete('attendanceGroups');
  const remove = (group: AttendanceGroup) =>
    confirmDelete({
      title: t`Delete attendance group`,
      text: t`Delete the attendance group ${group.name}? Its staff keep their records but leave the group.`,
      path: `/v1/attendance/groups/${group.attendanceGroupKey}`,
      version: group.version,
      done: t`Attendance group deleted`,
    });

  const columns: Column<AttendanceGroup>[] = [
    {
      key: 'name',
      title: t`Group name`,
      sticky: 'start',
      render: (group) => <LinkCell to={groupPath(group.attendanceGroupKey)} text={group.name} maw={220} />,
    },
    { key: 'staff', title: t`Staff`, render: (group) => formatNumber(group.staffCount) },
    {
      key: 'workdays',
      title: t`Work days`,
      render: (group) =>
        WEEK.filter((d) => group.weekdays[d])
          .map((d) => weekdayName(d, 'short'))
          .join(' '),
    },
    { key: 'devices', title: t`Devices`, render: (group) => formatNumber(group.deviceKeys.length) },
    { key: 'timezone', title: t`Time zone`, render: (group) => group.timezone },
    { key: 'created', title: t`Creation time`, render: (group) => formatDateTime(group.createTime) },
    {
      key: 'actions',
      sticky: 'end',
      width: 48,
      render: (group) => <EditDeleteMenu name="group" edit={groupPath(group.attendanceGroupKey)} onDelete={() => remove(group)} />,
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <SearchBar name="group" hint={t`Group name`} keyword={draft} onKeyword={setDraft} onSearch={search} add={`${GROUPS_PATH}/create`} />
          <ListFrame
            list={list}
            name="group"
            pageSize={pageSize}
            columns={columns}
            rowKey={(group) => group.attendanceGroupKey}
            rowProps={() => ({ 'data-testid': 'group-row' })}
            filtered={!!filters.keyword}
            empty={<Text c="dimmed">{t`No attendance groups yet. A group gives its staff a shift for each weekday.`}</Text>}
            showTotal
          />
        </Stack>
      </Paper>
    </ScreenPage>
  );
}

interface GroupValues {
  name: string;
  employeeKeys: string[];
  deviceKeys: string[];
  weekdays: Record<Weekday, string>;
  overtimeAfterOn: boolean;
  workdayOvertimeAfter: string;
  restDayOn: boolean;
  restDayMinHours: number | string;
  timezone: string;
}

/** A weekday without a shift is a rest day: the select's value for it. */
const REST = 'rest';

function valuesOf(group: AttendanceGroupDetail | undefined, defaultShift: string): GroupValues {
  return {
    name: group?.name ?? '',
    employeeKeys: group?.staff.map((s) => s.employeeKey) ?? [],
    deviceKeys: group?.deviceKeys ?? [],
    weekdays: Object.fromEntries(
      WEEK.map((d) => [d, group ? (group.weekdays[d] ?? REST) : d === 'sat' || d === 'sun' || !defaultShift ? REST : defaultShift]),
    ) as Record<Weekday, string>,
    overtimeAfterOn: group ? group.workdayOvertimeAfter !== null : false,
    workdayOvertimeAfter: group?.workdayOvertimeAfter ?? '19:00',
    restDayOn: group ? group.restDayMinHours !== null : false,
    restDayMinHours: group?.restDayMinHours ?? 4,
    timezone: group?.timezone ?? '',
  };
}

/**
 * A group's name, staff (employees who need attendance; one in another group moves here after a
 * confirmation), devices whose passes count as clock-ins, a shift or rest for each weekday, the
 * overtime rules and the time zone its days are counted in.
 */
function AttendanceGroupForm({ group }: { group?: AttendanceGroupDetail }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const shifts = useQuery({ queryKey: ['attendanceShifts', 'all'], queryFn: allShifts });
  const staff = useQuery({ queryKey: ['attendanceStaff', 'all'], queryFn: allStaff });
  const devices = useQuery({ queryKey: ['pickers', 'devices'], queryFn: () => pickDevices() });
  const zones = useMemo(timeZones, []);
  const form = useForm<GroupValues>({
    mode: 'controlled',
    initialValues: valuesOf(group, ''),
    validate: {
      name: (value) => (value.trim() ? null : t`Enter the group name`),
      weekdays: (value) => (Object.values(value).some((v) => v !== REST) ? null : t`Choose a shift for at least one weekday`),
      workdayOvertimeAfter: (value, values) => (values.overtimeAfterOn && !value ? t`Choose the time` : null),
      // Out of range, it is shown on the field as the server would refuse it, never changed to fit.
      restDayMinHours: (value, values) => {
        const [min, max] = [0, 24];
        const hours = Number(value);
        return !values.restDayOn || (value !== '' && hours >= min && hours <= max) ? null : t`Enter a value from ${min} to ${max}`;
      },
    },
  });
  // A new group starts with the first shift on weekdays once the shifts are read, unless the days were chosen meanwhile.
  const firstShift = shifts.data?.[0]?.shiftKey ?? '';
  useEffect(() => {
    if (group || !firstShift || form.isDirty('weekdays')) return;
    const weekdays = valuesOf(undefined, firstShift).weekdays;
    form.setFieldValue('weekdays', weekdays);
    form.resetDirty({ ...valuesOf(undefined, ''), weekdays });
  }, [firstShift]);

  const back = () => navigate(GROUPS_PATH);
  const cancel = () => confirmDiscard(form.isDirty(), back);
  const clock = { format: uses12HourClock() ? ('12h' as const) : ('24h' as const), amPmLabels: dayPeriods() };

  // The screen leaves once saved; the staff and shift choices elsewhere follow the group's.
  const saving = useWrite(
    ({ body }: { values: GroupValues; body: Record<string, unknown> }) =>
      group
        ? api.patch(`/v1/attendance/groups/${group.attendanceGroupKey}`, { ...body, version: group.version }, { silent: true })
        : api.post('/v1/attendance/groups', body, { silent: true }),
    {
      touches: [listKey('attendanceGroups'), ['attendanceGroups', 'names'], 'attendanceStaff', 'attendanceShifts'],
      success: group ? t`Attendance group saved` : t`Attendance group created`,
      onSuccess: () => {
        form.resetDirty();
        back();
      },
      onError: (error, { values }) => {
        // Staff in another group move here only after a confirmation.
        if (error instanceof RequestError && error.status === 409 && (error.data as { people?: unknown[] } | null)?.people) {
          confirmAction({ title: t`Move staff`, text: error.message, confirm: t`Move them`, testId: 'move', onConfirm: () => send(values, true) });
          return;
        }
        const issues: Record<string, string> = {};
        if (error instanceof RequestError) {
          for (const issue of error.issues) {
            const field = issue.path.startsWith('weekdays') ? 'weekdays' : issue.path.split('.')[0]!;
            issues[field] ??= issue.message;
          }
        }
        form.setErrors(issues);
        if (!Object.keys(issues).length) showFailure(error);
      },
    },
  );
  const send = (values: GroupValues, moveStaff: boolean) =>
    saving.mutate({
      values,
      body: {
        name: values.name.trim(),
        employeeKeys: values.employeeKeys,
        deviceKeys: values.deviceKeys,
        weekdays: Object.fromEntries(WEEK.map((d) => [d, values.weekdays[d] === REST ? null : values.weekdays[d]])),
        workdayOvertimeAfter: values.overtimeAfterOn ? values.workdayOvertimeAfter : null,
        restDayMinHours: values.restDayOn ? Number(values.restDayMinHours) : null,
        ...(values.timezone ? { timezone: values.timezone } : {}),
        moveStaff,
      },
    });
  const submit = form.onSubmit((values) => send(values, false));

  const shiftChoices = [{ value: REST, label: t`Rest` }, ...(shifts.data ?? []).map((s) => ({ value: s.shiftKey, label: s.name }))];
  // The group's own staff are named from the group, so each keeps its name even when the list of
  // whom to choose leaves them out (resigned, or not needing attendance).
  const staffLabel = (m: StaffMember): string => {
    const who = `${m.name || t`Employee without a name`} · ${m.personId}`;
    if (m.attendanceGroupKey && m.attendanceGroupKey !== group?.attendanceGroupKey) return `${who} (${m.attendanceGroupName ?? t`another group`})`;
    if (m.state === 'resigned') return `${who} (${t`resigned`})`;
    if (!m.needsAttendance) return `${who} (${t`does not need attendance`})`;
    return who;
  };
  const staffChoices = [...(group?.staff ?? []), ...(staff.data ?? []).filter((m) => !group?.staff.some((s) => s.employeeKey === m.employeeKey))].map((m) => ({
    value: m.employeeKey,
    label: staffLabel(m),
  }));
  // A device removed since the group named it is shown as such (never by its key), and leaves the group when it is saved.
  const deviceChoices = [
    ...(devices.data ?? []).map((d) => ({ value: d.deviceKey, label: d.name })),
    ...(group?.deviceKeys ?? [])
      .filter((k) => !devices.data?.some((d) => d.deviceKey === k))
      .map((k) => ({ value: k, label: devices.data ? t`Removed device` : t`Loading…` })),
  ];

  return (
    <Paper withBorder p="lg" radius="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="lg">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" maw={860}>
            <TextInput label={t`Group name`} required maxLength={64} {...form.getInputProps('name')} data-testid="group-name" />
            <Select
              label={t`Time zone`}
              placeholder={t`The company's time zone`}
              searchable
              clearable
              data={zones}
              limit={50}
              {...form.getInputProps('timezone')}
              onChange={(value) => form.setFieldValue('timezone', value ?? '')}
              data-testid="group-timezone"
            />
          </SimpleGrid>

          <Stack gap="xs">
            <Title order={4} size="h5">
              <Trans>Work days</Trans>
            </Title>
            {shifts.data && shifts.data.length === 0 && (
              <Text size="sm" c="orange.8" data-testid="group-no-shifts">
                <Trans>There are no shifts yet.</Trans>{' '}
                <Text span inherit component={Link} to="/pass-platform/enterprise/attendance/settings/shift/create" c="blue.7">
                  <Trans>Add a shift first</Trans>
                </Text>
              </Text>
            )}
            <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="sm">
              {WEEK.map((day) => (
                <Select
                  key={day}
                  label={weekdayName(day)}
                  data={shiftChoices}
                  allowDeselect={false}
                  value={form.values.weekdays[day]}
                  onChange={(value) => form.setFieldValue(`weekdays.${day}`, value ?? REST)}
                  data-testid={`group-day-${day}`}
                />
              ))}
            </SimpleGrid>
            {form.errors.weekdays && (
              <Text size="xs" c="red" data-testid="group-weekdays-error">
                {form.errors.weekdays}
              </Text>
            )}
          </Stack>

          <Stack gap="xs">
            <Title order={4} size="h5">
              <Trans>Overtime rules</Trans>
            </Title>
            <Group align="flex-end" gap="sm">
              <Checkbox
                label={t`Count workday overtime from`}
                {...form.getInputProps('overtimeAfterOn', { type: 'checkbox' })}
                data-testid="group-overtime-on"
              />
              <TimePicker
                {...clock}
                disabled={!form.values.overtimeAfterOn}
                {...form.getInputProps('workdayOvertimeAfter')}
                aria-label={t`Workday overtime from`}
                data-testid="group-overtime-after"
              />
            </Group>
            <Group align="flex-end" gap="sm">
              <Checkbox
                label={t`Count rest day and holiday work as overtime from (hours)`}
                {...form.getInputProps('restDayOn', { type: 'checkbox' })}
                data-testid="group-restday-on"
              />
              <NumberInput
                min={0}
                max={24}
                step={0.5}
                clampBehavior="none"
                w={100}
                disabled={!form.values.restDayOn}
                aria-label={t`Rest day and holiday overtime from (hours)`}
                {...form.getInputProps('restDayMinHours')}
                data-testid="group-restday-hours"
              />
            </Group>
            <Text size="xs" c="dimmed">
              <Trans>Without a rule, no overtime of that kind is counted.</Trans>
            </Text>
          </Stack>

          <MultiSelect
            label={t`Staff`}
            description={t`Employees who need attendance. Someone in another group moves here after you confirm.`}
            placeholder={staff.isPending ? t`Loading…` : t`Search by name or personnel ID`}
            searchable
            clearable
            limit={100}
            hidePickedOptions
            data={staffChoices}
            nothingFoundMessage={t`No employee who needs attendance matches`}
            {...form.getInputProps('employeeKeys')}
            data-testid="group-staff"
          />
          <MultiSelect
            label={t`Devices`}
            description={t`Passes on these terminals count as clock-ins.`}
            searchable
            clearable
            data={deviceChoices}
            nothingFoundMessage={t`No device matches`}
            {...form.getInputProps('deviceKeys')}
            data-testid="group-devices"
          />

          <FormButtons name="group" onCancel={cancel} saving={saving.isPending}>
            {group ? <Trans>Save</Trans> : <Trans>Create</Trans>}
          </FormButtons>
        </Stack>
      </form>
    </Paper>
  );
}

export function AttendanceGroupCreatePage() {
  return (
    <ScreenPage>
      <AttendanceGroupForm />
    </ScreenPage>
  );
}

export function AttendanceGroupDetailPage() {
  const { attendanceGroupKey = '' } = useParams();
  return (
    <ScreenPage>
      <Detail<AttendanceGroupDetail>
        resource="attendanceGroups"
        path={`/v1/attendance/groups/${attendanceGroupKey}`}
        name="group"
        back={GROUPS_PATH}
        missing={<Trans>This attendance group does not exist or was deleted.</Trans>}
      >
        {(group) => <AttendanceGroupForm key={group.version} group={group} />}
      </Detail>
    </ScreenPage>
  );
}
