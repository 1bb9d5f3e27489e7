// The validator's workflow, without a model: dev server → lint → build → links → astro
// check → HTTP on the critical routes → crawl (runtime errors and a11y of every page) →
// perf → verdict. It stops only what it started.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VigieError } from "../answer.ts";
import type { Violation } from "../browser/a11y.ts";
import { crawlSite } from "../browser/crawl.ts";
import { findChromium, NO_CHROMIUM_HINT } from "../browser/executable.ts";
import { withTimeout } from "../browser/jsErrors.ts";
import { measurePerf } from "../browser/perf.ts";
import { capture } from "../browser/screenshot.ts";
import type { BrowserSession } from "../browser/session.ts";
import { checkPage, hasFaults } from "../browser/watch.ts";
import { criticalRoutesOf, readAstroSettings, readSiteFacts, type SiteFacts } from "../build/astro-config.ts";
import { runBuild } from "../build/build.ts";
import { CheckUnavailableError, runCheck } from "../check/check.ts";
import { budgetsOf, loadConfig, type VigieConfig } from "../config.ts";
import { devServerStatus, startDevServer, stopDevServer } from "../devServer/index.ts";
import { checkLinks } from "../links/links.ts";
import { lint } from "../lint/lint.ts";
import { type Project, relativePath, statePath } from "../project.ts";
import type { Located } from "../source/located.ts";
import { type StaticServer, serveStatic } from "../staticServer.ts";
import { resolveBaseUrl } from "../target.ts";
import { type StepRecord, type ValidationReport, verdictOf } from "./findings.ts";
import { dependencyFix, isBenignNotice, isErrorPage, originOf, setAccepted } from "./triage.ts";

export type ProgressEvent =
  | { type: "step"; name: string }
  | { type: "step-done"; step: StepRecord }
  | { type: "crawl"; done: number; total: number; path: string };

export interface ValidateOptions {
  /** Validate a server already running on this machine; skips the dev-server lifecycle. */
  baseUrl?: string;
  /** Only this share of the crawl: { index: 1..count, count }. */
  shard?: { index: number; count: number };
  session: BrowserSession;
  onProgress?: (event: ProgressEvent) => void;
  signal?: AbortSignal;
}

const loc = (file: string, line?: number, column?: number) => (line ? `${file}:${line}${column ? `:${column}` : ""}` : file);

/** The home under the site's base and each other locale's home, from the Astro config. */
export function defaultCriticalRoutes(project: Project): string[] {
  return criticalRoutesOf(readAstroSettings(project));
}

export async function validate(project: Project, options: ValidateOptions): Promise<ValidationReport> {
  const started = Date.now();
  const report: ValidationReport = {
    verdict: "PASS",
    project: project.root,
    startedAt: new Date(started).toISOString(),
    durationS: 0,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    steps: [],
    findings: [],
    pages: [],
    perf: [],
    screenshots: [],
  };
  const findings = report.findings;
  let site: SiteFacts = {
    base: "/",
    trailingSlash: "ignore",
    locales: [],
    sitemap: false,
    starlight: false,
    collections: [],
    criticalRoutes: ["/"],
  };
  let accept: NonNullable<VigieConfig["accept"]> = [];
  const finish = () => {
    // Findings the config accepts are listed apart and do not set the verdict.
    const accepted = setAccepted(findings, accept);
    if (accepted.length) report.accepted = accepted;
    for (const finding of findings) delete finding.matches;
    report.verdict = report.harnessError ? "FAIL" : verdictOf(findings);
    report.durationS = Math.round((Date.now() - started) / 100) / 10;
    return report;
  };

  // What must hold for the harness to run at all.
  let config: VigieConfig;
  try {
    if (!existsSync(join(project.root, "package.json"))) {
      throw new VigieError(
        `no project at ${project.root}: there is no package.json`,
        "Run vigie from the project's root folder, or pass --project DIR.",
      );
    }
    config = loadConfig(project);
    accept = config.accept ?? [];
    site = readSiteFacts(project);
    report.site = site;
    if (!findChromium()) throw new VigieError("no Chromium to look at the pages with", NO_CHROMIUM_HINT);
  } catch (error) {
    report.harnessError = { message: (error as Error).message, hint: (error as VigieError).hint ?? "Fix the problem above and run again." };
    return finish();
  }
  const enabled = (name: keyof NonNullable<VigieConfig["checks"]>) => config.checks?.[name] !== false;
  const firstShard = !options.shard || options.shard.index === 1;

  const step = async (name: string, tool: string, work: () => Promise<{ status: StepRecord["status"]; summary: string }>) => {
    options.onProgress?.({ type: "step", name });
    const t0 = Date.now();
    let record: StepRecord;
    try {
      const outcome = await work();
      record = { name, tool, ms: Date.now() - t0, ...outcome };
    } catch (error) {
      const message = (error as Error).message.split("\n")[0] ?? "failed";
      findings.push({
        severity: "fail",
        tool,
        message: `${name} could not run: ${message}`,
        fix: (error as VigieError).hint ?? "Run the tool alone to see the full error.",
      });
      record = { name, tool, ms: Date.now() - t0, status: "error", summary: message };
    }
    report.steps.push(record);
    options.onProgress?.({ type: "step-done", step: record });
    return record;
  };
  const skip = (name: string, tool: string, why: string) => {
    const record: StepRecord = { name, tool, ms: 0, status: "skipped", summary: why };
    report.steps.push(record);
    options.onProgress?.({ type: "step-done", step: record });
  };

  let devUrl: string | undefined;
  let startedDev = false;
  let killDevOnExit: (() => void) | undefined;
  let production: StaticServer | undefined;
  try {
    // 1. The dev server: reuse the running one, or start one (and stop it at the end).
    if (options.baseUrl) {
      resolveBaseUrl(project, { baseUrl: options.baseUrl });
      skip("dev server", "blog_dev_start", `validating ${options.baseUrl} instead`);
    } else {
      await step("dev server", "blog_dev_start", async () => {
        const status = await devServerStatus(project);
        if (status.running && typeof status.url === "string") {
          devUrl = String(status.url).replace(/\/$/, "");
          return { status: "ok", summary: `reusing the running server at ${devUrl}` };
        }
        const answer = await startDevServer(project, { command: config.dev?.command, port: config.dev?.port, signal: options.signal });
        if (answer.status === "failed") {
          const tail = Array.isArray(answer.logTail) ? answer.logTail.slice(-3).join(" | ") : "";
          findings.push({
            severity: "fail",
            tool: "blog_dev_start",
            message: `the dev server did not start: ${String(answer.error)}${tail ? ` (log: ${tail})` : ""}`,
            fix: String(answer.hint ?? "Run the dev command by hand and read its output."),
          });
          return { status: "fail", summary: String(answer.error) };
        }
        startedDev = answer.status === "started";
        if (startedDev && typeof answer.pid === "number") {
          // Should this process die before the end (a closed pipe, an uncaught error), the
          // dev server it started goes with it.
          const group = answer.pid;
          killDevOnExit = () => {
            try {
              process.kill(-group, "SIGTERM");
            } catch {
              // already gone
            }
          };
          process.once("exit", killDevOnExit);
        }
        devUrl = String(answer.url).replace(/\/$/, "");
        return { status: "ok", summary: `${answer.status} at ${devUrl}${answer.readyMs ? ` in ${answer.readyMs} ms` : ""}` };
      });
    }

    // 2. Content lint: frontmatter, translations, MDX expressions, images, Mermaid.
    if (enabled("lint") && firstShard) {
      await step("lint", "blog_build_lint", async () => {
        const result = await lint(project, { signal: options.signal });
        const problems = [...(result.content?.problems ?? []), ...(result.mermaid?.problems ?? [])];
        for (const problem of problems) {
          findings.push({
            severity: problem.rule === "translation" ? "warn" : "fail",
            tool: "blog_build_lint",
            rule: problem.rule,
            file: loc(problem.file, problem.line, problem.column),
            message: `${problem.rule}: ${problem.message}`,
            fix: problem.hint,
          });
        }
        return {
          status: problems.some((p) => p.rule !== "translation") ? "fail" : problems.length ? "warn" : "ok",
          summary: `${result.files} files, ${problems.length} problem${problems.length === 1 ? "" : "s"}`,
        };
      });
    } else skip("lint", "blog_build_lint", firstShard ? "disabled in vigie.config.json" : "done by shard 1");

    // 3. The production build, its links, and astro check.
    let built = false;
    if (enabled("build") && firstShard) {
      await step("build", "blog_build_run", async () => {
        const result = await runBuild(project, {
          command: config.build?.command,
          timeoutMs: config.build?.timeoutS ? config.build.timeoutS * 1000 : undefined,
          signal: options.signal,
        });
        built = result.success;
        for (const error of result.errors) {
          findings.push({
            severity: "fail",
            tool: "blog_build_run",
            rule: "build-error",
            ...(error.route ? { page: error.route.endsWith("/") ? error.route : `${error.route}/` } : {}),
            ...(error.file ? { file: loc(error.file, error.line, error.column) } : {}),
            message: `build error: ${error.message}`,
            fix:
              error.hint ??
              `Fix it in the source${error.file ? ` (${error.file})` : ""}, then run blog_build_run. Full log: ${result.report}.`,
          });
        }
        if (!result.success && result.errors.length === 0) {
          findings.push({
            severity: "fail",
            tool: "blog_build_run",
            rule: "build-error",
            message: result.timedOut ? `the build timed out after ${result.durationS} s` : `the build failed (exit ${result.exitCode})`,
            fix: `Read ${result.report}.`,
          });
        }
        // Astro's and Starlight's known benign notices are not findings.
        const warnings = result.warnings.filter((warning) => !isBenignNotice(warning.message, site));
        for (const warning of warnings) {
          findings.push({
            severity: "warn",
            tool: "blog_build_run",
            rule: "build-warning",
            ...(warning.file ? { file: loc(warning.file, warning.line) } : {}),
            message: `build warning: ${warning.message}`,
            fix: warning.hint ?? `See ${result.report}.`,
          });
        }
        return {
          status: result.success ? (warnings.length ? "warn" : "ok") : "fail",
          summary: result.success
            ? `${result.pageCount} pages in ${result.durationS} s`
            : `failed: ${result.errors[0]?.message ?? "see the log"}`,
        };
      });
    } else {
      built = existsSync(join(readAstroSettings(project).outDir, "index.html"));
      skip("build", "blog_build_run", firstShard ? "disabled in vigie.config.json" : "done by shard 1");
    }

    if (enabled("links") && firstShard && built) {
      await step("links", "blog_build_links", async () => {
        const result = await checkLinks(project);
        let failing = 0;
        for (const broken of result.broken) {
          const rule = broken.where.includes("hreflang") ? "hreflang-alternate" : "broken-link";
          const origin = originOf({ rule, page: broken.from, target: broken.where }, [], site);
          // An error page is indexed by no search engine: its alternates lead nobody astray.
          const severity = rule === "hreflang-alternate" && isErrorPage(broken.from) ? "warn" : "fail";
          if (severity === "fail") failing += 1;
          findings.push({
            severity,
            tool: "blog_build_links",
            rule,
            page: broken.from,
            ...(broken.source ? { file: broken.source } : {}),
            target: broken.where,
            ...(origin ? { origin } : {}),
            message: `broken link to ${broken.to}: ${broken.reason}${broken.pages > 1 ? ` (on ${broken.pages} pages)` : ""}${origin ? ` (from ${origin})` : ""}`,
            fix: origin
              ? dependencyFix({ rule, target: undefined }, origin).replace('"reason"', `"page": "${broken.from}", "reason"`)
              : `Point the link at an existing page, asset or id${broken.source ? ` in ${broken.source}` : ""}.`,
          });
        }
        return {
          status: failing ? "fail" : result.broken.length ? "warn" : "ok",
          summary: `${result.checked} links on ${result.pages} pages, ${result.broken.length} broken`,
        };
      });
    } else skip("links", "blog_build_links", built ? "not this shard, or disabled" : "no build to check");

    if (enabled("check") && firstShard) {
      await step("astro check", "blog_build_check", async () => {
        const result = await runCheck(project, { signal: options.signal }).catch((error: Error) => error);
        if (result instanceof CheckUnavailableError) {
          // Not the site's fault: say why, and how to enable it.
          return { status: "skipped" as const, summary: `not run: ${result.message}. ${result.hint}` };
        }
        if (result instanceof Error) throw result;
        for (const diagnostic of result.diagnostics.filter((d) => d.severity === "error")) {
          findings.push({
            severity: "warn",
            tool: "blog_build_check",
            rule: "type-error",
            file: loc(diagnostic.file, diagnostic.line, diagnostic.column),
            message: `type error: ${diagnostic.message}`,
            fix: "Fix the types; run blog_build_check to see every diagnostic.",
          });
        }
        return { status: result.errors ? "warn" : "ok", summary: `${result.errors} errors, ${result.warnings} warnings` };
      });
    } else skip("astro check", "blog_build_check", firstShard ? "disabled in vigie.config.json" : "done by shard 1");

    // 4. HTTP on the critical routes of the server under test.
    const liveUrl = options.baseUrl?.replace(/\/$/, "") ?? devUrl;
    const critical = config.criticalRoutes ?? defaultCriticalRoutes(project);
    if (liveUrl && firstShard) {
      await step("critical routes", "blog_dev_http_get", async () => {
        let failed = 0;
        for (const route of critical) {
          const response = await fetch(`${liveUrl}${route}`, { redirect: "manual", signal: AbortSignal.timeout(30_000) }).catch(
            (error: Error) => error,
          );
          const status = response instanceof Error ? 0 : response.status;
          if (status === 0 || status >= 400) {
            failed += 1;
            findings.push({
              severity: "fail",
              tool: "blog_dev_http_get",
              rule: "http-status",
              page: route,
              message: status ? `HTTP ${status}` : `no answer: ${(response as Error).message}`,
              fix: "Open the route with blog_dev_http_get and read blog_dev_logs for the server's error.",
            });
          }
        }
        return { status: failed ? "fail" : "ok", summary: `${critical.length - failed}/${critical.length} routes answer` };
      });
    } else skip("critical routes", "blog_dev_http_get", liveUrl ? "done by shard 1" : "no server to ask");

    // 5. Every page in Chromium: runtime faults and accessibility. On the production
    // build when there is one (what readers get), else on the live server.
    if (!options.baseUrl && built && existsSync(readAstroSettings(project).outDir))
      production = await serveStatic(readAstroSettings(project).outDir, { base: site.base });
    const pagesUrl = options.baseUrl?.replace(/\/$/, "") ?? production?.url ?? devUrl;
    if (pagesUrl && enabled("crawl")) {
      await step("crawl", "blog_browser_crawl", async () => {
        const result = await crawlSite(options.session, pagesUrl, {
          a11y: enabled("a11y"),
          // No sitemap: links are followed from the critical routes (under the site's base).
          base: site.base,
          startPaths: critical,
          acceptSelectors: accept.flatMap((rule) => (rule.selector ? [rule.selector] : [])),
          shard: options.shard,
          maxPages: config.crawl?.maxPages,
          concurrency: config.crawl?.concurrency,
          signal: options.signal,
          // Each failing page's findings point at their source file and line where it can be known.
          sourceRoot: project.root,
          onProgress: (done, total, path) => options.onProgress?.({ type: "crawl", done, total, path }),
        });
        const failOn = new Set(config.a11y?.failOn ?? ["serious", "critical"]);
        let failing = 0;
        for (const page of result.pages) {
          const faults: { rule: string; text: string; source?: string }[] = [];
          const fault =
            (rule: string) =>
            (text: string, located?: Located): void => {
              faults.push({ rule, text, ...(located && "source" in located ? { source: located.source } : {}) });
            };
          if (page.status === 0 || page.status >= 400) fault("http-status")(page.status ? `HTTP ${page.status}` : "no answer");
          if (page.devError) fault("page-error")(`dev error page: ${page.devError.name}: ${page.devError.message}`);
          for (const diagram of page.mermaid)
            fault("mermaid")(`Mermaid diagram ${diagram.diagram} failed: ${diagram.message}`, diagram.located);
          for (const [index, error] of page.errors.entries()) fault("page-error")(error, page.errorSources?.[index]);
          for (const failed of page.failedRequests)
            fault("failed-request")(`${failed.status ?? failed.reason} ${failed.type} ${failed.url.replace(pagesUrl, "")}`, failed.located);
          for (const { rule, text: fault, source } of faults) {
            const at = source ? ` at ${source}` : "";
            findings.push({
              severity: "fail",
              tool: fault.startsWith("Mermaid") ? "blog_browser_js_errors" : "blog_browser_crawl",
              rule,
              page: page.path,
              ...(source ? { file: source } : {}),
              message: fault,
              fix: fault.startsWith("Mermaid")
                ? `Fix the diagram's syntax${at} (blog_build_lint shows the line), then check the page with blog_browser_js_errors.`
                : `${source ? `Fix the cause${at}` : "Reproduce with blog_browser_js_errors on this page, fix the cause,"} and check again.`,
            });
          }
          const a11yFaults = (page.a11y ?? []).filter((v: Violation) => failOn.has(v.impact) || v.impact === "moderate");
          for (const violation of a11yFaults) {
            const origin = originOf({ rule: violation.id, page: page.path, target: violation.target }, violation.within ?? [], site);
            // Images are found back in the sources by their src: the first one located.
            const source = violation.sources?.flatMap((located) => ("source" in located ? [located.source] : []))[0];
            findings.push({
              severity: failOn.has(violation.impact) ? "fail" : "warn",
              tool: "blog_browser_a11y",
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
            });
          }
          const ok = faults.length === 0 && !a11yFaults.some((v) => failOn.has(v.impact));
          if (!ok) failing += 1;
          report.pages.push({ path: page.path, status: page.status, ok, summary: faults[0]?.text ?? a11yFaults[0]?.id ?? "ok" });
        }
        // A picture of the first failing pages, for the HTML report.
        for (const page of result.pages.filter(hasFaults).slice(0, 4)) {
          const file = await options.session
            .withPage(async (browserPage) =>
              withTimeout(
                (async () => {
                  await checkPage(browserPage, `${pagesUrl}${page.path}`);
                  return capture(browserPage, { fullPage: false });
                })(),
                45_000,
                () => browserPage.close(),
              ),
            )
            .then((png) => {
              const path = statePath(
                project,
                "reports",
                "screenshots",
                `${page.path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "home"}.png`,
              );
              writeFileSync(path, png);
              return relativePath(project, path);
            })
            .catch(() => undefined);
          if (file) report.screenshots.push({ page: page.path, file });
        }
        return {
          status: failing ? "fail" : "ok",
          summary: `${result.pages.length} pages (${result.source}), ${failing} failing${result.skipped ? `, ${result.skipped} not checked (maxPages)` : ""}`,
        };
      });
    } else skip("crawl", "blog_browser_crawl", pagesUrl ? "disabled in vigie.config.json" : "no server and no build to look at");

    // 6. Performance of the home and one article, judged on production only.
    // Only on what readers get: a dev server's timings would not be judged, and a dev
    // server that reloads pages cannot be measured steadily.
    const productionUrl = options.baseUrl?.replace(/\/$/, "") ?? production?.url;
    if (productionUrl && enabled("perf") && firstShard) {
      await step("perf", "blog_browser_perf", async () => {
        const article = report.pages.find((page) => /\/articles\/[^/]+\/$/.test(page.path))?.path;
        const routes = config.perfRoutes ?? [critical[0] ?? "/", ...(article ? [article] : [])];
        const budgets = budgetsOf(config);
        let over = 0;
        for (const route of routes) {
          const result = await measurePerf(options.session, `${productionUrl}${route}`, { runs: 5, budgets }).catch(
            (error: Error) => error,
          );
          if (result instanceof Error) {
            findings.push({
              severity: "warn",
              tool: "blog_browser_perf",
              rule: "perf",
              page: route,
              message: `could not measure: ${result.message.split("\n")[0]}`,
              fix: "Measure it alone with blog_browser_perf; a dev server that keeps reloading the page cannot be measured.",
            });
            continue;
          }
          const judged = result.server === "production";
          report.perf.push({
            page: route,
            server: result.server,
            loadMs: result.medians.loadMs,
            ttfbMs: result.medians.ttfbMs,
            lcpMs: result.medians.lcpMs,
            cls: result.medians.cls,
            transferKb: result.medians.transferKb,
            requests: result.medians.requests,
            verdict: judged ? result.verdict : "not_judged",
          });
          if (!judged) continue;
          for (const [metric, entry] of Object.entries(result.budget)) {
            if (!entry || entry.pass) continue;
            over += 1;
            findings.push({
              severity: "warn",
              tool: "blog_browser_perf",
              rule: "perf-budget",
              page: route,
              message: `${metric} ${entry.value} over the budget of ${entry.max} (median of ${result.runs} loads)`,
              fix: "Find what delays the page (blocking scripts, large images, heavy libraries: load them lazily), then measure again with blog_browser_perf.",
            });
          }
        }
        return {
          status: over ? "warn" : "ok",
          summary: report.perf
            .map((p) => `${p.page} load ${p.loadMs} ms${p.verdict === "not_judged" ? " (dev, not judged)" : ""}`)
            .join(", "),
        };
      });
    } else
      skip(
        "perf",
        "blog_browser_perf",
        productionUrl ? "not this shard, or disabled" : "no production build to measure (dev-server timings are not judged)",
      );
  } finally {
    // 7. Stop what we started, and only that.
    await production?.close();
    if (killDevOnExit) process.off("exit", killDevOnExit);
    if (startedDev) {
      const stopped = await stopDevServer(project).catch((error: Error) => ({ stopped: false, error: error.message }));
      report.steps.push({
        name: "stop",
        tool: "blog_dev_stop",
        ms: 0,
        status: stopped.stopped ? "ok" : "error",
        summary: stopped.stopped
          ? "stopped the dev server it started"
          : `could not stop the dev server: ${String((stopped as { error?: unknown }).error ?? "")}`,
      });
    }
  }
  return finish();
}
