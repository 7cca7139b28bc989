import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { TimePicker } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useForm } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate, useParams } from 'react-router-dom';
import { MAX_PERIODS } from '@passcloud/functions/domain/attendance/index';
import { api } from '../../app/api.ts';
import { dayPeriods, formatDateTime, uses12HourClock } from '../../app/format.ts';
import { listKey, showFailure, useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { RequestError } from '../../app/request.ts';
import { LinkCell, ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { confirmDiscard } from '../confirm.tsx';
import { FormButtons } from '../parts.tsx';
import { Detail, EditDeleteMenu, SearchBar, useConfirmDelete } from './parts.tsx';
import { SHIFTS_PATH, blankPeriod, nextPeriod, periodText, shiftPath, type Page, type Period, type Shift } from './api.ts';

/** The longest late or early-leave tolerance the server accepts (functions/contract/attendance.ts): a day, in minutes. */
const MAX_TOLERANCE = 24 * 60;

/** Shifts: their periods, the groups that use them; search by name, add, edit, delete. */
export function ShiftListPage() {
  const { t } = useLingui();
  const [filters, setFilters] = useUrlFilters({ keyword: '' });
  const [draft, setDraft] = useState(filters.keyword);
  const pageSize = usePageSize('shifts');
  const list = useList<Shift, Page<Shift>>({
    resource: 'attendanceShifts',
    path: '/v1/attendance/shifts',
    query: { keyword: filters.keyword || undefined },
    pageSize: pageSize.value,
  });
  const search = () => setFilters({ keyword: draft.trim() }) || void list.refetch();

  const confirmDelete = useConfirmDelete('attendanceShifts');
  const remove = (shift: Shift) =>
    confirmDelete({
      title: t`Delete shift`,
      text: t`Delete the shift ${shift.name}?`,
      path: `/v1/attendance/shifts/${shift.shiftKey}`,
      version: shift.version,
      done: t`Shift deleted`,
    });

  const columns: Column<Shift>[] = [
    {
      key: 'name',
      title: t`Shift name`,
      sticky: 'start',
      render: (shift) => <LinkCell to={shiftPath(shift.shiftKey)} text={shift.name} maw={220} />,
    },
    {
      key: 'periods',
      title: t`Periods`,
      render: (shift) => (
        <Group gap={4} wrap="nowrap" w="max-content">
          {shift.periods.map((p, i) => (
            <Badge key={i} variant="light" size="sm" radius="sm" tt="none">
              {periodText(p, t`next day`)}
            </Badge>
          ))}
        </Group>
      ),
    },
    {
      key: 'usedBy',
      title: t`Used by`,
      render: (shift) => (shift.usedBy.groups.length ? shift.usedBy.groups.map((g) => g.name).join(', ') : <Text size="sm" c="dimmed">{t`No group`}</Text>),
    },
    { key: 'created', title: t`Creation time`, render: (shift) => formatDateTime(shift.createTime) },
    {
      key: 'actions',
      sticky: 'end',
      width: 48,
      render: (shift) => <EditDeleteMenu name="shift" edit={shiftPath(shift.shiftKey)} onDelete={() => remove(shift)} />,
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <SearchBar name="shift" hint={t`Shift name`} keyword={draft} onKeyword={setDraft} onSearch={search} add={`${SHIFTS_PATH}/create`} />
          <ListFrame
            list={list}
            name="shift"
            pageSize={pageSize}
            columns={columns}
            rowKey={(shift) => shift.shiftKey}
            rowProps={() => ({ 'data-testid': 'shift-row' })}
            filtered={!!filters.keyword}
            empty={<Text c="dimmed">{t`No shifts yet. Add one to build attendance groups on it.`}</Text>}
            showTotal
          />
        </Stack>
      </Paper>
    </ScreenPage>
  );
}

interface ShiftValues {
  name: string;
  periods: Period[];
}

/** Field problems of a refused shift, by form path (`periods.1.onDuty`). */
function shiftIssues(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof RequestError)) return out;
  for (const issue of error.issues) if (!out[issue.path]) out[issue.path] = issue.message;
  return out;
}

/** A shift's name and its one to three periods, each with its windows and tolerances. */
function ShiftForm({ shift }: { shift?: Shift }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  // A tolerance out of range is shown on its field as the server would refuse it, never changed to fit.
  const toleranceError = (value: number | string) => {
    const [min, max] = [0, MAX_TOLERANCE];
    return value === '' || (Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max) ? null : t`Enter a value from ${min} to ${max}`;
  };
  const form = useForm<ShiftValues>({
    mode: 'controlled',
    initialValues: shift ? { name: shift.name, periods: shift.periods } : { name: '', periods: [blankPeriod()] },
    validate: {
      name: (value) => (value.trim() ? null : t`Enter the shift name`),
      periods: { lateTolerance: toleranceError, earlyLeaveTolerance: toleranceError },
    },
  });
  const back = () => navigate(SHIFTS_PATH);
  const cancel = () => confirmDiscard(form.isDirty(), back);
  const clock = { format: uses12HourClock() ? ('12h' as const) : ('24h' as const), amPmLabels: dayPeriods() };

  // The screen leaves once saved: the lists (and the groups' shift choices) are read again when shown.
  const saving = useWrite(
    (body: ShiftValues) =>
      shift
        ? api.patch(`/v1/attendance/shifts/${shift.shiftKey}`, { ...body, version: shift.version }, { silent: true })
        : api.post('/v1/attendance/shifts', body, { silent: true }),
    {
      touches: [listKey('attendanceShifts'), ['attendanceShifts', 'all']],
      success: shift ? t`Shift saved` : t`Shift created`,
      onSuccess: () => {
        form.resetDirty();
        back();
      },
      onError: (error) => {
        const issues = shiftIssues(error);
        form.setErrors(issues);
        if (!Object.keys(issues).length) showFailure(error);
      },
    },
  );
  const submit = form.onSubmit((values) =>
    saving.mutate({
      name: values.name.trim(),
      periods: values.periods.map((p) => ({ ...p, lateTolerance: Number(p.lateTolerance) || 0, earlyLeaveTolerance: Number(p.earlyLeaveTolerance) || 0 })),
    }),
  );

  const periodLabel = (i: number) => t`Period ${i + 1}`;
  return (
    <Paper withBorder p="lg" radius="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="lg">
          <TextInput label={t`Shift name`} required maw={420} maxLength={64} {...form.getInputProps('name')} data-testid="shift-name" />
          {form.values.periods.map((_, i) => (
            <Stack key={i} gap="xs" data-testid="shift-period">
              <Group justify="space-between">
                <Title order={4} size="h5">
                  {periodLabel(i)}
                </Title>
                {form.values.periods.length > 1 && (
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={t`Remove ${periodLabel(i)}`}
                    onClick={() => form.removeListItem('periods', i)}
                    data-testid="period-remove"
                  >
                    <IconTrash size={16} />
                  </ActionIcon>
                )}
              </Group>
              <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="sm">
                <TimePicker label={t`On duty`} required {...clock} {...form.getInputProps(`periods.${i}.onDuty`)} data-testid={`period-${i}-onDuty`} />
                <TimePicker label={t`Off duty`} required {...clock} {...form.getInputProps(`periods.${i}.offDuty`)} data-testid={`period-${i}-offDuty`} />
                <NumberInput
                  label={t`Late tolerance (minutes)`}
                  min={0}
                  max={MAX_TOLERANCE}
                  allowDecimal={false}
                  clampBehavior="none"
                  {...form.getInputProps(`periods.${i}.lateTolerance`)}
                  data-testid={`period-${i}-lateTolerance`}
                />
                <TimePicker
                  label={t`Earliest check-in`}
                  required
                  {...clock}
                  {...form.getInputProps(`periods.${i}.earliestCheckIn`)}
                  data-testid={`period-${i}-earliestCheckIn`}
                />
                <TimePicker
                  label={t`Latest check-out`}
                  required
                  {...clock}
                  {...form.getInputProps(`periods.${i}.latestCheckOut`)}
                  data-testid={`period-${i}-latestCheckOut`}
                />
                <NumberInput
                  label={t`Early-leave tolerance (minutes)`}
                  min={0}
                  max={MAX_TOLERANCE}
                  allowDecimal={false}
                  clampBehavior="none"
                  {...form.getInputProps(`periods.${i}.earlyLeaveTolerance`)}
                  data-testid={`period-${i}-earlyLeaveTolerance`}
                />
              </SimpleGrid>
            </Stack>
          ))}
          <Group gap="xs">
            <Button
              variant="light"
              leftSection={<IconPlus size={16} />}
              disabled={form.values.periods.length >= MAX_PERIODS}
              onClick={() => form.insertListItem('periods', nextPeriod(form.values.periods.at(-1)!))}
              data-testid="period-add"
            >
              <Trans>Add a period</Trans>
            </Button>
            <Text size="xs" c="dimmed">
              <Trans>Up to three periods a day. A period whose off-duty time is not after its on-duty time ends the next day.</Trans>
            </Text>
          </Group>
          <FormButtons name="shift" onCancel={cancel} saving={saving.isPending}>
            {shift ? <Trans>Save</Trans> : <Trans>Create</Trans>}
          </FormButtons>
        </Stack>
      </form>
    </Paper>
  );
}

export function ShiftCreatePage() {
  return (
    <ScreenPage>
      <ShiftForm />
    </ScreenPage>
  );
}

export function ShiftDetailPage() {
  const { shiftKey = '' } = useParams();
  return (
    <ScreenPage>
      <Detail<Shift>
        resource="attendanceShifts"
        path={`/v1/attendance/shifts/${shiftKey}`}
        name="shift"
        back={SHIFTS_PATH}
        missing={<Trans>This shift does not exist or was deleted.</Trans>}
      >
        {(shift) => <ShiftForm key={shift.version} shift={shift} />}
      </Detail>
    </ScreenPage>
  );
}
