// The one page limit of "changed" (a file of its own, with no import: the tools' definitions read it).

/**
 * At most this many of the pages a change reaches are loaded on the dev server, spread over
 * their routes; the others are named (and left to the full run, or to the next look).
 */
export const CHANGED_PAGE_LIMIT = 8;
