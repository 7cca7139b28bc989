import { ActionIcon, Button, Divider, Group, Paper, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { MAX_DAY_PERIODS, MAX_SCHEDULE_EXCEPTIONS } from '@passcloud/functions/contract/schedules';
import { api } from '../../../app/api.ts';
import { showFailure, useWrite } from '../../../app/queries.ts';
import { RequestError } from '../../../app/request.ts';
import { confirmDiscard } from '../../confirm.tsx';
import { FormButtons } from '../../parts.tsx';
import { SCHEDULES_PATH, weekdayName, type Period, type Schedule } from './api.ts';

interface ExceptionValues {
  date: string;
  periods: Period[];
}
interface ScheduleValues {
  name: string;
  weekly: Period[][];
  exceptions: ExceptionValues[];
  holidaysClosed: boolean;
}

const office = (): Period[] => [{ from: '07:00', to: '19:00' }];
const blank = (): ScheduleValues => ({ name: '', weekly: [office(), office(), office(), office(), office(), [], []], exceptions: [], holidaysClosed: true });

/** A period to add after the day's last one: an hour after it ends, or the working day when it has none. */
function nextPeriod(periods: readonly Period[]): Period {
  const last = periods.at(-1);
  if (!last) return { from: '09:00', to: '18:00' };
  const end = Number(last.to.slice(0, 2));
  if (end >= 23) return { from: '23:00', to: '24:00' };
  return { from: `${String(end + 1).padStart(2, '0')}:00`, to: `${String(Math.min(end + 3, 24)).padStart(2, '0')}:00` };
}

/** Field problems of a refused schedule, by form path (`weekly.0.1.from`). */
function scheduleIssues(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof RequestError)) return out;
  for (const issue of error.issues) if (!out[issue.path]) out[issue.path] = issue.message;
  return out;
}

/** One day's (or date's) periods: each a from–to pair, up to four, and Add. */
function PeriodsEditor({ form, path, testId }: { form: UseFormReturnType<ScheduleValues>; path: string; testId: string }) {
  const { t } = useLingui();
  const periods = path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], form.values) as Period[];
  return (
    <Group gap="xs" wrap="wrap" align="flex-start" data-testid={testId}>
      {periods.length === 0 && (
        <Text size="sm" c="dimmed" py={6} data-testid={`${testId}-closed`}>
          <Trans>Closed all day</Trans>
        </Text>
      )}
      {periods.map((_, i) => (
        <Group key={i} gap={4} wrap="nowrap" align="flex-start">
          <TextInput
            w={84}
            maxLength={5}
            placeholder="HH:MM"
            aria-label={t`Start time`}
            {...form.getInputProps(`${path}.${i}.from`)}
            data-testid={`${testId}-${i}-from`}
          />
          <Text py={6}>–</Text>
          <TextInput
            w={84}
            maxLength={5}
            placeholder="HH:MM"
            aria-label={t`End time`}
            {...form.getInputProps(`${path}.${i}.to`)}
            data-testid={`${testId}-${i}-to`}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            mt={4}
            aria-label={t`Remove the period`}
            onClick={() => form.removeListItem(path, i)}
            data-testid={`${testId}-${i}-remove`}
          >
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
      ))}
      <ActionIcon
        variant="light"
        mt={4}
        aria-label={t`Add a period`}
        disabled={periods.length >= MAX_DAY_PERIODS}
        onClick={() => form.insertListItem(path, nextPeriod(periods))}
        data-testid={`${testId}-add`}
      >
        <IconPlus size={16} />
      </ActionIcon>
    </Group>
  );
}

/** A schedule's name, its week (up to four periods a day), its exception dates and whether holidays close it. */
export function ScheduleForm({ schedule }: { schedule?: Schedule }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const form = useForm<ScheduleValues>({
    mode: 'controlled',
    initialValues: schedule
      ? { name: schedule.name, weekly: schedule.weekly, exceptions: schedule.exceptions, holidaysClosed: schedule.holidaysClosed }
      : blank(),
    validate: { name: (value) => (value.trim() ? null : t`Enter the schedule name`) },
  });
  const back = () => navigate(SCHEDULES_PATH);
  const cancel = () => confirmDiscard(form.isDirty(), back);
  const saving = useWrite(
    (body: ScheduleValues) =>
      schedule
        ? api.patch(`/v1/schedules/${schedule.scheduleKey}`, { ...body, version: schedule.version }, { silent: true })
        : api.post('/v1/schedules', body, { silent: true }),
    {
      touches: ['schedules'],
      success: schedule ? t`Access schedule saved` : t`Access schedule created`,
      onSuccess: () => {
        form.resetDirty();
        back();
      },
      onError: (error) => {
        const issues = scheduleIssues(error);
        form.setErrors(issues);
        if (!Object.keys(issues).length) showFailure(error);
      },
    },
  );
  const submit = form.onSubmit((values) => saving.mutate({ ...values, name: values.name.trim() }));

  return (
    <Paper withBorder p="lg" radius="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="lg">
          <TextInput label={t`Schedule name`} required maw={420} maxLength={64} {...form.getInputProps('name')} data-testid="schedule-name" />
          <Stack gap="xs">
            <Title order={4} size="h5">
              <Trans>Every week</Trans>
            </Title>
            <Text size="xs" c="dimmed">
              <Trans>
                Up to four periods a day, from the start time until just before the end time; 24:00 ends a period at midnight. A day without periods is closed.
              </Trans>
            </Text>
            {form.values.weekly.map((_, day) => (
              <Group key={day} gap="md" wrap="nowrap" align="flex-start" data-testid="schedule-day">
                <Text w={120} py={6} fw={500} style={{ flexShrink: 0 }}>
                  {weekdayName(day)}
                </Text>
                <PeriodsEditor form={form} path={`weekly.${day}`} testId={`day-${day}`} />
              </Group>
            ))}
          </Stack>
          <Divider />
          <Stack gap="xs">
            <Title order={4} size="h5">
              <Trans>Exception dates</Trans>
            </Title>
            <Text size="xs" c="dimmed">
              <Trans>A date here replaces its weekday: its own periods, or closed without any.</Trans>
            </Text>
            {form.values.exceptions.map((_, i) => (
              <Group key={i} gap="md" wrap="nowrap" align="flex-start" data-testid="schedule-exception">
                <TextInput type="date" w={160} aria-label={t`Date`} {...form.getInputProps(`exceptions.${i}.date`)} data-testid={`exception-${i}-date`} />
                <PeriodsEditor form={form} path={`exceptions.${i}.periods`} testId={`exception-${i}`} />
                <Button
                  variant="subtle"
                  color="red"
                  size="compact-sm"
                  mt={4}
                  onClick={() => form.removeListItem('exceptions', i)}
                  data-testid={`exception-${i}-remove`}
                >
                  <Trans>Remove the date</Trans>
                </Button>
              </Group>
            ))}
            <Group>
              <Button
                variant="light"
                leftSection={<IconPlus size={16} />}
                disabled={form.values.exceptions.length >= MAX_SCHEDULE_EXCEPTIONS}
                onClick={() => form.insertListItem('exceptions', { date: '', periods: [] })}
                data-testid="exception-add"
              >
                <Trans>Add a date</Trans>
              </Button>
            </Group>
          </Stack>
          <Divider />
          <Switch
            label={t`Closed on holidays`}
            description={t`The company’s holidays (days off on the attendance holiday list) close this schedule, unless a date above says otherwise.`}
            {...form.getInputProps('holidaysClosed', { type: 'checkbox' })}
            data-testid="schedule-holidays"
          />
          <FormButtons name="schedule" onCancel={cancel} saving={saving.isPending}>
            {schedule ? <Trans>Save</Trans> : <Trans>Create</Trans>}
          </FormButtons>
        </Stack>
      </form>
    </Paper>
  );
}
