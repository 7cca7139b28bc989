import { useCallback, useEffect, useState } from 'react';
import { Badge, Button, Group, NumberInput, Paper, SimpleGrid, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { formatDate, formatDateTime, formatNumber } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { ScrollTable } from '../../components/ScrollTable.tsx';
import tables from '../../components/DataTable.module.css';
import { fieldIssues, type LicenceList, type LicenceState } from './api.ts';

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
  const [list, setList] = useState<LicenceList | null>(null);
  const [failed, setFailed] = useState(false);
  const [activating, setActivating] = useState(false);
  const [savingDays, setSavingDays] = useState(false);
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

  const load = useCallback(async () => {
    setFailed(false);
    try {
      const answer = await api.get<LicenceList>('/v1/licences');
      setList(answer);
      return answer;
    } catch {
      setFailed(true);
      return null;
    }
  }, []);
  useEffect(() => {
    void load().then((answer) => {
      if (answer) {
        reminder.setInitialValues({ reminderDays: answer.reminderDays });
        reminder.setValues({ reminderDays: answer.reminderDays });
      }
    });
  }, [load]);

  const activate = activation.onSubmit(async ({ activationCode }) => {
    setActivating(true);
    try {
      await api.post('/v1/licences', { activationCode: activationCode.trim() }, { silent: true });
      notifySuccess(t`Licence activated`);
      activation.reset();
      await load();
    } catch (error) {
      const issues = fieldIssues(error, ['activationCode']);
      if (issues.activationCode) activation.setFieldError('activationCode', issues.activationCode);
      else if (error instanceof RequestError) activation.setFieldError('activationCode', error.message);
    } finally {
      setActivating(false);
    }
  });

  const saveDays = reminder.onSubmit(async ({ reminderDays }) => {
    setSavingDays(true);
    try {
      await api.patch('/v1/licences/reminder', { reminderDays: Number(reminderDays) }, { silent: true });
      notifySuccess(t`Saved`);
      reminder.setInitialValues({ reminderDays: Number(reminderDays) });
      await load();
    } catch (error) {
      const issues = fieldIssues(error, ['reminderDays']);
      if (issues.reminderDays) reminder.setFieldError('reminderDays', issues.reminderDays);
      else if (error instanceof RequestError) toast(error.message);
    } finally {
      setSavingDays(false);
    }
  });

  const items = list?.items ?? [];
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

      <ScrollTable>
        <Table striped highlightOnHover withRowBorders={false} verticalSpacing="xs" className={tables.oneLine} data-testid="licence-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th className={tables.stickyStart}>{t`Activation code`}</Table.Th>
              <Table.Th>{t`State`}</Table.Th>
              <Table.Th>{t`Seats`}</Table.Th>
              <Table.Th>{t`Used`}</Table.Th>
              <Table.Th>{t`Remaining`}</Table.Th>
              <Table.Th>{t`MAC address`}</Table.Th>
              <Table.Th>{t`Activated on`}</Table.Th>
              <Table.Th>{t`Expires on`}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((licence) => (
              <Table.Tr key={licence.licenceId} data-testid="licence-row">
                <Table.Td className={tables.stickyStart}>
                  <Text size="sm" ff="monospace">
                    {licence.code}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" color={STATE_COLOR[licence.state]} data-state={licence.state}>
                    {stateLabel[licence.state]}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatNumber(licence.seats)}</Table.Td>
                <Table.Td>{formatNumber(licence.used)}</Table.Td>
                <Table.Td>{formatNumber(licence.remaining)}</Table.Td>
                <Table.Td>{licence.mac ?? t`Any machine`}</Table.Td>
                <Table.Td>{formatDateTime(licence.activateTime)}</Table.Td>
                <Table.Td>{formatDate(licence.expireTime)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      {list && items.length === 0 && (
        <Text c="dimmed" ta="center" py="md" data-testid="licence-empty">
          <Trans>No licence is activated yet. Face terminals cannot bind until one is.</Trans>
        </Text>
      )}
      {failed && (
        <Group justify="center" gap="xs">
          <Text c="red">
            <Trans>The list could not be loaded.</Trans>
          </Text>
          <Button variant="light" onClick={() => void load()}>
            <Trans>Retry</Trans>
          </Button>
        </Group>
      )}

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
                <Button type="submit" loading={activating} data-testid="licence-activate">
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
                <Button type="submit" loading={savingDays} data-testid="reminder-save">
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
