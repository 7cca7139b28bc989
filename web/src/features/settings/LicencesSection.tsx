import { useEffect, type ReactNode } from 'react';
import { Anchor, Badge, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { api } from '../../app/api.ts';
import { formatDate, formatDateTime, formatNumber } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { getAuthorities } from '../../app/session.ts';
import { showFailure, useList, useWrite } from '../../app/queries.ts';
import { ListFrame, MonoCell, type Column } from '../../components/ListFrame.tsx';
import { fieldIssues, type Licence, type LicenceList, type LicenceState } from './api.ts';

const STATE_COLOR: Record<LicenceState, string> = { valid: 'teal', expiring: 'orange', expired: 'red' };
const REMINDER_MIN = 1;
const REMINDER_MAX = 365;
/** Where terminals are bound with the company's binding code and take these seats. */
const DEVICES_PATH = '/pass-platform/device/management';

function Stat({ label, value, testId, children }: { label: string; value: number; testId: string; children?: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text fz={28} fw={700} data-testid={testId}>
        {formatNumber(value)}
      </Text>
      {children}
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

  const startingTrial = useWrite(() => api.post('/v1/licences/trial'), {
    touches: ['licences', 'devices'],
    success: t`Free trial started`,
  });

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
      render: (licence) => (licence.trial ? <Text size="sm">{t`Free trial`}</Text> : <MonoCell text={licence.code} />),
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
        <Stat label={t`Used`} value={list?.used ?? 0} testId="licence-used">
          {list && <UsedBy faceTerminals={list.usedBy.faceTerminals} intercoms={list.usedBy.intercoms} />}
        </Stat>
        <Stat label={t`Remaining`} value={list?.remaining ?? 0} testId="licence-remaining" />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        <Trans>Seats count while their licence is in force. Each bound device takes one seat: face terminals and intercoms alike.</Trans>
        {getAuthorities().includes('pass:device') && (
          <>
            {' '}
            <Anchor component={Link} to={DEVICES_PATH} size="xs" data-testid="licence-devices-link">
              {t`Devices`}
            </Anchor>
          </>
        )}
      </Text>
      {list && <TrialNote trial={list.trial} starting={startingTrial.isPending} onStart={() => startingTrial.mutate()} />}

      <ListFrame
        list={licences}
        name="licence"
        columns={columns}
        rowKey={(licence) => licence.licenceId}
        rowProps={() => ({ 'data-testid': 'licence-row' })}
        empty={
          <Text c="dimmed">
            <Trans>No licence is activated yet. No device can bind until one is.</Trans>
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
              <Text size="sm" c="dimmed">
                <Trans>Your service provider issues activation codes: each gives a number of seats until a date.</Trans>
              </Text>
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

/** Who holds the seats counted as used: face terminals and intercoms each take one. */
function UsedBy({ faceTerminals, intercoms }: { faceTerminals: number; intercoms: number }) {
  const terminals = formatNumber(faceTerminals);
  const phones = formatNumber(intercoms);
  return (
    <Text size="xs" c="dimmed" data-testid="licence-used-by">
      <Trans>
        Face terminals: {terminals} · Intercoms: {phones}
      </Trans>
    </Text>
  );
}

/** The free trial: what it gives and until when, or the button that starts it for a company without one. */
function TrialNote({ trial, starting, onStart }: { trial: LicenceList['trial']; starting: boolean; onStart: () => void }) {
  const seats = formatNumber(trial.seats);
  const days = formatNumber(trial.days);
  const end = formatDate(trial.expireTime);
  return (
    <Paper withBorder radius="md" p="md" data-testid="licence-trial" data-state={trial.state}>
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 320px' }}>
          {trial.state === 'available' && (
            <Trans>
              Each company may use one free trial: {seats} seats for {days} days. When it ends its seats end: devices already bound keep working, but no new
              device can bind until a licence is activated.
            </Trans>
          )}
          {trial.state === 'active' && (
            <Trans>
              Free trial: {seats} seats until {end}. When it ends its seats end: devices already bound keep working, but no new device can bind until a licence
              is activated.
            </Trans>
          )}
          {trial.state === 'ended' && <Trans>The free trial ended on {end}. Devices bound with its seats keep working; activate a licence to bind more.</Trans>}
        </Text>
        {trial.state === 'available' && (
          <Button variant="light" loading={starting} onClick={onStart} data-testid="licence-trial-start">
            <Trans>Start the free trial</Trans>
          </Button>
        )}
      </Group>
    </Paper>
  );
}
