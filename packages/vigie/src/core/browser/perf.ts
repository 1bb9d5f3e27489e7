// perf: N loads of a page with a cold HTTP cache in a warm browser (as a first-time reader), the
// medians of the navigation timings, LCP, CLS, bytes and requests, against the budget.

import type { BrowserContext, Page } from "playwright-core";
import type { Budgets } from "../config.ts";
import { withTimeout } from "../wait.ts";
import type { BrowserSession } from "./session.ts";
import { withState } from "./state.ts";

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
  /** "dev" when the page came from a dev server (timings there are not what readers get). */
  server: "dev" | "production";
  medians: PerfSample;
  budget: Partial<Record<MetricName, { value: number; max: number; pass: boolean }>>;
  verdict: "pass" | "over_budget";
}

// CLS as currently defined (web.dev/articles/cls): layout shifts without recent input are grouped
// in session windows, a window ending after 1 s without a shift or 5 s after its first one;
// CLS is the largest window's sum, not the sum of every shift.
const OBSERVE = `(() => {
  const state = { lcp: 0, cls: 0 };
  const session = { value: 0, first: 0, last: 0 };
  Object.defineProperty(window, "__vigiePerf", { value: state });
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) state.lcp = entry.renderTime || entry.loadTime || entry.startTime;
    }).observe({ type: "largest-contentful-paint", buffered: true });
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.hadRecentInput) continue;
        if (session.value > 0 && entry.startTime - session.last < 1000 && entry.startTime - session.first < 5000) {
          session.value += entry.value;
        } else {
          session.value = entry.value;
          session.first = entry.startTime;
        }
        session.last = entry.startTime;
        state.cls = Math.max(state.cls, session.value);
      }
    }).observe({ type: "layout-shift", buffered: true });
  } catch {}
})();`;

/**
 * One load of the page with the HTTP cache disabled, in a tab that already loaded it:
 * the browser is warm (as a reader's is, following a link), the network cold.
 */
async function sample(page: Page, url: string, timeoutMs: number): Promise<{ sample: PerfSample; dev: boolean }> {
  await page.goto("about:blank", { timeout: timeoutMs });
  try {
    await page.goto(url, { waitUntil: "load", timeout: timeoutMs });
  } catch (error) {
    // A dev server may reload the page (Vite after optimising dependencies): measure the reload.
    if (!/interrupted by another navigation/.test((error as Error).message)) throw error;
    await page.waitForLoadState("load", { timeout: timeoutMs });
  }
  const measured = page.evaluate(async () => {
    const perf = (window as unknown as { __vigiePerf?: { lcp: number; cls: number } }).__vigiePerf ?? { lcp: 0, cls: 0 };
    // loadEventEnd is written after the load handlers, LCP entries arrive a little later.
    for (let waited = 0; waited < 1000 && (waited < 50 || perf.lcp === 0); waited += 25)
      await new Promise((resolve) => setTimeout(resolve, 25));
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
  return withTimeout(measured, timeoutMs, async () => undefined);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
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

export async function measurePerf(
  session: BrowserSession,
  url: string,
  options: { runs?: number; budgets: Budgets; timeoutMs?: number; storageState?: string },
): Promise<PerfResult> {
  const runs = options.runs ?? 3;
  const samples: PerfSample[] = [];
  let dev = false;
  const perLoadMs = options.timeoutMs ?? 20_000;
  // The whole measure is bounded too: a page that a dev server keeps reloading must not hang it.
  const overallMs = (runs + 1) * (perLoadMs + 2000);
  await session.withPage(
    async (page, context) =>
      withTimeout(measureIn(page, context), overallMs, async () => {
        await page.close().catch(() => undefined);
      }),
    withState(options.storageState),
  );
  async function measureIn(page: Page, context: BrowserContext): Promise<void> {
    await context.addInitScript(OBSERVE);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    // A first load, not counted: starts the site's renderer process.
    await sample(page, url, perLoadMs);
    for (let run = 0; run < runs; run += 1) {
      const result = await sample(page, url, perLoadMs);
      samples.push(result.sample);
      dev ||= result.dev;
    }
  }
  const medians = Object.fromEntries(
    (Object.keys(samples[0] ?? {}) as MetricName[]).map((key) => [key, Math.round(median(samples.map((s) => s[key])) * 1000) / 1000]),
  ) as unknown as PerfSample;
  const budget: PerfResult["budget"] = {};
  for (const [key, max] of Object.entries(options.budgets) as [keyof Budgets, number | undefined][]) {
    if (max === undefined) continue;
    const metric = BUDGET_KEYS[key];
    budget[metric] = { value: medians[metric], max, pass: medians[metric] <= max };
  }
  const verdict = Object.values(budget).every((entry) => entry?.pass) ? "pass" : "over_budget";
  return { url, runs, server: dev ? "dev" : "production", medians, budget, verdict };
}
