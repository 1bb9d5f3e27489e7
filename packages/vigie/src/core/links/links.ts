// blog_build_links's core: every internal link, asset, #fragment and hreflang
// alternate of the built site resolves. Links to the site's own origin (`site` in
// astro.config) are internal; other hosts are counted and listed, never fetched.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { VigieError, writeReport } from "../answer.ts";
import { readAstroSettings } from "../build/astro-config.ts";
import { listFiles } from "../build/dist.ts";
import { SourceSearch, sourceOfRoute } from "../build/sources.ts";
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

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The URL path a built file is served at: en/x/index.html → /en/x/. */
function urlPathOf(base: string, file: string): string {
  const path = file.endsWith("/index.html") ? file.slice(0, -"index.html".length) : file === "index.html" ? "" : file;
  return `${base}${path}`;
}

function newestSource(project: Project): number {
  let newest = 0;
  for (const file of listFiles(join(project.root, "src"))) newest = Math.max(newest, statSync(join(project.root, "src", file)).mtimeMs);
  return newest;
}

export async function checkLinks(project: Project): Promise<LinkCheckResult> {
  const started = performance.now();
  const settings = readAstroSettings(project);
  const dist = settings.outDir;
  const distName = relativePath(project, dist);
  let files: string[];
  try {
    if (!statSync(dist).isDirectory()) throw new Error("not a folder");
    files = listFiles(dist);
  } catch {
    throw new VigieError(`no build output: ${distName}/ does not exist`, "Run blog_build_run first, then check the links.");
  }
  const htmlFiles = files.filter((file) => file.endsWith(".html"));
  if (htmlFiles.length === 0) throw new VigieError(`no HTML page in ${distName}/`, "Run blog_build_run; if it fails, fix the build first.");

  const origin = settings.site ? new URL(settings.site).origin : PLACEHOLDER_ORIGIN;
  const base = settings.base;
  const pages = new Map<string, Page>(htmlFiles.map((file) => [file, { file, path: urlPathOf(base, file) }]));
  const linksOf = (page: Page): PageLinks => {
    page.links ??= readPage(readFileSync(join(dist, page.file), "utf8"));
    return page.links;
  };

  /** The built file a URL path resolves to, or undefined. */
  const resolveFile = (pathname: string): string | undefined => {
    if (!pathname.startsWith(base) && `${pathname}/` !== base) return undefined;
    let path = pathname.slice(base.length);
    try {
      path = decodeURIComponent(path);
    } catch {
      // keep it encoded
    }
    // Astro writes its error pages as 404.html and 500.html whatever the build format.
    const errorPage = /^(404|500)\/$/.test(path) ? [`${path.slice(0, -1)}.html`] : [];
    const candidates =
      path === "" || path.endsWith("/") ? [`${path}index.html`, ...errorPage] : [path, `${path}.html`, `${path}/index.html`];
    return candidates.find((candidate) => isFile(join(dist, candidate)));
  };

  const search = new SourceSearch(project);
  const broken = new Map<string, BrokenLink>();
  const external = new Map<string, string[]>();
  let checked = 0;

  const report = (page: Page, ref: PageRef, reason: string) => {
    const source = search.find([ref.url, safeDecode(ref.url)], sourceOfRoute(project, page.path));
    const key = `${ref.url}\0${reason}\0${source ?? page.path}`;
    const known = broken.get(key);
    if (known) known.pages++;
    else broken.set(key, { from: page.path, to: ref.url, reason, source, where: ref.where, line: ref.line, pages: 1 });
  };

  const checkRef = (page: Page, ref: PageRef) => {
    if (ref.url.startsWith("data:") || ref.url.startsWith("javascript:")) return;
    let url: URL;
    try {
      url = new URL(ref.url, `${origin}${page.path}`);
    } catch {
      checked++;
      report(page, ref, "not a valid URL");
      return;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return;
    if (url.origin !== origin) {
      external.set(url.href, [...(external.get(url.href) ?? []), page.path]);
      return;
    }
    checked++;
    const target = resolveFile(url.pathname);
    if (!target) {
      report(page, ref, ref.hreflang ? `the ${ref.hreflang} alternate page does not exist` : `${url.pathname} not found in ${distName}/`);
      return;
    }
    const fragment = safeDecode(url.hash.slice(1));
    if (!fragment || fragment.toLowerCase() === "top" || !target.endsWith(".html")) return;
    const targetPage = pages.get(target);
    if (targetPage && !linksOf(targetPage).ids.has(fragment)) report(page, ref, `no id="${fragment}" on ${urlPathOf(base, target)}`);
  };

  for (const page of pages.values()) for (const ref of linksOf(page).refs) checkRef(page, ref);
  // hreflang goes both ways: the page an alternate names must name this page back.
  for (const page of pages.values()) {
    for (const ref of linksOf(page).refs) {
      if (!ref.hreflang || ref.hreflang === "x-default") continue;
      const url = new URL(ref.url, `${origin}${page.path}`);
      const target = url.origin === origin ? resolveFile(url.pathname) : undefined;
      const targetPage = target ? pages.get(target) : undefined;
      if (!targetPage || targetPage === page) continue;
      const back = linksOf(targetPage).refs.some((other) => {
        if (!other.hreflang || other.hreflang === "x-default") return false;
        const otherUrl = new URL(other.url, `${origin}${targetPage.path}`);
        return otherUrl.origin === origin && resolveFile(otherUrl.pathname) === page.file;
      });
      if (!back) report(page, ref, `${targetPage.path} has no hreflang alternate back to ${page.path}`);
    }
  }
  for (const file of files.filter((name) => name.endsWith(".xml"))) {
    const page: Page = { file, path: urlPathOf(base, file) };
    for (const ref of readXmlUrls(readFileSync(join(dist, file), "utf8"))) checkRef(page, ref);
  }

  const index = join(dist, pages.has("index.html") ? "index.html" : (htmlFiles[0] as string));
  const builtAt = statSync(index).mtimeMs;
  const stale =
    newestSource(project) > builtAt ? `${distName}/ is older than src/: run blog_build_run to check the current sources` : undefined;

  const brokenList = [...broken.values()];
  const hosts = new Set([...external.keys()].map((href) => new URL(href).host));
  const reportPath = writeReport(project, "links.json", {
    dist: distName,
    pages: pages.size,
    checked,
    broken: brokenList,
    external: [...external.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([url, from]) => ({ url, pages: from.length, from: from.slice(0, 5) })),
  });
  return {
    pages: pages.size,
    checked,
    broken: brokenList,
    external: { count: external.size, hosts: hosts.size },
    stale,
    durationMs: Math.round(performance.now() - started),
    report: reportPath,
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
