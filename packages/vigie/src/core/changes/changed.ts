// "Only what changed": the one answer to "what does this change reach, and how do we know", which
// `validate --changed`, the crawl's `changed` and the look after an edit on the dev server ask.
// While vigie's dev server runs, its module graph says which pages the changed files reach (no
// build); else, or when the graph cannot vouch for a change, the build says it: the built pages
// whose output differs from the one they had when they were last checked (the project's baseline),
// the new ones, those that failed last time; a change made only to stylesheets loads only the
// pages one of whose elements a changed rule can reach. At most CHANGED_PAGE_LIMIT pages are
// loaded on the dev server.
import { join } from "node:path";
import type { Site } from "../astro/site.ts";
import { readText } from "../files.ts";
import { type DevScope, devScope } from "./devScope.ts";
import { fileAt } from "./git.ts";
import { type ChangePlan, planChanges } from "./plan.ts";
import { builtPagePaths, choosePages, type PageSelection, type StylesOnly } from "./record.ts";
import { styleChange } from "./styles.ts";

export { CHANGED_PAGE_LIMIT, chooseLoaded } from "./choose.ts";
export { type DevScope, devScopeNote } from "./devScope.ts";

/** What a change reaches: the dev server's pages, or why the build must say it. */
export type ChangeReach = { dev: DevScope } | { build: string };

export interface ChangeReachOptions {
  /** Not on the dev server even while it runs: the build. */
  build?: boolean;
  signal?: AbortSignal;
}

/**
 * What the change `plan` (default: the working tree against HEAD) reaches on the running dev
 * server, from its module graph; or why the build is the one to say it (no dev server of vigie's,
 * no git, a change the graph cannot vouch for). The build's pages are `builtChanges`'.
 */
export async function changeReach(site: Site, plan = gitPlan(site), options: ChangeReachOptions = {}): Promise<ChangeReach> {
  if (options.build) return { build: "the build was asked for" };
  if (!plan) return { build: "git cannot tell what changed (no repository or no commit yet)" };
  if (plan.everything) return { build: plan.everything };
  const dev = await devScope(site, plan, options.signal);
  if (!dev) return { build: "vigie's dev server does not run" };
  return "origin" in dev ? { dev } : dev;
}

/**
 * The pages of the current build to load, against the change plan `plan` (default: the working
 * tree against HEAD, when git can tell; the pages' fingerprints need no git).
 */
export function builtChanges(site: Site, plan: ChangePlan | undefined = gitPlan(site)): PageSelection {
  const universe = builtPagePaths(site.staticDir, site.base, site.trailingSlash);
  return choosePages(site.project, site.staticDir, site.base, universe, plan && stylesOnly(site, plan));
}

/** The working tree against HEAD; none when git cannot tell (no repository, no commit yet). */
export function gitPlan(site: Site): ChangePlan | undefined {
  try {
    return planChanges(site);
  } catch {
    return undefined;
  }
}

/** When every changed file is a plain stylesheet (.css): which of its rules changed, against the plan's ref. */
function stylesOnly(site: Site, plan: ChangePlan): StylesOnly | undefined {
  const { ref, files } = plan;
  if (!ref || files.length === 0 || !files.every((file) => /\.css$/i.test(file))) return undefined;
  const root = site.project.root;
  const versions = files.map((file) => ({ file, before: fileAt(root, ref, file) ?? "", after: readText(join(root, file)) ?? "" }));
  return { change: styleChange(versions), files };
}
