import { useState, type FormEvent } from 'react';
import { Anchor, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { KeyFetchError, login, loginWithCode, type LoginChallenge } from '../../app/auth.ts';
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
  /** The second step, when the account has two-factor login on. */
  const [challenge, setChallenge] = useState<LoginChallenge>();

  const enter = () => {
    notifySuccess(t`Login succeeded`);
    // Back to the console page opened before logging in (a path of this console only), else home.
    navigate(redirectIn(search) ?? '/', { replace: true });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = { username: username.trim() ? undefined : t`Enter the username`, password: password ? undefined : t`Enter the password` };
    setErrors(found);
    setRefusal(undefined);
    if (found.username || found.password) return;
    setBusy(true);
    try {
      const answer = await login(username.trim(), password);
      if ('challenge' in answer) setChallenge(answer.challenge);
      else enter();
    } catch (error) {
      if (error instanceof KeyFetchError) toast(t`Could not start a secure session; please try again later`);
      else if (error instanceof RequestError && LOGIN_REFUSALS.has(error.code)) setRefusal(error.message);
    } finally {
      setBusy(false);
    }
  };

  if (challenge) {
    return (
      <SecondStep
        challenge={challenge}
        onDone={enter}
        onRestart={(reason) => {
          setChallenge(undefined);
          setPassword('');
          setRefusal(reason);
        }}
      />
    );
  }

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

/**
 * The second step of a login with two-factor login on: the 6-digit code the authenticator app
 * shows, or one of the recovery codes. A challenge that ended (used, expired, too many wrong codes)
 * starts the login over.
 */
function SecondStep({ challenge, onDone, onRestart }: { challenge: LoginChallenge; onDone: () => void; onRestart: (reason?: string) => void }) {
  const { t } = useLingui();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const send = async (value: string) => {
    const typed = value.trim();
    if (recovery ? !typed : !/^\d{6}$/.test(typed)) {
      setError(recovery ? t`Enter a recovery code` : t`Enter the 6-digit code`);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await loginWithCode(challenge.challenge, typed);
      onDone();
    } catch (failure) {
      if (failure instanceof RequestError && failure.code === 403) onRestart(failure.message);
      else if (failure instanceof RequestError && (failure.code === 401 || failure.code === 429 || failure.issues.length)) {
        setError(failure.issues[0]?.message ?? failure.message);
        if (failure.code === 429) onRestart(failure.message);
        setCode('');
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <PublicLayout title={t`Two-factor login`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send(code);
        }}
        noValidate
      >
        <Stack>
          <Text size="sm" data-testid="second-step-hint">
            {recovery ? (
              <Trans>Enter one of the recovery codes you saved when you turned on two-factor login. Each code works once.</Trans>
            ) : (
              <Trans>Enter the 6-digit code your authenticator app shows for Pass Cloud.</Trans>
            )}
          </Text>
          {recovery ? (
            <TextInput
              label={t`Recovery code`}
              autoFocus
              autoComplete="off"
              spellCheck={false}
              placeholder="abcde-fghjk"
              value={code}
              onChange={(e) => {
                setCode(e.currentTarget.value);
                setError(undefined);
              }}
              error={error}
              data-testid="recovery-code"
            />
          ) : (
            <TextInput
              label={t`Verification code`}
              autoFocus
              autoComplete="one-time-code"
              inputMode="numeric"
              maxLength={6}
              placeholder="123456"
              value={code}
              onChange={(e) => {
                const digits = e.currentTarget.value.replace(/\D/g, '').slice(0, 6);
                setCode(digits);
                setError(undefined);
                // Six digits are the whole code: it is sent at once, as an app's code is short-lived.
                if (digits.length === 6 && !busy) void send(digits);
              }}
              error={error}
              styles={{ input: { letterSpacing: '0.3em', fontFamily: 'monospace', fontSize: 18 } }}
              data-testid="totp-code"
            />
          )}
          <Button type="submit" loading={busy} fullWidth data-testid="verify-code">
            <Trans>Verify</Trans>
          </Button>
          <Group justify="space-between">
            <Anchor
              component="button"
              type="button"
              size="sm"
              onClick={() => {
                setRecovery(!recovery);
                setCode('');
                setError(undefined);
              }}
              data-testid="toggle-recovery"
            >
              {recovery ? <Trans>Use the authenticator app</Trans> : <Trans>Use a recovery code</Trans>}
            </Anchor>
            <Anchor component="button" type="button" size="sm" onClick={() => onRestart()} data-testid="restart-login">
              <Trans>Back to login</Trans>
            </Anchor>
          </Group>
        </Stack>
      </form>
    </PublicLayout>
  );
}
