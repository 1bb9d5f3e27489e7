// A perf baseline a team can gate on: each measured page's samples of every metric (one value
// per load), written by a run on the main branch with the machine it ran on, and read by a later
// run, which compares its own samples page by page with a rank test (core/stats.ts): regressed,
// improved, unchanged, or inconclusive when the spread is too wide to tell. What changed between
// the two runs' causes (a new render-blocking resource, a lazy LCP image, the LCP element) says why.
import { renameSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import type { Site } from "../astro/site.ts";
import type { PerfResult, PerfSample } from "../browser/perf/perf.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import type { VigieConfig } from "../config.ts";
import { readText } from "../files.ts";
import { type Comparison, compareSamples, median } from "../stats.ts";
import { VIGIE_VERSION } from "../version.ts";
import { checkPagePerf } from "./perf.ts";

/** The metrics kept per load, with the smallest change that counts (the larger of the two). */
export const BASELINE_METRICS = {
  loadMs: { name: "load", unit: " ms", relative: 0.1, absolute: 50, judged: true },
  lcpMs: { name: "LCP", unit: " ms", relative: 0.1, absolute: 50, judged: true },
  cls: { name: "CLS", unit: "", relative: 0, absolute: 0.05, judged: true },
  ttfbMs: { name: "TTFB", unit: " ms", relative: 0.1, absolute: 50, judged: false },
  transferKb: { name: "transfer", unit: " kB", relative: 0.1, absolute: 10, judged: false },
  requests: { name: "requests", unit: "", relative: 0, absolute: 2, judged: false },
} as const satisfies Partial<Record<keyof PerfSample, { name: string; unit: string; relative: number; absolute: number; judged: boolean }>>;

export type BaselineMetric = keyof typeof BASELINE_METRICS;
const METRICS = Object.keys(BASELINE_METRICS) as BaselineMetric[];

/** The machine a run measured on: a baseline from another machine compares timings of two machines. */
export interface PerfMachine {
  cpu: string;
  cores: number;
  /** The 1-minute load average when the run began to measure. */
  loadAverage: number;
  chromium?: string;
  vigie: string;
  node: string;
}

export interface BaselinePage {
  samples: Record<BaselineMetric, number[]>;
  /** The causes the run found, by "rule selector", with their source line. */
  causes: Record<string, string>;
  /** The LCP element of the median load. */
  lcpElement?: string;
}

export interface PerfBaselineFile {
  version: 1;
  writtenAt: string;
  machine: PerfMachine;
  pages: Record<string, BaselinePage>;
}

export function machineNow(chromium?: string): PerfMachine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? "unknown",
    cores: cpu.length,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    ...(chromium ? { chromium } : {}),
    vigie: VIGIE_VERSION,
    node: process.version,
  };
}

/** A measured page as the baseline keeps it. */
export function baselinePage(result: PerfResult): BaselinePage {
  const samples = Object.fromEntries(
    METRICS.map((metric) => [metric, result.samples.map((sample) => sample[metric])]),
  ) as BaselinePage["samples"];
  const causes: Record<string, string> = {};
  for (const cause of result.causes) {
    causes[`${cause.rule} ${cause.selector ?? ""}`.trim()] = cause.located && "source" in cause.located ? cause.located.source : "";
  }
  const lcpElement = result.vitals?.lcp?.element?.selector;
  return { samples, causes, ...(lcpElement ? { lcpElement } : {}) };
}

export function writePerfBaseline(file: string, machine: PerfMachine, pages: Record<string, BaselinePage>): void {
  const baseline: PerfBaselineFile = { version: 1, writtenAt: new Date().toISOString(), machine, pages };
  // Written beside, then moved: a run stopped midway leaves the last baseline whole.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(baseline, null, 1)}\n`);
  renameSync(temporary, file);
}

/** The baseline in `file`, or why it cannot be used (missing, not JSON, not a baseline). */
export function readPerfBaseline(file: string): PerfBaselineFile | { error: string } {
  const text = readText(file);
  if (text === undefined) return { error: `no perf baseline at ${file} (a run with --perf-baseline ${file} writes one)` };
  let data: Partial<PerfBaselineFile>;
  try {
    data = JSON.parse(text) as Partial<PerfBaselineFile>;
  } catch (error) {
    return { error: `${file} is not JSON (${(error as Error).message}): write it again with --perf-baseline` };
  }
  if (data.version !== 1 || typeof data.pages !== "object" || !data.pages || typeof data.machine !== "object")
    return { error: `${file} is not a vigie perf baseline (version 1, with pages and machine): write it again with --perf-baseline` };
  return data as PerfBaselineFile;
}

/** What differs between the machine of the baseline and this one, said short; empty when they are alike. */
export function machineChanges(before: PerfMachine, now: PerfMachine): string[] {
  const changes: string[] = [];
  if (before.cpu !== now.cpu) changes.push(`CPU ${before.cpu} → ${now.cpu}`);
  if (before.cores !== now.cores) changes.push(`${before.cores} → ${now.cores} cores`);
  if (before.chromium && now.chromium && before.chromium !== now.chromium) changes.push(`Chromium ${before.chromium} → ${now.chromium}`);
  return changes;
}

export interface PageComparison {
  /** Per metric, the comparison of this run's samples with the baseline's. */
  metrics: Partial<Record<BaselineMetric, Comparison>>;
  /** The page's verdict: regressed if a judged metric regressed, then inconclusive, improved, unchanged. */
  verdict: Comparison["verdict"];
  /** More loads could decide a judged metric. */
  wantsMore: boolean;
}

export function comparePage(before: BaselinePage, now: BaselinePage): PageComparison {
  const metrics: PageComparison["metrics"] = {};
  for (const metric of METRICS) {
    const a = before.samples[metric];
    const b = now.samples[metric];
    if (!Array.isArray(a) || !a.length || !b.length) continue;
    const { relative, absolute } = BASELINE_METRICS[metric];
    metrics[metric] = compareSamples(a, b, { relative, absolute });
  }
  const judged = METRICS.filter((metric) => BASELINE_METRICS[metric].judged).flatMap((metric) => metrics[metric] ?? []);
  const verdicts = judged.map((comparison) => comparison.verdict);
  const verdict = (["regressed", "inconclusive", "improved"] as const).find((each) => verdicts.includes(each)) ?? "unchanged";
  return { metrics, verdict, wantsMore: judged.some((comparison) => comparison.wantsMore) };
}

/** What changed between the baseline's causes and this run's: each new cause with its source, a changed LCP element, more bytes. */
export function whatChanged(before: BaselinePage, now: BaselinePage, comparison: PageComparison): string[] {
  const said: string[] = [];
  for (const [cause, source] of Object.entries(now.causes)) {
    if (!(cause in before.causes)) said.push(`new: ${cause}${source ? ` (${source})` : ""}`);
  }
  if (before.lcpElement && now.lcpElement && before.lcpElement !== now.lcpElement)
    said.push(`the LCP element changed: ${before.lcpElement} → ${now.lcpElement}`);
  for (const metric of ["transferKb", "requests"] as const) {
    const shift = comparison.metrics[metric];
    if (shift?.verdict === "regressed")
      said.push(`${BASELINE_METRICS[metric].name} +${round(shift.estimate)}${BASELINE_METRICS[metric].unit}`);
  }
  return said;
}

/** "load +162 ms (95 % interval +120 to +210 ms; median 310 → 472 ms over 6 and 6 loads; p 0.002)". */
export function shiftText(metric: BaselineMetric, comparison: Comparison, before: number[], now: number[]): string {
  const { name, unit } = BASELINE_METRICS[metric];
  const signed = (value: number) => `${value >= 0 ? "+" : ""}${round(value)}`;
  const medians = `median ${round(median(before))} → ${round(median(now))}${unit}`;
  return `${name} ${signed(comparison.estimate)}${unit} (95 % interval ${signed(comparison.low)} to ${signed(comparison.high)}${unit}; ${medians} over ${before.length} and ${now.length} loads; p ${comparison.p < 0.001 ? "< 0.001" : round3(comparison.p)})`;
}

const round = (value: number) => (Math.abs(value) >= 10 ? Math.round(value) : Math.round(value * 100) / 100);
const round3 = (value: number) => Math.round(value * 1000) / 1000;

const DEFAULT_MAX_LOADS = 12;
const MORE_LOADS = 3;

/** A measured page against its baseline: the page as measured (with the loads added), the comparison, what changed since. */
export interface AgainstBaseline {
  now: BaselinePage;
  comparison: PageComparison;
  changed: string[];
}

/**
 * `result` (a page measured) against `before`: while more loads could decide a judged metric,
 * 3 more are taken, up to the config's perfRegression.maxLoads (default 12).
 */
export async function againstBaseline(
  site: Site,
  options: { session: BrowserSession; url: string; config: VigieConfig },
  before: BaselinePage,
  result: PerfResult,
): Promise<AgainstBaseline> {
  let samples = result.samples;
  let now = baselinePage(result);
  let comparison = comparePage(before, now);
  const maxLoads = options.config.perfRegression?.maxLoads ?? DEFAULT_MAX_LOADS;
  while (comparison.wantsMore && samples.length < maxLoads) {
    const more = await checkPagePerf(site, { ...options, runs: MORE_LOADS });
    if (more instanceof Error) break;
    samples = [...samples, ...more.samples];
    // The causes and the LCP element stay those of the result's loads: only the samples grow.
    now = baselinePage({ ...result, samples });
    comparison = comparePage(before, now);
  }
  return { now, comparison, changed: whatChanged(before, now, comparison) };
}

/** The judged metrics that regressed, each said with its shift. */
export function regressedShifts(before: BaselinePage, now: BaselinePage, comparison: PageComparison): string[] {
  return METRICS.filter((metric) => BASELINE_METRICS[metric].judged && comparison.metrics[metric]?.verdict === "regressed").map((metric) =>
    shiftText(metric, comparison.metrics[metric] as Comparison, before.samples[metric], now.samples[metric]),
  );
}

/**
 * A page measured against the baseline in `file` (browser_perf's `baseline`): the comparison, or
 * why there is none (no such baseline, the page not in it).
 */
export async function againstBaselineFile(
  site: Site,
  options: { session: BrowserSession; url: string; config: VigieConfig },
  file: string,
  path: string,
  result: PerfResult,
): Promise<{ unavailable: string } | (AgainstBaseline & { before: BaselinePage; machineChanged: string[] })> {
  const baseline = readPerfBaseline(file);
  if ("error" in baseline) return { unavailable: baseline.error };
  const before = baseline.pages[path];
  if (!before)
    return { unavailable: `${path} is not in the baseline (its pages: ${Object.keys(baseline.pages).slice(0, 5).join(", ") || "none"})` };
  const against = await againstBaseline(site, options, before, result);
  return { ...against, before, machineChanged: machineChanges(baseline.machine, machineNow()) };
}
