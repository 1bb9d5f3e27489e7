// Which built pages to load in the browser: those whose fingerprint differs from the one
// they had when they were last checked, the new ones, and those that failed last time.
// The record is the build's part of the project's baseline (baseline.ts), updated after
// every check of the built pages, full or not, with only the pages that check really loaded.
import { readdirSync, readFileSync } from "node:fs";
import { sep } from "node:path";
import { decodeHTMLAttribute } from "entities";
import type { Site } from "../astro/site.ts";
import type { Project } from "../project.ts";
import { type PageVerdictInput, pageOk, readBaseline, writeBaseline } from "./baseline.ts";
import { Fingerprints } from "./fingerprints.ts";
import { htmlTokens, type StyleChange, styleReaches } from "./styles.ts";

const RECORD_VERSION = 1;

export interface PageRecord {
  /** Fingerprint of the page's output when it was checked. */
  fingerprint: string;
  /** Whether that check found it free of faults. */
  ok: boolean;
  /** Its fingerprint without its stylesheets (Fingerprints.rest), when recorded. */
  rest?: string;
  /** The classes and ids its elements had once it settled, as indexes into the record's `tokens`. */
  tokens?: number[];
}

export interface PagesRecord {
  version: number;
  recordedAt: string;
  outDir: string;
  pages: Record<string, PageRecord>;
  /** The classes and ids the pages' `tokens` point at, each once. */
  tokens?: string[];
}

export interface PageSelection {
  /** The pages to load; every page when there is no record. */
  paths: string[];
  /** Every page the full run would load (the sitemap's, or the ones links reach). */
  total: number;
  changed: string[];
  /** Pages whose output changed only by stylesheets whose changed rules apply to none of their elements: their last verdict stands. */
  unaffected: string[];
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

/** The build's part of the project's baseline, when it was recorded from the same output folder. */
export function readPagesRecord(project: Project, outDir: string): PagesRecord | undefined {
  const record = readBaseline<PagesRecord>(project).build;
  if (!record || record.version !== RECORD_VERSION || record.outDir !== outDir || typeof record.pages !== "object") return undefined;
  return record;
}

const listed = (paths: string[], max = 6) =>
  `${paths.slice(0, max).join(", ")}${paths.length > max ? `, +${paths.length - max} more` : ""}`;

/** A change made only to stylesheets (`styleChange`), with the files it was made in, for the report. */
export interface StylesOnly {
  change: StyleChange;
  files: string[];
}

/**
 * The pages of `universe` (the paths a full crawl would load) to load after this build:
 * every one whose output changed since it was last checked, and every one that failed then.
 * With `styles` (the change was made only to stylesheets), a page whose output changed only by
 * its stylesheets is left out when no changed rule can apply to one of its elements, as it was
 * checked last (its classes and ids then) or as its new HTML writes them.
 */
export function choosePages(project: Project, outDir: string, base: string, universe: string[], styles?: StylesOnly): PageSelection {
  const fingerprints = new Fingerprints(outDir, base);
  const record = readPagesRecord(project, outDir);
  const all = [...new Set(universe)];
  if (!record) {
    return {
      paths: all,
      total: all.length,
      changed: [],
      unaffected: [],
      added: [],
      failedBefore: [],
      unchanged: 0,
      hadRecord: false,
      reason: `no record of a previous run: all ${all.length} pages are checked`,
      fingerprints,
    };
  }
  const changed: string[] = [];
  const unaffected: string[] = [];
  const added: string[] = [];
  const failedBefore: string[] = [];
  let unchanged = 0;
  const stylesMiss = (path: string, previous: PageRecord) => {
    if (!styles || styles.change.everywhere || !previous.ok || !previous.rest || !previous.tokens) return false;
    if (fingerprints.rest(path) !== previous.rest) return false;
    const tokens = htmlTokens(fingerprints.html(path) ?? "");
    for (const index of previous.tokens) {
      const token = record.tokens?.[index];
      if (token) tokens.add(token);
    }
    return !styleReaches(styles.change, tokens);
  };
  for (const path of all) {
    const previous = record.pages[path];
    const now = fingerprints.page(path);
    if (!previous) added.push(path);
    else if (now === undefined || previous.fingerprint !== now) (stylesMiss(path, previous) ? unaffected : changed).push(path);
    else if (!previous.ok) failedBefore.push(path);
    else unchanged += 1;
  }
  const parts = [
    changed.length ? `${changed.length} page${changed.length === 1 ? "" : "s"} whose output changed: ${listed(changed)}` : "",
    unaffected.length
      ? `${unaffected.length} page${unaffected.length === 1 ? "" : "s"} changed only by ${listed(styles?.files ?? [], 2)}, with no element its ${styles?.change.rules === 1 ? "changed rule applies" : `${styles?.change.rules} changed rules apply`} to`
      : "",
    added.length ? `${added.length} new or never checked: ${listed(added, 3)}` : "",
    failedBefore.length ? `${failedBefore.length} that failed last time: ${listed(failedBefore, 3)}` : "",
  ].filter(Boolean);
  return {
    paths: [...changed, ...added, ...failedBefore].sort(),
    total: all.length,
    changed,
    unaffected,
    added,
    failedBefore,
    unchanged,
    hadRecord: true,
    reason: `${parts.length ? parts.join("; ") : "no page's output changed"}; ${unchanged} unchanged`,
    fingerprints,
  };
}

/** A page a check judged: loaded (with its classes and ids when read), or left out as unaffected (`kept`: its last verdict stands). */
export interface CheckedPage {
  path: string;
  ok: boolean;
  tokens?: string[];
  /** Not loaded: its record keeps its verdict and its classes and ids, with the new fingerprints. */
  kept?: boolean;
}

/**
 * Records the pages a check loaded, with whether each was free of faults. Pages not
 * loaded keep what they had, so they are chosen again if they differ from it.
 */
export function recordPages(
  project: Project,
  outDir: string,
  base: string,
  checked: CheckedPage[],
  fingerprints: Fingerprints = new Fingerprints(outDir, base),
): void {
  const before = readPagesRecord(project, outDir);
  const previous = before?.pages ?? {};
  const dictionary: string[] = [];
  const indexes = new Map<string, number>();
  const indexOf = (token: string) => {
    let index = indexes.get(token);
    if (index === undefined) {
      index = dictionary.push(token) - 1;
      indexes.set(token, index);
    }
    return index;
  };
  const recorded = (entry: PageRecord, tokens?: string[]): PageRecord => {
    const names = tokens ?? entry.tokens?.flatMap((index) => before?.tokens?.[index] ?? []);
    return {
      fingerprint: entry.fingerprint,
      ok: entry.ok,
      ...(entry.rest ? { rest: entry.rest } : {}),
      ...(names ? { tokens: names.map(indexOf) } : {}),
    };
  };
  const pages: Record<string, PageRecord> = {};
  for (const [path, entry] of Object.entries(previous)) if (fingerprints.fileOf(path)) pages[path] = recorded(entry);
  for (const { path, ok, tokens, kept } of checked) {
    const fingerprint = fingerprints.page(path);
    const rest = fingerprints.rest(path);
    const last = pages[path];
    if (fingerprint === undefined) delete pages[path];
    else if (kept && last) pages[path] = { ...last, fingerprint, ...(rest ? { rest } : {}) };
    else if (!kept) pages[path] = recorded({ fingerprint, ok, ...(rest ? { rest } : {}) }, tokens);
  }
  const record: PagesRecord = {
    version: RECORD_VERSION,
    recordedAt: new Date().toISOString(),
    outDir,
    pages,
    ...(dictionary.length ? { tokens: dictionary } : {}),
  };
  writeBaseline(project, "build", record);
}

/** A page a check of the build loaded: its faults, its accessibility violations when audited, its classes and ids when read. */
export interface CheckedBuiltPage extends PageVerdictInput {
  path: string;
  tokens?: string[];
}

/**
 * The one writer of the build's record, after a check of the built pages (the crawl tool's,
 * validate's crawl step): each page judged by the one rule (`pageOk`), with its classes and ids;
 * the next `changed` compares its build with it. Pages the change could not reach
 * (`unaffected`) keep their verdict, with this build's fingerprints.
 */
export function recordCheckedPages(
  site: Site,
  checked: CheckedBuiltPage[],
  options: { failOn?: readonly string[]; unaffected?: string[]; fingerprints?: Fingerprints } = {},
): void {
  const judged = checked.map((page) => ({
    path: page.path,
    ok: pageOk(page, options.failOn),
    ...(page.tokens ? { tokens: page.tokens } : {}),
  }));
  const kept = (options.unaffected ?? []).map((path) => ({ path, ok: true, kept: true }));
  recordPages(site.project, site.staticDir, site.base, [...judged, ...kept], options.fingerprints);
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
