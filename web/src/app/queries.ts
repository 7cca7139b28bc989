import { useCallback, useMemo, useState } from 'react';
import { QueryClient, keepPreviousData, useQuery, type QueryKey, type UseQueryResult } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { api } from './api.ts';
import { onReset } from './auth.ts';

/**
 * Server state of the console. The request client (request.ts) keeps SPEC §7–§8 (timeout,
 * envelope, the one toast, the loading bar, logging out); the cache adds what screens used to
 * write by hand: answers to superseded requests are dropped, a list is refreshed when a mutation
 * invalidates it, and interval refreshes pause while the tab is hidden. Failures are not retried:
 * the person sees the error and a Retry button.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 0, gcTime: 5 * 60_000 },
    mutations: { retry: false },
  },
});

// Nothing read for one account may show to the next.
onReset(() => queryClient.clear());

/** Query keys start with the resource's name, so one invalidation refreshes all its lists and items. */
export const listKey = (resource: string, ...rest: unknown[]): QueryKey => [resource, 'list', ...rest];

/** Refreshes every list and item of these resources (after a change to them). */
export function invalidate(...resources: string[]): Promise<void> {
  return Promise.all(resources.map((resource) => queryClient.invalidateQueries({ queryKey: [resource] }))).then(() => undefined);
}

/** A page of a cursor-paged list, as every list route answers it. */
export interface ListPage<T> {
  items: T[];
  /** Absent for a list that comes whole. */
  nextCursor?: string | null;
  /** Some lists count the matches (devices, accounts), some on their first page only (people); others cannot without scanning. */
  total?: number;
  /** A count that stopped before the end: at least this many. */
  totalAtLeast?: number;
}

type Filters = Record<string, string>;

/**
 * A list's filters, kept in the URL's search parameters so a filtered list survives a reload and
 * can be shared as a link. A filter at its default value is left out of the URL.
 */
export function useUrlFilters<F extends Filters>(defaults: F): [F, (next: F) => boolean] {
  const [params, setParams] = useSearchParams();
  const serialized = params.toString();
  // The defaults are a literal of the screen: the filters change only with the URL.
  const filters = useMemo(() => Object.fromEntries(Object.entries(defaults).map(([name, fallback]) => [name, params.get(name) ?? fallback])) as F, [serialized]);
  /** Puts the filters in the URL; false when they are the ones already there (the caller may read again). */
  const setFilters = useCallback(
    (next: F) => {
      if (Object.entries(next).every(([name, value]) => (params.get(name) ?? defaults[name]) === (value === '' ? defaults[name] : value))) return false;
      setParams(
        (current) => {
          const updated = new URLSearchParams(current);
          for (const [name, value] of Object.entries(next)) {
            if (value === defaults[name] || value === '') updated.delete(name);
            else updated.set(name, value);
          }
          return updated;
        },
        { replace: true },
      );
      return true;
    },
    [serialized, setParams],
  );
  return [filters, setFilters];
}

export interface ListOptions<P> {
  /** The resource the list belongs to: the first part of its query key. */
  resource: string;
  path: string;
  /** The query of the route besides the page: values left undefined are not sent. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Absent for a list that comes whole (licences). */
  pageSize?: number;
  /** Refresh on an interval (ms) while the tab is visible, or never (false); may depend on the page shown. */
  refreshMs?: number | false | ((page: P | undefined, pageIndex: number) => number | false);
  enabled?: boolean;
}

/**
 * One cursor-paged list: the pages read so far (Previous goes back through them), the page on
 * screen with the previous one kept in view while the next loads, and a reset to the first page
 * whenever the query changes. The first read of a page shows the loading bar and toasts a failure;
 * refreshes of a page already shown are quiet.
 */
export function useList<T, P extends ListPage<T> = ListPage<T>>({ resource, path, query = {}, pageSize, refreshMs = false, enabled = true }: ListOptions<P>) {
  const queryText = JSON.stringify(query);
  const [cursors, setCursors] = useState<{ of: string; stack: (string | undefined)[] }>({ of: queryText, stack: [undefined] });
  const stack = cursors.of === queryText ? cursors.stack : [undefined];
  const cursor = stack.at(-1);
  const key = listKey(resource, path, query, pageSize ?? null, cursor ?? null);
  const result = useQuery({
    queryKey: key,
    queryFn: () => {
      const shown = queryClient.getQueryState(key)?.dataUpdatedAt;
      return api.get<P>(path, { query: { ...query, pageSize, cursor }, quiet: !!shown, silent: !!shown });
    },
    placeholderData: keepPreviousData,
    enabled,
    refetchInterval: (q) => (typeof refreshMs === 'function' ? refreshMs(q.state.data, stack.length - 1) : refreshMs),
  });
  // A count comes with the page, or with the first page of the same list.
  const first = result.data?.total === undefined && result.data?.totalAtLeast === undefined ? queryClient.getQueryData<P>(listKey(resource, path, query, pageSize ?? null, null)) : result.data;
  const count =
    first?.total !== undefined ? { value: first.total, atLeast: false } : first?.totalAtLeast !== undefined ? { value: first.totalAtLeast, atLeast: true } : undefined;
  const setStack = useCallback((next: (string | undefined)[]) => setCursors({ of: queryText, stack: next }), [queryText]);
  return {
    ...result,
    page: result.data,
    items: result.data?.items ?? [],
    /** How many match in all, when the list counts them. */
    count,
    /** The cursor of each page read so far; the last is the page on screen. */
    cursors: stack,
    setCursors: setStack,
    /** Back to the first page. */
    restart: () => setStack([undefined]),
  };
}

export type List<T, P extends ListPage<T> = ListPage<T>> = ReturnType<typeof useList<T, P>>;

/** What the list frame shows of a list: a paged one (useList) or one that comes whole (wholeList). */
export type FrameList<T> = Pick<List<T>, 'items' | 'count' | 'isPending' | 'isError' | 'isFetching' | 'cursors' | 'setCursors'> & {
  page: ListPage<T> | undefined;
  refetch(): Promise<unknown>;
};

const ONE_PAGE: (string | undefined)[] = [undefined];

/**
 * A list read whole by one query (devices to choose from, a device's recent commands), shown
 * through the list frame: `shown` is what the screen's own filters leave of it.
 */
export function wholeList<T>(result: UseQueryResult<T[]>, shown: T[] | undefined = result.data): FrameList<T> {
  const items = result.data ? (shown ?? []) : [];
  return {
    items,
    page: result.data ? { items } : undefined,
    count: undefined,
    isPending: result.isPending,
    isError: result.isError,
    isFetching: result.isFetching,
    cursors: ONE_PAGE,
    setCursors: () => undefined,
    refetch: result.refetch,
  };
}
