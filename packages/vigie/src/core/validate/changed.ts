// `validate --changed [REF]`: the plan of a change as the validator's steps take it (lint
// the changed content and its translations, astro check only when code or config changed,
// the browser only on the pages whose built output changed), and what the report says of it.

import { hasWarmChecker } from "../changes/dev.ts";
import { type ChangePlan, planChanges } from "../changes/plan.ts";
import { changedPages } from "../checks/changed.ts";
import type { Project } from "../project.ts";
import type { ChangeScope } from "./context.ts";

export interface ChangedRun {
  scope: ChangeScope;
  plan: ChangePlan;
}

/** The scope of `--changed` against `ref` (default HEAD); everything when git cannot tell or a config changed. */
export function changeScope(project: Project, ref?: string): ChangedRun {
  const plan = planChanges(project, ref);
  if (plan.everything) return { plan, scope: {} };
  const scope: ChangeScope = {
    files: plan.lintFiles ?? [],
    check: plan.check
      ? { run: true, why: "", sync: plan.sync, ...(hasWarmChecker(project) ? { warm: plan.files } : {}) }
      : { run: false, why: "no .ts, .tsx, .astro or config file changed" },
    pages: async (site) => {
      const selection = changedPages(site, plan);
      return {
        paths: selection.paths,
        why: selection.reason,
        ...(selection.unaffected.length ? { unaffected: selection.unaffected } : {}),
      };
    },
  };
  return { plan, scope };
}
