// The type check: `astro check` (TypeScript and Astro diagnostics), its
// output read into counts and diagnostics, the full output kept in a report.
import { createRequire } from "node:module";
import { join } from "node:path";
import { VigieError, writeReport } from "../answer.ts";
import { writingAstroFiles } from "../devServer/settled.ts";
import { tailLines } from "../process/output.ts";
import { runCommand } from "../process/spawn.ts";
import type { Project } from "../project.ts";
import { type CachedRun, type CacheKey, cacheDir, cacheOff, checkCacheKey, readCached, writeCached } from "./cache.ts";

export const CHECK_COMMAND = ["npm", "exec", "--no", "--", "astro", "check"];
export const DEFAULT_CHECK_TIMEOUT_MS = 300_000;
export const CHECK_INSTALL = "npm i -D @astrojs/check typescript";

/** astro check cannot run in this project: a package it needs is not installed. Not the site's fault. */
export class CheckUnavailableError extends VigieError {
  readonly missing: string[];
  constructor(missing: string[]) {
    super(
      `astro check needs ${missing.join(" and ")}, which ${missing.length > 1 ? "are" : "is"} not installed in this project`,
      `To enable it: ${CHECK_INSTALL}`,
      { missing, install: CHECK_INSTALL },
    );
    this.name = "CheckUnavailableError";
    this.missing = missing;
  }
}

/** The packages astro check needs that the project cannot resolve (astro would try to install them, or stop). */
export function missingCheckPackages(project: Project): string[] {
  const require = createRequire(join(project.root, "package.json"));
  const resolves = (specifier: string) => {
    try {
      require.resolve(specifier);
      return true;
    } catch {
      return false;
    }
  };
  return ["@astrojs/check", "typescript"].filter((name) => !resolves(`${name}/package.json`) && !resolves(name));
}

export interface CheckDiagnostic {
  file: string;
  line: number;
  column: number;
  severity: "error" | "warning" | "hint";
  /** e.g. ts(2322) */
  code?: string;
  message: string;
}

export interface CheckResult {
  success: boolean;
  files?: number;
  errors: number;
  warnings: number;
  hints: number;
  /** Errors first, then warnings, then hints, each in file order. */
  diagnostics: CheckDiagnostic[];
  durationS: number;
  report: string;
  /** The result of an earlier run on the same content (cache.ts): when it ran, and how long it took. */
  cached?: { at: string; durationS: number };
}

export interface CheckOptions {
  command?: string[];
  /**
   * Read the types already in `.astro/` instead of writing them first (`astro check --noSync`):
   * only when nothing that `astro sync` reads has changed since they were written.
   */
  noSync?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Use and keep results by the project's content (default: yes, unless VIGIE_CHECK_CACHE=off). */
  cache?: boolean;
}

const DIAGNOSTIC = /^(.+?):(\d+):(\d+) - (error|warning|hint)\s*(?:(ts\(\d+\)|[\w-]+\(\d+\)|[\w-]+):)?\s*(.*)$/;
/** TypeScript's "unnecessary"/"deprecated" diagnostics: hints, which astro check prints as warnings. */
const HINT_CODES = new Set([
  "6133",
  "6138",
  "6192",
  "6196",
  "6198",
  "6199",
  "6205",
  "7027",
  "7028",
  "6385",
  "6387",
  "80001",
  "80005",
  "80006",
  "80007",
]);

export function parseCheckOutput(output: string): Omit<CheckResult, "durationS" | "report" | "success"> & { summarized: boolean } {
  const lines = output.split("\n");
  const diagnostics: CheckDiagnostic[] = [];
  let current: CheckDiagnostic | undefined;
  for (const line of lines) {
    const match = DIAGNOSTIC.exec(line);
    if (match) {
      current = {
        file: match[1] as string,
        line: Number(match[2]),
        column: Number(match[3]),
        severity: match[4] as CheckDiagnostic["severity"],
        code: match[5],
        message: (match[6] ?? "").trim(),
      };
      diagnostics.push(current);
      continue;
    }
    // A message that goes on: indented text, not the code frame (line numbers, carets).
    if (current && /^ {2,}\S/.test(line) && !/^\s*\d+\s/.test(line) && !/^\s*~+\s*$/.test(line)) current.message += ` ${line.trim()}`;
    else if (line.trim() === "") current = undefined;
  }
  const count = (word: string) => Number(new RegExp(`^- (\\d+) ${word}`, "m").exec(output)?.[1] ?? Number.NaN);
  const files = /^Result \((\d+) files?\)/m.exec(output)?.[1];
  const summarized = files !== undefined;
  const errors = count("errors?");
  const warnings = count("warnings?");
  const hints = count("hints?");
  const known = {
    errors: Number.isNaN(errors) ? diagnostics.filter((d) => d.severity === "error").length : errors,
    warnings: Number.isNaN(warnings) ? diagnostics.filter((d) => d.severity === "warning").length : warnings,
    hints: Number.isNaN(hints) ? diagnostics.filter((d) => d.severity === "hint").length : hints,
  };
  // astro check labels hints "warning": with no warnings counted, they are all hints.
  for (const diagnostic of diagnostics) {
    const code = /\((\d+)\)/.exec(diagnostic.code ?? "")?.[1] ?? "";
    if (diagnostic.severity === "warning" && (known.warnings === 0 || HINT_CODES.has(code))) diagnostic.severity = "hint";
  }
  const rank = { error: 0, warning: 1, hint: 2 };
  diagnostics.sort((a, b) => rank[a.severity] - rank[b.severity]);
  return { files: files ? Number(files) : undefined, ...known, diagnostics, summarized };
}

/** Below the build's and the browser's priority: on two cores the check must not starve them. */
const CHECK_NICENESS = 10;
/** The check's output kept with a cached result, for its report. */
const KEPT_OUTPUT = 256 * 1024;

type Kept = Omit<CheckResult, "report" | "cached"> & { output: string; command: string };

export async function runCheck(project: Project, options: CheckOptions = {}): Promise<CheckResult> {
  if (!options.command) {
    const missing = missingCheckPackages(project);
    if (missing.length > 0) throw new CheckUnavailableError(missing);
  }
  const started = performance.now();
  const command = options.command ?? (options.noSync ? [...CHECK_COMMAND, "--noSync"] : CHECK_COMMAND);
  // --noSync reads the types sync would write: the same diagnostics, the same key.
  const keyed = options.command ?? CHECK_COMMAND;
  const dir = options.cache === false || cacheOff() ? undefined : cacheDir(project);
  const key = dir ? checkCacheKey(project, keyed) : undefined;
  if (dir && key && "key" in key) {
    const hit = readCached<Kept>(dir, key.key);
    if (hit) return fromCache(project, hit, key, performance.now() - started);
  }
  const result = await checkNow(project, command, options);
  if (dir && key && "key" in key) {
    // Kept only when nothing it depends on changed while it ran.
    const after = checkCacheKey(project, keyed);
    if ("key" in after && after.key === key.key) writeCached<Kept>(dir, key, result.kept);
  }
  return result.result;
}

function fromCache(project: Project, hit: CachedRun<Kept>, key: CacheKey, ms: number): CheckResult {
  const { output, command, ...counts } = hit.value;
  const report = writeReport(
    project,
    "check.log",
    `# ${command} in ${project.root}: the result of its run at ${hit.at} (${counts.durationS} s), kept for the same content of ${key.files} files (key ${key.key})\n\n${output}`,
  );
  return { ...counts, durationS: Math.round(ms / 100) / 10, report, cached: { at: hit.at, durationS: counts.durationS } };
}

async function checkNow(project: Project, argv: string[], options: CheckOptions): Promise<{ result: CheckResult; kept: Kept }> {
  const check = () =>
    runCommand(argv, {
      cwd: project.root,
      timeoutMs: options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS,
      signal: options.signal,
      niceness: CHECK_NICENESS,
    });
  // Without --noSync it syncs first, writing .astro/ as a starting dev server does: one waits for the other.
  const run = options.noSync
    ? await check()
    : (await writingAstroFiles(project, check, options.signal ? { signal: options.signal } : {})).value;
  const { ended } = run;
  const report = writeReport(
    project,
    "check.log",
    `# ${run.command} in ${project.root}\n${ended.message}, ${run.durationMs} ms\n\n${run.output}`,
  );
  const durationS = Math.round(run.durationMs / 100) / 10;
  if (ended.reason === "spawn-error")
    throw new VigieError(
      `${run.command} ${ended.message}`,
      "Check that npm is on PATH and the project's dependencies are installed (npm install).",
      { files: { report } },
    );
  if (ended.reason === "timeout") {
    throw new VigieError(
      `astro check ${ended.message}; its process group was killed`,
      "Retry with a larger timeoutS, or run the build instead.",
      {
        files: { report },
        outputTail: tailLines(run.output, 5, 120),
      },
    );
  }
  if (ended.reason === "abort")
    throw new VigieError(`astro check ${ended.message}`, "Call it again when you want the diagnostics.", { files: { report } });
  const parsed = parseCheckOutput(run.output);
  if (!parsed.summarized) {
    const missing = /@astrojs\/check/.test(run.output);
    throw new VigieError(
      `astro check did not run to the end: it ${ended.message}`,
      missing ? `Install it: ${CHECK_INSTALL}` : `Read ${report} for its output.`,
      { files: { report }, outputTail: tailLines(run.output, 5, 120) },
    );
  }
  const { summarized: _, ...counts } = parsed;
  const result = { success: counts.errors === 0, ...counts, durationS };
  return { result: { ...result, report }, kept: { ...result, command: run.command, output: run.output.slice(-KEPT_OUTPUT) } };
}
