import { Grid, Stack, TextInput, Textarea } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import type { ReactNode } from 'react';
import type { AuthCode } from '@passcloud/functions/contract/menu';
import { PermissionTree } from './PermissionTree.tsx';

export interface AccountValues {
  username: string;
  nickname: string;
  email: string;
  phone: string;
  remark: string;
  authCodes: AuthCode[];
}

const USERNAME = /^[A-Za-z0-9_.@-]{3,32}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[0-9 +()-]{3,32}$/;

/** The checks the server makes (functions/contract/accounts.ts), in the form, so most mistakes never leave it. */
export const accountValidators = {
  username: (value: string) =>
    !value.trim() ? t`Enter the username` : USERNAME.test(value.trim()) ? null : t`Use 3 to 32 letters, digits, dots, dashes, underscores or @`,
  email: (value: string) => (!value.trim() || EMAIL.test(value.trim()) ? null : t`Enter the email in the correct format`),
  phone: (value: string) => (!value.trim() || PHONE.test(value.trim()) ? null : t`Use 3 to 32 digits, spaces, plus signs, brackets or dashes`),
  nickname: (value: string) => (value.trim().length > 64 ? t`At most 64 characters` : null),
  remark: (value: string) => (value.trim().length > 500 ? t`At most 500 characters` : null),
  authCodes: (value: AuthCode[]) => (value.length ? null : t`Choose at least one permission`),
};

/** Username, nickname (optional, on create as on change), contact, remark and the permission tree of an account. */
export function AccountFields({
  input,
  codes,
  onCodes,
  codesError,
  usernameLocked,
  disabled,
  grantable,
  locked,
  extra,
}: {
  input: (field: Exclude<keyof AccountValues, 'authCodes'>) => GetInputPropsReturnType;
  codes: AuthCode[];
  onCodes: (codes: AuthCode[]) => void;
  codesError?: unknown;
  usernameLocked?: boolean;
  disabled?: boolean;
  grantable: ReadonlySet<string>;
  locked?: ReadonlySet<string>;
  extra?: ReactNode;
}) {
  const { t: tr } = useLingui();
  return (
    <Grid gap="xl">
      <Grid.Col span={{ base: 12, md: 6 }}>
        <Stack gap="sm">
          <TextInput
            label={tr`Username`}
            required={!usernameLocked}
            readOnly={usernameLocked}
            variant={usernameLocked ? 'filled' : 'default'}
            autoComplete="off"
            {...input('username')}
            data-testid="account-username"
          />
          <TextInput
            label={tr`Nickname`}
            description={tr`Optional: left empty, the username is shown`}
            disabled={disabled}
            {...input('nickname')}
            data-testid="account-nickname"
          />
          <TextInput label={tr`Email`} type="email" disabled={disabled} {...input('email')} data-testid="account-email" />
          <TextInput label={tr`Phone`} disabled={disabled} {...input('phone')} data-testid="account-phone" />
          <Textarea label={tr`Remark`} autosize minRows={2} maxRows={5} disabled={disabled} {...input('remark')} data-testid="account-remark" />
          {extra}
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 6 }}>
        <PermissionTree
          value={codes}
          onChange={onCodes}
          grantable={grantable}
          locked={locked}
          disabled={disabled}
          error={typeof codesError === 'string' ? codesError : undefined}
        />
      </Grid.Col>
    </Grid>
  );
}
