// `vigie validate` without a model: the steps of ./steps/ driven over one typed context.
// A step starts once the steps it waits for are done, beside the others when a core is
// free (astro check needs no server and no browser: it runs while the site is built and
// crawled). The report lists the steps and their findings in the order of STEPS, however
// they ran. The run stops only what it started.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { VigieError } from "../answer.ts";
import { readSite, siteFacts } from "../astro/site.ts";
import { findChromium, NO_CHROMIUM_HINT } from "../browser/session/executable.ts";
import { DEFAULT_PREFIX, loadConfig } from "../config.ts";
import { resolveBaseUrl } from "../devServer/target.ts";
import type { Project } from "../project.ts";
import { buildStep } from "./steps/build.ts";
import { checkStep } from "./steps/check.ts";
import type { Step, StepOutcome, ToolId, ValidateContext, ValidateOptions } from "./steps/context.ts";
import { crawlStep } from "./steps/crawl.ts";
import { devStep, stopDev } from "./steps/dev.ts";
import { type Finding, type StepRecord, type ValidationReport, verdictOf } from "./steps/findings.ts";
import { flowsStep } from "./steps/flows.ts";
import { linksStep } from "./steps/links.ts";
import { lintStep } from "./steps/lint.ts";
import { perfStep } from "./steps/perf.ts";
import { routesStep } from "./steps/routes.ts";
import { setAccepted, setNotJudged } from "./steps/triage.ts";

export type { ProgressEvent, ValidateOptions } from "./steps/context.ts";

/** The steps, in the order the report lists them; each one's `after` names only steps before it. */
export const STEPS: readonly Step[] = [devStep, lintStep, buildStep, linksStep, checkStep, routesStep, crawlStep, flowsStep, perfStep];

/** What must hold for the harness to run at all: a project, a valid config, a Chromium. Throws a VigieError. */
function prepare(project: Project, options: ValidateOptions): ValidateContext {
  if (!existsSync(join(project.root, "package.json"))) {
    throw new VigieError(
      `no project at ${project.root}: there is no package.json`,
      "Run vigie from the project's root folder, or pass --project DIR.",
    );
  }
  const loaded = loadConfig(project);
  // --network overrides the config's policy for this run.
  const config = options.network ? { ...loaded, network: options.network } : loaded;
  const site = readSite(project);
  // A --base-url that is not a server on this machine stops the run before any step.
  if (options.baseUrl) resolveBaseUrl(project, { baseUrl: options.baseUrl });
  // Chromium is needed only by the checks that look at pages in a browser.
  const browserChecks = (["crawl", "perf"] as const).some((name) => config.checks?.[name] !== false);
  if (browserChecks && !findChromium()) throw new VigieError("no Chromium to look at the pages with", NO_CHROMIUM_HINT);
  const prefix = config.prefix ?? DEFAULT_PREFIX;
  return {
    project,
    config,
    site,
    options,
    tool: (id: ToolId) => `${prefix}_${id}`,
    critical: config.criticalRoutes ?? site.critical,
    pages: [],
  };
}

/** The hint a thrown value carries (VigieError, StepError), if any. */
function hintOf(error: unknown): string | undefined {
  const hint = typeof error === "object" && error !== null ? (error as { hint?: unknown }).hint : undefined;
  return typeof hint === "string" ? hint : undefined;
}

export interface StepResult {
  record: StepRecord;
  outcome?: StepOutcome;
  /** "X could not run: …", when the step threw. */
  error?: Finding;
}

/** A share of the machine: runs `work` once fewer than `width` others run. */
type Slot = <T>(work: () => Promise<T>) => Promise<T>;

function slots(width: number): Slot {
  const waiting: (() => void)[] = [];
  let running = 0;
  return async (work) => {
    if (running < width) running += 1;
    // A step that ends hands its place to the first one waiting.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/** Runs one step in a slot, or records why it does not run (decided without waiting for a slot); never throws. */
async function runStep(ctx: ValidateContext, step: Step, slot: Slot): Promise<StepResult> {
  const { onProgress, signal } = ctx.options;
  const tool = ctx.tool(step.tool);
  let t0 = Date.now();
  let result: StepResult;
  try {
    const skipped = signal?.aborted ? "cancelled" : step.skip(ctx);
    if (skipped !== undefined) {
      result = { record: { name: step.name, tool, ms: 0, status: "skipped", summary: skipped } };
    } else {
      const outcome = await slot(() => {
        onProgress?.({ type: "step", name: step.name });
        t0 = Date.now();
        return step.run(ctx);
      });
      result = { record: { name: step.name, tool, ms: Date.now() - t0, status: outcome.status, summary: outcome.summary }, outcome };
    }
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] || "failed";
    const fix = hintOf(error) ?? "Run the tool alone to see the full error.";
    result = {
      record: { name: step.name, tool, ms: Date.now() - t0, status: "error", summary: message },
      error: { severity: "fail", tool, message: `${step.name} could not run: ${message}`, fix },
    };
  }
  onProgress?.({ type: "step-done", step: result.record });
  return result;
}

/** At most this many steps at once: one per core (a crawl's Chromium counts as one). */
const defaultWidth = () => Math.max(2, availableParallelism());

/**
 * Runs the steps over the context: each once the steps it waits for are done, at most
 * `width` at a time, earlier steps first. The results come back in the steps' order.
 */
export async function runSteps(ctx: ValidateContext, steps: readonly Step[], width = defaultWidth()): Promise<StepResult[]> {
  const slot = slots(width);
  const done = new Map<string, Promise<StepResult>>();
  for (const step of steps) {
    const earlier = new Map(done);
    const waitFor = (names: string[]) =>
      Promise.all(
        names.map((name) => {
          const waited = earlier.get(name);
          if (!waited) throw new Error(`step "${step.name}" waits for "${name}", which is not a step before it`);
          return waited;
        }),
      );
    const before = waitFor(step.after);
    done.set(
      step.name,
      before.then(() => waitFor(step.alsoAfter?.(ctx) ?? [])).then(() => runStep(ctx, step, slot)),
    );
  }
  return Promise.all(steps.map((step) => done.get(step.name) as Promise<StepResult>));
}

/** Stops what the run started: the static server on the build, the dev server (the "stop" record). */
async function cleanUp(ctx: ValidateContext): Promise<StepRecord | undefined> {
  await ctx.production?.then(
    (server) => server.close(),
    () => undefined,
  );
  return stopDev(ctx);
}

function emptyReport(project: Project, options: ValidateOptions, started: number): ValidationReport {
  return {
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
}

/** The report's lists from the steps' results, in the steps' order. */
function collect(report: ValidationReport, results: StepResult[]): void {
  for (const { record, outcome, error } of results) {
    report.steps.push(record);
    if (error) report.findings.push(error);
    report.findings.push(...(outcome?.findings ?? []));
    report.pages.push(...(outcome?.pages ?? []));
    report.perf.push(...(outcome?.perf ?? []));
    report.screenshots.push(...(outcome?.screenshots ?? []));
  }
}

/** The verdict: findings the config accepts are listed apart and do not set it. */
function finish(report: ValidationReport, ctx: ValidateContext | undefined, started: number): ValidationReport {
  const accepted = setAccepted(report.findings, ctx?.config.accept ?? []);
  if (accepted.length) report.accepted = accepted;
  // What this machine's network explains is said, and does not set the verdict.
  const notJudged = setNotJudged(report.findings);
  if (notJudged.length) report.notJudged = notJudged;
  for (const finding of report.findings) delete finding.matches;
  report.verdict = report.harnessError ? "FAIL" : verdictOf(report.findings);
  report.durationS = Math.round((Date.now() - started) / 100) / 10;
  return report;
}

export async function validate(project: Project, options: ValidateOptions): Promise<ValidationReport> {
  const started = Date.now();
  const report = emptyReport(project, options, started);
  let ctx: ValidateContext;
  try {
    ctx = prepare(project, options);
  } catch (error) {
    report.harnessError = {
      message: error instanceof Error ? error.message : String(error),
      hint: hintOf(error) ?? "Fix the problem above and run again.",
    };
    return finish(report, undefined, started);
  }
  try {
    collect(report, await runSteps(ctx, STEPS));
  } finally {
    // The site as the run last read it: after a build, with that build's routes.
    report.site = siteFacts(ctx.site);
    const stop = await cleanUp(ctx);
    if (stop) report.steps.push(stop);
  }
  return finish(report, ctx, started);
}
