import { useCallback, useMemo, useState } from 'react';
import { QueryClient, keepPreviousData, useMutation, useQuery, type QueryKey, type UseQueryResult } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';
import { api, notifySuccess, toast } from './api.ts';
import { onReset } from './auth.ts';
import { RequestError } from './request.ts';

/**
 * Server state of the console. The request client (request.ts) keeps SPEC §7–§8 (timeout,
 * envelope, the one toast, the loading bar, logging out); the cache adds what screens used to
 * write by hand: answers to superseded requests are dropped, a list is refreshed when a mutation
 * invalidates it, and interval refreshes pause while the tab is hidden. Failures are not retried:
 * the person sees the error and a Retry button. Reads are queries (useQuery, useList) and changes
 * are mutations (useWrite), which refresh what they touched.
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

/** What a change touches: a resource by name (every list and item whose query key starts with it), or one query key. */
export type Touched = string | QueryKey;

/** Reads again the lists and items of what changed; resolves when those on screen have been read. */
export function invalidate(...touched: Touched[]): Promise<void> {
  return Promise.all(touched.map((t) => queryClient.invalidateQueries({ queryKey: typeof t === 'string' ? [t] : t }))).then(() => undefined);
}

/**
 * Shows why a request failed, in the one toast: the first problem the server names, else its
 * message; nothing when the request client has shown it already or the screen gave the request up.
 */
export function showFailure(error: unknown): void {
  if (error instanceof RequestError) {
    if (!error.shown && !error.aborted) toast(error.issues[0]?.message ?? error.message);
  } else if (error instanceof Error) toast(error.message);
}

export interface WriteOptions<V, R> {
  /** Read again once the change succeeds: what is on screen before `onSuccess` (a form closing onto its list sees the change). */
  touches?: readonly Touched[] | ((result: R, variables: V) => readonly Touched[]);
  /** The green toast, as soon as the change succeeded. */
  success?: string | ((result: R, variables: V) => string);
  onSuccess?(result: R, variables: V): unknown;
  /** Shows the failure itself (fields in error, a stale version); without it the failure goes to the toast (showFailure). */
  onError?(error: unknown, variables: V): void;
  /** A refusal reads again what the change touches too: the item may have changed meanwhile (a stale version), and the list shows what is there now. */
  refreshOnFailure?: boolean;
}

/**
 * One change to the server, as a mutation: `mutate(variables)` runs it, shows the success, reads
 * again what it touched, then calls `onSuccess`; a failure is shown once, by the request client or
 * here, so the caller never catches it. `isPending` with `variables` tells which row is busy.
 */
export function useWrite<V = void, R = unknown>(write: (variables: V) => Promise<R>, options: WriteOptions<V, R> = {}) {
  return useMutation<R, unknown, V>({
    mutationFn: write,
    onSuccess: async (result, variables) => {
      const { touches = [], success, onSuccess } = options;
      const said = typeof success === 'function' ? success(result, variables) : success;
      if (said) notifySuccess(said);
      await invalidate(...(typeof touches === 'function' ? touches(result, variables) : touches));
      await onSuccess?.(result, variables);
    },
    onError: async (error, variables) => {
      const { touches = [], onError, refreshOnFailure } = options;
      if (onError) onError(error, variables);
      else showFailure(error);
      if (refreshOnFailure && typeof touches !== 'function') await invalidate(...touches);
    },
  });
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
  const filters = useMemo(
    () => Object.fromEntries(Object.entries(defaults).map(([name, fallback]) => [name, params.get(name) ?? fallback])) as F,
    [serialized],
  );
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
 * whenever the query or the page size changes. The first read of a page shows the loading bar
 * and toasts a failure; refreshes of a page already shown are quiet.
 */
export function useList<T, P extends ListPage<T> = ListPage<T>>({ resource, path, query = {}, pageSize, refreshMs = false, enabled = true }: ListOptions<P>) {
  const queryText = JSON.stringify([query, pageSize ?? null]);
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
  const first =
    result.data?.total === undefined && result.data?.totalAtLeast === undefined
      ? queryClient.getQueryData<P>(listKey(resource, path, query, pageSize ?? null, null))
      : result.data;
  const count =
    first?.total !== undefined
      ? { value: first.total, atLeast: false }
      : first?.totalAtLeast !== undefined
        ? { value: first.totalAtLeast, atLeast: true }
        : undefined;
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

/** The query key of one item of a resource, read by its path. */
export const itemKey = (resource: string, path: string): QueryKey => [resource, 'item', path];

/** A read that found nothing by that key: it does not exist (any more), or the key names nothing. */
const notFound = (error: unknown): boolean => error instanceof RequestError && (error.status === 404 || error.status === 422);

export interface ItemOptions<T> {
  /** The resource the item belongs to: a change to the resource reads it again. */
  resource: string;
  path: string;
  /** Read again on an interval (ms) while the tab is visible, or never (false); may depend on the item shown. */
  refreshMs?: number | false | ((item: T | undefined) => number | false);
  enabled?: boolean;
}

/**
 * One item a detail screen shows and edits: read once with the loading bar and a failure toasted,
 * then again quietly (a refresh that fails keeps the item on screen). When the last read found
 * nothing by that key (`gone`), the screen says so in its own words.
 */
export function useItem<T>({ resource, path, refreshMs = false, enabled = true }: ItemOptions<T>) {
  const key = itemKey(resource, path);
  const result = useQuery({
    queryKey: key,
    queryFn: async () => {
      const shown = !!queryClient.getQueryState(key)?.dataUpdatedAt;
      try {
        return await api.get<T>(path, { silent: true, quiet: shown });
      } catch (error) {
        if (!shown && !notFound(error)) showFailure(error);
        throw error;
      }
    },
    enabled,
    refetchInterval: (q) => (typeof refreshMs === 'function' ? refreshMs(q.state.data) : refreshMs),
  });
  return {
    ...result,
    item: result.data,
    /** The last read found nothing by that key: it does not exist (any more). */
    gone: notFound(result.error) && (!result.data || result.errorUpdatedAt > result.dataUpdatedAt),
    /** Puts an item the server answered (after a save) in place of the one read. */
    put: (item: T) => queryClient.setQueryData(key, item),
    /** Reads it again at the person's request (Reload): the item read, or undefined when that failed (and was shown). */
    reload: async (): Promise<T | undefined> => {
      const again = await result.refetch();
      if (!again.isError) return again.data;
      if (!notFound(again.error)) showFailure(again.error);
      return undefined;
    },
  };
}

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
