// The perf check as browser_perf and validate's perf step both run it: a page measured over
// `runs` cold loads (default: the config's perfRuns, else 3) against the config's budgets, with
// its saved login; a production page over budget is measured again (REMEASURE_RUNS more loads)
// and judged on every load, so one slow load on a busy machine is not a verdict; each cause
// located in the sources. A page that cannot be measured is an error returned, not thrown.
import type { Action } from "../actions.ts";
import type { Site } from "../astro/site.ts";
import { judge, measurePerf, type PerfResult } from "../browser/perf/perf.ts";
import { locateCauses } from "../browser/perf/perfCauses.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import { budgetsOf, storageStateOf, type VigieConfig } from "../config.ts";

/** Loads added to a page over budget before it is judged. */
export const REMEASURE_RUNS = 3;

export interface PagePerfOptions {
  session: BrowserSession;
  /** The page's full URL. */
  url: string;
  config: VigieConfig;
  /** Loads; default the config's perfRuns, else 3. */
  runs?: number;
  /** The reader's actions after the load (for the interaction). */
  actions?: Action[];
}

export async function checkPagePerf(site: Site, options: PagePerfOptions): Promise<PerfResult | Error> {
  const { session, url, config } = options;
  const budgets = budgetsOf(config);
  const storageState = storageStateOf(site.project, config);
  const measure = { budgets, ...(storageState ? { storageState } : {}), ...(options.actions?.length ? { actions: options.actions } : {}) };
  const first = await measurePerf(session, url, { ...measure, runs: options.runs ?? config.perfRuns ?? 3 }).catch((error: Error) => error);
  if (first instanceof Error) return first;
  let result = first;
  if (first.verdict === "over_budget" && first.server === "production") {
    // Over budget: measured again, judged on every load.
    const again = await measurePerf(session, url, { ...measure, runs: REMEASURE_RUNS }).catch(() => undefined);
    if (again) {
      const samples = [...first.samples, ...again.samples];
      result = { ...first, ...judge(samples, budgets), runs: samples.length, samples };
    }
  }
  await locateCauses(result.causes, site.project.root, url);
  return result;
}
