// perf: N loads of a page with a cold HTTP cache in a warm browser (as a first-time reader), the
// medians of the navigation timings, LCP, CLS, bytes and requests, against the budget; and why:
// web-vitals' attribution (vitals.ts) read on the loads, turned into causes (perfCauses.ts).
// With reader actions, one more load runs them and measures the slowest interaction (INP).

import type { BrowserContext, Page } from "playwright-core";
import type { Action, ActionsOutcome } from "../../actions.ts";
import type { Budgets } from "../../config.ts";
import { median } from "../../stats.ts";
import { withTimeout } from "../../wait.ts";
import { runActions } from "../page/actions.ts";
import { withState } from "../page/state.ts";
import type { BrowserSession } from "../session/session.ts";
import { type PerfCause, perfCauses } from "./perfCauses.ts";
import { readVitals, type VitalsFacts, vitalsScript } from "./vitals.ts";

export interface PerfSample {
  ttfbMs: number;
  domInteractiveMs: number;
  domContentLoadedMs: number;
  loadMs: number;
  lcpMs: number;
  cls: number;
  transferKb: number;
  requests: number;
  jsKb: number;
}

export type MetricName = keyof PerfSample;

export interface PerfResult {
  url: string;
  runs: number;
  /** Every load's figures, in order (validate adds loads to a page over budget). */
  samples: PerfSample[];
  /** Lowest and highest of each budgeted metric over the loads. */
  spread: Partial<Record<MetricName, [number, number]>>;
  /** What the median load said (LCP, shifts, resources) and, with actions, the interaction. */
  vitals?: VitalsFacts;
  /** Why, from `vitals`: the element, the rule, the fix (not yet located in the sources). */
  causes: PerfCause[];
  /** How the reader actions went, when there were some. */
  actions?: ActionsOutcome;
  /** "dev" when the page came from a dev server (timings there are not what readers get). */
  server: "dev" | "production";
  medians: PerfSample;
  budget: Partial<Record<MetricName, { value: number; max: number; pass: boolean }>>;
  verdict: "pass" | "over_budget";
}

/**
 * One load of the page with the HTTP cache disabled, in a tab that already loaded it:
 * the browser is warm (as a reader's is, following a link), the network cold.
 */
async function sample(page: Page, url: string, timeoutMs: number): Promise<{ sample: PerfSample; dev: boolean; vitals: VitalsFacts }> {
  await page.goto("about:blank", { timeout: timeoutMs });
  try {
    await page.goto(url, { waitUntil: "load", timeout: timeoutMs });
  } catch (error) {
    // A dev server may reload the page (Vite after optimising dependencies): measure the reload.
    if (!/interrupted by another navigation/.test((error as Error).message)) throw error;
    await page.waitForLoadState("load", { timeout: timeoutMs });
  }
  const measured = page.evaluate(async () => {
    const state = (window as unknown as { __vigieVitals?: { lcp?: { ms: number }; cls: number; shifts: unknown[] } }).__vigieVitals;
    const pause = () => new Promise((resolve) => setTimeout(resolve, 25));
    // loadEventEnd is written after the load handlers, LCP entries arrive a little later.
    for (let waited = 0; waited < 1000 && (waited < 50 || !state?.lcp); waited += 25) await pause();
    // An image in the first screen still loading may be the LCP. A lazy one starts after layout,
    // and until it starts Chromium calls it complete: a visible lazy image with no pixels yet counts.
    const waiting = (img: HTMLImageElement) =>
      !img.complete || (img.loading === "lazy" && img.naturalWidth === 0 && (img.checkVisibility?.() ?? true));
    const firstScreen = () => [...document.images].filter((img) => img.getBoundingClientRect().top < innerHeight);
    const loading = () => firstScreen().some(waiting);
    for (let waited = 0; waited < 3000 && loading(); waited += 25) await pause();
    // An image that has just arrived is painted, and named the LCP, at a next frame.
    if (firstScreen().length) await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100)));
    // Islands hydrate after the load and may then insert content: the page is read once it has
    // not shifted for 700 ms (3 s at most).
    if (document.querySelector("astro-island")) {
      let shifts = state?.shifts.length ?? 0;
      let quiet = 0;
      for (let waited = 0; waited < 3000 && quiet < 700; waited += 25) {
        await pause();
        const now = state?.shifts.length ?? 0;
        quiet = now === shifts ? quiet + 25 : 0;
        shifts = now;
      }
    }
    const perf = { lcp: state?.lcp?.ms ?? 0, cls: state?.cls ?? 0 };
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
    const resources = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
    // Bytes on the wire: headers and (compressed) body.
    const size = (entry: PerformanceResourceTiming) => entry.transferSize || entry.encodedBodySize || 0;
    const isJs = (entry: PerformanceResourceTiming) => entry.initiatorType === "script" || /\.m?js(\?|$)/.test(entry.name);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      dev: Boolean(document.querySelector('script[src*="/@vite/client"]')),
      sample: {
        ttfbMs: round(nav ? nav.responseStart - nav.startTime : 0),
        domInteractiveMs: round(nav?.domInteractive ?? 0),
        domContentLoadedMs: round(nav?.domContentLoadedEventEnd ?? 0),
        loadMs: round(nav?.loadEventEnd ?? 0),
        lcpMs: round(perf.lcp),
        cls: Math.round(perf.cls * 1000) / 1000,
        transferKb: round(((nav ? size(nav) : 0) + resources.reduce((sum, entry) => sum + size(entry), 0)) / 1024),
        requests: resources.length + 1,
        jsKb: round(resources.filter(isJs).reduce((sum, entry) => sum + size(entry), 0) / 1024),
      },
    };
  });
  const result = await withTimeout(measured, timeoutMs, async () => undefined);
  return { ...result, vitals: await withTimeout(readVitals(page), timeoutMs, async () => undefined) };
}

const BUDGET_KEYS: Record<keyof Budgets, MetricName> = {
  ttfbMs: "ttfbMs",
  domInteractiveMs: "domInteractiveMs",
  domContentLoadedMs: "domContentLoadedMs",
  loadMs: "loadMs",
  lcpMs: "lcpMs",
  cls: "cls",
  transferKb: "transferKb",
  requests: "requests",
  jsKb: "jsKb",
};

/** The load whose value of `metric` is the median: the one whose causes are told. */
function medianIndex(samples: PerfSample[], metric: MetricName): number {
  const order = samples.map((s, index) => ({ value: s[metric], index })).sort((a, b) => a.value - b.value);
  return order[Math.floor((order.length - 1) / 2)]?.index ?? 0;
}

/**
 * The load whose LCP is told: among the loads whose LCP element is the one most loads name (on a
 * busy machine a load may paint its heading before a slow image and name it), the median one.
 */
function lcpIndex(vitals: VitalsFacts[], samples: PerfSample[]): number {
  const median = medianIndex(samples, "lcpMs");
  const keyOf = (index: number) => vitals[index]?.lcp?.element?.selector ?? "";
  const counts = new Map<string, number>();
  for (const index of vitals.keys()) counts.set(keyOf(index), (counts.get(keyOf(index)) ?? 0) + 1);
  const most = Math.max(...counts.values());
  if (counts.get(keyOf(median)) === most) return median;
  const common = [...counts].find(([, count]) => count === most)?.[0] ?? "";
  const among = [...vitals.keys()].filter((index) => keyOf(index) === common);
  among.sort((a, b) => (samples[a]?.lcpMs ?? 0) - (samples[b]?.lcpMs ?? 0));
  return among[Math.floor((among.length - 1) / 2)] ?? median;
}

/** Medians, spread and budget verdict of a list of loads. */
export function judge(samples: PerfSample[], budgets: Budgets): Pick<PerfResult, "medians" | "spread" | "budget" | "verdict"> {
  const medians = Object.fromEntries(
    (Object.keys(samples[0] ?? {}) as MetricName[]).map((key) => [key, Math.round(median(samples.map((s) => s[key])) * 1000) / 1000]),
  ) as unknown as PerfSample;
  const budget: PerfResult["budget"] = {};
  const spread: PerfResult["spread"] = {};
  for (const [key, max] of Object.entries(budgets) as [keyof Budgets, number | undefined][]) {
    if (max === undefined) continue;
    const metric = BUDGET_KEYS[key];
    budget[metric] = { value: medians[metric], max, pass: medians[metric] <= max };
    const values = samples.map((s) => s[metric]);
    if (values.length) spread[metric] = [Math.min(...values), Math.max(...values)];
  }
  const verdict = Object.values(budget).every((entry) => entry?.pass) ? "pass" : "over_budget";
  return { medians, spread, budget, verdict };
}

export async function measurePerf(
  session: BrowserSession,
  url: string,
  options: { runs?: number; budgets: Budgets; timeoutMs?: number; storageState?: string; actions?: Action[] },
): Promise<PerfResult> {
  const runs = options.runs ?? 3;
  const samples: PerfSample[] = [];
  const vitals: VitalsFacts[] = [];
  let dev = false;
  let interaction: VitalsFacts | undefined;
  let actions: ActionsOutcome | undefined;
  const perLoadMs = options.timeoutMs ?? 20_000;
  // The whole measure is bounded too: a page that a dev server keeps reloading must not hang it.
  const overallMs = (runs + (options.actions?.length ? 2 : 1)) * (perLoadMs + 2000);
  await session.withPage(
    async (page, context) =>
      withTimeout(measureIn(page, context), overallMs, async () => {
        await page.close().catch(() => undefined);
      }),
    withState(options.storageState),
  );
  async function measureIn(page: Page, context: BrowserContext): Promise<void> {
    await context.addInitScript(vitalsScript());
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    // A first load, not counted: starts the site's renderer process.
    await sample(page, url, perLoadMs);
    for (let run = 0; run < runs; run += 1) {
      const result = await sample(page, url, perLoadMs);
      samples.push(result.sample);
      if (result.vitals) vitals.push(result.vitals);
      dev ||= result.dev;
    }
    if (options.actions?.length) {
      // The reader's actions on one more load; the slowest interaction is INP.
      await sample(page, url, perLoadMs);
      actions = await runActions(page, options.actions, {
        mark: () => undefined,
        settle: () => page.waitForTimeout(150),
      });
      // web-vitals reports an interaction once the browser is idle after its next paint.
      await page
        .waitForFunction(() => Boolean((window as unknown as { __vigieVitals?: { inp?: object } }).__vigieVitals?.inp), undefined, {
          timeout: 2000,
        })
        .catch(() => undefined);
      await page.waitForTimeout(300);
      interaction = await readVitals(page);
    }
  }
  const told = vitals.length === samples.length && vitals.length ? mergeVitals(vitals, samples, interaction) : interaction;
  return {
    url,
    runs,
    server: dev ? "dev" : "production",
    samples,
    ...judge(samples, options.budgets),
    ...(told ? { vitals: told } : {}),
    causes: told ? perfCauses(told) : [],
    ...(actions ? { actions } : {}),
  };
}

/** The median-LCP load's LCP and resources, the median-CLS load's shifts, the actions' load's interaction. */
function mergeVitals(vitals: VitalsFacts[], samples: PerfSample[], interaction: VitalsFacts | undefined): VitalsFacts {
  const byLcp = vitals[lcpIndex(vitals, samples)] as VitalsFacts;
  const byCls = vitals[medianIndex(samples, "cls")] as VitalsFacts;
  const { inp: _inp, ...rest } = byLcp;
  // A resource is as slow as its fastest load: a stall of the checking machine in one load is not the site's.
  const fastest = (url: string, ms: number) =>
    Math.min(ms, ...vitals.flatMap((each) => each.renderBlocking.filter((entry) => entry.url === url).map((entry) => entry.ms)));
  return {
    ...rest,
    renderBlocking: byLcp.renderBlocking.map((entry) => ({ ...entry, ms: fastest(entry.url, entry.ms) })),
    cls: byCls.cls,
    shifts: byCls.shifts,
    fonts: byCls.fonts,
    ...(interaction?.inp ? { inp: interaction.inp } : {}),
  };
}
