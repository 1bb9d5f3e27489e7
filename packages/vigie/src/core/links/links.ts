// The link check: every internal link, asset, #fragment and hreflang
// alternate of the built site resolves. Links to the site's own origin (`site` in
// astro.config) are internal; other hosts are counted and listed, never fetched.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeReport } from "../answer.ts";
import type { Site } from "../astro/site.ts";
import { SourceSearch, sourceOfRoute } from "../build/sources.ts";
import { isFile, safeDecode, walkFiles } from "../files.ts";
import { StepError } from "../nextStep.ts";
import { type Project, relativePath } from "../project.ts";
import { type PageLinks, type PageRef, readPage, readXmlUrls } from "./html.ts";

export interface BrokenLink {
  /** The page (URL path) that links, the first one when several do. */
  from: string;
  /** The link as written. */
  to: string;
  reason: string;
  /** Where the link is written in the sources, `file:line`, when found. */
  source?: string;
  /** The element and its line in the built page. */
  where: string;
  line: number;
  /** How many pages carry this same broken link. */
  pages: number;
}

export interface LinkCheckResult {
  pages: number;
  /** Internal references checked (links, assets, fragments, alternates). */
  checked: number;
  broken: BrokenLink[];
  external: { count: number; hosts: number };
  /** Set when the output folder is older than the sources. */
  /** Set when the build output is older than the newest source: what is older than what. */
  stale?: string;
  durationMs: number;
  report: string;
}

const PLACEHOLDER_ORIGIN = "http://site.invalid";

interface Page {
  file: string;
  path: string;
  links?: PageLinks;
}

/** The URL path a built file is served at: en/x/index.html → /en/x/. */
function urlPathOf(base: string, file: string): string {
  const path = file.endsWith("/index.html") ? file.slice(0, -"index.html".length) : file === "index.html" ? "" : file;
  return `${base}${path}`;
}

function newestSource(project: Project): number {
  let newest = 0;
  for (const file of walkFiles(join(project.root, "src"))) newest = Math.max(newest, statSync(join(project.root, "src", file)).mtimeMs);
  return newest;
}

/** The state of one check: the built site, and what was found so far. */
interface Check extends BrokenLinks {
  dist: string;
  distName: string;
  base: string;
  origin: string;
  /** Built HTML pages by file (relative to dist). */
  pages: Map<string, Page>;
  /** External URLs and the pages that link to them. */
  external: Map<string, string[]>;
  checked: number;
  /** Whether a URL path is served by a route rendered on demand (not a built file: the crawl loads it). */
  onDemand?: (pathname: string) => boolean;
}

export interface LinkCheckOptions {
  /** The folder of the built pages and assets; default: the config's outDir. */
  dir?: string;
  /** Whether a URL path is served by a route rendered on demand: such a link is not looked for among the built files. */
  onDemand?: (pathname: string) => boolean;
}

/** Every file of the build output; an error with the fix when there is no build or no page. */
function builtFiles(project: Project, dist: string): { distName: string; files: string[]; htmlFiles: string[] } {
  const distName = relativePath(project, dist);
  let files: string[];
  try {
    if (!statSync(dist).isDirectory()) throw new Error("not a folder");
    files = walkFiles(dist);
  } catch {
    throw new StepError(`no build output: ${distName}/ does not exist`, "no-build-output", "Build the site first, then check the links.");
  }
  const htmlFiles = files.filter((file) => file.endsWith(".html"));
  if (htmlFiles.length === 0) {
    throw new StepError(`no HTML page in ${distName}/`, "no-html-pages", "Build the site; if the build fails, fix it first.");
  }
  return { distName, files, htmlFiles };
}

function linksOf(check: Check, page: Page): PageLinks {
  page.links ??= readPage(readFileSync(join(check.dist, page.file), "utf8"));
  return page.links;
}

/** The file of the build in `dist` (relative to it) that a URL path under `base` resolves to, or undefined. */
export function builtFileOf(dist: string, base: string, pathname: string): string | undefined {
  if (!pathname.startsWith(base) && `${pathname}/` !== base) return undefined;
  const path = safeDecode(pathname.slice(base.length));
  // Astro writes its error pages as 404.html and 500.html whatever the build format.
  const errorPage = /^(404|500)\/$/.test(path) ? [`${path.slice(0, -1)}.html`] : [];
  const candidates = path === "" || path.endsWith("/") ? [`${path}index.html`, ...errorPage] : [path, `${path}.html`, `${path}/index.html`];
  return candidates.find((candidate) => isFile(join(dist, candidate)));
}

/** Where broken links are gathered: the project's sources to find each link in, and what was found so far. */
export interface BrokenLinks {
  project: Project;
  search: SourceSearch;
  /** Broken links by link, reason and source: one entry per place to fix. */
  broken: Map<string, BrokenLink>;
}

/** Records a broken link once per link, reason and source, counting the pages that carry it. */
export function reportBroken(check: BrokenLinks, page: { path: string }, ref: PageRef, reason: string): void {
  const source = check.search.find([ref.url, safeDecode(ref.url)], sourceOfRoute(check.project, page.path));
  const key = `${ref.url}\0${reason}\0${source ?? page.path}`;
  const known = check.broken.get(key);
  if (known) known.pages++;
  else check.broken.set(key, { from: page.path, to: ref.url, reason, source, where: ref.where, line: ref.line, pages: 1 });
}

/** One reference of a page: an internal URL must name a built file, and its #fragment an id there. */
function checkRef(check: Check, page: Page, ref: PageRef): void {
  if (ref.url.startsWith("data:") || ref.url.startsWith("javascript:")) return;
  let url: URL;
  try {
    url = new URL(ref.url, `${check.origin}${page.path}`);
  } catch {
    check.checked++;
    reportBroken(check, page, ref, "not a valid URL");
    return;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return;
  if (url.origin !== check.origin) {
    check.external.set(url.href, [...(check.external.get(url.href) ?? []), page.path]);
    return;
  }
  check.checked++;
  const target = builtFileOf(check.dist, check.base, url.pathname);
  if (!target && check.onDemand?.(url.pathname)) return;
  if (!target) {
    reportBroken(
      check,
      page,
      ref,
      ref.hreflang ? `the ${ref.hreflang} alternate page does not exist` : `${url.pathname} not found in ${check.distName}/`,
    );
    return;
  }
  const fragment = safeDecode(url.hash.slice(1));
  if (!fragment || fragment.toLowerCase() === "top" || !target.endsWith(".html")) return;
  const targetPage = check.pages.get(target);
  if (targetPage && !linksOf(check, targetPage).ids.has(fragment))
    reportBroken(check, page, ref, `no id="${fragment}" on ${urlPathOf(check.base, target)}`);
}

/** The built page an hreflang alternate names, when it is another page of this site. */
function alternatePage(check: Check, from: Page, ref: PageRef): Page | undefined {
  if (!ref.hreflang || ref.hreflang === "x-default") return undefined;
  const url = new URL(ref.url, `${check.origin}${from.path}`);
  const target = url.origin === check.origin ? builtFileOf(check.dist, check.base, url.pathname) : undefined;
  return target ? check.pages.get(target) : undefined;
}

/** hreflang goes both ways: the page an alternate names must name this page back. */
function checkAlternatesBack(check: Check): void {
  for (const page of check.pages.values()) {
    for (const ref of linksOf(check, page).refs) {
      const targetPage = alternatePage(check, page, ref);
      if (!targetPage || targetPage === page) continue;
      const back = linksOf(check, targetPage).refs.some((other) => alternatePage(check, targetPage, other) === page);
      if (!back) reportBroken(check, page, ref, `${targetPage.path} has no hreflang alternate back to ${page.path}`);
    }
  }
}

/** A note when the build output is older than the newest source. */
function staleNote(check: Check, htmlFiles: string[]): string | undefined {
  const index = join(check.dist, check.pages.has("index.html") ? "index.html" : (htmlFiles[0] as string));
  if (newestSource(check.project) <= statSync(index).mtimeMs) return undefined;
  return `${check.distName}/ is older than src/`;
}

export async function checkLinks(site: Site, options: LinkCheckOptions = {}): Promise<LinkCheckResult> {
  const started = performance.now();
  const { project, settings } = site;
  const dist = options.dir ?? settings.outDir;
  const { distName, files, htmlFiles } = builtFiles(project, dist);
  const base = settings.base;
  const check: Check = {
    project,
    dist,
    distName,
    base,
    origin: settings.site ? new URL(settings.site).origin : PLACEHOLDER_ORIGIN,
    pages: new Map(htmlFiles.map((file) => [file, { file, path: urlPathOf(base, file) }])),
    search: new SourceSearch(project),
    broken: new Map(),
    external: new Map(),
    checked: 0,
    ...(options.onDemand ? { onDemand: options.onDemand } : {}),
  };
  for (const page of check.pages.values()) for (const ref of linksOf(check, page).refs) checkRef(check, page, ref);
  checkAlternatesBack(check);
  for (const file of files.filter((name) => name.endsWith(".xml"))) {
    const page: Page = { file, path: urlPathOf(base, file) };
    for (const ref of readXmlUrls(readFileSync(join(dist, file), "utf8"))) checkRef(check, page, ref);
  }
  const brokenList = [...check.broken.values()];
  const external = check.external;
  const reportPath = writeReport(project, "links.json", {
    dist: distName,
    pages: check.pages.size,
    checked: check.checked,
    broken: brokenList,
    external: [...external.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([url, from]) => ({ url, pages: from.length, from: from.slice(0, 5) })),
  });
  return {
    pages: check.pages.size,
    checked: check.checked,
    broken: brokenList,
    external: { count: external.size, hosts: new Set([...external.keys()].map((href) => new URL(href).host)).size },
    stale: staleNote(check, htmlFiles),
    durationMs: Math.round(performance.now() - started),
    report: reportPath,
  };
}
