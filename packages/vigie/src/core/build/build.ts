// The production build, with a timeout that kills the whole
// process group, its errors and warnings mapped to source files, and what it wrote.
import { writeReport } from "../answer.ts";
import type { Site } from "../astro/site.ts";
import { unreachableHere } from "../browser/page/network.ts";
import { loadConfig, type NetworkPolicy } from "../config.ts";
import { devStartWaitLine, writingAstroFiles } from "../devServer/settled.ts";
import { tailLines } from "../process/output.ts";
import { type CommandEnd, runCommand } from "../process/spawn.ts";
import type { Project } from "../project.ts";
import { mapsKept, planCheckBuild } from "./checkBuild.ts";
import { distStats } from "./dist.ts";
import { locateIssues } from "./locate.ts";
import { type BuildIssue, fallbackError, parseBuildOutput } from "./output.ts";

export const DEFAULT_BUILD_COMMAND = ["npm", "run", "build"];
export const DEFAULT_BUILD_TIMEOUT_MS = 120_000;

export interface BuildOptions {
  /** Default: vigie.config.json's build.command, else `npm run build`. */
  command?: string[];
  /** Default: vigie.config.json's build.timeoutS, else 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
  env?: Record<string, string>;
}

export interface BuildResult {
  command: string;
  success: boolean;
  timedOut: boolean;
  aborted: boolean;
  exitCode: number | null;
  /** Why the build's command ended, and the words for it ("timed out after 120 s"). */
  ended: CommandEnd;
  durationS: number;
  /** HTML files in the output folder (on failure: only those this run wrote). */
  pageCount: number;
  distBytes: number;
  errors: BuildIssue[];
  warnings: BuildIssue[];
  /** The last 20 lines of output, ANSI stripped. */
  outputTail: string[];
  /** The full log, relative to the project root. */
  report: string;
  /** The process group that ran the build (gone when this returns). */
  pid?: number;
  /**
   * The source maps for locating production errors: kept out of the output by the build for
   * checking, or not (a build script that is not a plain `astro build`), in one line.
   */
  sourceMaps: { kept: boolean; note: string; count?: number; bytes?: number };
}

/** The last 20 lines without stack frames (they are in the report), paths relative to the root. */
function outputTail(output: string, root: string): string[] {
  const lines = output
    .split("\n")
    .filter((line) => !/^\s+at .+[:(]/.test(line))
    .map((line) => line.replaceAll(`file://${root}/`, "").replaceAll(`${root}/`, ""))
    .join("\n");
  return tailLines(lines, 20, 140);
}

/** "Some chunks are larger than 100 kB": name the chunks, which rolldown does not. */
function explainChunkWarning(warning: BuildIssue, largest: { file: string; bytes: number }[]): BuildIssue {
  const limit = /larger than ([\d.]+) kB/.exec(warning.message)?.[1];
  if (!limit) return warning;
  const over = largest.filter((script) => script.bytes > Number(limit) * 1000);
  if (over.length === 0) return warning;
  return { ...warning, details: over.map((script) => `${script.file} ${Math.round(script.bytes / 1000)} kB`) };
}

/**
 * The errors marked `unreachable` that this machine's network explains: a request to a host it
 * cannot reach, by the config's `network` policy. Under "auto", all but a name that does not exist
 * while public names resolve here (a typo in a URL); "judge": none; "ignore" and "offline": all.
 */
async function withUnreachable(errors: BuildIssue[], policy: NetworkPolicy | undefined): Promise<BuildIssue[]> {
  const judged: BuildIssue[] = [];
  for (const error of errors)
    judged.push(error.reach && (await unreachableHere(error.reach, policy)) ? { ...error, unreachable: true } : error);
  return judged;
}

/** The last build asked for, by project root: builds of one project run one after the other. */
const queue = new Map<string, Promise<unknown>>();

/**
 * Builds the project. A build asked for while another of the same project runs waits for it,
 * then runs with its own command and timeout (two builds never write the output folder at once).
 */
export function runBuild(site: Site, options: BuildOptions = {}): Promise<BuildResult> {
  const { project } = site;
  const before = queue.get(project.root) ?? Promise.resolve();
  const build = before.catch(() => undefined).then(() => buildOnce(project, site.outDir, options));
  queue.set(project.root, build);
  void build
    .finally(() => {
      if (queue.get(project.root) === build) queue.delete(project.root);
    })
    .catch(() => undefined);
  return build;
}

async function buildOnce(project: Project, outDir: string, options: BuildOptions): Promise<BuildResult> {
  const { build: config, network } = loadConfig(project);
  const given = options.command ?? config?.command;
  const timeoutMs = options.timeoutMs ?? (config?.timeoutS ? config.timeoutS * 1000 : DEFAULT_BUILD_TIMEOUT_MS);
  // `npm run build` of a plain `astro build` runs as the build for checking (checkBuild.ts).
  const plan = planCheckBuild(project, given ?? DEFAULT_BUILD_COMMAND, given === undefined);
  const { command } = plan;
  // A dev server starting on the project writes .astro/ as the build does: the build waits for it.
  let startedAt = Date.now();
  const { value: run, waited } = await writingAstroFiles(
    project,
    () => {
      startedAt = Date.now();
      return runCommand(command, { cwd: project.root, timeoutMs, signal: options.signal, env: options.env });
    },
    options.signal ? { signal: options.signal } : {},
  );
  const { ended } = run;
  const success = ended.reason === "exit" && ended.exitCode === 0;
  const parsed = parseBuildOutput(run.output);
  let errors = await withUnreachable(locateIssues(project, parsed.errors), network);
  if (ended.reason === "timeout" || ended.reason === "abort") {
    errors = [{ message: `build ${ended.message}: the process group was killed` }, ...errors];
  } else if (ended.reason === "spawn-error") {
    errors = [{ message: `${run.command} ${ended.message}` }];
  } else if (ended.reason === "signal") {
    // Ended from outside (the OOM killer, a stop): that comes before what it printed.
    errors = [{ message: `build ${ended.message}` }, ...errors];
  } else if (!success && errors.length === 0) {
    errors = [fallbackError(run.output)];
  }
  // Astro empties the output folder first, so after a failure old files are not this build's.
  const stats = distStats(outDir, success ? undefined : startedAt - 1000);
  const warnings = locateIssues(project, parsed.warnings).map((warning) => explainChunkWarning(warning, stats.largestScripts));
  const durationS = Math.round(run.durationMs / 100) / 10;
  const kept = plan.maps && success ? mapsKept(project) : undefined;
  const sourceMaps = kept
    ? { kept: true, note: `${plan.note} (${kept.count} maps, ${Math.round(kept.bytes / 1000)} kB)`, ...kept }
    : { kept: false, note: plan.note };

  const header = [
    `# ${run.command} in ${project.root}`,
    `success: ${success}, ${durationS} s: ${run.command} ${ended.message}`,
    `output folder: ${outDir} (${stats.pageCount} pages, ${stats.distBytes} bytes)`,
    `source maps: ${sourceMaps.note}`,
    ...(waited ? [devStartWaitLine(waited)] : []),
    "",
    `## errors (${errors.length})`,
    ...errors.map((error) => JSON.stringify({ ...error, stack: undefined })),
    "",
    `## warnings (${warnings.length})`,
    ...warnings.map((warning) => JSON.stringify({ ...warning, stack: undefined })),
    "",
    "## output",
    "",
  ].join("\n");
  const report = writeReport(project, "build.log", `${header}${run.output}`);

  return {
    command: run.command,
    success,
    timedOut: run.timedOut,
    aborted: run.aborted,
    exitCode: run.exitCode,
    ended,
    durationS,
    pageCount: stats.pageCount,
    distBytes: stats.distBytes,
    errors,
    warnings,
    outputTail: outputTail(run.output, project.root),
    report,
    pid: run.pid,
    sourceMaps,
  };
}
