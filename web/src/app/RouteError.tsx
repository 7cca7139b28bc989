import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Trans } from '@lingui/react/macro';
import { useRouteError } from 'react-router-dom';
import { ChunkLoadError } from './screens.ts';
import { RequestError } from './request.ts';

/** What a route shows when it fails: a chunk that would not load gets a retry; anything else its message. */
export function RouteError() {
  const error = useRouteError();
  if (error instanceof ChunkLoadError) return <ChunkFailed />;
  const message = error instanceof RequestError || error instanceof Error ? error.message : null;
  return (
    <Center mih="60vh" p="xl">
      <Stack align="center" gap="sm">
        <Title order={3}>{message || <Trans>Has Error</Trans>}</Title>
        <Button variant="light" onClick={() => window.location.reload()}>
          <Trans>Reload</Trans>
        </Button>
      </Stack>
    </Center>
  );
}

export function ChunkFailed() {
  return (
    <Center mih="60vh" p="xl">
      <Stack align="center" gap="sm" role="alert">
        <Title order={3}>
          <Trans>This screen could not be loaded</Trans>
        </Title>
        <Text c="dimmed">
          <Trans>The network may be slow or the console was updated. Try again.</Trans>
        </Text>
        <Button onClick={() => window.location.reload()}>
          <Trans>Retry</Trans>
        </Button>
      </Stack>
    </Center>
  );
}
