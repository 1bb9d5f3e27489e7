// The production build: its errors and warnings (Astro's known benign notices are not findings).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type BuildResult, runBuild } from "../../build/build.ts";
import type { BuildIssue } from "../../build/output.ts";
import { enabled, firstShard, loc, refreshSite, type Step, type ValidateContext } from "./context.ts";
import type { Finding } from "./findings.ts";
import { isBenignNotice } from "./triage.ts";

/**
 * The build's findings. An error this machine's network explains (the build marked it
 * `unreachable`) says so, and is not the site's fault.
 */
export function buildFindings(ctx: ValidateContext, result: BuildResult): { findings: Finding[]; warnings: number } {
  const tool = ctx.tool("build_run");
  const findings: Finding[] = result.errors.map((error): Finding => {
    if (error.host && error.unreachable) return networkFinding(ctx, error, result.report);
    return buildError(tool, error, result.report);
  });
  if (!result.success && result.errors.length === 0) {
    findings.push({
      severity: "fail",
      tool,
      rule: "build-error",
      message: `the build ${result.ended.message}`,
      fix: `Read ${result.report}.`,
    });
  }
  const warnings = result.warnings.filter((warning) => !isBenignNotice(warning.message, ctx.site.settings));
  for (const warning of warnings) {
    findings.push({
      severity: "warn",
      tool,
      rule: "build-warning",
      ...(warning.file ? { file: loc(warning.file, warning.line) } : {}),
      message: `build warning: ${warning.message}`,
      fix: warning.hint ?? `See ${result.report}.`,
    });
  }
  return { findings, warnings: warnings.length };
}

function buildError(tool: string, error: BuildIssue, report: string): Finding {
  return {
    severity: "fail",
    tool,
    rule: "build-error",
    ...(error.route ? { page: error.route.endsWith("/") ? error.route : `${error.route}/` } : {}),
    ...(error.file ? { file: loc(error.file, error.line, error.column) } : {}),
    message: `build error: ${error.message}${error.cause ? ` (${error.cause})` : ""}`,
    fix: error.hint ?? `Fix it in the source${error.file ? ` (${error.file})` : ""}, then run ${tool}. Full log: ${report}.`,
  };
}

/** A build whose page fetched a host this machine cannot reach: said as such, a warning. */
function networkFinding(ctx: ValidateContext, error: BuildIssue, report: string): Finding {
  const what = error.route ? `the page ${error.route}${error.file ? ` (${error.file})` : ""}` : (error.file ?? "the build");
  return {
    severity: "warn",
    tool: ctx.tool("build_run"),
    rule: "build-network",
    unreachable: error.host,
    ...(error.route ? { page: error.route.endsWith("/") ? error.route : `${error.route}/` } : {}),
    ...(error.file ? { file: loc(error.file, error.line, error.column) } : {}),
    message: `not judged: the build of ${what} fetched ${error.host}, which this machine cannot reach (${error.cause ?? error.message})`,
    fix: `Nothing to fix if the machines that build the site reach ${error.host}; the pages were checked on the dev server instead. To build here, serve that resource from the site or mock it offline. Full log: ${report}.`,
  };
}

export const buildStep: Step = {
  name: "build",
  tool: "build_run",
  after: [],
  skip(ctx) {
    // --changed while vigie's dev server runs: the pages reached are checked on it, nothing is built.
    const dev = ctx.options.changes?.dev;
    if (dev) {
      ctx.built = false;
      return `not run: --changed checks ${dev.why}; the full run builds`;
    }
    const why = !firstShard(ctx) ? "done by shard 1" : enabled(ctx, "build") ? undefined : "disabled in vigie.config.json";
    // No build of its own: the browser steps look at the one already there, if any.
    if (why) ctx.built = existsSync(join(ctx.site.staticDir, "index.html")) || ctx.site.routes !== undefined;
    return why;
  },
  // Astro's data store (.astro/) is written by a dev server as it starts and by the build: the
  // build runs once the dev server step is done (runBuild also waits for any other start). Not
  // the other way round: an adapter may clear its build output whenever Astro starts
  // (@astrojs/netlify empties .netlify/v1/functions/ as a dev server starts).
  alsoAfter: (ctx) => (ctx.options.baseUrl ? [] : ["dev server"]),
  async run(ctx) {
    const { config } = ctx;
    // The browser steps wait for the build: their Chromium starts beside it.
    if (enabled(ctx, "crawl") || enabled(ctx, "perf")) ctx.options.session.warm();
    const result = await runBuild(ctx.site, {
      command: config.build?.command,
      timeoutMs: config.build?.timeoutS ? config.build.timeoutS * 1000 : undefined,
      signal: ctx.options.signal,
    });
    ctx.built = result.success;
    // The routes of this build: prerendered, on demand, endpoints, each with its source.
    if (result.success) refreshSite(ctx);
    const { findings, warnings } = buildFindings(ctx, result);
    // A build that failed only for this machine's network is not the site's fault.
    const failed = findings.some((finding) => finding.severity === "fail");
    return {
      status: result.success ? (warnings ? "warn" : "ok") : failed ? "fail" : "warn",
      summary: result.success
        ? `${result.pageCount} pages in ${result.durationS} s${result.sourceMaps.kept ? "" : `; ${result.sourceMaps.note}`}`
        : failed
          ? `failed: ${result.errors[0]?.message ?? "see the log"}`
          : `failed for this machine's network (${findings[0]?.message.replace(/^not judged: /, "")}); the pages are checked on the dev server`,
      findings,
    };
  },
};
