import { useState } from 'react';
import { Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { api, notifySuccess } from '../api.ts';
import { encryptText } from '../crypto.ts';
import { RequestError } from '../request.ts';
import { getPublicKey } from '../session.ts';

const FIELD_OF: Record<string, 'originalPassword' | 'newPassword'> = { oldPassword: 'originalPassword', newPassword: 'newPassword' };

/** Change password (500 px wide): the JSON of both passwords goes RSA-encrypted with the session key. */
export function ChangePasswordDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useLingui();
  const [saving, setSaving] = useState(false);
  const form = useForm({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: { originalPassword: '', newPassword: '', confirmPassword: '' },
    validate: {
      originalPassword: (v) => (v ? null : t`Enter the original password`),
      newPassword: (v) => (v ? null : t`Enter the new password`),
      confirmPassword: (v, values) => (!v ? t`Enter the new password again` : v !== values.newPassword ? t`The passwords do not match` : null),
    },
  });

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
    <Modal opened={opened} onClose={close} title={t`Change password`} size={500} centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          <PasswordInput label={t`Original password`} required autoComplete="current-password" {...form.getInputProps('originalPassword')} />
          <PasswordInput label={t`New password`} required autoComplete="new-password" description={t`8 to 64 characters`} {...form.getInputProps('newPassword')} />
          <PasswordInput label={t`Confirm new password`} required autoComplete="new-password" {...form.getInputProps('confirmPassword')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              <Trans>Cancel</Trans>
            </Button>
            <Button type="submit" loading={saving} disabled={!getPublicKey()}>
              <Trans>Save</Trans>
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
