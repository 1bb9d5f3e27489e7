// validate's perf step against a perf baseline: each measured page's samples written for a later
// run (--perf-baseline FILE), or compared with the baseline's (--perf-compare FILE). A comparison
// that more loads could decide gets them (3 at a time, up to the config's perfRegression.maxLoads,
// default 12) before it is said; a page slower past the threshold is a finding (WARN, or FAIL with
// perfRegression.severity "fail"), with the shift, its interval and what changed since; on another
// machine than the baseline's, WARN at most, and said.
import type { PerfResult } from "../../browser/perf/perf.ts";
import {
  type AgainstBaseline,
  againstBaseline,
  type BaselineMetric,
  type BaselinePage,
  baselinePage,
  machineChanges,
  machineNow,
  type PageComparison,
  type PerfBaselineFile,
  type PerfMachine,
  readPerfBaseline,
  regressedShifts,
  writePerfBaseline,
} from "../../checks/perfBaseline.ts";
import type { ValidateContext } from "./context.ts";
import type { Finding, PerfFigure } from "./findings.ts";

export interface BaselineRun {
  machine: PerfMachine;
  compare?: PerfBaselineFile;
  /** What differs from the baseline's machine. */
  machineChanged: string[];
  /** The pages measured, as the baseline keeps them. */
  pages: Record<string, BaselinePage>;
  /** Said in the step's summary. */
  notes: string[];
  findings: Finding[];
}

/** The baseline's part of this run, when one was asked for; the baseline to compare with read once. */
export async function baselineRun(ctx: ValidateContext): Promise<BaselineRun | undefined> {
  const asked = ctx.options.perfBaseline;
  if (!asked?.write && !asked?.compare) return undefined;
  const chromium = await ctx.options.session
    .browser()
    .then((browser) => browser.version())
    .catch(() => undefined);
  const machine = machineNow(chromium);
  const run: BaselineRun = { machine, machineChanged: [], pages: {}, notes: [], findings: [] };
  if (!asked.compare) return run;
  const read = readPerfBaseline(asked.compare);
  if ("error" in read) {
    run.notes.push(read.error);
    return run;
  }
  run.compare = read;
  run.machineChanged = machineChanges(read.machine, machine);
  if (run.machineChanged.length)
    run.notes.push(`the baseline was measured on another machine (${run.machineChanged.join("; ")}): WARN at most`);
  return run;
}

/**
 * One measured page against the baseline (more loads first when they could decide it): its
 * figure's comparison, and a finding when it regressed. The page is kept for the baseline written.
 */
export async function routeAgainstBaseline(ctx: ValidateContext, run: BaselineRun, route: string, url: string, result: PerfResult) {
  const before = run.compare?.pages[route];
  if (!run.compare || !before) {
    if (run.compare) run.notes.push(`${route}: not in the baseline`);
    run.pages[route] = baselinePage(result);
    return undefined;
  }
  const against = await againstBaseline(ctx.site, { session: ctx.options.session, url, config: ctx.config }, before, result);
  const { now, comparison } = against;
  run.pages[route] = now;
  if (comparison.verdict === "regressed") run.findings.push(regression(ctx, run, route, before, against));
  if (comparison.verdict === "inconclusive") run.notes.push(`${route}: inconclusive after ${now.samples.loadMs.length} loads`);
  return figureOf(before, now, comparison);
}

function regression(ctx: ValidateContext, run: BaselineRun, route: string, before: BaselinePage, against: AgainstBaseline): Finding {
  const tool = ctx.tool("browser_perf");
  const { now, comparison, changed } = against;
  const shifts = regressedShifts(before, now, comparison);
  const source = Object.entries(now.causes).find(([cause]) => !(cause in before.causes))?.[1];
  const fail = ctx.config.perfRegression?.severity === "fail" && !run.machineChanged.length;
  return {
    severity: fail ? "fail" : "warn",
    tool,
    rule: "perf-regression",
    page: route,
    ...(source ? { file: source } : {}),
    message: `slower than the baseline: ${shifts.join("; ")}${changed.length ? `; since the baseline: ${changed.join("; ")}` : ""}${run.machineChanged.length ? "; measured on another machine than the baseline's" : ""}`,
    fix: `Undo or fix what changed (the causes named), then measure again with ${tool}; if the change is wanted, write a new baseline with --perf-baseline.`,
  };
}

function figureOf(before: BaselinePage, now: BaselinePage, comparison: PageComparison): NonNullable<PerfFigure["baseline"]> {
  const metrics: NonNullable<PerfFigure["baseline"]>["metrics"] = {};
  for (const [metric, each] of Object.entries(comparison.metrics) as [
    BaselineMetric,
    NonNullable<PageComparison["metrics"][BaselineMetric]>,
  ][]) {
    metrics[metric] = {
      verdict: each.verdict,
      estimate: each.estimate,
      low: each.low,
      high: each.high,
      p: each.p,
      cv: Math.round(each.cv.current * 1000) / 1000,
      before: before.samples[metric],
      now: now.samples[metric],
    };
  }
  return { verdict: comparison.verdict, metrics };
}

/** After every page: the baseline written when asked; what the step's summary says of it. */
export function finishBaseline(ctx: ValidateContext, run: BaselineRun): string {
  const file = ctx.options.perfBaseline?.write;
  if (file) {
    writePerfBaseline(file, run.machine, run.pages);
    run.notes.push(`baseline of ${Object.keys(run.pages).length} pages written to ${file}`);
  }
  return run.notes.join("; ");
}
