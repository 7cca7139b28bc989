import { Alert, Button, Group, Text } from '@mantine/core';
import { Trans } from '@lingui/react/macro';

/** A save answered 409: someone else changed the record since it was read. */
export function StaleNotice({ onReload, testId }: { onReload: () => void; testId?: string }) {
  return (
    <Alert color="orange" variant="light" data-testid={testId}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text size="sm">
          <Trans>This record was changed by someone else; reload it and try again</Trans>
        </Text>
        <Button size="xs" variant="light" color="orange" onClick={onReload}>
          <Trans>Reload</Trans>
        </Button>
      </Group>
    </Alert>
  );
}
