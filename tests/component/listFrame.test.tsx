import { useState } from 'react';
import { Button } from '@mantine/core';
import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { FrameList } from '../../web/src/app/queries.ts';
import { ListFrame, type Column } from '../../web/src/components/ListFrame.tsx';
import { renderConsole } from './render.tsx';

interface Door {
  key: string;
  name: string;
}

const COLUMNS: Column<Door>[] = [{ key: 'name', title: 'Name', render: (door) => door.name }];

/** A list as the frame sees it: a page read, or still pending, or failed. */
function listOf(items: Door[], state: Partial<FrameList<Door>> = {}): FrameList<Door> {
  return {
    items,
    page: { items, nextCursor: null },
    count: undefined,
    isPending: false,
    isError: false,
    isFetching: false,
    cursors: [undefined],
    setCursors: () => undefined,
    refetch: () => Promise.resolve(),
    ...state,
  };
}

function Frame({ list, filtered, selectable, showTotal }: { list: FrameList<Door>; filtered?: boolean; selectable?: boolean; showTotal?: boolean }) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  return (
    <ListFrame
      list={list}
      name="door"
      columns={COLUMNS}
      rowKey={(door) => door.key}
      rowProps={(door) => ({ 'data-testid': `door-${door.key}` })}
      empty={<Button>Add the first door</Button>}
      filtered={filtered}
      selection={selectable ? { selected, onChange: setSelected, label: (door) => door.name } : undefined}
      bulk={<Button>Open all</Button>}
      showTotal={showTotal}
    />
  );
}

describe('the list frame', () => {
  it('shows the rows of the page and how many are on it', () => {
    renderConsole(
      <Frame
        list={listOf([
          { key: 'a', name: 'Front gate' },
          { key: 'b', name: 'Back door' },
        ])}
      />,
    );
    expect(screen.getByTestId('door-a').textContent).toBe('Front gate');
    expect(screen.getByTestId('door-b').textContent).toBe('Back door');
    expect(screen.getByTestId('door-count').textContent).toBe('2 on this page');
    expect(screen.queryByTestId('door-empty')).toBeNull();
  });

  it('says how many match in all when the list counts them, and at least how many when it stopped counting', () => {
    const { unmount } = renderConsole(<Frame list={listOf([{ key: 'a', name: 'Front gate' }], { count: { value: 1250, atLeast: false } })} showTotal />);
    expect(screen.getByTestId('door-count').textContent).toBe('1,250 in all');
    unmount();
    renderConsole(<Frame list={listOf([{ key: 'a', name: 'Front gate' }], { count: { value: 1250, atLeast: true } })} showTotal />);
    expect(screen.getByTestId('door-count').textContent).toBe('At least 1,250 in all');
  });

  it('offers the screen’s call to action when the list is empty, and says nothing matches when filters narrow it', () => {
    const { unmount } = renderConsole(<Frame list={listOf([])} />);
    expect(within(screen.getByTestId('door-empty')).getByRole('button', { name: 'Add the first door' })).toBeTruthy();
    unmount();
    renderConsole(<Frame list={listOf([])} filtered />);
    expect(screen.getByTestId('door-empty').textContent).toBe('Nothing matches these filters.');
  });

  it('shows a loader before the first page, and the failure with Retry, which reads the list again', async () => {
    const { unmount } = renderConsole(<Frame list={listOf([], { page: undefined, isPending: true })} />);
    expect(screen.getByTestId('door-loading')).toBeTruthy();
    expect(screen.queryByTestId('door-empty')).toBeNull();
    unmount();

    const refetch = vi.fn(() => Promise.resolve());
    const { user } = renderConsole(<Frame list={listOf([], { page: undefined, isError: true, refetch })} />);
    const failed = screen.getByTestId('door-failed');
    expect(failed.textContent).toContain('The list could not be loaded.');
    await user.click(within(failed).getByRole('button', { name: 'Retry' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('chooses rows for a bulk action, and says how many are chosen', async () => {
    const { user } = renderConsole(
      <Frame
        list={listOf([
          { key: 'a', name: 'Front gate' },
          { key: 'b', name: 'Back door' },
        ])}
        selectable
      />,
    );
    expect(screen.queryByTestId('door-bulk')).toBeNull();
    await user.click(screen.getByRole('checkbox', { name: 'Front gate' }));
    expect(screen.getByTestId('door-bulk').textContent).toContain('1 selected');
    await user.click(screen.getByTestId('door-select-all'));
    expect(screen.getByTestId('door-bulk').textContent).toContain('2 selected');
    expect(within(screen.getByTestId('door-bulk')).getByRole('button', { name: 'Open all' })).toBeTruthy();
  });
});
