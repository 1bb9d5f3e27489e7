// What the steps of `vigie validate` share: the project, its config and site facts, the
// options of the run, and what the dev and build steps produced. Each produced field has
// one writer (the step named beside it); the others only read it.
import { existsSync } from "node:fs";
import { afterBuild, type Site } from "../../astro/site.ts";
import type { NetworkPolicy } from "../../browser/page/findings.ts";
import type { BrowserSession } from "../../browser/session/session.ts";
import type { VigieConfig } from "../../config.ts";
import { type BuildServer, servePlan, startPlanned } from "../../production/servePlan.ts";
import type { Project } from "../../project.ts";
import type { Finding, PerfFigure, StepRecord, ValidationReport } from "./findings.ts";

export type ProgressEvent =
  | { type: "step"; name: string }
  | { type: "step-done"; step: StepRecord }
  | { type: "crawl"; done: number; total: number; path: string; failing: number };

/** The pages the browser steps load, and why those. */
export interface PageChoice {
  paths: string[];
  why: string;
  /** Pages left out because the change cannot reach them (a stylesheet rule none of their elements has): their last verdict stands. */
  unaffected?: string[];
}

/**
 * What a change can have affected (`validate --changed`): each field narrows one step;
 * a field left out keeps that step whole.
 */
export interface ChangeScope {
  /** Lint reports only these files or folders (relative to the root); translations are still looked up everywhere. */
  files?: string[];
  /**
   * Whether astro check runs; `why` is the step's summary when it does not ("no .ts, .astro or config
   * file changed"); `sync: false` when it reads the types already in .astro/ (`astro check --noSync`).
   */
  check?: {
    run: boolean;
    why: string;
    sync?: boolean;
    /** The changed files to ask the running dev server's warm checker about, instead of checking the whole project. */
    warm?: string[];
  };
  /** After the build: the pages crawl and perf load. Undefined (or no answer) keeps the whole crawl. */
  pages?: (site: Site) => Promise<PageChoice | undefined>;
  /**
   * The pages vigie's running dev server says the change reaches, checked on it without a build
   * (the build, the links of the build and perf do not run; the full run does them).
   */
  dev?: {
    /** The dev server, without a trailing slash. */
    url: string;
    /** The pages loaded (at most a few, spread over the routes reached). */
    paths: string[];
    /** How many pages the change reaches in all. */
    reached: number;
    /** The crawl's summary of the choice. */
    why: string;
    /** The site's pages the graph was asked about (they exist). */
    known: string[];
  };
}

export interface ValidateOptions {
  /** Validate a server already running on this machine; skips the dev-server lifecycle. */
  baseUrl?: string;
  /** Only this share of the crawl: { index: 1..count, count }. */
  shard?: { index: number; count: number };
  session: BrowserSession;
  onProgress?: (event: ProgressEvent) => void;
  /** How requests to other hosts that fail are judged, instead of the config's `network`. */
  network?: NetworkPolicy;
  signal?: AbortSignal;
  /** Check only what a change can have affected (see ChangeScope). */
  changes?: ChangeScope;
  /** The perf baseline: the measured pages' samples written to `write`, compared with those in `compare`. */
  perfBaseline?: { write?: string; compare?: string };
}

export type CheckName = keyof NonNullable<VigieConfig["checks"]>;

/** The tools steps name, by id: the agent sees them as `<prefix>_<id>` (blog_dev_start). */
export type ToolId =
  | "dev_start"
  | "dev_stop"
  | "dev_logs"
  | "dev_http_get"
  | "build_lint"
  | "build_run"
  | "build_links"
  | "build_check"
  | "browser_crawl"
  | "browser_js_errors"
  | "browser_a11y"
  | "browser_perf";

/** The dev server the run looks at (written by the dev step). */
export interface DevServerUse {
  /** Without a trailing slash; undefined for a server Astro backgrounded without saying its port. */
  url: string | undefined;
  /** This run started it, so stops it at the end. */
  started: boolean;
  /** Removes the exit hook that ends the server's process group should this process exit first. */
  removeExitHook?: () => void;
}

export interface ValidateContext {
  project: Project;
  config: VigieConfig;
  /** The site, read at the start and again after the build (its routes and folders come from the build). */
  site: Site;
  options: ValidateOptions;
  /** The tool's name as the agent sees it, with the project's prefix. */
  tool: (id: ToolId) => string;
  /** Routes checked over HTTP, the crawl's starting points, the first one measured by perf. */
  critical: string[];
  /** Written by the dev step. */
  dev?: DevServerUse;
  /** Written by the build step: whether there is a build to look at (this run's, or one already there). */
  built?: boolean;
  /** The server on the build (vigie's static server, or the adapter's), started by the first browser step that needs it. */
  production?: Promise<ProductionServer>;
  /** The pages chosen after the build (ChangeScope.pages), asked once. */
  choice?: Promise<PageChoice | undefined>;
  /** Written by the crawl step: the pages it checked (perf picks its article there). */
  pages: ValidationReport["pages"];
}

/** What one step saw: its status and summary line, its findings, and what the report lists. */
export interface StepOutcome {
  status: StepRecord["status"];
  summary: string;
  findings?: Finding[];
  pages?: ValidationReport["pages"];
  perf?: PerfFigure[];
  screenshots?: ValidationReport["screenshots"];
}

export interface Step {
  name: string;
  tool: ToolId;
  /** Steps this one waits for (by name); the others may run beside it. */
  after: string[];
  /** Steps before this one it also waits for, named once its `after` steps are done (what it looks at is known then). */
  alsoAfter?(ctx: ValidateContext): string[];
  /** Why it does not run here, or undefined when it runs. Asked once its `after` steps are done. */
  skip(ctx: ValidateContext): string | undefined;
  run(ctx: ValidateContext): Promise<StepOutcome>;
}

export const enabled = (ctx: ValidateContext, name: CheckName): boolean => ctx.config.checks?.[name] !== false;

export const firstShard = (ctx: ValidateContext): boolean => !ctx.options.shard || ctx.options.shard.index === 1;

/** `file:line[:column]`, or the file alone when the line is not known. */
export const loc = (file: string, line?: number, column?: number): string => (line ? `${file}:${line}${column ? `:${column}` : ""}` : file);

/** The server given with --base-url, without a trailing slash. */
export const givenUrl = (ctx: ValidateContext): string | undefined => ctx.options.baseUrl?.replace(/\/$/, "");

/** A server on the build; the adapter's own server and vigie's output servers also give what they logged (their server errors). */
export type ProductionServer = BuildServer;

/** Reads again how the site renders, after a build: its routes come from the build. */
export function refreshSite(ctx: ValidateContext): void {
  ctx.site = afterBuild(ctx.site);
}

/**
 * The server on the build, when there is a build and no server was given; started on first use,
 * as the site's serve plan says (servePlan.ts, the same plan `dev_start --mode preview` follows):
 * vigie's static server on a static build, the adapter's own server (`astro preview`) when it
 * has one, vigie's offline server of its build output for Vercel and Netlify; none for an
 * adapter vigie does not know (the pages are then checked on the dev server).
 */
export function productionServer(ctx: ValidateContext): Promise<ProductionServer> | undefined {
  if (ctx.production) return ctx.production;
  if (ctx.options.baseUrl || !ctx.built) return undefined;
  const plan = servePlan(ctx.site);
  if (plan.serve === "dev" || !existsSync(plan.needs)) return undefined;
  ctx.production = startPlanned(ctx.project, plan);
  // The steps that use it see its failure; a run whose steps all skip it must not crash on it.
  ctx.production?.catch(() => undefined);
  return ctx.production;
}

/** The pages a change can have affected (ChangeScope.pages), asked once after the build; undefined: all. */
export function chosenPages(ctx: ValidateContext): Promise<PageChoice | undefined> {
  ctx.choice ??= (async () => {
    const dev = ctx.options.changes?.dev;
    if (dev) return { paths: dev.paths, why: dev.why };
    const choose = ctx.options.changes?.pages;
    const server = productionServer(ctx);
    if (!choose || !server) return undefined;
    await server;
    return choose(ctx.site);
  })();
  return ctx.choice;
}
