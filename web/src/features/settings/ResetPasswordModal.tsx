import { Alert, Button, Group, Modal, Radio, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { encryptText } from '../../app/crypto.ts';
import { showFailure, useWrite } from '../../app/queries.ts';
import { getPublicKey } from '../../app/session.ts';
import { fieldIssues, type Account } from './api.ts';
import { PasswordPair, passwordValidators } from './PasswordPair.tsx';

interface Values {
  mode: 'password' | 'invite';
  password: string;
  confirmPassword: string;
}

/**
 * Resets another account's password: typed here twice (changed by the account at its next login),
 * or chosen by the person through an invitation link mailed to them. The account's session ends.
 */
export function ResetPasswordModal({
  account,
  opened,
  onClose,
  onDone,
}: {
  account: Account;
  opened: boolean;
  onClose: () => void;
  onDone: (account: Account) => void;
}) {
  const { t } = useLingui();
  const rules = passwordValidators();
  const form = useForm<Values>({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: { mode: 'password', password: '', confirmPassword: '' },
    validate: {
      password: (value, values) => (values.mode === 'password' ? rules.password(value) : null),
      confirmPassword: (value, values) => (values.mode === 'password' ? rules.confirmPassword(value, values) : null),
    },
  });
  const username = account.username;
  const email = account.email ?? '';
  const close = () => {
    form.reset();
    onClose();
  };

  const reset = useWrite(
    async ({ values, key }: { values: Values; key: string }) => {
      const body = values.mode === 'invite' ? { invite: true } : { password: await encryptText(key, values.password) };
      return api.post<Account>(`/v1/accounts/${account.accountKey}/password`, body, { silent: true });
    },
    {
      success: (_, { values }) => (values.mode === 'invite' ? t`The invitation was mailed to ${email}` : t`Password reset`),
      onSuccess: (saved) => {
        form.reset();
        onDone(saved);
      },
      // A refusal of the invitation shows on the choice of how the password is set.
      onError: (error) => {
        const issues = fieldIssues(error, ['password', 'invite']);
        if (issues.invite) issues.mode = issues.invite;
        form.setErrors(issues);
        if (!Object.keys(issues).length) showFailure(error);
      },
    },
  );
  const submit = form.onSubmit((values) => {
    const key = getPublicKey();
    if (key) reset.mutate({ values, key });
  });

  return (
    <Modal opened={opened} onClose={close} title={t`Reset password`} size={500} centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm">
            {form.values.mode === 'invite' ? (
              <Trans>{username} is logged out and chooses a new password through the mailed link.</Trans>
            ) : (
              <Trans>{username} is logged out and must choose a new password at the next login.</Trans>
            )}
          </Text>
          <Radio.Group label={t`New password`} {...form.getInputProps('mode')}>
            <Stack gap="xs" mt="xs">
              <Radio value="password" label={t`Type a new password`} />
              <Radio
                value="invite"
                label={t`Send an invitation by mail`}
                disabled={!account.email}
                description={account.email ? account.email : t`The account has no email address`}
              />
            </Stack>
          </Radio.Group>
          {form.values.mode === 'password' ? (
            <PasswordPair password={form.getInputProps('password')} confirm={form.getInputProps('confirmPassword')} value={form.values.password} />
          ) : (
            <Alert variant="light" color="blue">
              <Trans>A link is mailed to the account's email address; with it the person chooses a password. It works once, within 3 days.</Trans>
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close} data-testid="reset-cancel">
              <Trans>Cancel</Trans>
            </Button>
            <Button type="submit" color="red" loading={reset.isPending} data-testid="reset-submit">
              <Trans>Reset password</Trans>
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
