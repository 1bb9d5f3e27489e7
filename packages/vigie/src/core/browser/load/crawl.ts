// crawl: every page of the site (sitemap, else same-origin links followed from the start
// paths: "/" or the site's critical routes under its base), each checked
// for its status and runtime faults with bounded concurrency, one reused page per worker.
import type { BrowserContext, Page } from "playwright-core";
import { runPool } from "../../pool.ts";
import { SourceFiles } from "../../source/files.ts";
import { cachedFetcher, type FetchText } from "../../source/sourceMaps.ts";
import { withTimeout } from "../../wait.ts";
import { locateViolationImages, quickContentAudit, runAxe, type Violation } from "../a11y/a11y.ts";
import { checkPageAsSite } from "../page/devMachinery.ts";
import { type CheckOptions, hasFaults, type PageFindings } from "../page/findings.ts";
import { locateFindings } from "../page/locate.ts";
import { hostOf, type NetworkPolicy, NetworkView, type Unreached } from "../page/network.ts";
import { checkOnPhone } from "../page/phone.ts";
import { withState } from "../page/state.ts";
import { PHONE } from "../page/viewports.ts";
import type { BrowserSession } from "../session/session.ts";

export interface CrawlOptions extends CheckOptions {
  /** How requests to other hosts that failed are judged (default "auto": network.ts). */
  networkPolicy?: NetworkPolicy;
  concurrency?: number;
  maxPages?: number;
  /** Only this share of the pages: { index: 1..count, count }. */
  shard?: { index: number; count: number };
  /** Paths to check instead of discovering them. */
  paths?: string[];
  /** Where link-following starts when there is no sitemap; default ["/"]. */
  startPaths?: string[];
  /**
   * Paths checked besides the sitemap's or the start paths (routes rendered on demand that take
   * no parameter). Their links are followed even when the sitemap lists the pages: a sitemap
   * lists the prerendered pages, whose links the link check reads in the build.
   */
  alsoPaths?: string[];
  /** The site's base ("/docs/"): its sitemap is looked for there; default "/". */
  base?: string;
  /**
   * Also audit pages: the full axe-core audit on the first page of each kind (same path
   * pattern: /articles/*\/, /tags/*\/...), the quick content checks on every other page.
   */
  a11y?: boolean;
  /** Selectors the audit tests the violating elements against (vigie.config.json's accepted ones). */
  acceptSelectors?: string[];
  /**
   * The project's root: the findings of each failing page (failed diagrams, failed
   * requests, errors with a stack, images without alt text) are then given the source
   * file and line they come from, or why that cannot be known.
   */
  sourceRoot?: string;
  /**
   * On a site with `<ClientRouter />`, the first page of each kind also follows its first
   * in-site link, and errors after that navigation are its faults. Default true.
   */
  navigate?: boolean;
  /**
   * Also check on a phone (390×844, touch) each page that shows something only a narrow screen
   * shows (a `client:media` island, stylesheet rules that hide or show elements by width). Default true.
   */
  phone?: boolean;
  /**
   * The page file a path comes from (its template), when the site's files say it: the phone
   * pass takes one page per template. Without it, or where it has none, the path's pattern.
   */
  templateOf?: (path: string) => string | undefined;
  /** After each page: pages done, pages known so far (at most maxPages), its path, pages with a fault so far. */
  onProgress?: (done: number, total: number, path: string, failing: number) => void;
  signal?: AbortSignal;
}

/** Locating one page's findings gives up after this long (the page keeps its findings, unlocated). */
const LOCATE_TIMEOUT_MS = 10_000;

/** Source files and fetched scripts shared by every page of one crawl. */
interface Locator {
  root: string;
  files: SourceFiles;
  fetchText: FetchText;
}

/** Fills the `located` of the page's findings and its image violations' `sources`, in place; never throws. */
async function locatePage(page: CrawlPage, locator: Locator): Promise<void> {
  const work = (async () => {
    if (hasFaults(page)) await locateFindings(page, locator.root, { files: locator.files, fetchText: locator.fetchText });
    locateViolationImages(page.a11y ?? [], locator.files, page.url);
  })();
  await withTimeout(work, LOCATE_TIMEOUT_MS, async () => undefined).catch(() => undefined);
}

export interface CrawlPage extends PageFindings {
  path: string;
  /** axe-core violations, when the crawl audits pages. */
  a11y?: Violation[];
  /** The first page whose link led the crawl here (absent for the starting pages). */
  linkedFrom?: string;
}

export interface CrawlResult {
  /** How pages were found. */
  source: "sitemap" | "links" | "given";
  discovered: number;
  pages: CrawlPage[];
  /** Pages beyond maxPages, not checked. */
  skipped: number;
  ms: number;
  /** Other hosts this machine could not reach: their failed requests are not findings (network.ts). */
  unreached?: Unreached[];
  /** The network policy, when not the default. */
  network?: NetworkPolicy;
}

async function fetchText(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: "follow" });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

const locs = (xml: string) => [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/g)].map((match) => match[1] ?? "");

/** Paths listed by sitemap-index.xml or sitemap.xml (their host is the production one; only the path counts). */
export async function sitemapPaths(baseUrl: string, base = "/"): Promise<string[] | undefined> {
  const folder = base.endsWith("/") ? base : `${base}/`;
  for (const name of [`${folder}sitemap-index.xml`, `${folder}sitemap.xml`]) {
    const xml = await fetchText(`${baseUrl}${name}`);
    if (!xml) continue;
    const entries = locs(xml);
    const paths: string[] = [];
    if (/<sitemapindex/.test(xml)) {
      for (const sitemap of entries) {
        const inner = await fetchText(`${baseUrl}${new URL(sitemap, baseUrl).pathname}`);
        if (inner) for (const loc of locs(inner)) paths.push(new URL(loc, baseUrl).pathname);
      }
    } else {
      for (const loc of entries) paths.push(new URL(loc, baseUrl).pathname);
    }
    if (paths.length) return [...new Set(paths)];
  }
  return undefined;
}

async function linksOf(page: Page, baseUrl: string): Promise<string[]> {
  const hrefs = await page.$$eval("a[href]", (anchors) => anchors.map((a) => (a as HTMLAnchorElement).href)).catch(() => [] as string[]);
  const origin = new URL(baseUrl).origin;
  return hrefs
    .map((href) => {
      try {
        const url = new URL(href);
        return url.origin === origin && !/\.(xml|png|jpe?g|webp|svg|gif|pdf|zip|txt|json)$/i.test(url.pathname) ? url.pathname : undefined;
      } catch {
        return undefined;
      }
    })
    .filter((path): path is string => path !== undefined);
}

/** The paths to start from and how they were found: given, from the sitemap, or where link-following starts. */
async function startingPaths(baseUrl: string, options: CrawlOptions): Promise<{ source: CrawlResult["source"]; paths: string[] }> {
  const fromSitemap = options.paths ? undefined : await sitemapPaths(baseUrl, options.base);
  const source: CrawlResult["source"] = options.paths ? "given" : fromSitemap ? "sitemap" : "links";
  const found = options.paths ?? fromSitemap ?? (options.startPaths?.length ? options.startPaths : ["/"]);
  const paths = [...new Set([...found, ...(options.paths ? [] : (options.alsoPaths ?? []))])];
  if (!options.shard) return { source, paths };
  const { index, count } = options.shard;
  return { source, paths: paths.sort().filter((_, position) => position % count === index - 1) };
}

/** The paths still to check and the pages checked, within `maxPages`; shared by the crawl's workers. */
class Frontier {
  readonly pages: CrawlPage[] = [];
  /** Pages being checked right now. */
  active = 0;
  /** Pages beyond maxPages, not checked. */
  skipped = 0;
  discovered: number;
  readonly #queue: string[];
  readonly #seen: Set<string>;
  /** The page each followed link was first found on. */
  readonly #from = new Map<string, string>();
  readonly #maxPages: number;

  constructor(paths: string[], maxPages: number) {
    this.#queue = [...paths];
    this.#seen = new Set(paths);
    this.discovered = paths.length;
    this.#maxPages = maxPages;
  }

  /** The next path to check, or undefined when none is left (for now: a worker may still add links). */
  take(): string | undefined {
    for (let path = this.#queue.shift(); path !== undefined; path = this.#queue.shift()) {
      if (this.pages.length + this.active < this.#maxPages) return path;
      this.skipped += 1;
    }
    return undefined;
  }

  /** The page whose link led here, for a path found by following links. */
  linkedFrom(path: string): string | undefined {
    return this.#from.get(path);
  }

  /** Queues the links not seen yet, found on `from`. */
  add(links: string[], from?: string): void {
    for (const link of links) {
      if (this.#seen.has(link)) continue;
      this.#seen.add(link);
      if (from) this.#from.set(link, from);
      this.#queue.push(link);
      this.discovered += 1;
    }
  }
}

/** A page's findings when its check threw or ran out of time: the status it answered with, when it did. */
function unchecked(url: string, error: Error, answered = 0): PageFindings {
  const why = error.message.split("\n")[0] ?? "check failed";
  return {
    url,
    status: answered,
    errors: [],
    warnings: [],
    failedRequests: [],
    mermaid: [],
    incomplete: why,
    // It answered: the check, not the page, stopped short; what it would have found is not known.
    ...(answered ? { interrupted: why } : {}),
  };
}

/** What every page of one crawl is checked with. */
interface Visit {
  baseUrl: string;
  options: CrawlOptions;
  pageTimeoutMs: number;
  audit: (page: Page, path: string) => Promise<Violation[]>;
  /** True for the first page of its kind: its check follows one in-site link. */
  navigate: (path: string) => boolean;
}

/**
 * Checks one page and audits it when asked; then, when `follow`, reads its links. Every step is
 * bounded: a page that never answers is closed, recorded as incomplete, and the caller goes on
 * with a new page.
 */
async function visit(page: Page, path: string, run: Visit, follow: boolean) {
  const bounded = <T>(work: Promise<T>, ms: number) =>
    withTimeout(work, ms, async () => {
      await page.close().catch(() => undefined);
    });
  const url = `${run.baseUrl}${path}`;
  // The first page of each kind also follows one in-site link (on a site with <ClientRouter />):
  // its links are read before that, while the page is still the one loaded.
  let linksBefore: string[] | undefined;
  const first = run.navigate(path);
  let answered = 0;
  const options: CheckOptions = {
    read: true,
    narrow: run.options.phone !== false,
    ...run.options,
    onAnswered: (status) => {
      answered = status;
    },
    ...(first ? { follow: "first" as const } : {}),
    ...(first && follow
      ? {
          beforeNavigating: async (loaded: Page) => {
            linksBefore = await linksOf(loaded, run.baseUrl);
          },
        }
      : {}),
  };
  const findings = await bounded(checkPageAsSite(page, url, options), run.pageTimeoutMs).catch((error: Error) =>
    unchecked(url, error, answered),
  );
  const ok = findings.status > 0 && findings.status < 400;
  const audit =
    run.options.a11y && ok && !page.isClosed() ? await bounded(run.audit(page, path), 30_000).catch(() => undefined) : undefined;
  const checked: CrawlPage = { path, ...findings, ...(audit ? { a11y: audit } : {}) };
  const links =
    linksBefore ?? (follow && ok && !page.isClosed() ? await bounded(linksOf(page, run.baseUrl), 10_000).catch(() => [] as string[]) : []);
  return { checked, links };
}

/** The full axe audit on the first page of each kind, the quick content checks on the others. */
function auditor(options: CrawlOptions): Visit["audit"] {
  const kindsAudited = new Set<string>();
  return async (page, path) => {
    const kind = pageKind(path);
    if (kindsAudited.has(kind)) return quickContentAudit(page);
    kindsAudited.add(kind);
    return (await runAxe(page, undefined, options.acceptSelectors)).violations;
  };
}

/** A crawl worker's own pages: its page, and its phone page once one of its pages needs it. */
interface Worker {
  page: Page;
  phonePage?: Page;
}

export async function crawlSite(session: BrowserSession, baseUrl: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  const started = Date.now();
  const maxPages = options.maxPages ?? 500;
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, 16));
  // Loading, settling, then reading the page and one navigation (each bounded on its own).
  const pageTimeoutMs = (options.navigationTimeoutMs ?? 15_000) + (options.settleTimeoutMs ?? 8000) + 30_000;
  const { source, paths } = await startingPaths(baseUrl, options);
  const frontier = new Frontier(paths, maxPages);
  let failing = 0;
  const follow = source === "links" && !options.shard;
  const alsoPaths = new Set(options.paths ? [] : (options.alsoPaths ?? []));
  const locator: Locator | undefined = options.sourceRoot
    ? { root: options.sourceRoot, files: new SourceFiles(options.sourceRoot), fetchText: cachedFetcher() }
    : undefined;
  const kindsNavigated = new Set<string>();
  const navigate = (path: string) => {
    if (options.navigate === false || kindsNavigated.has(pageKind(path))) return false;
    kindsNavigated.add(pageKind(path));
    return true;
  };
  // One view of the network for the whole crawl: what one page reached tells of the others.
  const network = new NetworkView(options.networkPolicy ?? "auto");
  const run: Visit = { baseUrl, options: { ...options, network }, pageTimeoutMs, audit: auditor(options), navigate };
  const phone = phoneContext(session, options.storageState);
  const phoneFor = phoneChoice((path) => options.templateOf?.(path) ?? pageKind(path));

  await session.withPage(async (firstPage, context) => {
    let spare: Page | undefined = firstPage;
    const open = async (): Promise<Worker> => {
      const page = spare ?? (await context.newPage());
      spare = undefined;
      return { page };
    };
    const task = async (path: string, worker: Worker) => {
      frontier.active += 1;
      const from = frontier.linkedFrom(path);
      const followThis = follow || (!options.shard && (alsoPaths.has(path) || from !== undefined));
      let { checked, links } = await visit(worker.page, path, run, followThis);
      if (phoneFor(checked, path) && checked.status > 0 && checked.status < 400 && !options.signal?.aborted) {
        // What the phone costs this page: its check, and the phone's context or page when this is the first.
        const opening = Date.now();
        worker.phonePage ??= await phone.page().catch(() => undefined);
        if (worker.phonePage) {
          const opened = Date.now() - opening;
          checked = { ...checked, ...(await checkOnPhone(worker.phonePage, checked, run.options, pageTimeoutMs)) };
          if (checked.phone) checked.phone.ms += opened;
        }
        if (worker.phonePage?.isClosed()) worker.phonePage = undefined;
      }
      frontier.pages.push(checked);
      if (from) checked.linkedFrom = from;
      frontier.add(links, path);
      // Only failing pages are located; the page is not needed (sources, and scripts fetched again).
      if (locator && (hasFaults(checked) || checked.a11y?.some((v) => v.srcs?.length))) await locatePage(checked, locator);
      frontier.active -= 1;
      // Counted as the end will judge it: a page whose faults are all this machine's network is not failing.
      if (hasFaults(checked) && !network.mayExplainAll(checked, hostOf(baseUrl))) failing += 1;
      options.onProgress?.(frontier.pages.length, Math.min(frontier.discovered, maxPages), path, failing);
      if (worker.page.isClosed()) worker.page = await context.newPage();
    };
    try {
      // Another worker may still find links to follow: an idle worker waits for it.
      await runPool({ size: concurrency, take: () => frontier.take(), task, open, ...(options.signal ? { signal: options.signal } : {}) });
    } finally {
      await phone.close();
    }
  }, withState(options.storageState));
  const pages = frontier.pages.sort((a, b) => a.path.localeCompare(b.path));
  const unreached = await network.judge(pages, hostOf(baseUrl));
  return {
    source,
    discovered: frontier.discovered,
    pages,
    skipped: frontier.skipped,
    ms: Date.now() - started,
    ...(unreached.length ? { unreached } : {}),
    ...(network.policy === "auto" ? {} : { network: network.policy }),
  };
}

/**
 * Which pages a crawl also checks on a phone: every page whose `client:media` island the phone
 * matches, and otherwise one page per template (its page file, else its path's pattern) among those whose stylesheets
 * show or hide elements on narrow screens: a site of responsive utilities has them on every
 * page, and its pages of one template differ in content, not in layout.
 */
function phoneChoice(templateOf: (path: string) => string): (checked: PageFindings, path: string) => boolean {
  const templates = new Set<string>();
  return (checked, path) => {
    if (!checked.narrow?.length) return false;
    if (checked.narrow.some((reason) => reason.startsWith("client:media"))) return true;
    const kind = templateOf(path);
    if (templates.has(kind)) return false;
    templates.add(kind);
    return true;
  };
}

/** The phone's context of one crawl: made when a first page needs it (its pages, one per worker, are made in it). */
function phoneContext(session: BrowserSession, storageState: string | undefined) {
  let opened: Promise<{ context: BrowserContext; page: Page }> | undefined;
  let first = true;
  return {
    async page(): Promise<Page> {
      opened ??= session.openContext(withState(storageState, PHONE));
      const { context, page } = await opened;
      if (first) {
        first = false;
        return page;
      }
      return context.newPage();
    },
    async close(): Promise<void> {
      const pair = await opened?.catch(() => undefined);
      await pair?.context.close().catch(() => undefined);
    },
  };
}

/** The kind of a page, by its path's pattern: "/en/articles/x/" → "/en/articles/*\/". */
export function pageKind(path: string): string {
  const segments = path.split("/").filter(Boolean);
  if (segments.length < 2) return path;
  return `/${[...segments.slice(0, -1), "*"].join("/")}/`;
}

export function failingPages(result: CrawlResult): CrawlPage[] {
  return result.pages.filter(hasFaults);
}
