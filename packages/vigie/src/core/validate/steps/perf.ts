// Performance of the home and one article, judged on production only: a dev server's
// timings are not what readers get, and a dev server that reloads pages cannot be
// measured steadily. It runs after the other steps, on a machine they no longer load.
// Each page is measured by the check service's perf check (which browser_perf runs too): the
// median of `perfRuns` loads, a page over budget measured again before it fails.
// The causes perf finds (a lazy LCP image, a shift's image without dimensions...) are warnings.
import type { PerfResult } from "../../browser/perf/perf.ts";
import type { PerfCause } from "../../browser/perf/perfCauses.ts";
import { checkPagePerf } from "../../checks/perf.ts";
import { chosenPages, enabled, firstShard, givenUrl, productionServer, type Step, type ValidateContext } from "./context.ts";
import type { Finding, PerfFigure } from "./findings.ts";
import { baselineRun, finishBaseline, routeAgainstBaseline } from "./perfAgainst.ts";

/** The pages measured: the config's, else the home and the first article the crawl saw; only the chosen ones after a change. */
async function routesOf(ctx: ValidateContext): Promise<string[]> {
  const article = ctx.pages.find((page) => /\/articles\/[^/]+\/$/.test(page.path))?.path;
  const routes = ctx.config.perfRoutes ?? [ctx.critical[0] ?? "/", ...(article ? [article] : [])];
  const choice = await chosenPages(ctx);
  return choice ? routes.filter((route) => choice.paths.includes(route)) : routes;
}

const SPREAD_UNITS: Partial<Record<keyof PerfResult["medians"], [string, string]>> = {
  loadMs: ["load", " ms"],
  lcpMs: ["LCP", " ms"],
  cls: ["CLS", ""],
  ttfbMs: ["TTFB", " ms"],
  transferKb: ["transfer", " kB"],
};

/** "load 120–180 ms, LCP 300–420 ms": the spread of the budgeted metrics. */
export function spreadOf(result: Pick<PerfResult, "spread">): string {
  return Object.entries(result.spread)
    .map(([metric, range]) => {
      const [name, unit] = SPREAD_UNITS[metric as keyof PerfResult["medians"]] ?? [metric, ""];
      return range ? `${name} ${range[0]}–${range[1]}${unit}` : "";
    })
    .filter(Boolean)
    .join(", ");
}

export const figureOf = (route: string, result: PerfResult): PerfFigure => ({
  page: route,
  server: result.server,
  loadMs: result.medians.loadMs,
  ttfbMs: result.medians.ttfbMs,
  lcpMs: result.medians.lcpMs,
  cls: result.medians.cls,
  transferKb: result.medians.transferKb,
  requests: result.medians.requests,
  verdict: result.server === "production" ? result.verdict : "not_judged",
  ...(result.samples.length ? { runs: result.samples.length } : {}),
  ...(spreadOf(result) ? { spread: spreadOf(result) } : {}),
});

/** A WARN finding per cause: its rule, element, source line and fix. */
export function causeFindings(ctx: ValidateContext, route: string, causes: PerfCause[]): Finding[] {
  const tool = ctx.tool("browser_perf");
  return causes.map((cause) => ({
    severity: "warn",
    tool,
    rule: cause.rule,
    page: route,
    ...(cause.selector ? { target: cause.selector } : {}),
    ...(cause.located && "source" in cause.located ? { file: cause.located.source } : {}),
    message: cause.message,
    fix: `${cause.fix[0]?.toUpperCase() ?? ""}${cause.fix.slice(1)}; then measure again with ${tool}.`,
  }));
}

/** One route measured: its figure, and a finding per metric over budget (or why it could not be measured). */
async function measureRoute(
  ctx: ValidateContext,
  url: string,
  route: string,
): Promise<{ figure?: PerfFigure; findings: Finding[]; result?: PerfResult }> {
  const tool = ctx.tool("browser_perf");
  const result = await checkPagePerf(ctx.site, { session: ctx.options.session, url: `${url}${route}`, config: ctx.config });
  if (result instanceof Error) {
    const message = `could not measure: ${result.message.split("\n")[0]}`;
    const fix = `Measure it alone with ${tool}; a dev server that keeps reloading the page cannot be measured.`;
    return { findings: [{ severity: "warn", tool, rule: "perf", page: route, message, fix }] };
  }
  const figure = figureOf(route, result);
  if (figure.verdict === "not_judged") return { figure, findings: [] };
  return { figure, result, findings: [...budgetFindings(ctx, route, result), ...causeFindings(ctx, route, result.causes)] };
}

/** ", 120–180 over the loads" for a metric, when the loads were kept. */
function rangeOf(result: PerfResult, metric: string): string {
  const range = result.spread[metric as keyof PerfResult["spread"]];
  return range ? `, ${range[0]}–${range[1]} over the loads` : "";
}

/** A finding per metric over its budget. */
export function budgetFindings(ctx: ValidateContext, route: string, result: PerfResult): Finding[] {
  const tool = ctx.tool("browser_perf");
  return Object.entries(result.budget).flatMap(([metric, entry]): Finding[] =>
    !entry || entry.pass
      ? []
      : [
          {
            severity: "warn",
            tool,
            rule: "perf-budget",
            page: route,
            message: `${metric} ${entry.value} over the budget of ${entry.max} (median of ${result.runs} loads${rangeOf(result, metric)})`,
            fix: `Find what delays the page (blocking scripts, large images, heavy libraries: load them lazily), then measure again with ${tool}.`,
          },
        ],
  );
}

/** The status a route answers with: the crawl's, else asked; 0 when there is no answer. */
async function statusOf(ctx: ValidateContext, url: string, route: string): Promise<number> {
  const crawled = ctx.pages.find((page) => page.path === route);
  if (crawled) return crawled.status;
  const response = await fetch(`${url}${route}`, { signal: AbortSignal.timeout(30_000) }).catch(() => undefined);
  await response?.body?.cancel();
  return response?.status ?? 0;
}

/** The production server measured: the one given, else the build's static server. */
const productionUrl = async (ctx: ValidateContext) => givenUrl(ctx) ?? (await productionServer(ctx))?.url;

export const perfStep: Step = {
  name: "perf",
  tool: "browser_perf",
  after: ["crawl", "flows", "astro check", "links", "lint", "critical routes"],
  skip(ctx) {
    if (ctx.options.changes?.dev) return "not measured under --changed on the dev server (the full run measures the build)";
    if (!givenUrl(ctx) && !productionServer(ctx)) return "no production build to measure (dev-server timings are not judged)";
    return enabled(ctx, "perf") && firstShard(ctx) ? undefined : "not this shard, or disabled";
  },
  async run(ctx) {
    const url = (await productionUrl(ctx)) as string;
    const routes = await routesOf(ctx);
    if (routes.length === 0) return { status: "skipped", summary: "no measured page is among the changed ones" };
    const perf: PerfFigure[] = [];
    const findings: Finding[] = [];
    const skipped: string[] = [];
    const baseline = await baselineRun(ctx);
    for (const route of routes) {
      // An error page is not what readers are meant to get: its timings mean nothing.
      const status = await statusOf(ctx, url, route);
      if (status < 200 || status >= 300) {
        skipped.push(`${route} not measured (${status ? `HTTP ${status}` : "no answer"})`);
        continue;
      }
      const measured = await measureRoute(ctx, url, route);
      if (measured.figure && measured.result && baseline) {
        const compared = await routeAgainstBaseline(ctx, baseline, route, `${url}${route}`, measured.result);
        if (compared) measured.figure.baseline = compared;
      }
      if (measured.figure) perf.push(measured.figure);
      findings.push(...measured.findings);
    }
    const said = baseline ? finishBaseline(ctx, baseline) : "";
    findings.push(...(baseline?.findings ?? []));
    return {
      status: findings.some((finding) => finding.severity === "fail")
        ? "fail"
        : findings.some((finding) => finding.rule === "perf-budget" || finding.rule === "perf-regression")
          ? "warn"
          : "ok",
      summary: [
        ...perf.map(
          (p) =>
            `${p.page} load ${p.loadMs} ms${p.verdict === "not_judged" ? " (dev, not judged)" : ""}${p.baseline ? ` (${p.baseline.verdict} against the baseline)` : ""}`,
        ),
        ...skipped,
        ...(said ? [said] : []),
      ].join(", "),
      findings,
      perf,
    };
  },
};
