import { useState } from 'react';
import { Alert, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconSend } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { showFailure, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { EMAIL, type TestAnswer } from './emailValues.ts';

interface TestMailProps {
  /** Where the mail goes when no address is typed: the first recipient saved. */
  firstRecipient: string | undefined;
  /** The settings have changed since they were saved: the test waits for a save. */
  dirty: boolean;
  /** The settings have been read. */
  ready: boolean;
  /** The last test's outcome; a save clears it. */
  outcome: TestAnswer | null;
  onOutcome(outcome: TestAnswer | null): void;
}

/** A test mail through the saved settings, to the address typed or the first recipient, and whether it went out or why not. */
export function EmailTestMail({ firstRecipient, dirty, ready, outcome, onOutcome: setOutcome }: TestMailProps) {
  const { t } = useLingui();
  const [testTo, setTestTo] = useState('');
  const [testToError, setTestToError] = useState<string | null>(null);

  // Whether the mail went out is the answer's (shown below); a refusal of the address shows on its field.
  const sending = useWrite((to: string) => api.post<TestAnswer>('/v1/settings/email/test', to ? { to } : {}, { silent: true }), {
    onSuccess: setOutcome,
    onError: (error) => {
      if (error instanceof RequestError && error.issues.length) setTestToError(error.issues.map((issue) => issue.message).join(' '));
      else showFailure(error);
    },
  });
  const sendTest = () => {
    const to = testTo.trim();
    if (to && !EMAIL.test(to)) {
      setTestToError(t`Enter a valid email address`);
      return;
    }
    setTestToError(null);
    setOutcome(null);
    sending.mutate(to);
  };

  const outcomeTo = outcome?.to ?? '';
  return (
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
            placeholder={firstRecipient ?? t`Your own email address`}
            value={testTo}
            onChange={(e) => setTestTo(e.currentTarget.value)}
            error={testToError}
            style={{ flex: '1 1 260px', maxWidth: 400 }}
            data-testid="email-test-to"
          />
          <Button
            variant="light"
            leftSection={<IconSend size={16} />}
            loading={sending.isPending}
            disabled={dirty || !ready}
            onClick={sendTest}
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
  );
}
