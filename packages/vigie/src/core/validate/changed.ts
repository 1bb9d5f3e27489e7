// `validate --changed [REF]`: the plan of a change as the validator's steps take it (lint
// the changed content and its translations, astro check only when code or config changed,
// the browser only on the pages whose built output changed), and what the report says of it.
import { readAstroSettings } from "../astro/astroConfig.ts";
import { builtPagePaths, choosePages } from "../changes/pages.ts";
import { type ChangePlan, planChanges } from "../changes/plan.ts";
import type { ChangeScope } from "./context.ts";

export interface ChangedRun {
  scope: ChangeScope;
  plan: ChangePlan;
}

/** The scope of `--changed` against `ref` (default HEAD); everything when git cannot tell or a config changed. */
export function changeScope(project: Parameters<typeof planChanges>[0], ref?: string): ChangedRun {
  const plan = planChanges(project, ref);
  if (plan.everything) return { plan, scope: {} };
  const scope: ChangeScope = {
    files: plan.lintFiles ?? [],
    check: plan.check ? { run: true, why: "", sync: plan.sync } : { run: false, why: "no .ts, .tsx, .astro or config file changed" },
    pages: async (built) => {
      const universe = builtPagePaths(built.outDir, built.base, readAstroSettings(project).trailingSlash);
      const selection = choosePages(project, built.outDir, built.base, universe);
      return { paths: selection.paths, why: selection.reason };
    },
  };
  return { plan, scope };
}
