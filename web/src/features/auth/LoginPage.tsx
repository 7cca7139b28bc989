import { useState, type FormEvent } from 'react';
import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { KeyFetchError, login } from '../../app/auth.ts';
import { notifySuccess, toast } from '../../app/api.ts';
import { RequestError } from '../../app/request.ts';
import { PublicLayout } from '../../components/PublicLayout.tsx';
import { redirectIn } from '../../app/redirect.ts';

/** Refusals of the login itself (wrong username or password, too many tries) are shown under the password as well as in the toast. */
const LOGIN_REFUSALS = new Set([401, 429]);

/** The first screen most people see, kept light: two fields checked here, the rest by the server. */
export default function LoginPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const { search } = useLocation();
  const [busy, setBusy] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ username?: string; password?: string }>({});
  /** Why the server refused the last try, until the username or password is changed. */
  const [refusal, setRefusal] = useState<string>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = { username: username.trim() ? undefined : t`Enter the username`, password: password ? undefined : t`Enter the password` };
    setErrors(found);
    setRefusal(undefined);
    if (found.username || found.password) return;
    setBusy(true);
    try {
      await login(username.trim(), password);
      notifySuccess(t`Login succeeded`);
      // Back to the console page opened before logging in (a path of this console only), else home.
      navigate(redirectIn(search) ?? '/', { replace: true });
    } catch (error) {
      if (error instanceof KeyFetchError) toast(t`Could not start a secure session; please try again later`);
      else if (error instanceof RequestError && LOGIN_REFUSALS.has(error.code)) setRefusal(error.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <PublicLayout title={t`Log in`}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label={t`Username`}
            required
            autoComplete="username"
            autoFocus
            value={username}
            onChange={(e) => {
              setUsername(e.currentTarget.value);
              setRefusal(undefined);
            }}
            error={errors.username}
          />
          <PasswordInput
            label={t`Password`}
            required
            autoComplete="current-password"
            value={password}
            onChange={(e) => {
              setPassword(e.currentTarget.value);
              setRefusal(undefined);
            }}
            error={errors.password ?? refusal}
            aria-invalid={!!(errors.password ?? refusal)}
          />
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
