import { useCallback, useEffect, useRef, useState, type ReactElement } from 'react';
import { Alert, Button, Divider, Group, Loader, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowLeft } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { StaleNotice } from '../../components/StaleNotice.tsx';
import { useNavigate, useParams } from 'react-router-dom';
import type { AuthCode } from '@passcloud/functions/contract/menu';
import { api, toast } from '../../app/api.ts';
import { formatDateTime } from '../../app/format.ts';
import { listKey, useItem, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { getAuthorities, getUser } from '../../app/session.ts';
import { menuTitle } from '../../app/menuTitles.ts';
import { SettingsFrame } from './SettingsFrame.tsx';
import { confirmAction, confirmDiscard } from '../confirm.tsx';
import { MissingItem } from '../parts.tsx';
import { ACCOUNTS_PATH, showRefusal, type Account } from './api.ts';
import { AccountFields, accountValidators, type AccountValues } from './AccountFields.tsx';
import { AccountBadges } from './AccountsSection.tsx';
import { ResetPasswordModal } from './ResetPasswordModal.tsx';

const FIELDS = ['nickname', 'email', 'phone', 'remark', 'authCodes', 'disabled'] as const;

const valuesOf = (account: Account): AccountValues => ({
  username: account.username,
  nickname: account.nickname,
  email: account.email ?? '',
  phone: account.phone ?? '',
  remark: account.remark ?? '',
  authCodes: account.authCodes,
});

/** A control that cannot be used here: shown disabled, with the reason on hover. */
function Guarded({ reason, children }: { reason: string | null; children: ReactElement }) {
  if (!reason) return children;
  return (
    <Tooltip label={reason} withArrow multiline maw={300}>
      <span style={{ display: 'inline-block' }} tabIndex={0} aria-label={reason} data-testid="guarded">
        {children}
      </span>
    </Tooltip>
  );
}

/**
 * One account: edit (with its version; a stale one shows that someone else changed it), enable
 * or disable, reset the password, delete. The owner cannot be disabled or deleted and keeps
 * account management; nobody disables, deletes or resets itself here, nor manages an account
 * holding a permission it lacks.
 */
export function AccountDetailPage() {
  const { t } = useLingui();
  const { key = '' } = useParams();
  const navigate = useNavigate();
  const read = useItem<Account>({ resource: 'accounts', path: `/v1/accounts/${key}` });
  const account = read.item;
  const [stale, setStale] = useState(false);
  const [resetOpen, setResetOpen] = useState(false);
  const own = new Set(getAuthorities());
  const form = useForm<AccountValues>({
    mode: 'controlled',
    validateInputOnBlur: true,
    initialValues: { username: '', nickname: '', email: '', phone: '', remark: '', authCodes: [] },
    validate: { ...accountValidators, username: () => null },
  });

  /** Fills the form with the account as stored. */
  const fill = useCallback((next: Account) => {
    setStale(false);
    form.setValues(valuesOf(next));
    form.resetDirty(valuesOf(next));
    form.clearErrors();
  }, []);
  // The account read fills the form, and so does a later reading while nothing is being edited.
  const editing = useRef(false);
  editing.current = form.isDirty();
  useEffect(() => {
    if (account && !editing.current) fill(account);
  }, [account, fill]);
  /** An account the server answered: on screen and in the form. */
  const show = (next: Account) => {
    read.put(next);
    fill(next);
  };
  const reload = () => void read.reload().then((next) => next && fill(next));

  // A stale version shows the notice; the problems the server names go to their fields, the rest to the toast.
  const failed = (error: unknown) => {
    if (error instanceof RequestError && error.status === 409 && !error.issues.length) {
      setStale(true);
      return;
    }
    const issues = showRefusal(form, FIELDS, error);
    if (issues.disabled) toast(issues.disabled);
  };
  const path = `/v1/accounts/${key}`;
  const saving = useWrite((body: Record<string, unknown>) => api.patch<Account>(path, body, { silent: true }), {
    touches: [listKey('accounts')],
    onSuccess: show,
    success: t`Saved`,
    onError: failed,
  });
  const toggling = useWrite((a: Account) => api.patch<Account>(path, { disabled: !a.disabled, version: a.version }, { silent: true }), {
    touches: [listKey('accounts')],
    onSuccess: show,
    success: t`Operation succeeded`,
    onError: failed,
  });
  // The account's own read is not touched: it is gone, and the screen leaves.
  const deleting = useWrite((a: Account) => api.del(path, { query: { version: a.version }, silent: true }), {
    touches: [listKey('accounts')],
    success: t`Deleted`,
    onSuccess: () => navigate(ACCOUNTS_PATH),
    onError: failed,
  });
  const resettingTwoFactor = useWrite(() => api.del(`${path}/twoFactor`, { silent: true }), {
    touches: [listKey('accounts')],
    success: t`Operation succeeded`,
    onSuccess: reload,
    onError: failed,
  });
  const busy = toggling.isPending || deleting.isPending || resettingTwoFactor.isPending;

  if (read.gone) {
    return (
      <SettingsFrame section="/settings/account" page={menuTitle('menu.settingsAccountDetail')}>
        <MissingItem text={<Trans>This account does not exist or was deleted.</Trans>} back={ACCOUNTS_PATH} testId="account-missing" />
      </SettingsFrame>
    );
  }
  if (!account) {
    return (
      <SettingsFrame section="/settings/account" page={menuTitle('menu.settingsAccountDetail')}>
        <Loader />
      </SettingsFrame>
    );
  }

  const self = account.username === getUser()?.username;
  const beyondReach = !self && (account.owner || account.authCodes.some((code) => !own.has(code)));
  const reachReason = !beyondReach
    ? null
    : account.owner
      ? t`Only the owner can manage the owner's account`
      : t`This account holds permissions your account does not have`;
  const disableReason = reachReason ?? (account.owner ? t`The owner's account cannot be disabled` : self ? t`You cannot disable your own account` : null);
  const deleteReason = reachReason ?? (account.owner ? t`The owner's account cannot be deleted` : self ? t`You cannot delete your own account` : null);
  const resetReason = reachReason ?? (self ? t`Change your own password from the user menu` : null);
  const twoFactorReason =
    reachReason ?? (self ? t`Manage your own two-factor login from the user menu` : !account.twoFactor ? t`This account does not use two-factor login` : null);
  const locked = new Set<string>(account.owner ? ['settings:account'] : []);

  const submit = form.onSubmit((values) => {
    const before = valuesOf(account);
    const body: Record<string, unknown> = { version: account.version };
    if (values.nickname.trim() !== before.nickname) body.nickname = values.nickname.trim();
    for (const name of ['email', 'phone', 'remark'] as const) if (values[name].trim() !== before[name]) body[name] = values[name].trim() || null;
    if ([...values.authCodes].sort().join() !== [...before.authCodes].sort().join()) body.authCodes = values.authCodes;
    saving.mutate(body);
  });

  const confirm = (title: string, text: string, label: string, testId: string, onConfirm: () => void) =>
    confirmAction({ title, text, confirm: label, color: 'red', testId, onConfirm });

  const username = account.username;
  const created = formatDateTime(account.createTime);
  const toggleDisabled = () =>
    confirm(
      account.disabled ? t`Enable account` : t`Disable account`,
      account.disabled ? t`Let ${username} log in again?` : t`Disable ${username}? It is logged out at once and cannot log in until enabled again.`,
      account.disabled ? t`Enable` : t`Disable`,
      'toggle',
      () => toggling.mutate(account),
    );

  const remove = () =>
    confirm(t`Delete account`, t`Delete ${username}? It is logged out at once. This cannot be undone.`, t`Delete`, 'delete', () => deleting.mutate(account));

  const resetTwoFactor = () =>
    confirm(
      t`Reset two-factor login`,
      t`Turn off two-factor login of ${username}? It is logged out at once and then logs in with its password alone, or sets two-factor login up again where the company requires it.`,
      t`Reset`,
      'two-factor',
      () => resettingTwoFactor.mutate(),
    );

  const cancel = () => confirmDiscard(form.isDirty(), () => navigate(ACCOUNTS_PATH));

  return (
    <SettingsFrame section="/settings/account" page={menuTitle('menu.settingsAccountDetail')}>
      <Paper withBorder p="lg" radius="md">
        <form onSubmit={submit} noValidate>
          <Stack gap="lg">
            <Group justify="space-between" wrap="wrap">
              <Group gap="sm">
                <Title order={3} size="h4" data-testid="account-name">
                  {account.username}
                </Title>
                <AccountBadges account={account} />
              </Group>
              <Text size="sm" c="dimmed">
                <Trans>Created {created}</Trans>
              </Text>
            </Group>
            {stale && <StaleNotice onReload={reload} testId="account-stale" />}
            {reachReason && (
              <Alert color="gray" variant="light">
                {reachReason}
              </Alert>
            )}
            <AccountFields
              input={(field) => form.getInputProps(field)}
              codes={form.values.authCodes}
              onCodes={(codes: AuthCode[]) => form.setFieldValue('authCodes', codes)}
              codesError={form.errors.authCodes}
              usernameLocked
              disabled={beyondReach}
              grantable={own}
              locked={locked}
            />
            <Group justify="space-between">
              <Button variant="subtle" leftSection={<IconArrowLeft size={16} />} onClick={cancel} data-testid="account-back">
                <Trans>Back to the list</Trans>
              </Button>
              <Group gap="xs">
                <Button variant="default" disabled={!form.isDirty()} onClick={() => fill(account)} data-testid="account-cancel">
                  <Trans>Cancel</Trans>
                </Button>
                <Guarded reason={reachReason}>
                  <Button type="submit" loading={saving.isPending} disabled={beyondReach} data-testid="account-save">
                    <Trans>Save</Trans>
                  </Button>
                </Guarded>
              </Group>
            </Group>
          </Stack>
        </form>
      </Paper>

      <Paper withBorder p="lg" radius="md">
        <Stack gap="sm">
          <Title order={3} size="h5">
            <Trans>Access</Trans>
          </Title>
          <Divider />
          <Group gap="sm" wrap="wrap">
            <Guarded reason={disableReason}>
              <Button
                variant="light"
                color={account.disabled ? 'teal' : 'orange'}
                disabled={!!disableReason}
                loading={busy}
                onClick={toggleDisabled}
                data-testid="account-toggle"
              >
                {account.disabled ? <Trans>Enable account</Trans> : <Trans>Disable account</Trans>}
              </Button>
            </Guarded>
            <Guarded reason={resetReason}>
              <Button variant="light" disabled={!!resetReason} onClick={() => setResetOpen(true)} data-testid="account-reset">
                <Trans>Reset password</Trans>
              </Button>
            </Guarded>
            <Guarded reason={twoFactorReason}>
              <Button
                variant="light"
                color="orange"
                disabled={!!twoFactorReason}
                loading={busy}
                onClick={resetTwoFactor}
                data-testid="account-reset-two-factor"
              >
                <Trans>Reset two-factor login</Trans>
              </Button>
            </Guarded>
            <Guarded reason={deleteReason}>
              <Button variant="light" color="red" disabled={!!deleteReason} loading={busy} onClick={remove} data-testid="account-delete">
                <Trans>Delete account</Trans>
              </Button>
            </Guarded>
          </Group>
        </Stack>
      </Paper>
      <ResetPasswordModal
        account={account}
        opened={resetOpen}
        onClose={() => setResetOpen(false)}
        onDone={(saved) => {
          setResetOpen(false);
          show(saved);
        }}
      />
    </SettingsFrame>
  );
}
