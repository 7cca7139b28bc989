/**
 * The page sizes a person chooses among in the console's lists (no zod here: the console's shell
 * reads these). Every list route accepts them; the pass record lists, which read within a bounded
 * budget per request, accept only these (contract/passRecords.ts).
 */
export const PAGE_SIZES = [20, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
/** What a list answers when `pageSize` is absent. */
export const DEFAULT_PAGE_SIZE: PageSize = 20;
