import type { ReactNode } from 'react';
import { Breadcrumbs, Paper, Stack, Text, Title } from '@mantine/core';
import { Trans } from '@lingui/react/macro';
import { useMatches } from 'react-router-dom';
import type { RouteHandle } from '../app/router.tsx';
import { menuTitle } from '../app/menuTitles.ts';

/** The frame of a console screen: its localized title, then its content. */
export function ScreenPage({ children, dark }: { children?: ReactNode; dark?: boolean }) {
  const matches = useMatches();
  const handle = [...matches].reverse().find((m) => (m.handle as RouteHandle | undefined)?.title)?.handle as RouteHandle | undefined;
  const title = handle?.title ? menuTitle(handle.title) : '';
  return (
    <Stack gap="md">
      <Breadcrumbs c={dark ? 'gray.4' : 'dimmed'} fz="sm">
        <span>Pass Cloud</span>
        <span>{title}</span>
      </Breadcrumbs>
      <Title order={2} size="h3" c={dark ? 'gray.0' : undefined} data-testid="screen-title">
        {title}
      </Title>
      {children ?? (
        <Paper withBorder p="xl" radius="md" bg={dark ? 'dark.7' : undefined}>
          <Text c="dimmed">
            <Trans>This screen is not available yet.</Trans>
          </Text>
        </Paper>
      )}
    </Stack>
  );
}
