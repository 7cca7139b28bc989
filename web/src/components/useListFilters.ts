import { useState } from 'react';

export interface ListFilterOptions<F> {
  /**
   * Where the applied filters are kept, when not in the screen's own state: the URL
   * (useUrlFilters), whose setter answers false when nothing changed.
   */
  applied?: [F, (next: F) => boolean];
  /** A check of the draft before it is applied (a day range not too long); Search does nothing while it fails and `invalid` says so. */
  check?(draft: F): boolean;
}

/**
 * The filters of a list screen: the draft the person is editing, and the filters the list was read
 * with, which Search applies (or, when nothing changed, reads the list again with) and Reset brings
 * back to the screen's defaults together with the draft.
 */
export function useListFilters<F>(defaults: () => F, { applied, check }: ListFilterOptions<F> = {}) {
  const [draft, setDraft] = useState<F>(() => applied?.[0] ?? defaults());
  const [held, hold] = useState<F>(draft);
  /** Applies filters; false when they are the ones applied already. */
  const keep = (next: F): boolean => {
    if (JSON.stringify(next) === JSON.stringify(held)) return false;
    hold(next);
    return true;
  };
  const [filters, setFilters] = applied ?? [held, keep];
  const [invalid, setInvalid] = useState(false);

  return {
    draft,
    /** The filters the list is read with. */
    filters,
    /** The draft failed its check at the last Search: the field says why, until it is changed. */
    invalid,
    /** Changes part of the draft; a change to the checked part clears `invalid`. */
    change(patch: Partial<F>, { clears = false } = {}) {
      if (clears) setInvalid(false);
      setDraft((current) => ({ ...current, ...patch }));
    },
    /** Applies the draft; with the filters already applied, the list is read again (`refetch`). */
    search(refetch: () => unknown) {
      if (check && !check(draft)) {
        setInvalid(true);
        return;
      }
      if (!setFilters(draft)) void refetch();
    },
    /** Applies filters at once, draft and all (a control that filters as it is set). */
    apply(next: F) {
      setDraft(next);
      setFilters(next);
    },
    /** Back to the defaults. */
    reset() {
      const fresh = defaults();
      setInvalid(false);
      setDraft(fresh);
      setFilters(fresh);
    },
  };
}

export type ListFilters<F> = ReturnType<typeof useListFilters<F>>;
