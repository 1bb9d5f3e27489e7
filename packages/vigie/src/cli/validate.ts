// `vigie validate` and `vigie merge`: the validator workflow without a model, for CI
// and humans. Progress goes to stderr (steps and a bar on a terminal, plain lines in
// CI); the report to stdout and to the files asked for.
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { VigieError } from "../core/answer.ts";
import { BrowserSession } from "../core/browser/session/session.ts";
import { NETWORK_POLICIES, type NetworkPolicy } from "../core/config.ts";
import { type Project, ProjectNotFoundError } from "../core/project.ts";
import { type ChangedRun, changeScope } from "../core/validate/changeScope.ts";
import { annotations, jobSummary, repositoryPrefix, toSarif } from "../core/validate/github.ts";
import { mergeReports, toHtml, toJUnit, toText } from "../core/validate/reports.ts";
import { validate } from "../core/validate/runner.ts";
import { exitCodeOf, type ValidationReport } from "../core/validate/steps/findings.ts";
import { VIGIE_VERSION } from "../core/version.ts";
import { prefixOf, renameTools } from "../tools/run.ts";
import { type FlagSpec, type FlagValues, parseFlags, projectAt, UsageError } from "./flags.ts";
import { progressPrinter } from "./progress.ts";

const VALIDATE_USAGE = `Usage: vigie validate [options]

  --json FILE       write the report as JSON (what "vigie merge" reads)
  --junit FILE      write a JUnit XML report (one test case per check per page)
  --html FILE       write a self-contained HTML report (screenshots of failing pages included)
  --sarif FILE      write a SARIF 2.1.0 log (GitHub code scanning: github/codeql-action/upload-sarif)
  --strict          exit 1 on WARN too
  --base-url URL    validate a server already running on this machine (no dev server is started)
  --shard I/N       check only the I-th of N parts of the pages (CI jobs in parallel; join with "vigie merge")
  --network POLICY  requests to other hosts that fail: auto (default: judged only when this machine
                    can tell, the hosts it cannot reach named once), judge, ignore, or offline (blocked)
  --changed [REF]   check only what the changes since REF (default HEAD; untracked files included) can have
                    affected: lint the changed content and its translations, astro check if code or config
                    changed, the browser on the pages whose built output changed since the last run; while
                    vigie's dev server runs, on the pages its module graph says the change reaches, loaded
                    on that server without a build (its warm checker for the types)
  --build           with --changed: build and check the build even while vigie's dev server runs
  --perf-baseline FILE  write the measured pages' samples (every load, every metric) and this machine
                    to FILE: the baseline a later run compares with (on the main branch, kept by CI)
  --perf-compare FILE   compare each measured page with the baseline in FILE (a rank test on the loads;
                    more loads when it could decide): slower past the threshold is a WARN (a FAIL with
                    "perfRegression": { "severity": "fail" }), with the shift, its interval and why
  --project DIR     the project to validate (default: the current directory)

On GitHub Actions (GITHUB_ACTIONS=true) it also prints one annotation per failure and warning
(10 of each, as GitHub shows; with --shard, "vigie merge" prints them) and writes the verdict and
the findings to the job summary.

Exit codes: 0 PASS or WARN, 1 FAIL (or WARN with --strict), 2 the harness could not run.
`;

const MERGE_USAGE = `Usage: vigie merge <report.json>... [--json FILE] [--junit FILE] [--html FILE] [--sarif FILE] [--strict]
`;

const REPORT_FLAGS = {
  json: { type: "string", value: "FILE" },
  junit: { type: "string", value: "FILE" },
  html: { type: "string", value: "FILE" },
  sarif: { type: "string", value: "FILE" },
  strict: { type: "boolean" },
} as const satisfies FlagSpec;

const VALIDATE_FLAGS = {
  ...REPORT_FLAGS,
  "base-url": { type: "string", value: "URL" },
  shard: { type: "string", value: "I/N" },
  network: { type: "string", value: "POLICY" },
  changed: { type: "string", value: "[REF]" },
  build: { type: "boolean" },
  "perf-baseline": { type: "string", value: "FILE" },
  "perf-compare": { type: "string", value: "FILE" },
  project: { type: "string", value: "DIR" },
} as const satisfies FlagSpec;

/**
 * --perf-baseline and --perf-compare: the file written must be in an existing folder; the file
 * compared with may be missing (a first run, a cache not kept): the perf step then says so.
 */
function parsePerfBaseline(flags: FlagValues<typeof VALIDATE_FLAGS>): { write?: string; compare?: string } | undefined {
  const write = flags["perf-baseline"];
  const compare = flags["perf-compare"];
  if (write === undefined && compare === undefined) return undefined;
  if (write !== undefined) {
    const folder = dirname(resolve(write));
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new UsageError(
        `--perf-baseline ${write}: the folder ${folder} does not exist; create it first, or name a file in an existing folder`,
      );
  }
  return { ...(write !== undefined ? { write: resolve(write) } : {}), ...(compare !== undefined ? { compare: resolve(compare) } : {}) };
}

/** `--changed` takes an optional value: alone (last, or before another flag) it means HEAD. */
function withChangedRef(args: string[]): string[] {
  return args.map((arg, index) => (arg === "--changed" && (args[index + 1] ?? "-").startsWith("-") ? "--changed=HEAD" : arg));
}

type ReportFlags = FlagValues<typeof REPORT_FLAGS>;

const REPORT_FILES = ["json", "junit", "html", "sarif"] as const;

/** The file a SARIF result is placed on when its source is not known: the site's Astro config, else its package.json. */
const SITE_FILES = ["astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.mts", "astro.config.cjs", "package.json"];

/** Each report file's folder exists: checked before the run, so that a typo does not cost a whole run. */
function checkReportFolders(flags: ReportFlags): void {
  for (const flag of REPORT_FILES) {
    const file = flags[flag];
    if (typeof file !== "string") continue;
    const folder = dirname(resolve(file));
    if (!existsSync(folder) || !statSync(folder).isDirectory())
      throw new UsageError(`--${flag} ${file}: the folder ${folder} does not exist; create it first, or name a file in an existing folder`);
  }
}

function writeReports(report: ValidationReport, flags: ReportFlags, root: string): string[] {
  const written: string[] = [];
  const out = (flag: (typeof REPORT_FILES)[number], content: () => string) => {
    const file = flags[flag];
    if (typeof file !== "string") return;
    writeFileSync(resolve(file), content());
    written.push(file);
  };
  out("json", () => `${JSON.stringify(report, null, 2)}\n`);
  out("junit", () => toJUnit(report));
  out("html", () => toHtml(report, root));
  out("sarif", () => {
    const siteFile = SITE_FILES.find((name) => existsSync(join(root, name)));
    const log = toSarif(report, { version: VIGIE_VERSION, prefix: repositoryPrefix(root), ...(siteFile ? { siteFile } : {}) });
    return `${JSON.stringify(log, null, 2)}\n`;
  });
  return written;
}

/**
 * On GitHub Actions: the annotations on stdout (workflow commands), and the job summary appended
 * to the file GITHUB_STEP_SUMMARY names. A shard writes its summary but leaves the annotations
 * to `vigie merge`, which has every shard's findings (each would otherwise show twice).
 */
function reportToGitHub(report: ValidationReport, root: string, written: string[]): void {
  if (process.env.GITHUB_ACTIONS !== "true") return;
  if (report.shard) process.stdout.write("vigie: a shard's findings are annotated by vigie merge\n");
  else {
    const lines = annotations(report, repositoryPrefix(root));
    if (lines.length) process.stdout.write(`${lines.join("\n")}\n`);
  }
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (!summary) return;
  try {
    appendFileSync(summary, jobSummary(report, written));
  } catch (error) {
    process.stderr.write(`vigie: could not write the job summary to ${summary}: ${(error as Error).message}\n`);
  }
}

function parseNetwork(value: string | undefined): NetworkPolicy | undefined {
  if (value === undefined) return undefined;
  if (!(NETWORK_POLICIES as readonly string[]).includes(value))
    throw new UsageError(`--network ${value}: expected one of ${NETWORK_POLICIES.join(", ")} (default: auto, the config's "network")`);
  return value as NetworkPolicy;
}

function parseShard(value: string | undefined): { index: number; count: number } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count)
    throw new UsageError(`--shard ${String(value)}: expected I/N with 1 <= I <= N, e.g. --shard 2/3`);
  return { index, count };
}

export async function validateCommand(args: string[]): Promise<number> {
  let flags: FlagValues<typeof VALIDATE_FLAGS>;
  let project: Project;
  let shard: ReturnType<typeof parseShard>;
  let network: NetworkPolicy | undefined;
  let changed: ChangedRun | undefined;
  let perfBaseline: ReturnType<typeof parsePerfBaseline>;
  try {
    if (args.includes("--help") || args.includes("-h")) {
      process.stdout.write(VALIDATE_USAGE);
      return 0;
    }
    flags = parseFlags(withChangedRef(args), VALIDATE_FLAGS).values;
    if (flags.build && flags.changed === undefined) throw new UsageError("--build goes with --changed (a full run always builds)");
    shard = parseShard(flags.shard);
    network = parseNetwork(flags.network);
    perfBaseline = parsePerfBaseline(flags);
    project = projectAt(flags.project);
    checkReportFolders(flags);
    if (flags.changed !== undefined && shard)
      throw new UsageError("--changed and --shard go apart: --changed checks few pages, --shard splits many");
    changed =
      flags.changed !== undefined
        ? await changeScope(project, flags.changed, { build: flags.build === true || flags["base-url"] !== undefined })
        : undefined;
  } catch (error) {
    if (error instanceof VigieError) {
      process.stderr.write(`vigie validate: ${error.message}\n${error.hint ? `${error.hint}\n` : ""}`);
      return 2;
    }
    if (error instanceof UsageError || error instanceof ProjectNotFoundError) {
      process.stderr.write(`vigie validate: ${error.message}\n\n${VALIDATE_USAGE}`);
      return 2;
    }
    throw error;
  }
  for (const note of changed?.plan.notes ?? []) process.stderr.write(`vigie: --changed: ${note}\n`);
  const session = new BrowserSession();
  const controller = new AbortController();
  // A signal stops the workflow; if a step does not end within 5 s, exit anyway (the
  // exit hooks end the dev server it started and the browser).
  const onSignal = (signal: NodeJS.Signals) => {
    controller.abort();
    setTimeout(() => process.exit(signal === "SIGINT" ? 130 : 143), 5000).unref();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let report: ValidationReport;
  const progress = progressPrinter();
  try {
    report = await validate(project, {
      session,
      signal: controller.signal,
      onProgress: progress.onProgress,
      ...(flags["base-url"] !== undefined ? { baseUrl: flags["base-url"] } : {}),
      ...(shard ? { shard } : {}),
      ...(network ? { network } : {}),
      ...(changed ? { changes: changed.scope } : {}),
      ...(perfBaseline ? { perfBaseline } : {}),
    });
  } finally {
    progress.stop();
    await session.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  // Findings name the tools as the project's agent sees them (`vigie init --prefix`).
  report = renameTools(report, prefixOf(project));
  process.stdout.write(toText(report));
  const written = writeReports(report, flags, project.root);
  for (const file of written) process.stderr.write(`vigie: wrote ${file}\n`);
  reportToGitHub(report, project.root, written);
  return exitCodeOf(report, flags.strict === true);
}

export async function mergeCommand(args: string[]): Promise<number> {
  let parsed: { values: ReportFlags; positionals: string[] };
  try {
    parsed = parseFlags(args, REPORT_FLAGS, { positionals: true });
    if (parsed.positionals.length === 0) throw new UsageError("name at least one report written by vigie validate --json");
    checkReportFolders(parsed.values);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`vigie merge: ${error.message}\n\n${MERGE_USAGE}`);
      return 2;
    }
    throw error;
  }
  const reports: ValidationReport[] = [];
  for (const file of parsed.positionals) {
    try {
      const report = JSON.parse(readFileSync(file, "utf8")) as ValidationReport;
      if (!report || !Array.isArray(report.findings) || !Array.isArray(report.steps)) throw new Error("not a vigie validate report");
      reports.push(report);
    } catch (error) {
      process.stderr.write(`vigie merge: ${file}: ${(error as Error).message}\n`);
      return 2;
    }
  }
  const merged = mergeReports(reports);
  process.stdout.write(toText(merged));
  const written = writeReports(merged, parsed.values, merged.project);
  for (const file of written) process.stderr.write(`vigie: wrote ${file}\n`);
  reportToGitHub(merged, merged.project, written);
  return exitCodeOf(merged, parsed.values.strict === true);
}
