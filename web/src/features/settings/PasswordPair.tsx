import { PasswordInput, Stack } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { PasswordRuleList, passwordLengthRules } from '../../components/PasswordRules.tsx';

/** Form rules for a password typed twice; the texts are the ones the list under the field shows. */
export function passwordValidators() {
  return {
    password: (value: string) => (!value ? t`Enter the password` : (passwordLengthRules(value).find((rule) => !rule.met)?.text ?? null)),
    confirmPassword: (value: string, values: { password: string }) =>
      !value ? t`Enter the password again` : value !== values.password ? t`The passwords do not match` : null,
  };
}

/** A password and its confirmation, with the rules listed under the first as they are met. */
export function PasswordPair({
  password,
  confirm,
  value,
  label,
}: {
  password: GetInputPropsReturnType;
  confirm: GetInputPropsReturnType;
  value: string;
  label?: string;
}) {
  const { t: tr } = useLingui();
  const rules = passwordLengthRules(value);
  const touched = value !== '';
  const error = rules.some((rule) => rule.text === password.error) ? true : password.error;
  return (
    <Stack gap="sm">
      <PasswordInput
        label={label ?? tr`Password`}
        required
        autoComplete="new-password"
        {...password}
        error={error}
        aria-invalid={!!error}
        inputWrapperOrder={['label', 'input', 'description', 'error']}
        descriptionProps={{ component: 'div', mt: 6 }}
        description={<PasswordRuleList rules={rules} touched={touched} />}
      />
      <PasswordInput label={tr`Confirm password`} required autoComplete="new-password" {...confirm} />
    </Stack>
  );
}
