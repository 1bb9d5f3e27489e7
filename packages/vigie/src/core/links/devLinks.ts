// The link check of a few pages on the dev server, with no fresh build: the pages a change
// reaches are fetched from the dev server, and their links, #fragments and hreflang alternates
// must lead to one of those pages, to a file of the last build, or to a page the dev server
// answers. Only what the dev server renders as the build does is checked: a[href], area[href]
// and alternates. Scripts, styles and images are served from the dev server's own paths
// (/src/, /@fs/, /@vite/...), and the browser crawl reports the requests that fail.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Site } from "../astro/site.ts";
import { SourceSearch } from "../build/sources.ts";
import { safeDecode } from "../files.ts";
import { eachAtMost } from "../pool.ts";
import { type PageLinks, type PageRef, readPage } from "./html.ts";
import { type BrokenLink, type BrokenLinks, builtFileOf, reportBroken } from "./links.ts";

export interface DevLinksResult {
  /** Pages fetched and checked. */
  pages: number;
  /** Internal links and alternates checked. */
  checked: number;
  broken: BrokenLink[];
  durationMs: number;
}

export interface DevLinksOptions {
  signal?: AbortSignal;
  /** How many other targets the dev server may be asked about (default 40); past that, a target is not reported. */
  maxAsks?: number;
  /** Pages known to exist (the site's pages the dev server rendered or the last build wrote): not asked about. */
  known?: string[];
}

const TIMEOUT_MS = 15_000;
const AT_ONCE = 4;
const DEFAULT_MAX_ASKS = 40;
/** The references the dev server renders as the build does. */
const CHECKED = new Set(["a[href]", "area[href]"]);

interface DevCheck extends BrokenLinks {
  site: Site;
  /** The dev server's origin, e.g. http://127.0.0.1:4321. */
  origin: string;
  /** The site's own origin (`site` in the config): a link to it is internal. */
  siteOrigin: string | undefined;
  signal: AbortSignal | undefined;
  /** The pages fetched, by path. */
  pages: Map<string, PageLinks>;
  /** The built pages read for their ids, by file. */
  built: Map<string, PageLinks>;
  /** Pages known to exist, with a trailing slash. */
  known: Set<string>;
  /** The dev server's status for a path; undefined when it did not answer. */
  answers: Map<string, number | undefined>;
  checked: number;
}

/** What is known of a link's target: it exists (with its ids when its HTML is at hand), or the dev server said it does not. */
type Target = { exists: true; ids?: () => Set<string> } | { exists: false; status: number };

/** GET a path of the dev server, redirects not followed; undefined when it does not answer in time. */
async function get(check: DevCheck, path: string): Promise<Response | undefined> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  try {
    return await fetch(`${check.origin}${path}`, {
      redirect: "manual",
      headers: { accept: "text/html,*/*;q=0.8" },
      signal: check.signal ? AbortSignal.any([check.signal, timeout]) : timeout,
    });
  } catch {
    return undefined;
  }
}

/** Fetches one of the pages to check; one that does not answer with HTML is not checked (the crawl reports it). */
async function fetchPage(check: DevCheck, path: string): Promise<void> {
  const response = await get(check, path);
  check.answers.set(path, response?.status);
  if (!response?.ok || !/html/i.test(response.headers.get("content-type") ?? "")) {
    await response?.body?.cancel();
    return;
  }
  const html = await response.text().catch(() => undefined);
  if (html !== undefined) check.pages.set(path, readPage(html));
}

/** Asks the dev server whether a path exists: only its status is kept. */
async function ask(check: DevCheck, path: string): Promise<void> {
  const response = await get(check, path);
  check.answers.set(path, response?.status);
  await response?.body?.cancel();
}

/** The path of an internal URL, or undefined for another origin, data:, mailto:, javascript:... */
function internalPath(check: DevCheck, url: URL): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return url.origin === check.origin || url.origin === check.siteOrigin ? url.pathname : undefined;
}

/** The references of a page checked here: links and hreflang alternates. */
function checkedRefs(links: PageLinks): PageRef[] {
  return links.refs.filter((ref) => CHECKED.has(ref.where) || ref.hreflang);
}

/** What is known of a path: a page fetched, a file of the last build, or the dev server's answer. */
function targetOf(check: DevCheck, path: string): Target | undefined {
  const fetched = check.pages.get(path);
  if (fetched) return { exists: true, ids: () => fetched.ids };
  const file = builtFileOf(check.site.staticDir, check.site.base, path);
  if (file) return { exists: true, ...(file.endsWith(".html") ? { ids: () => builtIds(check, file) } : {}) };
  if (check.known.has(path.endsWith("/") ? path : `${path}/`)) return { exists: true };
  const status = check.answers.get(path);
  if (status === 404 || status === 410) return { exists: false, status };
  return status !== undefined && status >= 200 && status < 400 ? { exists: true } : undefined;
}

function builtIds(check: DevCheck, file: string): Set<string> {
  let links = check.built.get(file);
  if (!links) {
    links = readPage(readFileSync(join(check.site.staticDir, file), "utf8"));
    check.built.set(file, links);
  }
  return links.ids;
}

/** The paths the dev server must be asked about: neither fetched nor built, in the order found, at most `max`. */
function pathsToAsk(check: DevCheck, max: number): string[] {
  const paths = new Set<string>();
  for (const [page, links] of check.pages) {
    for (const ref of checkedRefs(links)) {
      const url = URL.parse(ref.url, `${check.origin}${page}`);
      const path = url && internalPath(check, url);
      if (path && !check.answers.has(path) && !targetOf(check, path)) paths.add(path);
    }
  }
  return [...paths].slice(0, max);
}

/** One link or alternate of a fetched page: its target exists, and has the id its #fragment names. */
function checkRef(check: DevCheck, page: string, ref: PageRef): void {
  const url = URL.parse(ref.url, `${check.origin}${page}`);
  if (!url) {
    check.checked++;
    reportBroken(check, { path: page }, ref, "not a valid URL");
    return;
  }
  const path = internalPath(check, url);
  if (!path) return;
  check.checked++;
  const target = targetOf(check, path);
  if (!target) return;
  if (!target.exists) {
    const reason = ref.hreflang
      ? `the ${ref.hreflang} alternate page does not exist`
      : `${path} not found (the dev server answered ${target.status})`;
    reportBroken(check, { path: page }, ref, reason);
    return;
  }
  const fragment = safeDecode(url.hash.slice(1));
  if (!fragment || fragment.toLowerCase() === "top" || !target.ids) return;
  if (!target.ids().has(fragment)) reportBroken(check, { path: page }, ref, `no id="${fragment}" on ${path}`);
}

/** The fetched page an hreflang alternate names, other than `from` itself. */
function alternatePage(check: DevCheck, from: string, ref: PageRef): string | undefined {
  if (!ref.hreflang || ref.hreflang === "x-default") return undefined;
  const url = URL.parse(ref.url, `${check.origin}${from}`);
  const path = url && internalPath(check, url);
  return path && path !== from && check.pages.has(path) ? path : undefined;
}

/** hreflang goes both ways, checked between the fetched pages only: the others' alternates are not at hand. */
function checkAlternatesBack(check: DevCheck): void {
  for (const [page, links] of check.pages) {
    for (const ref of links.refs) {
      const target = alternatePage(check, page, ref);
      const targetLinks = target ? check.pages.get(target) : undefined;
      if (!target || !targetLinks) continue;
      const back = targetLinks.refs.some((other) => alternatePage(check, target, other) === page);
      if (!back) reportBroken(check, { path: page }, ref, `${target} has no hreflang alternate back to ${page}`);
    }
  }
}

/** Checks the links of `paths` (URL paths under the base) as the dev server at `origin` renders them. */
export async function checkDevLinks(site: Site, origin: string, paths: string[], options: DevLinksOptions = {}): Promise<DevLinksResult> {
  const started = performance.now();
  const check: DevCheck = {
    site,
    project: site.project,
    search: new SourceSearch(site.project),
    broken: new Map(),
    origin: new URL(origin).origin,
    siteOrigin: site.settings.site ? new URL(site.settings.site).origin : undefined,
    signal: options.signal,
    pages: new Map(),
    built: new Map(),
    known: new Set((options.known ?? []).map((path) => (path.endsWith("/") ? path : `${path}/`))),
    answers: new Map(),
    checked: 0,
  };
  await eachAtMost([...new Set(paths)], AT_ONCE, (path) => fetchPage(check, path));
  await eachAtMost(pathsToAsk(check, options.maxAsks ?? DEFAULT_MAX_ASKS), AT_ONCE, (path) => ask(check, path));
  for (const [page, links] of check.pages) for (const ref of checkedRefs(links)) checkRef(check, page, ref);
  checkAlternatesBack(check);
  return {
    pages: check.pages.size,
    checked: check.checked,
    broken: [...check.broken.values()],
    durationMs: Math.round(performance.now() - started),
  };
}
