// The crawl as the crawl tool and validate's crawl step both run it: every page of the site
// (sitemap, links from the critical routes, the pages rendered on demand without a parameter),
// each page's faults with what its server said of a 5xx (the error it logged and its source), a
// missing page reached through a link on an on-demand page named as that page's broken link.
// (After a crawl of the build, its callers record the pages with `recordCheckedPages`.)

import { builtDirs, onDemandPaths, routeOfPath, type Site } from "../astro/site.ts";
import { pageTemplates } from "../astro/templates.ts";
import { type CrawlPage, type CrawlResult, crawlSite } from "../browser/load/crawl.ts";
import type { PageFault } from "../browser/page/faults.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import type { CheckedBuiltPage } from "../changes/record.ts";
import { checksPhone, storageStateOf, type VigieConfig } from "../config.ts";
import { readDevPort } from "../devServer/index.ts";
import { servedFile } from "../files.ts";
import { acceptSelectorsOf } from "./a11y.ts";
import { type FailureCause, failureCauses, faultsWithCauses } from "./pageCauses.ts";
import { devLog, lineOfMessage } from "./serverErrors.ts";

export interface SiteCrawlOptions {
  session: BrowserSession;
  /** Where the pages are loaded from, without a trailing slash. */
  pagesUrl: string;
  config: VigieConfig;
  /** Only these pages (a change's); default: every page found. */
  paths?: string[];
  /** Where link-following starts without a sitemap; default: the config's critical routes, else the site's. */
  startPaths?: string[];
  /** Also audit each page's accessibility. */
  a11y?: boolean;
  /** Also read each page's classes and ids, for the record (what a later stylesheet change can reach). */
  tokens?: boolean;
  shard?: { index: number; count: number };
  maxPages?: number;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, path: string, failing: number) => void;
  /**
   * The output of the server the pages come from (an adapter's own server): 5xx causes are read
   * there. Without it, the project's dev server's log is read when the pages come from it.
   */
  serverLog?: () => string;
}

/** A page fault as a crawl of the site judges it: a 404 reached through a link on an on-demand page is that link's. */
export type SiteFault = PageFault & { rule?: "broken-link" };

export interface CrawledPage {
  page: CrawlPage;
  faults: SiteFault[];
  /** For a broken link found on an on-demand page: the page that has it (its faults are that page's). */
  linkedFrom?: string;
}

export interface SiteCrawl {
  result: CrawlResult;
  pages: CrawledPage[];
  /** What the servers said of each 5xx URL. */
  causes: Map<string, FailureCause>;
}

/** At most this many 5xx URLs are asked again for their cause, one at a time. */
const MAX_CAUSES = 20;

export async function crawlSitePages(site: Site, options: SiteCrawlOptions): Promise<SiteCrawl> {
  const { config, pagesUrl } = options;
  const result = await crawlSite(options.session, pagesUrl, {
    a11y: options.a11y ?? false,
    tokens: options.tokens ?? false,
    base: site.base,
    startPaths: options.startPaths ?? config.criticalRoutes ?? site.critical,
    alsoPaths: onDemandPaths(site),
    ...(options.paths ? { paths: options.paths } : {}),
    acceptSelectors: acceptSelectorsOf(config),
    ...(options.shard ? { shard: options.shard } : {}),
    maxPages: options.maxPages ?? config.crawl?.maxPages,
    concurrency: options.concurrency ?? config.crawl?.concurrency,
    signal: options.signal,
    // Each failing page's findings point at their source file and line where it can be known.
    sourceRoot: site.project.root,
    storageState: storageStateOf(site.project, config),
    phone: checksPhone(config),
    templateOf: sharedTemplate(site),
    networkPolicy: config.network ?? "auto",
    onProgress: options.onProgress,
  });
  const log = options.serverLog ?? (isOwnDevServer(site, pagesUrl) ? devLog(site.project) : undefined);
  const causes = await failureCauses(site.project, pagesUrl, result.pages, {
    ...(log ? { log } : {}),
    base: site.base,
    routes: site.routes,
    outDirs: builtDirs(site),
    limit: MAX_CAUSES,
    network: config.network,
  });
  const pages = result.pages.map((page) => judgeFaults(site, page, pagesUrl, causes));
  return { result, pages, causes };
}

/**
 * The template a path shares with other pages: its dynamic route's page file ([slug], [...page]),
 * with the path's depth (a list and its entries may come from routes tied for one path); none for
 * a page file of its own, whose path's pattern then groups it with its siblings.
 */
function sharedTemplate(site: Site): (path: string) => string | undefined {
  const templateOf = pageTemplates(site.project.root, site.base);
  return (path) => {
    const template = templateOf(path);
    return template?.includes("[") ? `${template} #${path.split("/").filter(Boolean).length}` : undefined;
  };
}

/** Whether `url` is the project's own dev server (or the preview vigie started), whose log vigie reads. */
function isOwnDevServer(site: Site, url: string): boolean {
  const port = readDevPort(site.project);
  const { hostname, port: urlPort } = new URL(url);
  return port !== undefined && urlPort === String(port) && /^(127\.0\.0\.1|localhost|\[::1\])$/.test(hostname);
}

/** One page's faults with their causes; a missing page reached from an on-demand page is a broken link of that page. */
function judgeFaults(site: Site, page: CrawlPage, pagesUrl: string, causes: Map<string, FailureCause>): CrawledPage {
  const broken = page.status === 404 ? linkOnDemand(site, page) : undefined;
  const faults = faultsWithCauses(page, pagesUrl, causes).map((fault): SiteFault => {
    if (fault.kind !== "status" || !broken) return fault;
    return {
      kind: fault.kind,
      count: fault.count,
      status: page.status,
      rule: "broken-link",
      message: `broken link to ${page.path}: HTTP 404`,
      ...(broken.source ? { located: { source: broken.source } } : {}),
    };
  });
  return { page, faults, ...(broken ? { linkedFrom: broken.from } : {}) };
}

/** For a missing page reached through a link on a page rendered on demand: that page and the source line of the link. */
function linkOnDemand(site: Site, page: CrawlPage): { from: string; source?: string } | undefined {
  const from = page.linkedFrom;
  // Links on prerendered pages are the link check's (it reads the built HTML).
  if (!from || !site.routes || servedFile(site.staticDir, from.slice(site.base.length - 1))) return undefined;
  const route = routeOfPath(site, from);
  return { from, ...(route ? { source: lineOfMessage(site.project, route.component, page.path) } : {}) };
}

/** A crawled page as the build's record takes it (`recordCheckedPages`): its faults, its accessibility, its classes and ids. */
export function checkedPage({ page, faults }: CrawledPage): CheckedBuiltPage {
  return {
    path: page.path,
    faults,
    ...(page.a11y ? { a11y: page.a11y } : {}),
    ...(page.interrupted ? { unfinished: true } : {}),
    ...(page.tokens ? { tokens: page.tokens } : {}),
  };
}
