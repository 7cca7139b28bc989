import { useCallback, useEffect, useState } from 'react';
import { Button, Group, NumberInput, Select, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { TimePicker } from '@mantine/dates';
// The time picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { StaleNotice } from '../../components/StaleNotice.tsx';
import { MAX_RECIPIENTS, type EmailSettings, type TlsMode } from '@passcloud/functions/contract/mail';
import { api, toast } from '../../app/api.ts';
import { dayPeriods, formatDateTime, uses12HourClock } from '../../app/format.ts';
import { showFailure, useItem, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { issueField } from './api.ts';
import { EmailPassword, KeepSavedPassword } from './EmailPassword.tsx';
import { EmailTestMail } from './EmailTestMail.tsx';
import { DEFAULT_PORT, EMAIL, FIELDS, HOST, NO_SETTINGS, bodyOf, valuesOf, type PasswordAction, type TestAnswer, type Values } from './emailValues.ts';

const PATH = '/v1/settings/email';

/**
 * Email settings: the company's own SMTP server and sender (without one, mail goes through the
 * service's sender), who receives the alerts and summaries, and which are sent. The password is
 * never shown: a saved one can be kept (while the server and username stay), replaced or cleared.
 * A test mail goes through the saved settings and shows whether it went out, or why not.
 */
export function EmailSection() {
  const { t } = useLingui();
  const read = useItem<EmailSettings>({ resource: 'settings', path: PATH });
  const stored = read.item;
  const [passwordAction, setPasswordAction] = useState<PasswordAction>('keep');
  const [stale, setStale] = useState(false);
  const [outcome, setOutcome] = useState<TestAnswer | null>(null);

  const tlsLabels: Record<TlsMode, string> = { none: t`None (plain SMTP)`, starttls: t`STARTTLS`, tls: t`TLS from the start (SSL)` };
  const email = (value: string) => (!value.trim() || EMAIL.test(value.trim()) ? null : t`Enter a valid email address`);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: valuesOf(NO_SETTINGS),
    validate: {
      senderAddress: (value, values) => (values.host.trim() && !value.trim() ? t`Enter the sender address` : email(value)),
      senderName: (value) => (value.trim().length > 100 ? t`Use at most 100 characters` : null),
      host: (value) => (!value.trim() || HOST.test(value.trim()) ? null : t`Enter a host name or an IP address`),
      port: (value, values) => {
        if (value === '') return values.host.trim() ? t`Enter the port` : null;
        return Number.isInteger(Number(value)) && Number(value) >= 1 && Number(value) <= 65535 ? null : t`Enter a port from 1 to 65535`;
      },
      username: (value, values) => (!value.trim() && values.password ? t`Enter the username that goes with the password` : null),
      recipients: (value, values) => {
        if (value.length > MAX_RECIPIENTS) return t`Enter at most ${MAX_RECIPIENTS} recipients`;
        const bad = value.find((address) => !EMAIL.test(address));
        if (bad) return t`Not an email address: ${bad}`;
        return (values.feverAlert || values.blacklistAlert || values.questionnaireAlert || values.attendanceSummary) && value.length === 0
          ? t`Add at least one recipient for the mails switched on`
          : null;
      },
      attendanceSummaryTime: (value) => (/^([01]\d|2[0-3]):[0-5]\d$/.test(value) ? null : t`Choose the time of day`),
    },
  });

  /** Fills the form with the settings stored. */
  const show = useCallback((next: EmailSettings) => {
    setStale(false);
    setPasswordAction(next.passwordSet ? 'keep' : 'replace');
    const values = valuesOf(next);
    form.setInitialValues(values);
    form.setValues(values);
    form.resetDirty(values);
  }, []);
  // Each reading of the settings (the first, a reload, a save) fills the form.
  useEffect(() => {
    if (stored) show(stored);
  }, [stored, show]);
  const reload = () => void read.reload().then((next) => next && show(next));

  const cancel = () => {
    form.reset();
    setPasswordAction(stored?.passwordSet ? 'keep' : 'replace');
  };

  // A saved password belongs to its server: once the server or the username changes, the server
  // drops it unless it is given again, so the field asks for it.
  const serverChanged =
    !!stored &&
    (form.values.host.trim().toLowerCase() !== (stored.host ?? '').toLowerCase() ||
      String(form.values.port) !== String(stored.port ?? '') ||
      form.values.tlsMode !== stored.tlsMode ||
      form.values.username.trim() !== (stored.username ?? ''));
  const shownAction: PasswordAction = passwordAction === 'keep' && serverChanged ? 'replace' : passwordAction;

  const saving = useWrite((body: ReturnType<typeof bodyOf>) => api.put<EmailSettings>(PATH, body, { silent: true }), {
    onSuccess: (saved) => {
      read.put(saved);
      setOutcome(null);
    },
    success: t`Saved`,
    onError: (error) => {
      if (error instanceof RequestError && error.status === 409) setStale(true);
      else if (error instanceof RequestError && error.issues.length) {
        for (const issue of error.issues) {
          const field = issueField(issue.path) as keyof Values;
          if (FIELDS.includes(field)) form.setFieldError(field, issue.message);
          else toast(issue.message);
        }
      } else showFailure(error);
    },
  });
  const submit = form.onSubmit((values) => stored && saving.mutate(bodyOf(values, shownAction, stored.version)));

  const host = form.values.host.trim();
  const dirty = form.isDirty() || (shownAction === 'replace' && !!form.values.password) || (shownAction === 'clear' && !!stored?.passwordSet);
  const updated = formatDateTime(stored?.updateTime);
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="lg" maw={860}>
        {stale && <StaleNotice onReload={reload} testId="email-stale" />}

        <Stack gap="sm">
          <Title order={3} size="h5">
            <Trans>Sender and SMTP server</Trans>
          </Title>
          <Text size="xs" c="dimmed">
            {host ? (
              <Trans>Mail is sent through this server with the sender below.</Trans>
            ) : (
              <Trans>Without an SMTP server, mail is sent through the service's own sender.</Trans>
            )}
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextInput
              label={t`Sender address`}
              placeholder="alerts@example.com"
              required={!!host}
              {...form.getInputProps('senderAddress')}
              data-testid="email-sender-address"
            />
            <TextInput label={t`Sender name`} {...form.getInputProps('senderName')} data-testid="email-sender-name" />
            <TextInput label={t`SMTP server`} placeholder="smtp.example.com" {...form.getInputProps('host')} data-testid="email-host" />
            <Group gap="md" grow align="flex-start">
              <NumberInput
                label={t`Port`}
                placeholder={String(DEFAULT_PORT[form.values.tlsMode])}
                required={!!host}
                min={1}
                max={65535}
                allowDecimal={false}
                allowNegative={false}
                clampBehavior="none"
                thousandSeparator={false}
                {...form.getInputProps('port')}
                data-testid="email-port"
              />
              <Select
                label={t`Encryption`}
                data={(['none', 'starttls', 'tls'] as TlsMode[]).map((value) => ({ value, label: tlsLabels[value] }))}
                allowDeselect={false}
                {...form.getInputProps('tlsMode')}
                data-testid="email-tls"
              />
            </Group>
            <TextInput label={t`Username`} autoComplete="off" {...form.getInputProps('username')} data-testid="email-username" />
            <EmailPassword form={form} action={passwordAction} shown={shownAction} onAction={setPasswordAction} saved={!!stored?.passwordSet} />
          </SimpleGrid>
          {passwordAction === 'replace' && stored?.passwordSet && <KeepSavedPassword form={form} onAction={setPasswordAction} />}
        </Stack>

        <Stack gap="sm">
          <Title order={3} size="h5">
            <Trans>Recipients and content</Trans>
          </Title>
          <TagsInput
            label={t`Recipients`}
            description={t`Press Enter after each address (up to ${MAX_RECIPIENTS}).`}
            placeholder={t`name@example.com`}
            splitChars={[',', ' ', ';']}
            clearable
            {...form.getInputProps('recipients')}
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            data-testid="email-recipients"
          />
          <Switch
            label={t`Fever alert`}
            description={t`Sent at once when a pass measures a fever.`}
            {...form.getInputProps('feverAlert', { type: 'checkbox' })}
            data-testid="email-fever"
          />
          <Switch
            label={t`Blacklist alert`}
            description={t`Sent at once when a person on a device's blacklist is recognised there.`}
            {...form.getInputProps('blacklistAlert', { type: 'checkbox' })}
            data-testid="email-blacklist"
          />
          <Switch
            label={t`Abnormal questionnaire result in real time`}
            description={t`Sent at once when an answer to a survey chooses an option that raises the alarm.`}
            {...form.getInputProps('questionnaireAlert', { type: 'checkbox' })}
            data-testid="email-questionnaire"
          />
          <Group gap="md" align="flex-end" wrap="wrap">
            <Switch
              label={t`Attendance summary`}
              description={t`Sent once a day at the chosen time.`}
              {...form.getInputProps('attendanceSummary', { type: 'checkbox' })}
              data-testid="email-summary"
            />
            <TimePicker
              label={t`Time of day`}
              disabled={!form.values.attendanceSummary}
              format={uses12HourClock() ? '12h' : '24h'}
              amPmLabels={dayPeriods()}
              {...form.getInputProps('attendanceSummaryTime')}
              data-testid="email-summary-time"
            />
          </Group>
        </Stack>

        <Group justify="space-between" gap="xs">
          <Text size="xs" c="dimmed">
            {stored?.updateTime && <Trans>Last saved {updated}</Trans>}
          </Text>
          <Group gap="xs">
            <Button variant="default" disabled={!dirty} onClick={cancel} data-testid="email-cancel">
              <Trans>Cancel</Trans>
            </Button>
            <Button type="submit" loading={saving.isPending} disabled={!stored} data-testid="email-save">
              <Trans>Save</Trans>
            </Button>
          </Group>
        </Group>

        <EmailTestMail firstRecipient={stored?.recipients[0]} dirty={dirty} ready={!!stored} outcome={outcome} onOutcome={setOutcome} />
      </Stack>
    </form>
  );
}
