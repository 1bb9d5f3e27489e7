// crawl: every page of the site (sitemap, else same-origin links followed from the start
// paths: "/" or the site's critical routes under its base), each checked
// for its status and runtime faults with bounded concurrency, one reused page per worker.
import type { Page } from "playwright-core";
import { clip } from "../answer.ts";
import { SourceFiles } from "../source/files.ts";
import { locateFindings } from "../source/findings.ts";
import { locateImage } from "../source/images.ts";
import { unknown } from "../source/located.ts";
import { cachedFetcher, type FetchText } from "../source/sourceMaps.ts";
import { sleep, withTimeout } from "../wait.ts";
import { quickContentAudit, runAxe, type Violation } from "./a11y.ts";
import type { BrowserSession } from "./session.ts";
import { type CheckOptions, checkPage, hasFaults, type PageFindings } from "./watch.ts";

export interface CrawlOptions extends CheckOptions {
  concurrency?: number;
  maxPages?: number;
  /** Only this share of the pages: { index: 1..count, count }. */
  shard?: { index: number; count: number };
  /** Paths to check instead of discovering them. */
  paths?: string[];
  /** Where link-following starts when there is no sitemap; default ["/"]. */
  startPaths?: string[];
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
  onProgress?: (done: number, total: number, path: string) => void;
  signal?: AbortSignal;
}

/** Locating one page's findings gives up after this long (the page keeps its findings, unlocated). */
const LOCATE_TIMEOUT_MS = 10_000;

/** Images without alt text whose `src` is looked for in the sources. */
const IMAGE_RULES = new Set(["image-alt", "input-image-alt"]);

/** Source files and fetched scripts shared by every page of one crawl. */
interface Locator {
  root: string;
  files: SourceFiles;
  fetchText: FetchText;
}

/** Fills the page's `located`/`errorSources` and its image violations' `sources`, in place; never throws. */
async function locatePage(page: CrawlPage, locator: Locator): Promise<void> {
  const work = (async () => {
    if (hasFaults(page)) await locateFindings(page, locator.root, { files: locator.files, fetchText: locator.fetchText });
    for (const violation of page.a11y ?? []) {
      if (!IMAGE_RULES.has(violation.id) || !violation.srcs?.length) continue;
      violation.sources = violation.srcs.map((src) => {
        if (!locator.files.hasSources()) return unknown("the project has no src/");
        try {
          return locateImage(locator.files, src, page.url);
        } catch (error) {
          return unknown(clip(`could not be located: ${(error as Error).message}`, 120));
        }
      });
    }
  })();
  await withTimeout(work, LOCATE_TIMEOUT_MS, async () => undefined).catch(() => undefined);
}

export interface CrawlPage extends PageFindings {
  path: string;
  /** axe-core violations, when the crawl audits pages. */
  a11y?: Violation[];
}

export interface CrawlResult {
  /** How pages were found. */
  source: "sitemap" | "links" | "given";
  discovered: number;
  pages: CrawlPage[];
  /** Pages beyond maxPages, not checked. */
  skipped: number;
  ms: number;
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

export async function crawlSite(session: BrowserSession, baseUrl: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  const started = Date.now();
  const maxPages = options.maxPages ?? 500;
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 4, 16));
  const pageTimeoutMs = (options.navigationTimeoutMs ?? 15_000) + (options.settleTimeoutMs ?? 8000) + 15_000;
  const fromSitemap = options.paths ? undefined : await sitemapPaths(baseUrl, options.base);
  const source: CrawlResult["source"] = options.paths ? "given" : fromSitemap ? "sitemap" : "links";
  let queue = [...new Set(options.paths ?? fromSitemap ?? (options.startPaths?.length ? options.startPaths : ["/"]))];
  if (options.shard) {
    const { index, count } = options.shard;
    queue = [...queue].sort().filter((_, position) => position % count === index - 1);
  }
  const seen = new Set(queue);
  const pages: CrawlPage[] = [];
  let skipped = 0;
  const take = (): string | undefined => {
    while (queue.length) {
      const path = queue.shift();
      if (path === undefined) return undefined;
      if (pages.length + active >= maxPages) {
        skipped += 1;
        continue;
      }
      return path;
    }
    return undefined;
  };
  let active = 0;
  let discovered = queue.length;
  const locator: Locator | undefined = options.sourceRoot
    ? { root: options.sourceRoot, files: new SourceFiles(options.sourceRoot), fetchText: cachedFetcher() }
    : undefined;
  const kindsAudited = new Set<string>();
  const audit11y = async (page: Page, path: string): Promise<Violation[]> => {
    const kind = pageKind(path);
    if (kindsAudited.has(kind)) return quickContentAudit(page);
    kindsAudited.add(kind);
    return (await runAxe(page, undefined, options.acceptSelectors)).violations;
  };

  await session.withPage(async (firstPage, context) => {
    let spare: Page | undefined = firstPage;
    const worker = async () => {
      let page = spare ?? (await context.newPage());
      spare = undefined;
      while (!options.signal?.aborted) {
        const path = take();
        if (path === undefined) {
          // Another worker may still find links to follow.
          if (active === 0) break;
          await sleep(25);
          continue;
        }
        active += 1;
        // Every step on a page is bounded: a page that never answers is closed, recorded
        // as incomplete, and the worker goes on with a new page.
        const bounded = <T>(work: Promise<T>, ms: number) =>
          withTimeout(work, ms, async () => {
            await page.close().catch(() => undefined);
          });
        const findings = await bounded(checkPage(page, `${baseUrl}${path}`, options), pageTimeoutMs).catch(
          (error: Error): PageFindings => ({
            url: `${baseUrl}${path}`,
            status: 0,
            errors: [],
            warnings: [],
            failedRequests: [],
            mermaid: [],
            incomplete: error.message.split("\n")[0] ?? "check failed",
          }),
        );
        const audit =
          options.a11y && findings.status > 0 && findings.status < 400 && !page.isClosed()
            ? await bounded(audit11y(page, path), 30_000).catch(() => undefined)
            : undefined;
        const checked: CrawlPage = { path, ...findings, ...(audit ? { a11y: audit } : {}) };
        pages.push(checked);
        if (source === "links" && !options.shard && findings.status > 0 && findings.status < 400) {
          const links = page.isClosed() ? [] : await bounded(linksOf(page, baseUrl), 10_000).catch(() => [] as string[]);
          for (const link of links) {
            if (seen.has(link)) continue;
            seen.add(link);
            queue.push(link);
            discovered += 1;
          }
        }
        // Only failing pages are located; the page is not needed (sources, and scripts fetched again).
        if (locator && (hasFaults(checked) || checked.a11y?.some((v) => v.srcs?.length))) await locatePage(checked, locator);
        active -= 1;
        options.onProgress?.(pages.length, Math.min(discovered, maxPages), path);
        if (page.isClosed()) page = await context.newPage();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  });
  pages.sort((a, b) => a.path.localeCompare(b.path));
  return { source, discovered, pages, skipped, ms: Date.now() - started };
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
