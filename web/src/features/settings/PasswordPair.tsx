import { List, PasswordInput, Stack, Text, ThemeIcon } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { IconCheck, IconPoint } from '@tabler/icons-react';
import { plural, t } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { PASSWORD_MAX, PASSWORD_MIN } from '@passcloud/functions/domain/passwords';

interface Rule {
  id: string;
  text: string;
  met: boolean;
}

/** The server's password rules (functions/domain/passwords.ts), each with whether it is met. */
export function passwordRules(password: string): Rule[] {
  const length = [...password].length;
  const min = PASSWORD_MIN;
  const max = PASSWORD_MAX;
  return [
    { id: 'min', text: plural(min, { one: 'At least # character', other: 'At least # characters' }), met: length >= min },
    { id: 'max', text: plural(max, { one: 'At most # character', other: 'At most # characters' }), met: length <= max },
  ];
}

/** Form rules for a password typed twice; the texts are the ones the list under the field shows. */
export function passwordValidators() {
  return {
    password: (value: string) => (!value ? t`Enter the password` : (passwordRules(value).find((rule) => !rule.met)?.text ?? null)),
    confirmPassword: (value: string, values: { password: string }) => (!value ? t`Enter the password again` : value !== values.password ? t`The passwords do not match` : null),
  };
}

/** A password and its confirmation, with the rules listed under the first as they are met. */
export function PasswordPair({ password, confirm, value, label }: { password: GetInputPropsReturnType; confirm: GetInputPropsReturnType; value: string; label?: string }) {
  const { t: tr } = useLingui();
  const rules = passwordRules(value);
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
        description={
          <List size="xs" spacing={2} center aria-label={tr`Password rules`} data-testid="password-rules">
            {rules.map((rule) => (
              <List.Item
                key={rule.id}
                data-met={rule.met || undefined}
                icon={
                  <ThemeIcon size={16} radius="xl" variant="light" color={rule.met ? 'teal' : touched ? 'red' : 'gray'}>
                    {rule.met ? <IconCheck size={12} /> : <IconPoint size={12} />}
                  </ThemeIcon>
                }
              >
                <Text size="xs" c={rule.met ? 'teal.8' : touched ? 'red.8' : 'dimmed'}>
                  {rule.text}
                </Text>
              </List.Item>
            ))}
          </List>
        }
      />
      <PasswordInput label={tr`Confirm password`} required autoComplete="new-password" {...confirm} />
    </Stack>
  );
}
