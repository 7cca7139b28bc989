import type { ReactNode } from 'react';
import { Stack, Text, Tooltip } from '@mantine/core';

/** What the sections of settings that hold a limited number of items (API keys, webhooks) share. */

/** The button that adds one, which says why it cannot while the company holds as many as it may (test id `<testId>` around it then). */
export function AddUpToLimit({ atLimit, reason, testId, children }: { atLimit: boolean; reason: string; testId: string; children: ReactNode }) {
  if (!atLimit) return children;
  return (
    <Tooltip label={reason} multiline maw={280} withinPortal>
      <span data-testid={testId}>{children}</span>
    </Tooltip>
  );
}

/** What an empty section says: what it holds and why one would add one. */
export function SectionIntro({ title, text, testId }: { title: ReactNode; text: ReactNode; testId: string }) {
  return (
    <Stack align="center" gap="xs" maw={520} data-testid={testId}>
      <Text fw={600}>{title}</Text>
      <Text c="dimmed" size="sm" ta="center">
        {text}
      </Text>
    </Stack>
  );
}
