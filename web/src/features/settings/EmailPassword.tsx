import { Button, Group, PasswordInput, Stack, Text } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import type { PasswordAction, Values } from './emailValues.ts';

interface PasswordProps {
  form: UseFormReturnType<Values>;
  /** What the person chose for the saved password. */
  action: PasswordAction;
  /** What the field shows: a kept password is replaced once the server or username changes. */
  shown: PasswordAction;
  onAction(action: PasswordAction): void;
  /** A password is saved. */
  saved: boolean;
}

/** The SMTP password: a saved one is never shown; it is kept, replaced or cleared. */
export function EmailPassword({ form, action: passwordAction, shown: shownAction, onAction: setPasswordAction, saved }: PasswordProps) {
  const { t } = useLingui();
  if (shownAction === 'keep')
    return (
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
    );
  if (shownAction === 'clear')
    return (
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
    );
  return (
    <PasswordInput
      label={saved ? t`New password` : t`Password`}
      autoComplete="new-password"
      description={
        passwordAction === 'keep'
          ? t`The saved password is kept only for the server it was saved with: enter it again, or leave it empty to send without a login.`
          : saved
            ? undefined
            : t`Leave empty if the server needs no login.`
      }
      {...form.getInputProps('password')}
      inputWrapperOrder={['label', 'input', 'description', 'error']}
      data-testid="email-password"
    />
  );
}

/** Goes back to the saved password after choosing to replace it. */
export function KeepSavedPassword({ form, onAction: setPasswordAction }: Pick<PasswordProps, 'form' | 'onAction'>) {
  return (
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
  );
}
