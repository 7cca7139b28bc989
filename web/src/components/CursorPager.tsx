import type { ReactNode } from 'react';
import { Badge, Button, Group, SegmentedControl, Text } from '@mantine/core';
import { Trans } from '@lingui/react/macro';
import { PAGE_SIZES, type PageSize } from '@passcloud/functions/contract/paging';
import type { PageSizeChoice } from './usePageSize.ts';

/**
 * Previous / page number / next over a cursor-paged list. `cursors` holds the cursor of each page
 * read so far (the first is undefined); the last one is the page on screen. With `size`, the rows
 * per page are chosen beside it; `position` takes the page number's place (a list too long to
 * count pages in says where it starts instead). Test ids: `<name>-page-size`, `<name>-previous`,
 * `<name>-page`, `<name>-next`.
 */
export function CursorPager({
  name,
  cursors,
  nextCursor,
  onChange,
  size,
  position,
}: {
  name: string;
  cursors: (string | undefined)[];
  nextCursor: string | null | undefined;
  onChange: (cursors: (string | undefined)[]) => void;
  size?: PageSizeChoice | undefined;
  position?: ReactNode;
}) {
  return (
    <Group gap="xs" wrap="wrap">
      {size && (
        <Group gap={6} wrap="nowrap">
          <Text size="sm" c="dimmed" id={`${name}-page-size-label`}>
            <Trans>Rows per page</Trans>
          </Text>
          <SegmentedControl
            size="xs"
            data={PAGE_SIZES.map(String)}
            value={String(size.value)}
            onChange={(value) => size.onChange(Number(value) as PageSize)}
            aria-labelledby={`${name}-page-size-label`}
            data-testid={`${name}-page-size`}
          />
        </Group>
      )}
      <Button size="xs" variant="default" disabled={cursors.length <= 1} onClick={() => onChange(cursors.slice(0, -1))} data-testid={`${name}-previous`}>
        <Trans>Previous page</Trans>
      </Button>
      {position ?? (
        <Badge variant="light" data-testid={`${name}-page`}>
          {cursors.length}
        </Badge>
      )}
      <Button size="xs" variant="default" disabled={!nextCursor} onClick={() => onChange([...cursors, nextCursor!])} data-testid={`${name}-next`}>
        <Trans>Next page</Trans>
      </Button>
    </Group>
  );
}
