import type { CSSProperties, HTMLAttributes, ReactNode } from 'react';
import { ActionIcon, Anchor, Button, Checkbox, Group, Loader, Menu, Stack, Table, Text } from '@mantine/core';
import { IconDots } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import type { FrameList } from '../app/queries.ts';
import { formatNumber } from '../app/format.ts';
import { CursorPager } from './CursorPager.tsx';
import type { PageSizeChoice } from './usePageSize.ts';
import { ScrollTable } from './ScrollTable.tsx';
import tables from './DataTable.module.css';

export interface Column<T> {
  /** Unique within the table. */
  key: string;
  title?: ReactNode;
  render(row: T): ReactNode;
  /**
   * Stays in place while the table scrolls sideways: who or what the row is, or its actions. When
   * no column is pinned at the start, the first one is.
   */
  sticky?: 'start' | 'end';
  width?: number;
  /** Long text that wraps onto more lines rather than being cut (a log message). */
  wrap?: boolean;
  /**
   * The column's value as text, for a column that often holds one value in every row (the sender
   * of mails): when every row of the page has the same, the column gives its room to the others
   * and the value is said once above the table.
   */
  folds?(row: T): string;
  /**
   * How a folded column is said above the table, as a sentence about the page's rows ("Everyone
   * on this page is a visitor.") rather than as "Title: value", which reads like a filter.
   */
  caption?(row: T): string;
  /** For a column that is empty in many rows (a failed mail's Resend): it shows only when a row of the page has something in it. */
  present?(row: T): boolean;
}

/** Rows chosen for bulk actions, by row key. */
export interface Selection<T> {
  selected: ReadonlySet<string>;
  onChange(selected: Set<string>): void;
  /** What a row's box is called for screen readers: the row's name. */
  label(row: T): string;
  /** Rows a bulk action applies to (all when absent); the header box chooses these rows of the page, and keeps what other pages chose. */
  selectable?(row: T): boolean;
  /** What the header box says, when it chooses fewer than all rows. */
  allLabel?: string;
}

export interface ListFrameProps<T> {
  list: FrameList<T>;
  columns: Column<T>[];
  rowKey(row: T): string;
  /** Test ids: `<name>-table`, `<name>-empty`, `<name>-failed`, `<name>-loading`. */
  name: string;
  /** Attributes of a row: its test id, data-* marks, and for rows that open something, their handlers. */
  rowProps?(row: T): HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | number | boolean | undefined>;
  /** What an empty list says when no filter is set: the screen's own call to action. */
  empty: ReactNode;
  /** True when filters narrow the list: an empty answer then says nothing matches them. */
  filtered?: boolean;
  selection?: Selection<T>;
  /** Shown above the table while rows are selected. */
  bulk?: ReactNode;
  /** The count the API gives (`total`), shown beside the pager; else how many are on the page. */
  showTotal?: boolean;
  /** Left of the pager, in place of the count. */
  footer?: ReactNode;
  striped?: boolean;
  /** False for a list that comes whole: no pager, no count. */
  paged?: boolean;
  /** The rows per page the person chose (usePageSize): the pager offers 20, 50 and 100. */
  pageSize?: PageSizeChoice;
  /** In the pager, in place of the page number (a jump to a date). */
  position?: ReactNode;
}

/**
 * The one way the console shows a list: the table with its sticky first and last column, the
 * first load, the empty state with the screen's call to action, the failure with Retry, rows
 * chosen for bulk actions and the cursor pager with a count.
 */
export function ListFrame<T>({
  list,
  columns,
  rowKey,
  name,
  rowProps,
  empty,
  filtered,
  selection,
  bulk,
  showTotal,
  footer,
  striped = true,
  paged = true,
  pageSize,
  position,
}: ListFrameProps<T>) {
  const { t } = useLingui();
  const items = list.items;
  const keys = items.map(rowKey);
  const folded = items.length > 1 ? columns.filter((c) => c.folds && items.every((row) => c.folds!(row) === c.folds!(items[0]!))) : [];
  const shownColumns = columns.filter((c) => !folded.includes(c) && (!c.present || items.some(c.present)));
  const pinned = shownColumns.some((c) => c.sticky === 'start') ? undefined : shownColumns[0];
  const stickyClass = (column: Column<T>): string | undefined => {
    const sticky = column === pinned ? 'start' : column.sticky;
    return sticky === 'start' ? tables.stickyStart : sticky === 'end' ? tables.stickyEnd : undefined;
  };
  const choosable = selection ? keys.filter((_, i) => selection.selectable?.(items[i]!) ?? true) : [];
  const allChecked = choosable.length > 0 && choosable.every((k) => selection!.selected.has(k));
  const choose = (chosen: string[], on: boolean) => {
    if (!selection) return;
    const next = new Set(selection.selected);
    for (const key of chosen) {
      if (on) next.add(key);
      else next.delete(key);
    }
    selection.onChange(next);
  };
  // With a pinned first column, the checkboxes stay in place too, and the column beside them.
  const pinSelection = !!selection && !!shownColumns[0] && stickyClass(shownColumns[0]) === tables.stickyStart;
  const offset = (column: Column<T>) => (pinSelection && column === shownColumns[0] ? ({ '--sticky-offset': '40px' } as CSSProperties) : undefined);
  const firstLoad = list.isPending && !list.page;
  const total = showTotal ? list.count : undefined;
  const count = formatNumber(total ? total.value : items.length);

  return (
    <Stack gap="sm">
      {selection && selection.selected.size > 0 && bulk && (
        <Group gap="xs" data-testid={`${name}-bulk`}>
          <Text size="sm">
            <Trans>{selection.selected.size} selected</Trans>
          </Text>
          {bulk}
        </Group>
      )}
      {folded.length > 0 && (
        <Group gap="lg" data-testid={`${name}-folded`}>
          {folded.map((column) =>
            column.caption ? (
              <Text key={column.key} size="sm" c="dimmed" fs="italic" data-column={column.key}>
                {column.caption(items[0]!)}
              </Text>
            ) : (
              <Text key={column.key} size="sm" c="dimmed" data-column={column.key}>
                {column.title}:{' '}
                <Text span inherit c="var(--mantine-color-text)">
                  {column.folds!(items[0]!)}
                </Text>
              </Text>
            ),
          )}
        </Group>
      )}
      <ScrollTable>
        <Table
          striped={striped}
          highlightOnHover
          withRowBorders={false}
          verticalSpacing="xs"
          horizontalSpacing={8}
          className={tables.oneLine}
          data-testid={`${name}-table`}
          data-refreshing={list.isFetching || undefined}
        >
          <Table.Thead>
            <Table.Tr>
              {selection && (
                <Table.Th w={40} miw={40} className={pinSelection ? tables.stickyStart : undefined}>
                  <Checkbox
                    aria-label={selection.allLabel ?? t`Select all`}
                    title={selection.allLabel}
                    disabled={choosable.length === 0}
                    checked={allChecked}
                    onChange={() => choose(choosable, !allChecked)}
                    data-testid={`${name}-select-all`}
                  />
                </Table.Th>
              )}
              {shownColumns.map((column) => (
                <Table.Th key={column.key} data-column={column.key} w={column.width} className={stickyClass(column)} style={offset(column)}>
                  {column.title}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((row, i) => (
              <Table.Tr key={keys[i]} {...rowProps?.(row)}>
                {selection && (
                  <Table.Td className={pinSelection ? tables.stickyStart : undefined}>
                    <Checkbox
                      aria-label={selection.label(row)}
                      disabled={!(selection.selectable?.(row) ?? true)}
                      checked={selection.selected.has(keys[i]!)}
                      onChange={() => choose([keys[i]!], !selection.selected.has(keys[i]!))}
                    />
                  </Table.Td>
                )}
                {shownColumns.map((column) => (
                  <Table.Td
                    key={column.key}
                    data-column={column.key}
                    className={stickyClass(column)}
                    style={column.wrap ? { ...offset(column), whiteSpace: 'normal', wordBreak: 'break-word' } : offset(column)}
                  >
                    {column.render(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>

      {firstLoad && (
        <Group justify="center" py="xl" data-testid={`${name}-loading`}>
          <Loader size="sm" />
        </Group>
      )}
      {list.page && items.length === 0 && !list.isError && (
        <Stack align="center" py="xl" gap="xs" data-testid={`${name}-empty`}>
          {filtered ? <Text c="dimmed">{t`Nothing matches these filters.`}</Text> : empty}
        </Stack>
      )}
      {list.isError && (
        <Stack align="center" py="xl" gap="xs" data-testid={`${name}-failed`}>
          <Text c="red">
            <Trans>The list could not be loaded.</Trans>
          </Text>
          <Button variant="light" onClick={() => void list.refetch()}>
            <Trans>Retry</Trans>
          </Button>
        </Stack>
      )}

      {paged && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed" data-testid={`${name}-count`}>
            {footer ??
              (list.page &&
                (total ? (
                  total.atLeast ? (
                    <Trans>At least {count} in all</Trans>
                  ) : (
                    <Trans>{count} in all</Trans>
                  )
                ) : list.page.nextCursor && items.length > 0 ? (
                  <Trans>{count} on this page, more follow</Trans>
                ) : (
                  items.length > 0 && <Trans>{count} on this page</Trans>
                )))}
          </Text>
          <CursorPager name={name} cursors={list.cursors} nextCursor={list.page?.nextCursor} onChange={list.setCursors} size={pageSize} position={position} />
        </Group>
      )}
    </Stack>
  );
}

/** A row's name that opens its own screen: a link, cut at `maw` with the whole name on hover. */
export function LinkCell({ to, text, maw, strong }: { to: string; text: string; maw: number; strong?: boolean }) {
  return (
    <Text size="sm" component={Link} to={to} c="blue.7" td="none" fw={strong ? 500 : undefined} truncate="end" maw={maw} display="block" title={text}>
      {text}
    </Text>
  );
}

/** A row's value set in monospace, whose characters are read one by one (a MAC address, an activation code). */
export function MonoCell({ text }: { text: string }) {
  return (
    <Text size="sm" ff="monospace">
      {text}
    </Text>
  );
}

/** A row's name that opens it in place (a drawer, a dialog): a button that looks like a link, cut at `maw`. */
export function OpenCell({ onOpen, text, maw, mono, testId }: { onOpen: () => void; text: string; maw: number; mono?: boolean; testId: string }) {
  return (
    <Anchor
      component="button"
      type="button"
      size="sm"
      ff={mono ? 'monospace' : undefined}
      onClick={onOpen}
      maw={maw}
      truncate="end"
      display="block"
      title={text}
      data-testid={testId}
    >
      {text}
    </Anchor>
  );
}

/** The attributes of a row that opens something (a record, an answer): a click, Enter or Space, and a place in the Tab order. */
export function openingRow(open: () => void): HTMLAttributes<HTMLTableRowElement> {
  return {
    onClick: open,
    onKeyDown: (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        open();
      }
    },
    tabIndex: 0,
    style: { cursor: 'pointer' },
  };
}

/** A row's actions behind one "…" button, for the frame's last (pinned) column. */
export function RowMenu({ children, testId }: { children: ReactNode; testId?: string }) {
  const { t } = useLingui();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" aria-label={t`Actions`} data-testid={testId}>
          <IconDots size={16} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>{children}</Menu.Dropdown>
    </Menu>
  );
}
