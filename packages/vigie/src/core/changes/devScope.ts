// `validate --changed` while vigie's dev server runs: the pages the changed files reach, from the
// server's module graph, checked on that server instead of building the whole site (Astro has no
// partial build: the build alone is about half of a full run). Whatever the graph cannot vouch
// for (a deleted file, a file served as is from public/, a content file no page renders by its
// slug, a module the graph does not know) sends the run back to the build, and says why.
import { existsSync } from "node:fs";
import type { Site } from "../astro/site.ts";
import { readDevPort } from "../devServer/status.ts";
import { eachAtMost } from "../pool.ts";
import { CHANGED_PAGE_LIMIT, chooseLoaded } from "./choose.ts";
import { baselinePages, hasWarmChecker, untilServerSaw } from "./dev.ts";
import type { ChangePlan } from "./plan.ts";
import { askReach, type FileReach, pagesReached } from "./reach.ts";
import { builtPagePaths, readPagesRecord } from "./record.ts";

/** How long completing the module graph (every page rendered once) may take. */
const WARM_TIMEOUT_MS = 90_000;
const WARM_CONCURRENCY = 4;

const CONTENT = /\.(md|mdx|markdown|mdoc|json|ya?ml|toml|csv)$/i;

export interface DevScope {
  /** The dev server, without a trailing slash. */
  origin: string;
  /** The pages the change reaches, every one. */
  reached: string[];
  /** Those loaded, at most CHANGED_PAGE_LIMIT, spread over the routes. */
  paths: string[];
  /** The pages of the site the graph was asked about. */
  known: string[];
  /** Set when every page was rendered once first, to complete the graph. */
  warmed?: { pages: number; ms: number };
}

/** The dev scope of a change, or why the build is checked instead; undefined when vigie's dev server does not run. */
export async function devScope(
  site: Site,
  plan: ChangePlan,
  signal?: AbortSignal,
  limit = CHANGED_PAGE_LIMIT,
): Promise<DevScope | { build: string } | undefined> {
  const { project } = site;
  if (!hasWarmChecker(project)) return undefined;
  const port = readDevPort(project);
  if (port === undefined) return undefined;
  const origin = `http://127.0.0.1:${port}`;
  if (plan.deleted?.length) return { build: `${plan.deleted[0]} was deleted: the dev server's graph cannot say what used it` };
  const served = plan.files.find((file) => file.startsWith("public/"));
  if (served) return { build: `${served} is served as it is (public/): no module graph says which pages use it` };
  const universe = pagesOf(site);
  if (!universe.length) return { build: "no build yet to list the site's pages" };
  const sources = plan.files.filter((file) => file.startsWith("src/"));
  let warmed: DevScope["warmed"];
  try {
    // A file saved a moment ago: once the server has seen it, and rendered its pages anew.
    await untilServerSaw(project, sources, signal);
    let answer = await askReach(origin, sources, signal);
    // The graph knows only the modules of the pages this server rendered (it forgets them when it
    // restarts): the others are rendered once first.
    const rendered = new Set((answer.rendered ?? []).map(withSlash));
    const missing = sources.length ? universe.filter((path) => !rendered.has(withSlash(path))) : [];
    if (missing.length) {
      warmed = await renderPages(origin, missing, signal);
      answer = await askReach(origin, sources, signal);
    }
    const { reached, unused, byEntry } = pagesReached(project, sources, answer.reached, answer.routes, universe);
    // A source no listed page is reached through may still change pages (a middleware, a page
    // rendered on demand the site does not list, a data collection): the build is checked.
    const unplaced = unused[0];
    if (unplaced !== undefined) return { build: unplacedWhy(unplaced, answer.reached[unplaced]) };
    return {
      origin,
      reached,
      paths: chooseLoaded(reached, byEntry, answer.routes, limit),
      known: universe,
      ...(warmed ? { warmed } : {}),
    };
  } catch (error) {
    return { build: `the dev server could not say what the change reaches (${(error as Error).message})` };
  }
}

/** Why a changed source sends the run back to the build: what the graph says of it. */
function unplacedWhy(file: string, info: FileReach | undefined): string {
  if (CONTENT.test(file)) return `${file} is rendered by no page under its slug: the graph cannot say which pages read it`;
  if (!info?.known) return `${file} is not in the dev server's module graph: no page it rendered uses it`;
  if (info.pages.length) return `${file} reaches ${info.pages[0]}, none of whose pages the site lists`;
  return `${file} reaches no page in the dev server's module graph (a middleware, a script's module?)`;
}

const withSlash = (path: string) => (path.endsWith("/") ? path : `${path}/`);

/** The site's pages: the last build's, those the last full run's crawl loaded (on-demand ones too), those the dev baseline loaded. */
function pagesOf(site: Site): string[] {
  const built = existsSync(site.staticDir) ? builtPagePaths(site.staticDir, site.base, site.trailingSlash) : [];
  const crawled = Object.keys(readPagesRecord(site.project, site.staticDir)?.pages ?? {});
  return [...new Set([...built, ...crawled, ...(baselinePages(site.project) ?? [])])].sort();
}

/** Renders `paths` once on the dev server (no browser), so that its graph knows what each page uses. */
async function renderPages(origin: string, paths: string[], signal?: AbortSignal): Promise<DevScope["warmed"]> {
  const started = Date.now();
  const deadline = AbortSignal.timeout(WARM_TIMEOUT_MS);
  const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const render = (path: string) =>
    fetch(`${origin}${path}`, { signal: stop, redirect: "manual" }).then(
      (response) => response.arrayBuffer(),
      () => undefined,
    );
  await eachAtMost(paths, WARM_CONCURRENCY, async (path) => void (await render(path)), stop);
  if (stop.aborted) throw new Error(`rendering the site's ${paths.length} pages took over ${WARM_TIMEOUT_MS / 1000} s`);
  return { pages: paths.length, ms: Date.now() - started };
}

/** "10 of the 80 pages the change reaches (…), on the dev server; 70 more not loaded (…)". */
export const devScopeNote = (scope: DevScope): string => {
  const { reached, paths } = scope;
  const more = reached.length - paths.length;
  if (!reached.length) return "no page: the change reaches none (the dev server's module graph)";
  const pages = reached.length === 1 ? "the page" : more ? `${paths.length} of the ${reached.length} pages` : `the ${reached.length} pages`;
  return `${pages} the change reaches (the dev server's module graph${more ? ", spread over their routes" : ""}), on the dev server${more ? `; ${more} more not loaded (the full run loads them)` : ""}`;
};
