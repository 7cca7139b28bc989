import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { FrameList } from '../../web/src/app/queries.ts';
import { ListFrame, type Column } from '../../web/src/components/ListFrame.tsx';
import { usePageSize } from '../../web/src/components/usePageSize.ts';
import { renderConsole } from './render.tsx';

interface Door {
  key: string;
  name: string;
}

const COLUMNS: Column<Door>[] = [{ key: 'name', title: 'Name', render: (door) => door.name }];
const DOORS: Door[] = [
  { key: 'a', name: 'Front gate' },
  { key: 'b', name: 'Back door' },
];

function listOf(items: Door[], nextCursor: string | null): FrameList<Door> {
  return {
    items,
    page: { items, nextCursor },
    count: undefined,
    isPending: false,
    isError: false,
    isFetching: false,
    cursors: [undefined],
    setCursors: () => undefined,
    refetch: () => Promise.resolve(),
  };
}

/** A list screen as the console writes one: the page size it remembers, shown by the frame's pager. */
function Doors({ list = 'doors' }: { list?: string }) {
  const pageSize = usePageSize(list);
  return (
    <>
      <output data-testid="asked">{pageSize.value}</output>
      <ListFrame list={listOf(DOORS, 'next')} name="door" columns={COLUMNS} rowKey={(door) => door.key} empty={null} pageSize={pageSize} />
    </>
  );
}

const loggedIn = (username: string) => localStorage.setItem('userInfo', JSON.stringify({ username, userCode: 'ACME42' }));
const chosen = () => (screen.getByTestId('door-page-size').querySelector('input:checked') as HTMLInputElement).value;

afterEach(() => localStorage.clear());

describe('page size and count', () => {
  it('says more follow when the list does not count and another page exists', () => {
    renderConsole(<ListFrame list={listOf(DOORS, 'next')} name="door" columns={COLUMNS} rowKey={(door) => door.key} empty={null} />);
    expect(screen.getByTestId('door-count').textContent).toBe('2 on this page, more follow');
    expect(screen.queryByTestId('door-page-size')).toBeNull();
  });

  it('offers 20, 50 and 100, asks for the one chosen, and remembers it for the account and the list', async () => {
    loggedIn('ada');
    const first = renderConsole(<Doors />);
    expect(screen.getByTestId('asked').textContent).toBe('20');
    expect(chosen()).toBe('20');
    expect([...screen.getByTestId('door-page-size').querySelectorAll('input')].map((i) => i.value)).toEqual(['20', '50', '100']);
    await first.user.click(screen.getByText('50', { exact: true }));
    expect(screen.getByTestId('asked').textContent).toBe('50');
    expect(chosen()).toBe('50');
    expect(localStorage.getItem('pageSize:ACME42:ada:doors')).toBe('50');
    first.unmount();

    const again = renderConsole(<Doors />);
    expect(screen.getByTestId('asked').textContent).toBe('50');
    again.unmount();

    // Another list of the same account, and the same list of another account, start at 20.
    const other = renderConsole(<Doors list="gates" />);
    expect(screen.getByTestId('asked').textContent).toBe('20');
    other.unmount();
    loggedIn('bob');
    renderConsole(<Doors />);
    expect(screen.getByTestId('asked').textContent).toBe('20');
  });

  it('ignores a stored size the lists do not take', () => {
    loggedIn('ada');
    localStorage.setItem('pageSize:ACME42:ada:doors', '500');
    renderConsole(<Doors />);
    expect(screen.getByTestId('asked').textContent).toBe('20');
  });
});
