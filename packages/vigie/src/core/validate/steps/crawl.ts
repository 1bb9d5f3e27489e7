// Every page in Chromium: runtime faults and accessibility. On the production build when
// there is one (what readers get), else on the live server.

import type { CrawlPage, CrawlResult } from "../../browser/load/crawl.ts";
import type { PageFault } from "../../browser/page/faults.ts";
import { faultMessage, faultText, sourceOf } from "../../browser/page/faultView.ts";
import { unreachedNote } from "../../browser/page/network.ts";
import { recordCheckedPages } from "../../changes/record.ts";
import { a11yImpacts, type JudgedViolation, judgeViolations } from "../../checks/a11y.ts";
import { type CrawledPage, checkedPage, crawlSitePages, type SiteFault } from "../../checks/pages.ts";
import { chosenPages, enabled, givenUrl, productionServer, type Step, type ValidateContext } from "./context.ts";
import type { Finding, ValidationReport } from "./findings.ts";
import { screenshotFailing } from "./screenshots.ts";
import { dependencyFix, themeNote, themeOriginOf } from "./triage.ts";

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

/** One page fault as a validate finding. */
function faultFinding(ctx: ValidateContext, page: CrawlPage, fault: SiteFault): Finding {
  const source = sourceOf(fault);
  const at = source ? ` at ${source}` : "";
  const jsErrors = ctx.tool("browser_js_errors");
  const mermaid = fault.kind === "diagram";
  // A render that failed on a request this machine's network could not make (pageCauses.ts).
  const network = fault.unreachedHost !== undefined;
  return {
    // Unsure (which island a mismatch comes from, whether an island's own fault): a warning, never a false failure.
    severity: fault.unsure ? "warn" : "fail",
    tool: mermaid ? jsErrors : ctx.tool("browser_crawl"),
    rule: fault.rule ?? RULES[fault.kind],
    page: page.path,
    ...(source ? { file: source } : {}),
    ...(fault.viewport ? { viewport: fault.viewport } : {}),
    ...(network ? { unreachable: fault.unreachedHost } : {}),
    message: network ? `${faultMessage(fault, 200)}; ${fault.unsure}` : faultMessage(fault, 400),
    fix: network
      ? "Nothing to fix if the site's servers reach that host; check the page where they do."
      : mermaid
        ? `Fix the diagram's syntax${at} (${ctx.tool("build_lint")} shows the line), then check the page with ${jsErrors}.`
        : `${source ? `Fix the cause${at}` : `Reproduce with ${jsErrors} on this page, fix the cause,`} and check again.`,
  };
}

/** A page that answered but whose check was cut short: vigie does not know what it would have found. */
function interruptedFinding(ctx: ValidateContext, page: CrawlPage, why: string): Finding {
  return {
    severity: "warn",
    tool: ctx.tool("browser_crawl"),
    rule: "check-interrupted",
    page: page.path,
    message: `the page answered (HTTP ${page.status}) but its check did not finish (${why}): its faults, if any, are not known`,
    fix: `Check the page with ${ctx.tool("browser_js_errors")}.`,
  };
}

/**
 * One accessibility violation as the a11y check judged it, as a finding: a FAIL at the impacts
 * the config fails on, a WARN otherwise, and a WARN that names the theme when it is in a theme's
 * own markup (which the site cannot change).
 */
function a11yFinding(ctx: ValidateContext, page: CrawlPage, { violation, severity, source }: JudgedViolation): Finding {
  const theme = themeOriginOf({ rule: violation.id, page: page.path, target: violation.target }, violation.within ?? [], ctx.site.settings);
  return {
    severity: severity === "fail" && !theme ? "fail" : "warn",
    tool: ctx.tool("browser_a11y"),
    rule: violation.id,
    page: page.path,
    ...(source ? { file: source } : {}),
    target: violation.target,
    ...(theme ? { origin: theme.origin } : {}),
    ...(violation.matches ? { matches: violation.matches } : {}),
    message: `${violation.id} (${violation.impact}, ${violation.count}×): ${violation.help} at ${violation.target}${theme ? ` (${themeNote(theme)})` : ""}`,
    fix: theme
      ? `${dependencyFix({ rule: violation.id, target: violation.target }, theme.origin, theme.component)} See ${violation.helpUrl}`
      : `${source ? `Fix it at ${source}. ` : ""}See ${violation.helpUrl}`,
  };
}

/** One crawled page's findings and its line in the report. */
export function judgePage(ctx: ValidateContext, { page, faults, linkedFrom }: CrawledPage) {
  const a11yFaults = judgeViolations(ctx.site, ctx.config, page.a11y ?? []);
  // A broken link is the fault of the page that has it.
  const linking = (fault: SiteFault) => (fault.rule === "broken-link" && linkedFrom ? { ...page, path: linkedFrom } : page);
  const findings = [
    ...faults.map((fault) => faultFinding(ctx, linking(fault), fault)),
    ...(page.interrupted ? [interruptedFinding(ctx, page, page.interrupted)] : []),
    ...a11yFaults.map((judged) => a11yFinding(ctx, page, judged)),
  ];
  const ok = !faults.some((fault) => !fault.unsure) && !findings.some((finding) => finding.severity === "fail");
  const line: ValidationReport["pages"][number] = {
    path: page.path,
    status: page.status,
    ok,
    summary: `${(faults[0] && faultText(faults[0])) ?? a11yFaults[0]?.violation.id ?? "ok"}${page.reloaded ? ` (reloaded: ${page.reloaded})` : ""}`,
  };
  return { findings, line };
}

/** "; 2 pages reloaded (dev server re-optimised dependencies)": pages checked a second time, and why. */
function reloadedNote(pages: CrawlPage[]): string {
  const reloaded = pages.filter((page) => page.reloaded);
  if (!reloaded.length) return "";
  const why = [...new Set(reloaded.map((page) => page.reloaded))].join("; ");
  return `; ${reloaded.length} page${reloaded.length > 1 ? "s" : ""} reloaded (${why})`;
}

/** "; not judged: this machine cannot reach images.unsplash.com (118 requests on 35 pages)", said once for the run. */
const networkNote = (result: CrawlResult) => {
  const note = result.unreached ? unreachedNote(result.unreached, result.network) : undefined;
  return note ? `; ${note}` : result.network === "offline" ? "; network: offline (requests to other hosts blocked)" : "";
};

/** The build is not served as deployed (an adapter vigie does not know: the dev server), or by vigie's server of its output: said in the summary. */
const sayServe = (ctx: ValidateContext) => !givenUrl(ctx) && ctx.built && (ctx.site.serve === "dev" || ctx.site.serve === "output");

/** The server the pages are loaded from: the one given, else the build's static server, else the dev server. */
export async function pagesUrlOf(ctx: ValidateContext): Promise<string | undefined> {
  return givenUrl(ctx) ?? (await productionServer(ctx))?.url ?? ctx.dev?.url;
}

export const crawlStep: Step = {
  name: "crawl",
  tool: "browser_crawl",
  after: ["dev server", "build"],
  // Lint and astro check sync .astro/, which restarts the dev server: it is crawled once they are done.
  // (Under --changed on vigie's dev server, its warm checker writes nothing there.)
  alsoAfter: (ctx) => (givenUrl(ctx) || productionServer(ctx) ? [] : ctx.options.changes?.check?.warm ? ["lint"] : ["lint", "astro check"]),
  skip(ctx) {
    if (!givenUrl(ctx) && !productionServer(ctx) && !ctx.dev?.url) return "no server and no build to look at";
    // --changed compares the build with the last run's: without one, it cannot tell which pages changed.
    if (ctx.options.changes?.pages && !ctx.options.changes.dev && !givenUrl(ctx) && !productionServer(ctx))
      return "no build to compare with the last run's: fix the build first";
    return enabled(ctx, "crawl") ? undefined : "disabled in vigie.config.json";
  },
  async run(ctx) {
    const pagesUrl = (await pagesUrlOf(ctx)) as string;
    const { config, options } = ctx;
    const choice = await chosenPages(ctx);
    const production = await productionServer(ctx);
    const crawl = await crawlSitePages(ctx.site, {
      session: options.session,
      pagesUrl,
      config,
      a11y: enabled(ctx, "a11y"),
      // The classes and ids of each page, for the record: what a later stylesheet change can reach.
      tokens: true,
      // No sitemap: links are followed from the critical routes (under the site's base).
      startPaths: ctx.critical,
      ...(choice ? { paths: choice.paths } : {}),
      ...(options.shard ? { shard: options.shard } : {}),
      signal: options.signal,
      onProgress: (done, total, path, failing) => options.onProgress?.({ type: "crawl", done, total, path, failing }),
      ...(production?.log ? { serverLog: production.log } : {}),
    });
    const { result } = crawl;
    const judged = crawl.pages.map((page) => judgePage(ctx, page));
    const pages = judged.map(({ line }) => line);
    ctx.pages = pages;
    // After a crawl of the whole build (not a share of it): the record the next --changed compares with.
    if (!givenUrl(ctx) && production && !options.shard) {
      recordCheckedPages(ctx.site, crawl.pages.map(checkedPage), {
        failOn: [...a11yImpacts(ctx.config).failOn],
        unaffected: choice?.unaffected,
      });
    }
    const failing = pages.filter((page) => !page.ok).length;
    const phoned = result.pages.flatMap((page) => (page.phone ? [page.phone.ms] : []));
    const phone = phoned.length
      ? `; ${phoned.length} also on a phone (+${(phoned.reduce((sum, ms) => sum + ms, 0) / 1000).toFixed(1)} s)`
      : "";
    const source = choice ? `${choice.why}` : result.source;
    return {
      status: failing ? "fail" : "ok",
      summary: `${result.pages.length} page${result.pages.length === 1 ? "" : "s"} (${source}), ${failing} failing${result.skipped ? `, ${result.skipped} not checked (maxPages)` : ""}${phone}${reloadedNote(result.pages)}${sayServe(ctx) ? `; ${ctx.site.rendering.serveNote}` : ""}${networkNote(result)}`,
      findings: judged.flatMap(({ findings }) => findings),
      pages,
      screenshots: await screenshotFailing(
        ctx,
        pagesUrl,
        result.pages,
        new Set(pages.filter((page) => !page.ok).map((page) => page.path)),
        (impact) => a11yImpacts(ctx.config).reported.has(impact),
      ),
    };
  },
};
