// How the library list can be sorted and how many items one page may hold: shared by the contract,
// the host's list and the window, and kept free of zod so the window's first bundle stays small.
export const ITEM_SORTS = ['newest', 'oldest', 'title', 'longest', 'shortest'] as const;
export type ItemSortId = (typeof ITEM_SORTS)[number];
/** The most items one page may ask for. */
export const MAX_ITEM_PAGE = 500;
