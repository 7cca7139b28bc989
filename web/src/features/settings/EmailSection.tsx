import { useCallback, useEffect, useState } from 'react';
import { Alert, Button, Group, NumberInput, Paper, PasswordInput, Select, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { TimePicker } from '@mantine/dates';
// The time picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { useForm } from '@mantine/form';
import { IconSend } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { StaleNotice } from '../../components/StaleNotice.tsx';
import { MAX_RECIPIENTS, type EmailSettings, type TlsMode } from '@passcloud/functions/contract/mail';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { dayPeriods, formatDateTime, uses12HourClock } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { issueField } from './api.ts';

/** What the password field does on save: keep the stored one, replace it, or clear it. */
type PasswordAction = 'keep' | 'replace' | 'clear';

interface Values {
  senderAddress: string;
  senderName: string;
  host: string;
  port: number | string;
  tlsMode: TlsMode;
  username: string;
  password: string;
  recipients: string[];
  feverAlert: boolean;
  blacklistAlert: boolean;
  questionnaireAlert: boolean;
  attendanceSummary: boolean;
  attendanceSummaryTime: string;
}

interface TestAnswer {
  ok: boolean;
  error: string | null;
  to: string;
  mailKey: string;
}

const FIELDS: (keyof Values)[] = [
  'senderAddress',
  'senderName',
  'host',
  'port',
  'tlsMode',
  'username',
  'password',
  'recipients',
  'feverAlert',
  'blacklistAlert',
  'questionnaireAlert',
  'attendanceSummary',
  'attendanceSummaryTime',
];
/** The server's checks (contract/mail.ts), in the form. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^[0-9A-Fa-f:]{2,39}$/;
const DEFAULT_PORT: Record<TlsMode, number> = { none: 25, starttls: 587, tls: 465 };

function valuesOf(settings: EmailSettings): Values {
  return {
    senderAddress: settings.senderAddress ?? '',
    senderName: settings.senderName ?? '',
    host: settings.host ?? '',
    port: settings.port ?? '',
    tlsMode: settings.tlsMode,
    username: settings.username ?? '',
    password: '',
    recipients: settings.recipients,
    feverAlert: settings.feverAlert,
    blacklistAlert: settings.blacklistAlert,
    questionnaireAlert: settings.questionnaireAlert,
    attendanceSummary: settings.attendanceSummary,
    attendanceSummaryTime: settings.attendanceSummaryTime,
  };
}

/**
 * Email settings: the company's own SMTP server and sender (without one, mail goes through the
 * service's sender), who receives the alerts and summaries, and which are sent. The password is
 * never shown: a saved one can be kept (while the server and username stay), replaced or cleared.
 * A test mail goes through the saved settings and shows whether it went out, or why not.
 */
export function EmailSection() {
  const { t } = useLingui();
  const [stored, setStored] = useState<EmailSettings | null>(null);
  const [passwordAction, setPasswordAction] = useState<PasswordAction>('keep');
  const [stale, setStale] = useState(false);
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);
  const [testTo, setTestTo] = useState('');
  const [testToError, setTestToError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<TestAnswer | null>(null);

  const tlsLabels: Record<TlsMode, string> = { none: t`None (plain SMTP)`, starttls: t`STARTTLS`, tls: t`TLS from the start (SSL)` };
  const email = (value: string) => (!value.trim() || EMAIL.test(value.trim()) ? null : t`Enter a valid email address`);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: valuesOf({
      senderAddress: null,
      senderName: null,
      host: null,
      port: null,
      tlsMode: 'starttls',
      username: null,
      passwordSet: false,
      recipients: [],
      feverAlert: false,
      blacklistAlert: false,
      questionnaireAlert: false,
      attendanceSummary: false,
      attendanceSummaryTime: '18:00',
      version: 0,
      updateTime: null,
    }),
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

  const show = useCallback((next: EmailSettings) => {
    setStored(next);
    setStale(false);
    setPasswordAction(next.passwordSet ? 'keep' : 'replace');
    const values = valuesOf(next);
    form.setInitialValues(values);
    form.setValues(values);
    form.resetDirty(values);
  }, []);
  const load = useCallback(async () => {
    try {
      show(await api.get<EmailSettings>('/v1/settings/email'));
    } catch {
      // The request client has shown why.
    }
  }, [show]);
  useEffect(() => {
    void load();
  }, [load]);

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

  const submit = form.onSubmit(async (values) => {
    if (!stored) return;
    setSaving(true);
    try {
      const text = (value: string) => value.trim() || null;
      const password = shownAction === 'clear' ? null : shownAction === 'replace' && values.password ? values.password : undefined;
      const body = {
        senderAddress: text(values.senderAddress),
        senderName: text(values.senderName),
        host: text(values.host),
        port: values.port === '' ? null : Number(values.port),
        tlsMode: values.tlsMode,
        username: text(values.username),
        ...(password !== undefined ? { password } : {}),
        recipients: values.recipients,
        feverAlert: values.feverAlert,
        blacklistAlert: values.blacklistAlert,
        questionnaireAlert: values.questionnaireAlert,
        attendanceSummary: values.attendanceSummary,
        attendanceSummaryTime: values.attendanceSummaryTime,
        version: stored.version,
      };
      show(await api.put<EmailSettings>('/v1/settings/email', body, { silent: true }));
      setOutcome(null);
      notifySuccess(t`Saved`);
    } catch (error) {
      if (error instanceof RequestError && error.status === 409) setStale(true);
      else if (error instanceof RequestError && error.issues.length) {
        for (const issue of error.issues) {
          const field = issueField(issue.path) as keyof Values;
          if (FIELDS.includes(field)) form.setFieldError(field, issue.message);
          else toast(issue.message);
        }
      } else if (error instanceof RequestError) toast(error.message);
    } finally {
      setSaving(false);
    }
  });

  const sendTest = async () => {
    const to = testTo.trim();
    if (to && !EMAIL.test(to)) {
      setTestToError(t`Enter a valid email address`);
      return;
    }
    setTestToError(null);
    setOutcome(null);
    setTesting(true);
    try {
      setOutcome(await api.post<TestAnswer>('/v1/settings/email/test', to ? { to } : {}, { silent: true }));
    } catch (error) {
      if (error instanceof RequestError && error.issues.length) setTestToError(error.issues.map((issue) => issue.message).join(' '));
      else if (error instanceof RequestError) toast(error.message);
    } finally {
      setTesting(false);
    }
  };

  const host = form.values.host.trim();
  const dirty = form.isDirty() || (shownAction === 'replace' && !!form.values.password) || (shownAction === 'clear' && !!stored?.passwordSet);
  const updated = formatDateTime(stored?.updateTime);
  const outcomeTo = outcome?.to ?? '';
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="lg" maw={860}>
        {stale && <StaleNotice onReload={() => void load()} testId="email-stale" />}

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
            {shownAction === 'keep' ? (
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  <Trans>Password</Trans>
                </Text>
                <Group gap="xs" data-testid="email-password-saved">
                  <Text size="sm" c="dimmed">
                    <Trans>A password is saved.</Trans>
                  </Text>
                  <Button size="compact-sm" variant="light" onClick={() => setPasswordAction('replace')} data-testid="email-password-replace">
                    <Trans>Replace</Trans>
                  </Button>
                  <Button size="compact-sm" variant="light" color="red" onClick={() => setPasswordAction('clear')} data-testid="email-password-clear">
                    <Trans>Clear</Trans>
                  </Button>
                </Group>
              </Stack>
            ) : shownAction === 'clear' ? (
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  <Trans>Password</Trans>
                </Text>
                <Group gap="xs">
                  <Text size="sm" c="orange.8">
                    <Trans>The saved password is removed when you save.</Trans>
                  </Text>
                  <Button size="compact-sm" variant="subtle" onClick={() => setPasswordAction('keep')}>
                    <Trans>Keep it</Trans>
                  </Button>
                </Group>
              </Stack>
            ) : (
              <PasswordInput
                label={stored?.passwordSet ? t`New password` : t`Password`}
                autoComplete="new-password"
                description={
                  passwordAction === 'keep'
                    ? t`The saved password is kept only for the server it was saved with: enter it again, or leave it empty to send without a login.`
                    : stored?.passwordSet
                      ? undefined
                      : t`Leave empty if the server needs no login.`
                }
                {...form.getInputProps('password')}
                inputWrapperOrder={['label', 'input', 'description', 'error']}
                data-testid="email-password"
              />
            )}
          </SimpleGrid>
          {passwordAction === 'replace' && stored?.passwordSet && (
            <Group justify="flex-end">
              <Button
                size="compact-sm"
                variant="subtle"
                onClick={() => {
                  form.setFieldValue('password', '');
                  form.clearFieldError('password');
                  setPasswordAction('keep');
                }}
              >
                <Trans>Keep the saved password</Trans>
              </Button>
            </Group>
          )}
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
            <Button type="submit" loading={saving} disabled={!stored} data-testid="email-save">
              <Trans>Save</Trans>
            </Button>
          </Group>
        </Group>

        <Paper withBorder radius="md" p="md">
          <Stack gap="sm">
            <Title order={3} size="h5">
              <Trans>Test mail</Trans>
            </Title>
            <Text size="xs" c="dimmed">
              {dirty ? (
                <Trans>Save your changes first: the test mail uses the saved settings.</Trans>
              ) : (
                <Trans>Sent with the saved settings, to this address or else the first recipient.</Trans>
              )}
            </Text>
            <Group align="flex-start" gap="sm" wrap="wrap">
              <TextInput
                aria-label={t`Send the test mail to`}
                placeholder={stored?.recipients[0] ?? t`Your own email address`}
                value={testTo}
                onChange={(e) => setTestTo(e.currentTarget.value)}
                error={testToError}
                style={{ flex: '1 1 260px', maxWidth: 400 }}
                data-testid="email-test-to"
              />
              <Button
                variant="light"
                leftSection={<IconSend size={16} />}
                loading={testing}
                disabled={dirty || !stored}
                onClick={() => void sendTest()}
                data-testid="email-test"
              >
                <Trans>Send test mail</Trans>
              </Button>
            </Group>
            {outcome &&
              (outcome.ok ? (
                <Alert color="teal" variant="light" data-testid="email-test-result" data-ok="true">
                  <Text size="sm">
                    <Trans>The test mail was sent to {outcomeTo}.</Trans>
                  </Text>
                </Alert>
              ) : (
                <Alert color="red" variant="light" title={t`The test mail was not sent`} data-testid="email-test-result" data-ok="false">
                  <Text size="sm">{outcome.error}</Text>
                </Alert>
              ))}
          </Stack>
        </Paper>
      </Stack>
    </form>
  );
}
