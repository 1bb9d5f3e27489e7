// `vigie`: the core's public API, for scripts and other harnesses. Plain async functions
// over a Project (resolveProject finds it); nothing here depends on OpenCode or MCP.
// The faces have their own entry points: `vigie/opencode` and `vigie/mcp`.
export { type Answer, errorAnswer, MAX_ANSWER_BYTES, serialize, VigieError } from "./core/answer.ts";
export { readSite, type Site } from "./core/astro/site.ts";
export { type A11yResult, auditA11y, type Impact, type Violation } from "./core/browser/a11y/a11y.ts";
export type { ShotOptions, ShotResult } from "./core/browser/capture/screenshot.ts";
export { type DiffOptions, type DiffResult, visualDiff } from "./core/browser/capture/visualDiff.ts";
export { type CrawlOptions, type CrawlPage, type CrawlResult, crawlSite, failingPages } from "./core/browser/load/crawl.ts";
export { checkJsErrors } from "./core/browser/load/jsErrors.ts";
export { measurePerf, type PerfResult, type PerfSample } from "./core/browser/perf/perf.ts";
export { type ChromiumLocation, findChromium } from "./core/browser/session/executable.ts";
export { BrowserSession, sharedSession } from "./core/browser/session/session.ts";
export { type BuildOptions, type BuildResult, runBuild } from "./core/build/build.ts";
export { type LintOptions, type LintResult, lint } from "./core/checks/lint.ts";
export { saveScreenshot } from "./core/checks/screenshot.ts";
export { type Budgets, CONFIG_FILE, loadConfig, type VigieConfig } from "./core/config.ts";
export {
  devServerStatus,
  type HttpGetResult,
  httpGet,
  type LogsAnswer,
  readDevLogs,
  type StartOptions,
  type StartResult,
  type StatusResult,
  type StopResult,
  startDevServer,
  stopDevServer,
} from "./core/devServer/index.ts";
export { type BrokenLink, checkLinks, type LinkCheckResult } from "./core/links/links.ts";
export { type NextStep, StepError } from "./core/nextStep.ts";
export { type Project, ProjectNotFoundError, projectAt, resolveProject } from "./core/project.ts";
export { type CheckDiagnostic, type CheckOptions, type CheckResult, runCheck } from "./core/typecheck/typecheck.ts";
export { mergeReports, toHtml, toJUnit, toText } from "./core/validate/reports.ts";
export { type ValidateOptions, validate } from "./core/validate/runner.ts";
export { exitCodeOf, type Finding, type ValidationReport, type Verdict } from "./core/validate/steps/findings.ts";
export type { ToolContext, ToolDefinition } from "./tools/define.ts";
export { registry } from "./tools/registry.ts";
export { runTool } from "./tools/run.ts";
