import { useState } from 'react';
import { Button, Group, Modal, PasswordInput, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { PasswordRuleList, passwordLengthRules, type PasswordRule } from '../../components/PasswordRules.tsx';
import { api, notifySuccess } from '../api.ts';
import { encryptText } from '../crypto.ts';
import { RequestError } from '../request.ts';
import { logout } from '../auth.ts';
import { getPublicKey, passwordChanged } from '../session.ts';

const FIELD_OF: Record<string, 'originalPassword' | 'newPassword'> = { oldPassword: 'originalPassword', newPassword: 'newPassword' };

/**
 * Change password (500 px wide): the JSON of both passwords goes RSA-encrypted with the session
 * key. The new password's rules are the server's (functions/domain/passwords.ts, and different
 * from the original); they show under the field as they are met, and nothing is sent until all are.
 */
export function ChangePasswordDialog({ opened, onClose, required = false }: { opened: boolean; onClose: () => void; required?: boolean }) {
  const { t } = useLingui();
  const [saving, setSaving] = useState(false);

  const rulesOf = (password: string, original: string): PasswordRule[] => [
    ...passwordLengthRules(password),
    { id: 'different', text: t`Different from the original password`, met: !!password && password !== original },
  ];

  const form = useForm({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: { originalPassword: '', newPassword: '', confirmPassword: '' },
    validate: {
      originalPassword: (v) => (v ? null : t`Enter the original password`),
      newPassword: (v, values) => (!v ? t`Enter the new password` : (rulesOf(v, values.originalPassword).find((rule) => !rule.met)?.text ?? null)),
      confirmPassword: (v, values) => (!v ? t`Enter the new password again` : v !== values.newPassword ? t`The passwords do not match` : null),
    },
  });
  const rules = rulesOf(form.values.newPassword, form.values.originalPassword);
  const touched = form.values.newPassword !== '';
  // A broken rule is shown by the list under the field (in red); the field only turns red.
  const newPasswordInput = form.getInputProps('newPassword');
  const newPasswordError = rules.some((rule) => rule.text === newPasswordInput.error) ? true : newPasswordInput.error;

  const close = () => {
    form.reset();
    onClose();
  };

  const submit = form.onSubmit(async (values) => {
    const key = getPublicKey();
    if (!key) return;
    setSaving(true);
    try {
      const payload = await encryptText(key, JSON.stringify({ oldPassword: values.originalPassword, newPassword: values.newPassword }));
      await api.patch('/v1/systems/reset', { payload }, { silent: true });
      notifySuccess(t`Operation succeeded`);
      close();
      // The screen behind the dialog waited for this (MainLayout); it loads now.
      if (required) passwordChanged();
    } catch (error) {
      if (error instanceof RequestError && error.issues.length) {
        for (const issue of error.issues) form.setFieldError(FIELD_OF[issue.path] ?? 'newPassword', issue.message);
      } else if (error instanceof RequestError) {
        form.setFieldError('originalPassword', error.message);
      }
    } finally {
      setSaving(false);
    }
  });

  return (
    <Modal
      opened={opened}
      onClose={required ? () => undefined : close}
      title={t`Change password`}
      size={500}
      centered
      withCloseButton={!required}
      closeOnClickOutside={!required}
      closeOnEscape={!required}
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          {required && (
            <Text size="sm" data-testid="password-required">
              <Trans>Your password was set for you. Choose a password of your own to continue.</Trans>
            </Text>
          )}
          <PasswordInput label={t`Original password`} required autoComplete="current-password" {...form.getInputProps('originalPassword')} />
          <PasswordInput
            label={t`New password`}
            required
            autoComplete="new-password"
            {...newPasswordInput}
            error={newPasswordError}
            aria-invalid={!!newPasswordError}
            // The rules sit under the field as its description (a list, so not in a paragraph).
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            descriptionProps={{ component: 'div', mt: 6 }}
            description={
              <PasswordRuleList rules={rules} touched={touched} />
            }
          />
          <PasswordInput label={t`Confirm new password`} required autoComplete="new-password" {...form.getInputProps('confirmPassword')} />
          <Group justify="flex-end">
            {required ? (
              <Button variant="default" onClick={() => void logout()}>
                <Trans>Log out</Trans>
              </Button>
            ) : (
              <Button variant="default" onClick={close}>
                <Trans>Cancel</Trans>
              </Button>
            )}
            <Button type="submit" loading={saving} disabled={!getPublicKey()}>
              <Trans>Save</Trans>
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
