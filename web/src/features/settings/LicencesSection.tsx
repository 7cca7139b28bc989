import { useEffect } from 'react';
import { Badge, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { formatDate, formatDateTime, formatNumber } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { showFailure, useList, useWrite } from '../../app/queries.ts';
import { ListFrame, MonoCell, type Column } from '../../components/ListFrame.tsx';
import { fieldIssues, type Licence, type LicenceList, type LicenceState } from './api.ts';

const STATE_COLOR: Record<LicenceState, string> = { valid: 'teal', expiring: 'orange', expired: 'red' };
const REMINDER_MIN = 1;
const REMINDER_MAX = 365;

function Stat({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={28} fw={700} data-testid={testId}>
        {formatNumber(value)}
      </Text>
    </Paper>
  );
}

/**
 * Licences: the seats in force (total, used, remaining), every activated licence with its state,
 * activating a code, and how many days ahead a licence counts as expiring and is reminded of.
 */
export function LicencesSection() {
  const { t } = useLingui();
  const licences = useList<Licence, LicenceList>({ resource: 'licences', path: '/v1/licences' });
  const list = licences.page;
  const stateLabel: Record<LicenceState, string> = { valid: t`Valid`, expiring: t`Expiring`, expired: t`Expired` };

  const activation = useForm({
    mode: 'controlled',
    initialValues: { activationCode: '' },
    validate: { activationCode: (value) => (value.trim() ? null : t`Paste the activation code`) },
  });
  const reminder = useForm<{ reminderDays: number | string }>({
    mode: 'controlled',
    initialValues: { reminderDays: '' },
    validate: {
      reminderDays: (value) => {
        const min = REMINDER_MIN;
        const max = REMINDER_MAX;
        if (value === '') return t`Enter the days in advance`;
        return Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max ? null : t`Enter a value from ${min} to ${max}`;
      },
    },
  });

  // The saved reminder days fill the form once, and again after each save.
  const savedDays = list?.reminderDays;
  useEffect(() => {
    if (savedDays === undefined) return;
    reminder.setInitialValues({ reminderDays: savedDays });
    reminder.setValues({ reminderDays: savedDays });
  }, [savedDays]);

  // A refused code says why on its field. A licence adds seats: the devices' seat marks follow.
  const activating = useWrite((activationCode: string) => api.post('/v1/licences', { activationCode }, { silent: true }), {
    touches: ['licences', 'devices'],
    success: t`Licence activated`,
    onSuccess: () => activation.reset(),
    onError: (error) => {
      const issues = fieldIssues(error, ['activationCode']);
      if (issues.activationCode) activation.setFieldError('activationCode', issues.activationCode);
      else if (error instanceof RequestError) activation.setFieldError('activationCode', error.message);
      else showFailure(error);
    },
  });
  const activate = activation.onSubmit(({ activationCode }) => activating.mutate(activationCode.trim()));

  const savingDays = useWrite((reminderDays: number) => api.patch('/v1/licences/reminder', { reminderDays }, { silent: true }), {
    touches: ['licences'],
    success: t`Saved`,
    onSuccess: (_, reminderDays) => reminder.setInitialValues({ reminderDays }),
    onError: (error) => {
      const issues = fieldIssues(error, ['reminderDays']);
      if (issues.reminderDays) reminder.setFieldError('reminderDays', issues.reminderDays);
      else showFailure(error);
    },
  });
  const saveDays = reminder.onSubmit(({ reminderDays }) => savingDays.mutate(Number(reminderDays)));

  const columns: Column<Licence>[] = [
    {
      key: 'code',
      title: t`Activation code`,
      sticky: 'start',
      render: (licence) => <MonoCell text={licence.code} />,
    },
    {
      key: 'state',
      title: t`State`,
      render: (licence) => (
        <Badge size="sm" variant="light" color={STATE_COLOR[licence.state]} data-state={licence.state}>
          {stateLabel[licence.state]}
        </Badge>
      ),
    },
    { key: 'seats', title: t`Seats`, render: (licence) => formatNumber(licence.seats) },
    { key: 'used', title: t`Used`, render: (licence) => formatNumber(licence.used) },
    { key: 'remaining', title: t`Remaining`, render: (licence) => formatNumber(licence.remaining) },
    { key: 'mac', title: t`MAC address`, render: (licence) => licence.mac ?? t`Any machine` },
    { key: 'activated', title: t`Activated on`, render: (licence) => formatDateTime(licence.activateTime) },
    { key: 'expires', title: t`Expires on`, render: (licence) => formatDate(licence.expireTime) },
  ];
  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        <Stat label={t`Total seats`} value={list?.total ?? 0} testId="licence-total" />
        <Stat label={t`Used`} value={list?.used ?? 0} testId="licence-used" />
        <Stat label={t`Remaining`} value={list?.remaining ?? 0} testId="licence-remaining" />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        <Trans>Seats count while their licence is in force. Each bound face terminal takes one seat.</Trans>
      </Text>

      <ListFrame
        list={licences}
        name="licence"
        columns={columns}
        rowKey={(licence) => licence.licenceId}
        rowProps={() => ({ 'data-testid': 'licence-row' })}
        empty={
          <Text c="dimmed">
            <Trans>No licence is activated yet. Face terminals cannot bind until one is.</Trans>
          </Text>
        }
        paged={false}
      />

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper withBorder radius="md" p="md">
          <form onSubmit={activate} noValidate>
            <Stack gap="sm">
              <Title order={3} size="h5">
                <Trans>Activate a licence</Trans>
              </Title>
              <Textarea
                label={t`Activation code`}
                description={t`Paste the code exactly as you received it.`}
                required
                autosize
                minRows={3}
                maxRows={6}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
                {...activation.getInputProps('activationCode')}
                data-testid="licence-code"
              />
              <Group justify="flex-end" gap="xs">
                <Button variant="default" onClick={() => activation.reset()} disabled={!activation.values.activationCode} data-testid="licence-cancel">
                  <Trans>Cancel</Trans>
                </Button>
                <Button type="submit" loading={activating.isPending} data-testid="licence-activate">
                  <Trans>Activate</Trans>
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
        <Paper withBorder radius="md" p="md">
          <form onSubmit={saveDays} noValidate>
            <Stack gap="sm">
              <Title order={3} size="h5">
                <Trans>Authorization reminder</Trans>
              </Title>
              <NumberInput
                label={t`Days in advance`}
                description={t`A licence this close to its expiry shows as expiring, and a reminder is mailed.`}
                required
                min={REMINDER_MIN}
                max={REMINDER_MAX}
                allowDecimal={false}
                allowNegative={false}
                clampBehavior="none"
                styles={{ wrapper: { maxWidth: 200 } }}
                {...reminder.getInputProps('reminderDays')}
                data-testid="licence-reminder"
              />
              <Group justify="flex-end" gap="xs">
                <Button variant="default" disabled={!reminder.isDirty()} onClick={() => reminder.reset()} data-testid="reminder-cancel">
                  <Trans>Cancel</Trans>
                </Button>
                <Button type="submit" loading={savingDays.isPending} data-testid="reminder-save">
                  <Trans>Save</Trans>
                </Button>
              </Group>
            </Stack>
          </form>
        </Paper>
      </SimpleGrid>
    </Stack>
  );
}
