import { useEffect, useState } from 'react';
import { Alert, Anchor, Button, Loader, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import type { InvitationInfo } from '@passcloud/functions/contract/systems';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { KeyFetchError, securityKey } from '../../app/auth.ts';
import { encryptText } from '../../app/crypto.ts';
import { RequestError } from '../../app/request.ts';
import { PublicLayout } from '../../components/PublicLayout.tsx';

/** `void` with no reason: the server could not be asked. */
type LinkState = { kind: 'checking' } | { kind: 'open'; info: InvitationInfo } | { kind: 'void'; reason?: string };

/** Why the server refused the link, as it words it next to the field or on its own. */
const refusal = (error: RequestError): string => error.issues[0]?.message ?? error.message;

/**
 * The page an invitation mail links to (`/invitation?token=`): the invited person, or one whose
 * password an administrator reset, chooses a password (sent encrypted with a login key, like at
 * login), then logs in with it. A link works once; a used, expired or replaced one says so.
 */
export default function InvitationPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const token = new URLSearchParams(useLocation().search).get('token') ?? '';
  const [link, setLink] = useState<LinkState>({ kind: 'checking' });
  const [busy, setBusy] = useState(false);
  const form = useForm({
    validateInputOnBlur: true,
    initialValues: { password: '', confirmPassword: '' },
    validate: {
      password: (v) => (!v ? t`Enter the password` : [...v].length < 8 ? t`At least 8 characters` : [...v].length > 64 ? t`At most 64 characters` : null),
      confirmPassword: (v, values) => (!v ? t`Enter the password again` : v !== values.password ? t`The passwords do not match` : null),
    },
  });

  useEffect(() => {
    let current = true;
    api
      .get<InvitationInfo>(`/v1/systems/invitation?token=${encodeURIComponent(token)}`, { silent: true })
      .then((info) => current && setLink({ kind: 'open', info }))
      .catch((error: unknown) => {
        if (!current) return;
        if (error instanceof RequestError && (error.status === 404 || error.status === 422)) setLink({ kind: 'void', reason: refusal(error) });
        else setLink({ kind: 'void' });
      });
    return () => {
      current = false;
    };
  }, [token]);

  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    try {
      const { securityId, publicKey } = await securityKey();
      await api.post('/v1/systems/invitation', { securityId, token, password: await encryptText(publicKey, values.password) }, { silent: true });
      notifySuccess(t`Your password is set; log in with it`);
      navigate('/login');
    } catch (error) {
      if (error instanceof KeyFetchError) toast(t`Could not start a secure session; please try again later`);
      else if (error instanceof RequestError && error.status === 404) setLink({ kind: 'void', reason: refusal(error) });
      else if (error instanceof RequestError && error.issues.some((i) => i.path === 'password'))
        form.setFieldError('password', error.issues.find((i) => i.path === 'password')!.message);
      else if (error instanceof RequestError) toast(error.message);
    } finally {
      setBusy(false);
    }
  });

  const company = link.kind === 'open' ? link.info.companyName : '';
  return (
    <PublicLayout title={t`Choose your password`} width={460}>
      {link.kind === 'checking' && (
        <Stack align="center" py="md">
          <Loader size="sm" />
        </Stack>
      )}
      {link.kind === 'void' && (
        <Stack>
          <Alert color="orange" variant="light" data-testid="invitation-void">
            {link.reason ?? t`The link could not be checked; please try again later`}
          </Alert>
          <Text size="sm" ta="center">
            <Anchor component={Link} to="/login">
              <Trans>Back to login</Trans>
            </Anchor>
          </Text>
        </Stack>
      )}
      {link.kind === 'open' && (
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text size="sm" c="dimmed">
              {company ? (
                <Trans>Your account at {company} is ready. Choose the password you will log in with.</Trans>
              ) : (
                <Trans>Choose the password you will log in with.</Trans>
              )}
            </Text>
            <TextInput label={t`Username`} value={link.info.username} readOnly autoComplete="username" data-testid="invitation-username" />
            <PasswordInput
              label={t`Password`}
              required
              autoComplete="new-password"
              autoFocus
              description={t`8 to 64 characters`}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              {...form.getInputProps('password')}
              data-testid="invitation-password"
            />
            <PasswordInput
              label={t`Confirm password`}
              required
              autoComplete="new-password"
              {...form.getInputProps('confirmPassword')}
              data-testid="invitation-confirm"
            />
            <Button type="submit" loading={busy} fullWidth data-testid="invitation-submit">
              <Trans>Set password</Trans>
            </Button>
          </Stack>
        </form>
      )}
    </PublicLayout>
  );
}
