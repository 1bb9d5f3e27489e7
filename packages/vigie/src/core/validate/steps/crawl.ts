// Every page in Chromium: runtime faults and accessibility. On the production build when
// there is one (what readers get), else on the live server.

import { routeOf } from "../../astro/rendering.ts";
import type { Violation } from "../../browser/a11y.ts";
import { type CrawlPage, crawlSite } from "../../browser/crawl.ts";
import type { PageFault } from "../../browser/faults.ts";
import { faultMessage, faultText, sourceOf } from "../../browser/faultView.ts";
import { recordPages } from "../../changes/pages.ts";
import { storageStateOf } from "../../config.ts";
import { servedFile } from "../../files.ts";
import { faultsWithCauses } from "../../production/pageCauses.ts";
import { lineOfMessage } from "../../production/serverErrors.ts";
import { chosenPages, enabled, givenUrl, productionServer, type Step, type ValidateContext } from "../context.ts";
import type { Finding, ValidationReport } from "../findings.ts";
import { dependencyFix, originOf } from "../triage.ts";
import { screenshotFailing } from "./screenshots.ts";
import { type FailureCause, serverCauses } from "./serverCauses.ts";

/** Each kind of page fault as validate names its rule. */
const RULES: Record<PageFault["kind"], string> = {
  status: "http-status",
  "dev-error": "page-error",
  diagram: "mermaid",
  island: "island",
  hydration: "hydration",
  error: "page-error",
  navigation: "navigation",
  action: "action-step",
  request: "failed-request",
};

/** What the crawl learnt of the site's server side: the causes of 5xx answers, the pages linking to missing ones. */
interface ServerSide {
  causes: Map<string, FailureCause>;
  /** A missing page found through a link on a page rendered on demand: that page and the line that wrote the link. */
  brokenLink?: (page: CrawlPage) => { from: string; source?: string } | undefined;
}

/** A page fault as the crawl step judges it: a 404 reached through a link on an on-demand page is that link's. */
type StepFault = PageFault & { rule?: string };

/**
 * A page's faults with what its server said (`faultsWithCauses`); a missing page reached from
 * an on-demand page is a broken link of that page.
 */
function faultsOf(page: CrawlPage, pagesUrl: string, server?: ServerSide): StepFault[] {
  const broken = page.status === 404 ? server?.brokenLink?.(page) : undefined;
  return faultsWithCauses(page, pagesUrl, server?.causes ?? new Map()).map((fault): StepFault => {
    if (fault.kind !== "status" || !broken) return fault;
    const { kind, count } = fault;
    return {
      kind,
      count,
      status: page.status,
      rule: "broken-link",
      message: `broken link to ${page.path}: HTTP 404`,
      ...(broken.source ? { located: { source: broken.source } } : {}),
    };
  });
}

/** One page fault as a validate finding. */
function faultFinding(ctx: ValidateContext, page: CrawlPage, fault: StepFault): Finding {
  const source = sourceOf(fault);
  const at = source ? ` at ${source}` : "";
  const jsErrors = ctx.tool("browser_js_errors");
  const mermaid = fault.kind === "diagram";
  return {
    severity: "fail",
    tool: mermaid ? jsErrors : ctx.tool("browser_crawl"),
    rule: fault.rule ?? RULES[fault.kind],
    page: page.path,
    ...(source ? { file: source } : {}),
    message: faultMessage(fault, 400),
    fix: mermaid
      ? `Fix the diagram's syntax${at} (${ctx.tool("build_lint")} shows the line), then check the page with ${jsErrors}.`
      : `${source ? `Fix the cause${at}` : `Reproduce with ${jsErrors} on this page, fix the cause,`} and check again.`,
  };
}

function a11yFinding(ctx: ValidateContext, page: CrawlPage, violation: Violation, fail: boolean): Finding {
  const origin = originOf({ rule: violation.id, page: page.path, target: violation.target }, violation.within ?? [], ctx.site);
  // Images are found back in the sources by their src: the first one located.
  const source = violation.sources?.flatMap((located) => ("source" in located ? [located.source] : []))[0];
  return {
    severity: fail ? "fail" : "warn",
    tool: ctx.tool("browser_a11y"),
    rule: violation.id,
    page: page.path,
    ...(source ? { file: source } : {}),
    target: violation.target,
    ...(origin ? { origin } : {}),
    ...(violation.matches ? { matches: violation.matches } : {}),
    message: `${violation.id} (${violation.impact}, ${violation.count}×): ${violation.help} at ${violation.target}${origin ? ` (from ${origin})` : ""}`,
    fix: origin
      ? `${dependencyFix({ rule: violation.id, target: violation.target }, origin)} See ${violation.helpUrl}`
      : `${source ? `Fix it at ${source}. ` : ""}See ${violation.helpUrl}`,
  };
}

/** One crawled page's findings and its line in the report. */
export function judgePage(ctx: ValidateContext, page: CrawlPage, pagesUrl = new URL(page.url).origin, server?: ServerSide) {
  const failOn = new Set(ctx.config.a11y?.failOn ?? ["serious", "critical"]);
  const faults = faultsOf(page, pagesUrl, server);
  const a11yFaults = (page.a11y ?? []).filter((v) => failOn.has(v.impact) || v.impact === "moderate");
  // A broken link is the fault of the page that has it.
  const linking = (fault: StepFault) => (fault.rule === "broken-link" && page.linkedFrom ? { ...page, path: page.linkedFrom } : page);
  const findings = [
    ...faults.map((fault) => faultFinding(ctx, linking(fault), fault)),
    ...a11yFaults.map((violation) => a11yFinding(ctx, page, violation, failOn.has(violation.impact))),
  ];
  const ok = faults.length === 0 && !a11yFaults.some((v) => failOn.has(v.impact));
  const line: ValidationReport["pages"][number] = {
    path: page.path,
    status: page.status,
    ok,
    summary: (faults[0] && faultText(faults[0])) ?? a11yFaults[0]?.id ?? "ok",
  };
  return { findings, line };
}

/**
 * After a crawl of the build, what each page was (and the classes and ids of its elements): the
 * next `validate --changed` compares its build with it. Pages the change could not reach keep
 * their verdict, with this build's fingerprints.
 */
function recordChecked(ctx: ValidateContext, pages: ValidationReport["pages"], crawled: CrawlPage[], unaffected: string[] = []): void {
  if (givenUrl(ctx) || !productionServer(ctx) || ctx.options.shard) return;
  const tokens = new Map(crawled.map((page) => [page.path, page.tokens]));
  const checked = pages.map(({ path, ok }) => ({ path, ok, ...(tokens.get(path) ? { tokens: tokens.get(path) } : {}) }));
  recordPages(ctx.project, ctx.rendering.staticDir, ctx.site.base, [
    ...checked,
    ...unaffected.map((path) => ({ path, ok: true, kept: true })),
  ]);
}

/** The routes rendered on demand that take no parameter: reachable pages even when no link leads to them. */
function onDemandPaths(ctx: ValidateContext): string[] {
  const { routes } = ctx.rendering;
  const paths = (routes ?? []).filter((route) => route.type === "page" && !route.prerender && route.params.length === 0);
  const base = ctx.site.base.replace(/\/$/, "");
  return paths.map((route) => sitePath(ctx.site.trailingSlash, `${base}${route.route === "/" ? "/" : `${route.route}/`}`));
}

const sitePath = (trailingSlash: string, path: string) => (trailingSlash === "never" && path.length > 1 ? path.replace(/\/$/, "") : path);

/** For a missing page reached through a link on a page rendered on demand: that page and the source line of the link. */
function linkOnDemand(ctx: ValidateContext, page: CrawlPage): { from: string; source?: string } | undefined {
  const from = page.linkedFrom;
  const { routes, staticDir } = ctx.rendering;
  // Links on prerendered pages are the link check's (it reads the built HTML).
  if (!from || !routes || servedFile(staticDir, from.slice(ctx.site.base.length - 1))) return undefined;
  const route = routeOf(routes, ctx.site.base, from);
  return { from, ...(route ? { source: lineOfMessage(ctx.project, route.component, page.path) } : {}) };
}

/** The build's adapter has no local server: the pages are loaded from the dev server. */
const onDevServer = (ctx: ValidateContext) => !givenUrl(ctx) && ctx.built && ctx.rendering.serve === "dev";

/** The server the pages are loaded from: the one given, else the build's static server, else the dev server. */
export async function pagesUrlOf(ctx: ValidateContext): Promise<string | undefined> {
  return givenUrl(ctx) ?? (await productionServer(ctx))?.url ?? ctx.dev?.url;
}

export const crawlStep: Step = {
  name: "crawl",
  tool: "browser_crawl",
  after: ["dev server", "build"],
  // Lint and astro check sync .astro/, which restarts the dev server: it is crawled once they are done.
  alsoAfter: (ctx) => (givenUrl(ctx) || productionServer(ctx) ? [] : ["lint", "astro check"]),
  skip(ctx) {
    if (!givenUrl(ctx) && !productionServer(ctx) && !ctx.dev?.url) return "no server and no build to look at";
    // --changed compares the build with the last run's: without one, it cannot tell which pages changed.
    if (ctx.options.changes?.pages && !givenUrl(ctx) && !productionServer(ctx))
      return "no build to compare with the last run's: fix the build first";
    return enabled(ctx, "crawl") ? undefined : "disabled in vigie.config.json";
  },
  async run(ctx) {
    const pagesUrl = (await pagesUrlOf(ctx)) as string;
    const { config, options, site } = ctx;
    const choice = await chosenPages(ctx);
    const result = await crawlSite(options.session, pagesUrl, {
      a11y: enabled(ctx, "a11y"),
      // The classes and ids of each page, for the record: what a later stylesheet change can reach.
      tokens: true,
      // No sitemap: links are followed from the critical routes (under the site's base).
      base: site.base,
      startPaths: ctx.critical,
      alsoPaths: onDemandPaths(ctx),
      ...(choice ? { paths: choice.paths } : {}),
      acceptSelectors: (config.accept ?? []).flatMap((rule) => (rule.selector ? [rule.selector] : [])),
      shard: options.shard,
      maxPages: config.crawl?.maxPages,
      concurrency: config.crawl?.concurrency,
      signal: options.signal,
      // Each failing page's findings point at their source file and line where it can be known.
      sourceRoot: ctx.project.root,
      storageState: storageStateOf(ctx.project, config),
      onProgress: (done, total, path) => options.onProgress?.({ type: "crawl", done, total, path }),
    });
    const server: ServerSide = {
      causes: await serverCauses(ctx, pagesUrl, result.pages, (await productionServer(ctx))?.log),
      brokenLink: (page) => linkOnDemand(ctx, page),
    };
    const judged = result.pages.map((page) => judgePage(ctx, page, pagesUrl, server));
    const pages = judged.map(({ line }) => line);
    ctx.pages = pages;
    recordChecked(ctx, pages, result.pages, choice?.unaffected);
    const failing = pages.filter((page) => !page.ok).length;
    const source = choice ? `${choice.why}` : result.source;
    return {
      status: failing ? "fail" : "ok",
      summary: `${result.pages.length} pages (${source}), ${failing} failing${result.skipped ? `, ${result.skipped} not checked (maxPages)` : ""}${onDevServer(ctx) ? `; ${ctx.rendering.serveNote}` : ""}`,
      findings: judged.flatMap(({ findings }) => findings),
      pages,
      screenshots: await screenshotFailing(ctx, pagesUrl, result.pages),
    };
  },
};
