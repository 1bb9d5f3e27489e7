// "Only what changed", as `validate --changed` and the crawl tool's `changed` both mean it: the
// built pages whose output differs from the one they had when they were last checked (the record
// kept beside the build's static folder), the new ones, those that failed last time; a change
// made only to stylesheets loads only the pages one of whose elements a changed rule can reach.
import { join } from "node:path";
import { fileAt } from "../changes/git.ts";
import { builtPagePaths, choosePages, type PageSelection, type StylesOnly } from "../changes/pages.ts";
import { type ChangePlan, planChanges } from "../changes/plan.ts";
import { styleChange } from "../changes/styles.ts";
import { readText } from "../files.ts";
import type { Site } from "../site.ts";

/**
 * The pages of the current build to load, against the change plan `plan` (default: the working
 * tree against HEAD, when git can tell; the pages' fingerprints need no git).
 */
export function changedPages(site: Site, plan: ChangePlan | undefined = gitPlan(site)): PageSelection {
  const universe = builtPagePaths(site.staticDir, site.base, site.trailingSlash);
  return choosePages(site.project, site.staticDir, site.base, universe, plan && stylesOnly(site, plan));
}

/** The working tree against HEAD; none when git cannot tell (no repository, no commit yet). */
function gitPlan(site: Site): ChangePlan | undefined {
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
