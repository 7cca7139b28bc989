import { useState } from 'react';
import { Anchor, Button, Checkbox, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { KeyFetchError, securityKey } from '../../app/auth.ts';
import { encryptText } from '../../app/crypto.ts';
import { RequestError } from '../../app/request.ts';
import { PublicLayout } from '../../components/PublicLayout.tsx';
import { CodeButton } from './CodeButton.tsx';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const USERNAME = /^[A-Za-z0-9_.@-]{3,32}$/;

export default function RegisterPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const form = useForm({
    validateInputOnBlur: true,
    initialValues: { companyName: '', username: '', email: '', password: '', confirmPassword: '', code: '', agree: false },
    validate: {
      companyName: (v) => (v.trim() ? null : t`Enter the company name`),
      username: (v) => (!v.trim() ? t`Enter the username` : USERNAME.test(v.trim()) ? null : t`Use 3 to 32 letters, digits, dots, dashes, underscores or @`),
      email: (v) => (!v.trim() ? t`Enter the email` : EMAIL.test(v.trim()) ? null : t`Enter the email in the correct format`),
      password: (v) => (!v ? t`Enter the password` : [...v].length < 8 ? t`At least 8 characters` : [...v].length > 64 ? t`At most 64 characters` : null),
      confirmPassword: (v, values) => (!v ? t`Enter the password again` : v !== values.password ? t`The passwords do not match` : null),
      code: (v) => (/^\d{6}$/.test(v.trim()) ? null : t`Enter the verification code`),
      agree: (v) => (v ? null : t`Accept the service terms to register`),
    },
  });

  const showIssues = (error: unknown) => {
    if (error instanceof RequestError && error.issues.length) {
      for (const issue of error.issues) form.setFieldError(issue.path in form.values ? issue.path : 'code', issue.message);
      return true;
    }
    return false;
  };

  const sendCode = async () => {
    if (form.validateField('email').hasError) return false;
    try {
      await api.post('/v1/systems/validateCodes', { purpose: 'register', email: form.values.email.trim() }, { silent: true });
      notifySuccess(t`The code was sent to ${form.values.email.trim()}`);
      return true;
    } catch (error) {
      if (!showIssues(error) && error instanceof RequestError) toast(error.message);
      return false;
    }
  };

  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    try {
      const { securityId, publicKey } = await securityKey();
      await api.post(
        '/v1/systems/register',
        {
          securityId,
          companyName: values.companyName.trim(),
          username: values.username.trim(),
          email: values.email.trim(),
          password: await encryptText(publicKey, values.password),
          code: values.code.trim(),
          agree: values.agree,
        },
        { silent: true },
      );
      notifySuccess(t`Your company is registered; log in to continue`);
      navigate('/login');
    } catch (error) {
      if (error instanceof KeyFetchError) toast(t`Could not start a secure session; please try again later`);
      else if (!showIssues(error) && error instanceof RequestError) toast(error.message);
    } finally {
      setBusy(false);
    }
  });

  return (
    <PublicLayout title={t`Register a company`} width={480}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label={t`Company name`} required {...form.getInputProps('companyName')} />
          <TextInput label={t`Username`} required autoComplete="username" {...form.getInputProps('username')} />
          <TextInput label={t`Email`} required type="email" autoComplete="email" {...form.getInputProps('email')} />
          <PasswordInput label={t`Password`} required autoComplete="new-password" description={t`8 to 64 characters`} {...form.getInputProps('password')} />
          <PasswordInput label={t`Confirm password`} required autoComplete="new-password" {...form.getInputProps('confirmPassword')} />
          <Group align="flex-start" gap="xs" wrap="nowrap">
            <TextInput label={t`Verification code`} required inputMode="numeric" maxLength={6} style={{ flex: 1 }} {...form.getInputProps('code')} />
            <div style={{ paddingTop: 25 }}>
              <CodeButton send={sendCode} />
            </div>
          </Group>
          <Checkbox
            label={
              <Trans>
                I have read and accept the{' '}
                <Anchor component={Link} to="/agreement" target="_blank">
                  service terms
                </Anchor>
              </Trans>
            }
            {...form.getInputProps('agree', { type: 'checkbox' })}
          />
          <Button type="submit" loading={busy} fullWidth>
            <Trans>Register</Trans>
          </Button>
          <Text size="sm" ta="center" c="dimmed">
            <Trans>Already registered?</Trans>{' '}
            <Anchor component={Link} to="/login">
              <Trans>Log in</Trans>
            </Anchor>
          </Text>
        </Stack>
      </form>
    </PublicLayout>
  );
}
