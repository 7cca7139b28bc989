import { Stack, Switch, Text, Title } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import type { TwoFactorPolicy as Policy } from '@passcloud/functions/contract/twoFactor';
import { api } from '../../app/api.ts';
import { useItem, useWrite } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';

const PATH = '/v1/settings/twoFactor';

/**
 * The owner's switch: require two-factor login of every account of the company. An account without
 * it then sets it up at its next login before anything else. Others see the rule, unchangeable;
 * the owner turns it on for its own account first.
 */
export function TwoFactorPolicy() {
  const { t } = useLingui();
  const read = useItem<Policy>({ resource: 'settings', path: PATH });
  const policy = read.item;
  const saving = useWrite((requireTwoFactor: boolean) => api.put<Policy>(PATH, { requireTwoFactor }, { silent: true }), {
    onSuccess: read.put,
    success: t`Saved`,
  });

  const change = (requireTwoFactor: boolean) =>
    confirmAction({
      title: requireTwoFactor ? t`Require two-factor login` : t`Stop requiring two-factor login`,
      text: requireTwoFactor
        ? t`Every account without two-factor login must set it up at its next login before it can do anything else. Accounts logged in now go on until they log in again.`
        : t`Accounts may then log in with their password alone and turn two-factor login off.`,
      confirm: requireTwoFactor ? t`Require` : t`Stop requiring`,
      testId: 'two-factor-policy',
      onConfirm: () => saving.mutate(requireTwoFactor),
    });

  const blocked = !policy || !policy.canChange || (!policy.requireTwoFactor && !policy.ownEnabled);
  return (
    <Stack gap="sm" maw={760}>
      <Title order={3} size="h5">
        <Trans>Login</Trans>
      </Title>
      <Switch
        label={t`Require two-factor login for every account`}
        description={t`Logging in then takes the password and a code from an authenticator app, for every account of the company.`}
        checked={!!policy?.requireTwoFactor}
        disabled={blocked || saving.isPending}
        onChange={(e) => change(e.currentTarget.checked)}
        data-testid="privacy-require-two-factor"
      />
      {policy && !policy.canChange && (
        <Text size="xs" c="dimmed">
          <Trans>Only the owner of the company can change this.</Trans>
        </Text>
      )}
      {policy?.canChange && !policy.ownEnabled && !policy.requireTwoFactor && (
        <Text size="xs" c="dimmed" data-testid="two-factor-owner-first">
          <Trans>Turn on two-factor login for your own account first (user menu, Two-factor login).</Trans>
        </Text>
      )}
    </Stack>
  );
}
