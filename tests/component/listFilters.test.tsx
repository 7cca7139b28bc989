import { Button, TextInput } from '@mantine/core';
import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { useListFilters } from '../../web/src/components/useListFilters.ts';
import { renderConsole } from './render.tsx';

interface Filters {
  keyword: string;
}

/** A list's filter bar over the shared hook: the keyword is a draft until Search; a keyword of more than 8 letters fails the check. */
function Bar({ refetch }: { refetch: () => void }) {
  const filters = useListFilters<Filters>(() => ({ keyword: '' }), { check: (draft) => draft.keyword.length <= 8 });
  return (
    <>
      <TextInput
        label="Keyword"
        value={filters.draft.keyword}
        error={filters.invalid ? 'Too long' : undefined}
        onChange={(e) => filters.change({ keyword: e.currentTarget.value }, { clears: true })}
      />
      <Button onClick={() => filters.search(refetch)}>Search</Button>
      <Button onClick={filters.reset}>Reset</Button>
      <output data-testid="applied">{filters.filters.keyword || '(none)'}</output>
    </>
  );
}

describe('the filters of a list screen', () => {
  it('applies the draft on Search, and reads the list again when Search changes nothing', async () => {
    const refetch = vi.fn();
    const { user } = renderConsole(<Bar refetch={refetch} />);
    await user.type(screen.getByLabelText('Keyword'), 'gate');
    expect(screen.getByTestId('applied').textContent).toBe('(none)');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(screen.getByTestId('applied').textContent).toBe('gate');
    expect(refetch).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('keeps a draft that fails its check out of the list until it is changed, and Reset brings the defaults back', async () => {
    const { user } = renderConsole(<Bar refetch={() => undefined} />);
    const keyword = screen.getByLabelText('Keyword');
    await user.type(keyword, 'front gate');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(screen.getByText('Too long')).toBeTruthy();
    expect(screen.getByTestId('applied').textContent).toBe('(none)');

    await user.clear(keyword);
    expect(screen.queryByText('Too long')).toBeNull();
    await user.type(keyword, 'lobby');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(screen.getByTestId('applied').textContent).toBe('lobby');

    await user.click(screen.getByRole('button', { name: 'Reset' }));
    expect(screen.getByTestId('applied').textContent).toBe('(none)');
    expect((keyword as HTMLInputElement).value).toBe('');
  });
});
