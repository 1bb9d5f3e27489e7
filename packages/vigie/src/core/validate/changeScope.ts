// `validate --changed [REF]`: the plan of a change as the validator's steps take it (lint
// the changed content and its translations, astro check only when code or config changed,
// the browser only on the pages the change can have affected), and what the report says of it.
// While vigie's dev server runs, the pages are those its module graph says the change reaches,
// checked on it without a build; else the build's pages whose output changed since the last run.

import { readSite } from "../astro/site.ts";
import { builtChanges, changeReach, type DevScope, devScopeNote } from "../changes/changed.ts";
import { hasWarmChecker } from "../changes/dev.ts";
import { type ChangePlan, planChanges } from "../changes/plan.ts";
import type { Project } from "../project.ts";
import type { ChangeScope } from "./steps/context.ts";

export interface ChangedRun {
  scope: ChangeScope;
  plan: ChangePlan;
}

export interface ChangeScopeOptions {
  /** Not on vigie's dev server even while it runs: the build (or the server given with --base-url). */
  build?: boolean;
  signal?: AbortSignal;
}

/** The scope of `--changed` against `ref` (default HEAD); everything when git cannot tell or a config changed. */
export async function changeScope(project: Project, ref?: string, options: ChangeScopeOptions = {}): Promise<ChangedRun> {
  const site = readSite(project);
  const plan = planChanges(site, ref);
  if (plan.everything) return { plan, scope: {} };
  const check: ChangeScope["check"] = plan.check
    ? { run: true, why: "", sync: plan.sync, ...(hasWarmChecker(project) ? { warm: plan.files } : {}) }
    : { run: false, why: "no .ts, .tsx, .astro or config file changed" };
  const reach = options.build ? undefined : await changeReach(site, plan, { signal: options.signal });
  if (reach && "dev" in reach) {
    const { dev } = reach;
    plan.notes.push(
      `pages: ${devScopeNote(dev)}${dev.warmed ? `; every page rendered once first to complete the graph (${dev.warmed.pages} in ${dev.warmed.ms} ms)` : ""}`,
    );
    return { plan, scope: { files: plan.lintFiles ?? [], check, dev: devOf(dev) } };
  }
  // Said when a dev server of vigie's runs and its graph cannot vouch for the change.
  if (reach && hasWarmChecker(project)) plan.notes.push(`pages: the build's (${reach.build})`);
  const scope: ChangeScope = {
    files: plan.lintFiles ?? [],
    check,
    pages: async (site) => {
      const selection = builtChanges(site, plan);
      return {
        paths: selection.paths,
        why: selection.reason,
        ...(selection.unaffected.length ? { unaffected: selection.unaffected } : {}),
      };
    },
  };
  return { plan, scope };
}

function devOf(scope: DevScope): NonNullable<ChangeScope["dev"]> {
  return {
    url: scope.origin,
    paths: scope.paths,
    reached: scope.reached.length,
    why: devScopeNote(scope),
    known: scope.known,
  };
}
