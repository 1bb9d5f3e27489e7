// The link check as the tools and validate run it. On a build: the built pages and assets where
// the adapter puts them, a link to a route rendered on demand left to the crawl (it loads that
// page). On the dev server: the links of the given pages as it renders them.

import { onDemandRoute, type Site } from "../astro/site.ts";
import { checkDevLinks, type DevLinksOptions, type DevLinksResult } from "../links/devLinks.ts";
import { checkLinks, type LinkCheckResult } from "../links/links.ts";

export function checkSiteLinks(site: Site): Promise<LinkCheckResult> {
  const onDemand = site.routes?.some((route) => !route.prerender);
  return checkLinks(site, {
    dir: site.staticDir,
    ...(onDemand ? { onDemand: (pathname: string) => onDemandRoute(site, pathname) !== undefined } : {}),
  });
}

/** The links of `paths` (URL paths under the base) as the dev server at `origin` renders them. */
export function checkDevSiteLinks(site: Site, origin: string, paths: string[], options: DevLinksOptions = {}): Promise<DevLinksResult> {
  return checkDevLinks(site, origin, paths, options);
}
