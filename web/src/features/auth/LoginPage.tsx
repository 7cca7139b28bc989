import { useState } from 'react';
import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { KeyFetchError, login } from '../../app/auth.ts';
import { notifySuccess, toast } from '../../app/api.ts';
import { PublicLayout } from '../../components/PublicLayout.tsx';

export default function LoginPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const form = useForm({
    initialValues: { username: '', password: '' },
    validate: {
      username: (v) => (v.trim() ? null : t`Enter the username`),
      password: (v) => (v ? null : t`Enter the password`),
    },
  });

  const submit = form.onSubmit(async ({ username, password }) => {
    setBusy(true);
    try {
      await login(username.trim(), password);
      notifySuccess(t`Login succeeded`);
      navigate('/', { replace: true });
    } catch (error) {
      if (error instanceof KeyFetchError) toast(t`Could not start a secure session; please try again later`);
    } finally {
      setBusy(false);
    }
  });

  return (
    <PublicLayout title={t`Log in`}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label={t`Username`} required autoComplete="username" autoFocus {...form.getInputProps('username')} />
          <PasswordInput label={t`Password`} required autoComplete="current-password" {...form.getInputProps('password')} />
          <Group justify="space-between">
            <Anchor component={Link} to="/password-find" size="sm">
              <Trans>Forgot password?</Trans>
            </Anchor>
          </Group>
          <Button type="submit" loading={busy} fullWidth>
            <Trans>Log in</Trans>
          </Button>
          <Text size="sm" ta="center" c="dimmed">
            <Trans>No account yet?</Trans>{' '}
            <Anchor component={Link} to="/register">
              <Trans>Register a company</Trans>
            </Anchor>
          </Text>
        </Stack>
      </form>
    </PublicLayout>
  );
}
