// `validate --changed [REF]`: the plan of a change as the validator's steps take it (lint
// the changed content and its translations, astro check only when code or config changed,
// the browser only on the pages whose built output changed), and what the report says of it.
import { join } from "node:path";
import { readAstroSettings } from "../astro/astroConfig.ts";
import { fileAt } from "../changes/git.ts";
import { builtPagePaths, choosePages, type StylesOnly } from "../changes/pages.ts";
import { type ChangePlan, planChanges } from "../changes/plan.ts";
import { styleChange } from "../changes/styles.ts";
import { readText } from "../files.ts";
import type { Project } from "../project.ts";
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
      const selection = choosePages(project, built.outDir, built.base, universe, stylesOnly(project, plan));
      return {
        paths: selection.paths,
        why: selection.reason,
        ...(selection.unaffected.length ? { unaffected: selection.unaffected } : {}),
      };
    },
  };
  return { plan, scope };
}

/** When every changed file is a plain stylesheet (.css): which of its rules changed, against the ref. */
function stylesOnly(project: Project, plan: ChangePlan): StylesOnly | undefined {
  const { ref, files } = plan;
  if (!ref || files.length === 0 || !files.every((file) => /\.css$/i.test(file))) return undefined;
  const versions = files.map((file) => ({
    file,
    before: fileAt(project.root, ref, file) ?? "",
    after: readText(join(project.root, file)) ?? "",
  }));
  return { change: styleChange(versions), files };
}
