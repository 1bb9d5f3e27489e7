// The test suite by tiers, each file timed. A file's tier is in its name:
//   *.test.ts      fast: unit and contract tests (no npm install, no Astro build or server, no agent binary)
//   *.e2e.test.ts  e2e: real Astro builds and servers, Chromium, MCP and agent clients on this repository's install
//   *.npm.test.ts  npm: sites installed from the npm registry (vigie from its `npm pack` tarball)
// `node test/run.ts [checks] [fast] [e2e] [npm] [FILE...]` runs the tiers named (all of them
// without any), in that order; `checks` is the linter and the type checks. Each test file runs
// in its own `node --test` process group (killed whole when it overruns), fast files side by
// side, then the e2e and npm files in two lanes side by side, longest first (by the last run's
// times, or test/durations.json); its output is printed when it ends. The end of the run gives each tier's time, the
// slowest files and one closing line: "tests: N passed, N failed, N skipped". Exit 1 when
// anything failed. The times are also written to test-results/times.json and summary.txt.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const RESULTS = join(ROOT, "test-results");
const TEST_DIRS = ["test", "packages/vigie/test"];

type Tier = "checks" | "fast" | "e2e" | "npm";
const TIERS: Tier[] = ["checks", "fast", "e2e", "npm"];

/** How many files of a tier run at once: fast ones side by side, the others alone (each loads both cores). */
const WIDTH: Record<Tier, number> = {
  checks: 1,
  fast: Math.max(2, Math.min(4, availableParallelism())),
  e2e: Number(process.env.VIGIE_TEST_E2E_WIDTH ?? 1),
  npm: Number(process.env.VIGIE_TEST_NPM_WIDTH ?? 1),
};

/** A file that runs longer than this is ended whole (its own tests time out well before). */
const FILE_LIMIT_MS: Record<Tier, number> = { checks: 15 * 60_000, fast: 5 * 60_000, e2e: 30 * 60_000, npm: 40 * 60_000 };

export function tierOf(file: string): Tier {
  if (file.endsWith(".e2e.test.ts")) return "e2e";
  if (file.endsWith(".npm.test.ts")) return "npm";
  return "fast";
}

interface Outcome {
  name: string;
  tier: Tier;
  ms: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Why the file itself failed to run to its end (exit code, signal, overrun), when it did. */
  problem?: string;
}

function testFiles(): string[] {
  const files: string[] = [];
  for (const dir of TEST_DIRS) {
    for (const path of readdirRecursive(join(ROOT, dir))) if (path.endsWith(".test.ts")) files.push(relative(ROOT, path));
  }
  return files.sort();
}

function readdirRecursive(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((path) => join(dir, path));
}

const running = new Set<ChildProcess>();

function endGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** The marker each test file's processes inherit, so that what a file leaves behind can be found. */
const MARK = "VIGIE_TEST_FILE_MARK";
const runningMarks = new Set<string>();

/**
 * Ends every process still carrying `mark` in its environment, with its process group: a
 * server a test started detached (its own group) that outlived its file, when the file failed
 * or was ended midway. Reads /proc (Linux); elsewhere there is nothing to sweep with.
 * Returns what was ended, to be shown: a leftover is a bug of the test that left it.
 */
function sweep(mark: string): string[] {
  const needle = `${MARK}=${mark}`;
  const ended: string[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return ended;
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (!environ.split("\0").includes(needle)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      // the fields after the command's closing parenthesis: state, ppid, pgrp...
      const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      const command = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 120);
      try {
        if (pgid > 1 && pgid !== process.pid) process.kill(-pgid, "SIGKILL");
        else process.kill(Number(pid), "SIGKILL");
      } catch {
        process.kill(Number(pid), "SIGKILL");
      }
      ended.push(`${pid} ${command}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return ended;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const child of running) endGroup(child, "SIGKILL");
    for (const mark of runningMarks) sweep(mark);
    process.exit(130);
  });
}

/** Runs a command in its own process group; its output is returned, not streamed. */
async function runGroup(
  command: string,
  args: string[],
  limitMs: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; signal: string | null; output: string; ms: number; overran: boolean }> {
  const started = Date.now();
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    endGroup(child, "SIGTERM");
    setTimeout(() => endGroup(child, "SIGKILL"), 5000).unref();
  }, limitMs);
  const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
  clearTimeout(timer);
  // What the file left in its group (a server it forgot) goes with it.
  endGroup(child, "SIGKILL");
  running.delete(child);
  return { code, signal, output, ms: Date.now() - started, overran };
}

/** The counts node's TAP reporter closes a file's run with. */
function tapCounts(tap: string): { passed: number; failed: number; skipped: number } {
  const count = (label: string) => Number(tap.match(new RegExp(`^# ${label} (\\d+)$`, "m"))?.[1] ?? 0);
  return {
    passed: count("pass"),
    failed: count("fail") + count("cancelled"),
    skipped: count("skipped") + count("todo"),
  };
}

async function runTestFile(file: string, tier: Tier, scratch: string): Promise<Outcome> {
  const tapFile = join(scratch, `${file.replace(/[^a-z0-9.-]/gi, "_")}.tap`);
  const mark = `${process.pid}-${file.replace(/[^a-z0-9.-]/gi, "_")}`;
  const env: NodeJS.ProcessEnv = { ...process.env, [MARK]: mark };
  delete env.NODE_TEST_CONTEXT;
  runningMarks.add(mark);
  const result = await runGroup(
    process.execPath,
    [
      "--test",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=tap",
      `--test-reporter-destination=${tapFile}`,
      file,
    ],
    FILE_LIMIT_MS[tier],
    env,
  );
  const leftovers = sweep(mark);
  runningMarks.delete(mark);
  let tap = "";
  try {
    tap = readFileSync(tapFile, "utf8");
  } catch {
    // the file never got to its report
  }
  const counts = tapCounts(tap);
  let problem: string | undefined;
  if (result.overran) problem = `ended after ${FILE_LIMIT_MS[tier] / 60_000} min`;
  else if (result.code !== 0) problem = `exited with ${result.signal ?? `code ${result.code}`}`;
  if (problem && counts.failed === 0) counts.failed = 1;
  process.stdout.write(`\n▶ ${file} (${tier}, ${seconds(result.ms)})\n${result.output.trimEnd()}\n`);
  if (problem) process.stdout.write(`✖ ${file}: ${problem}\n`);
  if (leftovers.length > 0) {
    process.stdout.write(`⚠ ${file} left ${leftovers.length} process(es) running, ended now:\n  ${leftovers.join("\n  ")}\n`);
  }
  return { name: file, tier, ms: result.ms, ...counts, ...(problem ? { problem } : {}) };
}

async function runChecks(): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const script of ["lint", "typecheck"]) {
    const result = await runGroup("npm", ["run", "--silent", script], FILE_LIMIT_MS.checks);
    const failed = result.code !== 0;
    process.stdout.write(`\n▶ npm run ${script} (checks, ${seconds(result.ms)})\n${result.output.trimEnd()}\n`);
    outcomes.push({
      name: `npm run ${script}`,
      tier: "checks",
      ms: result.ms,
      passed: failed ? 0 : 1,
      failed: failed ? 1 : 0,
      skipped: 0,
      ...(failed ? { problem: `exited with ${result.signal ?? `code ${result.code}`}` } : {}),
    });
  }
  return outcomes;
}

/** The time each file took in a run: this checkout's last run, else the one committed in test/durations.json. */
function lastTimes(): Record<string, number> {
  for (const path of [join(RESULTS, "times.json"), join(ROOT, "test", "durations.json")]) {
    try {
      const times = JSON.parse(readFileSync(path, "utf8")) as { tiers: { files: Outcome[] }[] };
      return Object.fromEntries(times.tiers.flatMap((tier) => tier.files.map((file) => [file.name, file.ms])));
    } catch {
      // no such run
    }
  }
  return {};
}

/**
 * The order files start in when several run at once: the longest first (by the last run's
 * times; a file never timed counts as a minute), so that the run does not end on one long
 * file alone.
 */
function longestFirst(files: string[]): string[] {
  const last = lastTimes();
  const guess = (file: string) => last[file] ?? 60_000;
  return [...files].sort((a, b) => guess(b) - guess(a));
}

/** Runs `files` `width` at a time, in the order given. */
async function pool(files: string[], width: number, scratch: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const file = files[next++] as string;
      outcomes.push(await runTestFile(file, tierOf(file), scratch));
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, files.length) }, lane));
  return outcomes;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface TierResult {
  label: string;
  /** Wall-clock time of the tier (of the lanes, for tiers run side by side). */
  ms: number;
  outcomes: Outcome[];
}

function summary(tiers: TierResult[], totalMs: number): string {
  const all = tiers.flatMap((t) => t.outcomes);
  const lines = ["", "Times by tier:"];
  for (const { label, ms, outcomes } of tiers) {
    const failed = outcomes.filter((o) => o.failed > 0).length;
    const byTier = [...new Set(outcomes.map((o) => o.tier))];
    const files = byTier
      .map((tier) => {
        const own = outcomes.filter((o) => o.tier === tier);
        const sum = own.reduce((n, o) => n + o.ms, 0);
        return `${own.length} ${tier === "checks" ? "steps" : `${tier} files`}${byTier.length > 1 ? ` (${seconds(sum)} of file time)` : ""}`;
      })
      .join(", ");
    lines.push(`  ${label.padEnd(9)} ${seconds(ms).padStart(9)}  ${files}${failed ? `, ${failed} failing` : ""}`);
  }
  lines.push(`  ${"total".padEnd(9)} ${seconds(totalMs).padStart(9)}`);
  const slowest = all
    .filter((o) => o.tier !== "checks")
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5);
  if (slowest.length) {
    lines.push("Slowest test files:");
    for (const o of slowest) lines.push(`  ${seconds(o.ms).padStart(9)}  ${o.name}`);
  }
  const failing = all.filter((o) => o.failed > 0);
  if (failing.length) {
    lines.push("Failing:");
    for (const o of failing) lines.push(`  ${o.name}: ${o.problem ?? `${o.failed} failed`}`);
  }
  const sum = (key: "passed" | "failed" | "skipped") => all.reduce((n, o) => n + o[key], 0);
  lines.push(`tests: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped`);
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => !TIERS.includes(arg as Tier) && !arg.endsWith(".test.ts"));
  if (unknown.length) {
    process.stderr.write(`test/run.ts: unknown argument ${unknown.join(", ")}; accepted: ${TIERS.join(", ")} or test files (*.test.ts)\n`);
    return 2;
  }
  const named = args.filter((arg) => arg.endsWith(".test.ts"));
  const chosen = args.filter((arg): arg is Tier => TIERS.includes(arg as Tier));
  const tiers: Tier[] = chosen.length ? TIERS.filter((t) => chosen.includes(t)) : named.length ? [] : TIERS;
  const files = named.length ? named.map((file) => relative(ROOT, join(process.cwd(), file))) : testFiles();

  const scratch = mkdtempSync(join(tmpdir(), "vigie-test-run-"));
  const started = Date.now();
  const results: TierResult[] = [];
  try {
    const order = named.length ? TIERS.filter((t) => t !== "checks" && files.some((f) => tierOf(f) === t)) : tiers;
    const runTiers = async (label: string, chosenTiers: Tier[], width: number) => {
      const tierStarted = Date.now();
      const chosen = files.filter((f) => chosenTiers.includes(tierOf(f)));
      const outcomes = chosenTiers.includes("checks")
        ? await runChecks()
        : await pool(width > 1 ? longestFirst(chosen) : chosen, width, scratch);
      results.push({ label, ms: Date.now() - tierStarted, outcomes });
    };
    // The e2e and npm files run in two lanes side by side, the longest first: an npm file
    // spends much of its time installing and waiting on servers, which the other lane's file
    // uses. VIGIE_TEST_LANES=1 runs the tiers one after the other, a file at a time.
    const lanes = process.env.VIGIE_TEST_LANES === "1" ? 1 : 2;
    const together = lanes > 1 && order.includes("e2e") && order.includes("npm");
    for (const tier of order) {
      if (together && tier === "npm") continue;
      if (together && tier === "e2e") await runTiers("e2e+npm", ["e2e", "npm"], lanes);
      else await runTiers(tier, [tier], WIDTH[tier]);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const text = summary(results, Date.now() - started);
  process.stdout.write(text);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, "summary.txt"), text);
  writeFileSync(
    join(RESULTS, "times.json"),
    `${JSON.stringify({ tiers: results.map(({ label, ms, outcomes }) => ({ tier: label, ms, files: outcomes })) }, null, 2)}\n`,
  );
  return results.some((r) => r.outcomes.some((o) => o.failed > 0)) ? 1 : 0;
}

process.exitCode = await main();
