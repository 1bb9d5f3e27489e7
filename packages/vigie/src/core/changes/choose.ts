// Which of the pages a change reaches are loaded on the dev server, and how many: the one page
// limit of "changed", which `validate --changed`, the crawl's `changed` and the look after an
// edit on the dev server all apply.
import { CHANGED_PAGE_LIMIT } from "./limit.ts";
import { type DevRoute, routeMatcher } from "./reach.ts";

export { CHANGED_PAGE_LIMIT };

/**
 * The pages to load: those a changed content entry renders first (the change is theirs alone),
 * then the others spread over their routes, `limit` in all.
 */
export function chooseLoaded(reached: string[], byEntry: string[], routes: DevRoute[], limit = CHANGED_PAGE_LIMIT): string[] {
  const first = byEntry.slice(0, limit);
  const chosen = new Set(first);
  const others = reached.filter((path) => !chosen.has(path));
  return [...first, ...spread(others, routes, limit - first.length)].sort();
}

/** At most `limit` of `paths`, taken in turn from each route's pages, so that every route reached has one. */
export function spread(paths: string[], routes: DevRoute[], limit: number): string[] {
  if (paths.length <= limit) return paths;
  const routeOf = routeMatcher(routes);
  const groups = new Map<string, string[]>();
  for (const path of paths) {
    const key = routeOf(path)?.entrypoint ?? path;
    groups.set(key, [...(groups.get(key) ?? []), path]);
  }
  const chosen: string[] = [];
  for (let index = 0; chosen.length < limit; index++) {
    const round = [...groups.values()].flatMap((group) => group.slice(index, index + 1));
    if (!round.length) break;
    chosen.push(...round.slice(0, limit - chosen.length));
  }
  return chosen.sort();
}
