import { List, Text, ThemeIcon } from '@mantine/core';
import { IconCheck, IconPoint } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { PASSWORD_MAX, PASSWORD_MIN } from '@passcloud/functions/domain/passwords';

export interface PasswordRule {
  id: string;
  text: string;
  met: boolean;
}

/** The server's password rules (functions/domain/passwords.ts), each with whether it is met. */
export function passwordLengthRules(password: string): PasswordRule[] {
  const length = [...password].length;
  const min = PASSWORD_MIN;
  const max = PASSWORD_MAX;
  return [
    { id: 'min', text: plural(min, { one: 'At least # character', other: 'At least # characters' }), met: length >= min },
    { id: 'max', text: plural(max, { one: 'At most # character', other: 'At most # characters' }), met: length <= max },
  ];
}

/** The rules under a new-password field, ticked as they are met and red once typing has begun. */
export function PasswordRuleList({ rules, touched }: { rules: PasswordRule[]; touched: boolean }) {
  const { t } = useLingui();
  return (
    <List size="xs" spacing={2} center aria-label={t`Password rules`} data-testid="password-rules">
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
  );
}
