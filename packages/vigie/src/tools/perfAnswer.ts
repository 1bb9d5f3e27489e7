// The perf answer: the medians against the budget as before, then why: the LCP element and its
// phases, each cause with its element, its source line and its fix, the slowest interaction when
// there were actions, and one line on render-blocking and third-party resources. The whole
// measure (every load, every shift, every resource) goes to a report.

import { type Answer, clip } from "../core/answer.ts";
import type { PerfResult } from "../core/browser/perf/perf.ts";
import type { PerfCause } from "../core/browser/perf/perfCauses.ts";
import type { VitalsFacts } from "../core/browser/perf/vitals.ts";
import { type againstBaselineFile, BASELINE_METRICS, type BaselineMetric } from "../core/checks/perfBaseline.ts";

/** One cause as the agent reads it: rule, element, where to change it, what to change (the perf tool's `limits` clip them). */
export function causeItem(cause: PerfCause): Answer {
  const located = cause.located;
  return {
    rule: cause.rule,
    ...(cause.selector ? { element: cause.selector } : {}),
    ...(located && "source" in located ? { source: located.source } : {}),
    ...(located && "sourceUnknown" in located ? { sourceUnknown: located.sourceUnknown } : {}),
    message: cause.message,
    fix: cause.fix,
  };
}

/**
 * "img.hero (hero.jpg) 1830 ms: ttfb 12 / load delay 1200 / load 500 / render delay 118". The
 * selector and the file name are clipped here, not by the renderer: they open a line whose end
 * (the timings) matters most.
 */
export function lcpLine(vitals: VitalsFacts | undefined): string | undefined {
  const lcp = vitals?.lcp;
  if (!lcp) return undefined;
  const element = lcp.element;
  const what = element ? `${clip(element.selector, 80)}${element.src ? ` (${clip(element.src.split("/").pop() ?? "", 50)})` : ""}` : "?";
  const p = lcp.phases;
  return `${what} ${lcp.ms} ms: ttfb ${p.ttfbMs}, load delay ${p.loadDelayMs}, load ${p.loadMs}, render delay ${p.renderDelayMs}`;
}

/** Render-blocking resources and third-party share, in one line. */
export function resourcesLine(vitals: VitalsFacts | undefined): string | undefined {
  if (!vitals) return undefined;
  const blocking = vitals.renderBlocking;
  const blockingMs = Math.round(blocking.reduce((sum, entry) => sum + entry.ms, 0));
  const third = vitals.thirdParty;
  return `${blocking.length} render-blocking (${blockingMs} ms); third-party ${third.requests} requests, ${third.percentOfKb}% of bytes`;
}

/** The answer of browser_perf. */
export function perfAnswer(path: string, result: PerfResult, report: string | undefined): Answer {
  const { samples: _samples, vitals, causes, url: _url, spread: _spread, actions: _actions, ...numbers } = result;
  const inp = vitals?.inp;
  return {
    path,
    ...numbers,
    ...(lcpLine(vitals) ? { lcp: lcpLine(vitals) } : {}),
    ...(inp
      ? { inp: `${inp.ms} ms on ${clip(inp.element?.selector ?? "?", 80)}; long tasks ${inp.longTasksMs.join(", ") || "none"} ms` }
      : {}),
    ...(resourcesLine(vitals) ? { resources: resourcesLine(vitals) } : {}),
    causes: causes.map(causeItem),
    ...(result.server === "dev"
      ? { note: "Measured on the dev server: timings are not what readers get. Build, start with mode preview, then measure." }
      : {}),
    ...(report ? { files: { report } } : {}),
  };
}

/** The page against the perf baseline, short: the verdict, the loads on each side, each judged metric's shift and interval, what changed. */
export function baselineAnswer(against: Awaited<ReturnType<typeof againstBaselineFile>>): Answer {
  if ("unavailable" in against) return { unavailable: against.unavailable };
  const { before, now, comparison, changed, machineChanged } = against;
  const shifts: Record<string, string> = {};
  for (const [metric, each] of Object.entries(comparison.metrics) as [
    BaselineMetric,
    NonNullable<(typeof comparison.metrics)[BaselineMetric]>,
  ][]) {
    if (!BASELINE_METRICS[metric].judged) continue;
    const { name, unit } = BASELINE_METRICS[metric];
    const signed = (value: number) =>
      `${value >= 0 ? "+" : ""}${Math.abs(value) >= 10 ? Math.round(value) : Math.round(value * 100) / 100}`;
    shifts[name] =
      `${each.verdict}: ${signed(each.estimate)}${unit} (${signed(each.low)} to ${signed(each.high)}; spread ${Math.round(each.cv.current * 100)} %)`;
  }
  return {
    verdict: comparison.verdict,
    loads: `${before.samples.loadMs.length} in the baseline, ${now.samples.loadMs.length} now`,
    shifts,
    ...(changed.length ? { changed: changed.slice(0, 4) } : {}),
    ...(machineChanged.length ? { machine: `another machine than the baseline's: ${machineChanged.join("; ")}` } : {}),
  };
}
