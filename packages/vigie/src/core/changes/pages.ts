// Which built pages to load in the browser: those whose fingerprint differs from the one
// they had when they were last checked, the new ones, and those that failed last time.
// The record lives in the state folder (.opencode/, git-ignored) and is updated after
// every check of the pages, full or not, with only the pages that check really loaded.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { sep } from "node:path";
import { decodeHTMLAttribute } from "entities";
import { type Project, statePath } from "../project.ts";
import { Fingerprints } from "./fingerprints.ts";

const RECORD_VERSION = 1;

export interface PageRecord {
  /** Fingerprint of the page's output when it was checked. */
  fingerprint: string;
  /** Whether that check found it free of faults. */
  ok: boolean;
}

export interface PagesRecord {
  version: number;
  recordedAt: string;
  outDir: string;
  pages: Record<string, PageRecord>;
}

export interface PageSelection {
  /** The pages to load; every page when there is no record. */
  paths: string[];
  /** Every page the full run would load (the sitemap's, or the ones links reach). */
  total: number;
  changed: string[];
  added: string[];
  failedBefore: string[];
  unchanged: number;
  /** False when there was no usable record: every page is loaded. */
  hadRecord: boolean;
  /** One line for the report: "3 pages whose output changed: …; 78 unchanged". */
  reason: string;
  /** The fingerprints of this build, for `recordPages` after the check. */
  fingerprints: Fingerprints;
}

export function recordPath(project: Project): string {
  return statePath(project, "changes", "pages.json");
}

export function readPagesRecord(project: Project, outDir: string): PagesRecord | undefined {
  const path = recordPath(project);
  if (!existsSync(path)) return undefined;
  try {
    const record = JSON.parse(readFileSync(path, "utf8")) as PagesRecord;
    if (record.version !== RECORD_VERSION || record.outDir !== outDir || typeof record.pages !== "object") return undefined;
    return record;
  } catch {
    return undefined;
  }
}

const listed = (paths: string[], max = 6) =>
  `${paths.slice(0, max).join(", ")}${paths.length > max ? `, +${paths.length - max} more` : ""}`;

/**
 * The pages of `universe` (the paths a full crawl would load) to load after this build:
 * never one whose output changed since it was last checked, nor one that failed then.
 */
export function choosePages(project: Project, outDir: string, base: string, universe: string[]): PageSelection {
  const fingerprints = new Fingerprints(outDir, base);
  const record = readPagesRecord(project, outDir);
  const all = [...new Set(universe)];
  if (!record) {
    return {
      paths: all,
      total: all.length,
      changed: [],
      added: [],
      failedBefore: [],
      unchanged: 0,
      hadRecord: false,
      reason: `no record of a previous run: all ${all.length} pages are checked`,
      fingerprints,
    };
  }
  const changed: string[] = [];
  const added: string[] = [];
  const failedBefore: string[] = [];
  let unchanged = 0;
  for (const path of all) {
    const previous = record.pages[path];
    const now = fingerprints.page(path);
    if (!previous) added.push(path);
    else if (now === undefined || previous.fingerprint !== now) changed.push(path);
    else if (!previous.ok) failedBefore.push(path);
    else unchanged += 1;
  }
  const parts = [
    changed.length ? `${changed.length} page${changed.length === 1 ? "" : "s"} whose output changed: ${listed(changed)}` : "",
    added.length ? `${added.length} new or never checked: ${listed(added, 3)}` : "",
    failedBefore.length ? `${failedBefore.length} that failed last time: ${listed(failedBefore, 3)}` : "",
  ].filter(Boolean);
  return {
    paths: [...changed, ...added, ...failedBefore].sort(),
    total: all.length,
    changed,
    added,
    failedBefore,
    unchanged,
    hadRecord: true,
    reason: `${parts.length ? parts.join("; ") : "no page's output changed"}; ${unchanged} unchanged`,
    fingerprints,
  };
}

/**
 * Records the pages a check loaded, with whether each was free of faults. Pages not
 * loaded keep what they had, so they are chosen again if they differ from it.
 */
export function recordPages(
  project: Project,
  outDir: string,
  base: string,
  checked: { path: string; ok: boolean }[],
  fingerprints: Fingerprints = new Fingerprints(outDir, base),
): void {
  const previous = readPagesRecord(project, outDir)?.pages ?? {};
  const pages: Record<string, PageRecord> = {};
  for (const [path, entry] of Object.entries(previous)) if (fingerprints.fileOf(path)) pages[path] = entry;
  for (const { path, ok } of checked) {
    const fingerprint = fingerprints.page(path);
    if (fingerprint === undefined) delete pages[path];
    else pages[path] = { fingerprint, ok };
  }
  const record: PagesRecord = { version: RECORD_VERSION, recordedAt: new Date().toISOString(), outDir, pages };
  const path = recordPath(project);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(record)}\n`);
  renameSync(`${path}.tmp`, path);
}

const ANCHOR = /<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/gi;
const NOT_A_PAGE = /\.(xml|png|jpe?g|webp|svg|gif|pdf|zip|txt|json)$/i;

/**
 * The pages a full crawl without a sitemap loads: those reached by same-site links from
 * the start paths, followed here in the built HTML instead of in a browser.
 */
export function linkedPages(outDir: string, base: string, startPaths: string[]): string[] {
  const fingerprints = new Fingerprints(outDir, base);
  const seen = new Set(startPaths);
  const queue = [...startPaths];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const file = fingerprints.fileOf(path);
    if (!file || !/\.html?$/i.test(file)) continue;
    for (const match of readFileSync(file, "utf8").matchAll(ANCHOR)) {
      const href = match[2] ?? match[3] ?? match[4] ?? "";
      let url: URL;
      try {
        url = new URL(decodeHTMLAttribute(href), `http://site${path}`);
      } catch {
        continue;
      }
      if (url.origin !== "http://site" || NOT_A_PAGE.test(url.pathname) || seen.has(url.pathname)) continue;
      seen.add(url.pathname);
      queue.push(url.pathname);
    }
  }
  return [...seen];
}

/** Error pages a crawl does not load as pages (they answer 404 or 500 on purpose). */
const ERROR_PAGE = /(^|\/)(404|500)(\/index)?\.html$/;

/**
 * The URL path of every page of a build (its HTML files, error pages left out): x/index.html
 * is x/ (or x when the site's trailingSlash is "never"), x.html is x; under the site's base.
 */
export function builtPagePaths(outDir: string, base: string, trailingSlash: "always" | "never" | "ignore" = "ignore"): string[] {
  const prefix = base.replace(/\/+$/, "");
  const paths: string[] = [];
  for (const file of readdirSync(outDir, { recursive: true }) as string[]) {
    const path = file.split(sep).join("/");
    if (!/\.html$/i.test(path) || ERROR_PAGE.test(path)) continue;
    let url = `/${path.replace(/\.html$/i, "")}`;
    if (url === "/index" || url.endsWith("/index")) url = url.slice(0, -"index".length);
    if (trailingSlash === "never" && url.length > 1) url = url.replace(/\/$/, "");
    paths.push(`${prefix}${url}` || "/");
  }
  return paths.sort();
}
