import { Anchor, Group, SimpleGrid, Text, ThemeIcon } from '@mantine/core';
import { IconCheck } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import type { DashboardView } from '@passcloud/functions/contract/dashboard';
import { getAuthorities } from '../../app/session.ts';
import { Panel } from './panels.tsx';

type Step = keyof DashboardView['gettingStarted'];

/** Each step and the screen that does it, opened when the account may. */
const STEPS: { step: Step; path: string; code: string }[] = [
  { step: 'terminal', path: '/pass-platform/device/management', code: 'pass:device' },
  { step: 'people', path: '/pass-platform/enterprise/employee', code: 'pass:employee' },
  { step: 'authorized', path: '/pass-platform/passage/authority', code: 'pass:authority' },
  { step: 'pass', path: '/pass-platform/passage/record', code: 'pass:record' },
];

/** While a company has no face terminal or no one in it, the dashboard shows its first steps instead of health that would be vacuously true. */
export const isStarting = (view: DashboardView): boolean => !view.gettingStarted.terminal || !view.gettingStarted.people;

/** The first steps of a company, each done or not from its own data, each a link to the screen that does it. */
export function GettingStarted({ view }: { view: DashboardView }) {
  const { t } = useLingui();
  const held = getAuthorities();
  const titles: Record<Step, string> = {
    terminal: t`Bind a face terminal`,
    people: t`Add employees or visitors`,
    authorized: t`Authorize them on the terminals`,
    pass: t`See the first pass`,
  };
  return (
    <Panel title={t`Getting started`} testId="dashboard-start">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="sm">
        {STEPS.map(({ step, path, code }, index) => {
          const done = view.gettingStarted[step];
          const number = index + 1;
          return (
            <Group key={step} gap="xs" wrap="nowrap" data-testid={`start-${step}`} data-done={done}>
              <ThemeIcon size={24} radius="xl" color={done ? 'teal' : 'gray'} variant={done ? 'filled' : 'outline'} aria-hidden>
                {done ? <IconCheck size={14} /> : <Text size="xs">{number}</Text>}
              </ThemeIcon>
              {held.includes(code) ? (
                <Anchor component={Link} to={path} size="sm" c={done ? 'gray.5' : 'blue.3'} td={done ? 'line-through' : undefined}>
                  {titles[step]}
                </Anchor>
              ) : (
                <Text size="sm" c={done ? 'gray.5' : 'gray.2'} td={done ? 'line-through' : undefined}>
                  {titles[step]}
                </Text>
              )}
              <Text span size="xs" c={done ? 'teal.3' : 'gray.5'} miw="max-content">
                {done ? <Trans>Done</Trans> : <Trans>To do</Trans>}
              </Text>
            </Group>
          );
        })}
      </SimpleGrid>
    </Panel>
  );
}
