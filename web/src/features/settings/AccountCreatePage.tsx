import { Alert, Divider, Paper, Radio, Stack, Text } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import type { AuthCode } from '@passcloud/functions/contract/menu';
import { api } from '../../app/api.ts';
import { encryptText } from '../../app/crypto.ts';
import { useWrite } from '../../app/queries.ts';
import { getAuthorities, getPublicKey } from '../../app/session.ts';
import { menuTitle } from '../../app/menuTitles.ts';
import { SettingsFrame } from './SettingsFrame.tsx';
import { confirmDiscard } from '../confirm.tsx';
import { FormButtons } from '../parts.tsx';
import { ACCOUNTS_PATH, showRefusal, type Account } from './api.ts';
import { AccountFields, accountValidators, type AccountValues } from './AccountFields.tsx';
import { PasswordPair, passwordValidators } from './PasswordPair.tsx';

interface Values extends AccountValues {
  mode: 'password' | 'invite';
  password: string;
  confirmPassword: string;
}

const FIELDS = ['username', 'nickname', 'email', 'phone', 'remark', 'authCodes', 'password'] as const;

/**
 * A new account: who it is, what it may see (the menu tree), and how it gets its first password:
 * typed here twice (sent encrypted with the session key; the account changes it at the first
 * login), or chosen by the person through an invitation link mailed to them.
 */
export function AccountCreatePage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const own = new Set(getAuthorities());
  const passwordRules = passwordValidators();
  const form = useForm<Values>({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: { username: '', nickname: '', email: '', phone: '', remark: '', authCodes: [], mode: 'password', password: '', confirmPassword: '' },
    validate: {
      ...accountValidators,
      email: (value, values) => (values.mode === 'invite' && !value.trim() ? t`An invitation needs an email address` : accountValidators.email(value)),
      password: (value, values) => (values.mode === 'password' ? passwordRules.password(value) : null),
      confirmPassword: (value, values) => (values.mode === 'password' ? passwordRules.confirmPassword(value, values) : null),
    },
  });
  const back = () => navigate(ACCOUNTS_PATH);
  const cancel = () => confirmDiscard(form.isDirty(), back);

  const creation = useWrite(
    ({ body }: { body: Record<string, unknown>; email: string; invite: boolean }) => api.post<Account>('/v1/accounts', body, { silent: true }),
    {
      touches: ['accounts'],
      success: (created, { email: typed, invite }) => {
        const email = created.email ?? typed;
        return invite ? t`Account created; the invitation was mailed to ${email}` : t`Account created`;
      },
      onSuccess: () => {
        form.resetDirty();
        back();
      },
      onError: (error) => showRefusal(form, FIELDS, error),
    },
  );

  const submit = form.onSubmit(async (values) => {
    const key = getPublicKey();
    if (!key) return;
    const body: Record<string, unknown> = { username: values.username.trim(), authCodes: values.authCodes };
    for (const name of ['nickname', 'email', 'phone', 'remark'] as const) if (values[name].trim()) body[name] = values[name].trim();
    if (values.mode === 'invite') body.invite = true;
    else body.password = await encryptText(key, values.password);
    creation.mutate({ body, email: values.email, invite: values.mode === 'invite' });
  });

  return (
    <SettingsFrame section="/settings/account" page={menuTitle('menu.settingsAccountCreate')}>
      <Paper withBorder p="lg" radius="md">
        <form onSubmit={submit} noValidate>
          <Stack gap="lg">
            <AccountFields
              input={(field) => form.getInputProps(field)}
              codes={form.values.authCodes}
              onCodes={(codes: AuthCode[]) => form.setFieldValue('authCodes', codes)}
              codesError={form.errors.authCodes}
              grantable={own}
            />
            <Divider />
            <Stack gap="sm" maw={520}>
              <Radio.Group label={t`First password`} {...form.getInputProps('mode')} data-testid="password-mode">
                <Stack gap="xs" mt="xs">
                  <Radio value="password" label={t`Set an initial password`} />
                  <Radio value="invite" label={t`Send an invitation by mail`} />
                </Stack>
              </Radio.Group>
              {form.values.mode === 'password' ? (
                <PasswordPair
                  label={t`Initial password`}
                  password={form.getInputProps('password')}
                  confirm={form.getInputProps('confirmPassword')}
                  value={form.values.password}
                />
              ) : (
                <Alert variant="light" color="blue">
                  <Trans>A link is mailed to the account's email address; with it the person chooses a password. It works once, within 3 days.</Trans>
                </Alert>
              )}
              {form.values.mode === 'password' && (
                <Text size="xs" c="dimmed">
                  <Trans>The account chooses a password of its own at the first login.</Trans>
                </Text>
              )}
            </Stack>
            <FormButtons name="account" onCancel={cancel} saving={creation.isPending} disabled={!getPublicKey()}>
              <Trans>Create</Trans>
            </FormButtons>
          </Stack>
        </form>
      </Paper>
    </SettingsFrame>
  );
}
