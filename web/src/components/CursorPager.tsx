import { Badge, Button, Group } from '@mantine/core';
import { Trans } from '@lingui/react/macro';

/**
 * Previous / page number / next over a cursor-paged list. `cursors` holds the cursor of each page
 * read so far (the first is undefined); the last one is the page on screen.
 */
export function CursorPager({ cursors, nextCursor, onChange }: { cursors: (string | undefined)[]; nextCursor: string | null | undefined; onChange: (cursors: (string | undefined)[]) => void }) {
  return (
    <Group gap="xs">
      <Button size="xs" variant="default" disabled={cursors.length <= 1} onClick={() => onChange(cursors.slice(0, -1))}>
        <Trans>Previous page</Trans>
      </Button>
      <Badge variant="light">{cursors.length}</Badge>
      <Button size="xs" variant="default" disabled={!nextCursor} onClick={() => onChange([...cursors, nextCursor!])}>
        <Trans>Next page</Trans>
      </Button>
    </Group>
  );
}
