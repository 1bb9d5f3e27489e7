// The link check as the tools and validate run it: the built pages and assets where the
// adapter puts them, a link to a route rendered on demand left to the crawl (it loads that page).
import { checkLinks, type LinkCheckResult } from "../links/links.ts";
import { onDemandRoute, type Site } from "../site.ts";

export function checkSiteLinks(site: Site): Promise<LinkCheckResult> {
  const onDemand = site.routes?.some((route) => !route.prerender);
  return checkLinks(site, {
    dir: site.staticDir,
    ...(onDemand ? { onDemand: (pathname: string) => onDemandRoute(site, pathname) !== undefined } : {}),
  });
}
