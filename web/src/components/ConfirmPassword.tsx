import { useState } from 'react';
import { Button, Group, PasswordInput, Stack, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { Trans, useLingui } from '@lingui/react/macro';
import { msg } from '@lingui/core/macro';
import { i18n } from '../app/i18n.ts';
import { encryptText } from '../app/crypto.ts';
import { getPublicKey } from '../app/session.ts';

function ConfirmPasswordForm({ wrong, done }: { wrong: boolean; done: (password: string | null) => void }) {
  const { t } = useLingui();
  const [password, setPassword] = useState('');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (password) done(password);
      }}
    >
      <Stack gap="md">
        <Text size="sm">
          <Trans>This action needs your password again.</Trans>
        </Text>
        <PasswordInput
          label={t`Password`}
          autoComplete="current-password"
          data-autofocus
          value={password}
          maxLength={256}
          onChange={(event) => setPassword(event.currentTarget.value)}
          error={wrong ? t`The password is not right` : undefined}
          data-testid="confirm-password-input"
        />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={() => done(null)} data-testid="confirm-password-cancel">
            <Trans>Cancel</Trans>
          </Button>
          <Button type="submit" disabled={!password} data-testid="confirm-password-submit">
            <Trans>Confirm</Trans>
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/**
 * Asks for the account's password (re-authentication before a sensitive action) and answers it
 * sealed with the session's key, or null when the dialog is cancelled or closed.
 */
export function askPassword(wrong: boolean): Promise<string | null> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (password: string | null) => {
      if (settled) return;
      settled = true;
      modals.close(id);
      const key = getPublicKey();
      if (password === null || !key) resolve(null);
      else void encryptText(key, password).then(resolve, () => resolve(null));
    };
    const id = modals.open({
      title: i18n._(msg`Confirm your password`),
      children: <ConfirmPasswordForm wrong={wrong} done={finish} />,
      onClose: () => finish(null),
      closeButtonProps: { 'aria-label': i18n._(msg`Close`) },
      'data-testid': 'confirm-password',
    } as Parameters<typeof modals.open>[0]);
  });
}
