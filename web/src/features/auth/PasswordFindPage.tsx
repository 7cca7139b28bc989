import { useState } from 'react';
import { Anchor, Button, Group, PasswordInput, Stack, Stepper, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useNavigate } from 'react-router-dom';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { KeyFetchError, securityKey } from '../../app/auth.ts';
import { encryptText } from '../../app/crypto.ts';
import { RequestError } from '../../app/request.ts';
import { PublicLayout } from '../../components/PublicLayout.tsx';
import { CodeButton } from './CodeButton.tsx';

/** Forgot password: username -> mailed code -> new password. */
export default function PasswordFindPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const [step, setStep] = useState(0);
  const [busy, setBusy] = useState(false);
  const form = useForm({
    validateInputOnBlur: true,
    initialValues: { username: '', code: '', newPassword: '', confirmPassword: '' },
    validate: (values) => {
      if (step === 0) return { username: values.username.trim() ? null : t`Enter the username` };
      if (step === 1) return { code: /^\d{6}$/.test(values.code.trim()) ? null : t`Enter the verification code` };
      const length = [...values.newPassword].length;
      return {
        newPassword: !values.newPassword ? t`Enter the new password` : length < 8 ? t`At least 8 characters` : length > 64 ? t`At most 64 characters` : null,
        confirmPassword: !values.confirmPassword ? t`Enter the new password again` : values.confirmPassword !== values.newPassword ? t`The passwords do not match` : null,
      };
    },
  });

  const fail = (error: unknown, field: string) => {
    if (error instanceof KeyFetchError) toast(t`Could not start a secure session; please try again later`);
    else if (error instanceof RequestError && error.issues.length) for (const i of error.issues) form.setFieldError(i.path in form.values ? i.path : field, i.message);
    else if (error instanceof RequestError) toast(error.message);
  };

  const sendCode = async () => {
    if (form.validate().hasErrors) return false;
    try {
      await api.post('/v1/systems/validateCodes', { purpose: 'retrieve', username: form.values.username.trim() }, { silent: true });
      notifySuccess(t`If the account exists, a code was sent to its registered email`);
      setStep(1);
      return true;
    } catch (error) {
      fail(error, 'username');
      return false;
    }
  };

  const next = form.onSubmit(async (values) => {
    setBusy(true);
    try {
      if (step === 0) {
        await sendCode();
      } else if (step === 1) {
        await api.post('/v1/systems/retrieve', { username: values.username.trim(), code: values.code.trim() }, { silent: true });
        setStep(2);
      } else {
        const { securityId, publicKey } = await securityKey();
        await api.patch(
          '/v1/systems/retrieve',
          { securityId, username: values.username.trim(), code: values.code.trim(), newPassword: await encryptText(publicKey, values.newPassword) },
          { silent: true },
        );
        notifySuccess(t`Password changed; log in with the new one`);
        navigate('/login');
      }
    } catch (error) {
      fail(error, step === 1 ? 'code' : 'newPassword');
    } finally {
      setBusy(false);
    }
  });

  return (
    <PublicLayout title={t`Reset password`} width={520}>
      <form onSubmit={next} noValidate>
        <Stack>
          <Stepper active={step} size="sm">
            <Stepper.Step label={t`Username`} />
            <Stepper.Step label={t`Verification code`} />
            <Stepper.Step label={t`New password`} />
          </Stepper>
          {step === 0 && <TextInput label={t`Username`} required autoComplete="username" autoFocus {...form.getInputProps('username')} />}
          {step === 1 && (
            <Group align="flex-start" gap="xs" wrap="nowrap">
              <TextInput label={t`Verification code`} required inputMode="numeric" maxLength={6} style={{ flex: 1 }} autoFocus {...form.getInputProps('code')} />
              <div style={{ paddingTop: 25 }}>
                <CodeButton send={sendCode} />
              </div>
            </Group>
          )}
          {step === 2 && (
            <>
              <PasswordInput label={t`New password`} required autoComplete="new-password" description={t`8 to 64 characters`} {...form.getInputProps('newPassword')} />
              <PasswordInput label={t`Confirm new password`} required autoComplete="new-password" {...form.getInputProps('confirmPassword')} />
            </>
          )}
          <Button type="submit" loading={busy} fullWidth>
            {step === 0 ? <Trans>Send code</Trans> : step === 1 ? <Trans>Next</Trans> : <Trans>Set password</Trans>}
          </Button>
          <Text size="sm" ta="center">
            <Anchor component={Link} to="/login">
              <Trans>Back to login</Trans>
            </Anchor>
          </Text>
        </Stack>
      </form>
    </PublicLayout>
  );
}
