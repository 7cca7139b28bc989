import { useState } from 'react';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, type PageSize } from '@passcloud/functions/contract/paging';
import { getUser } from '../app/session.ts';

/** The page size a person chose for a list, and how to change it (the list then starts again at its first page). */
export interface PageSizeChoice {
  value: PageSize;
  onChange(size: PageSize): void;
}

const isPageSize = (value: unknown): value is PageSize => PAGE_SIZES.includes(value as PageSize);

/**
 * Where a list's page size is remembered: this browser's local storage, under the logged-in account
 * (company binding code and user name) and the list's name, so that each person of a shared
 * computer keeps their own and a logout does not forget it.
 */
const storageKey = (list: string): string | undefined => {
  const user = getUser();
  return user ? `pageSize:${user.userCode}:${user.username}:${list}` : undefined;
};

function stored(list: string): PageSize {
  const key = storageKey(list);
  const saved = key ? Number(localStorage.getItem(key)) : NaN;
  return isPageSize(saved) ? saved : DEFAULT_PAGE_SIZE;
}

/** The page size of the list named `list` (20, 50 or 100), as this account last chose it for that list. */
export function usePageSize(list: string): PageSizeChoice {
  // One screen may show several lists in turn (employees, then visitors): each has its own size.
  const [chosen, choose] = useState<{ list: string; value: PageSize }>(() => ({ list, value: stored(list) }));
  return {
    value: chosen.list === list ? chosen.value : stored(list),
    onChange(size) {
      const key = storageKey(list);
      if (key) localStorage.setItem(key, String(size));
      choose({ list, value: size });
    },
  };
}
