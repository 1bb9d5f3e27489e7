// How long a command-line call of a tool that needs no browser takes: `vigie dev status`
// on the blog, as a child process, from spawn to exit (target: under 400 ms). Beside it, in
// the same run and alternating: Node's own start (`node -e 0`), and Node importing the whole
// tool registry (every tools file and the core it pulls in), which is what every call loaded
// before a call imported only its own group.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { cpuMs, median, ms, procStatFields } from "./stats.ts";

const RUNS = 10;
const ROOT = join(import.meta.dirname, "..");
const CLI = join(ROOT, "packages", "vigie", "src", "cli", "main.ts");
const REGISTRY = join(ROOT, "packages", "vigie", "src", "tools", "registry.ts");
/** The package compiled as `npm pack` ships it (no type stripping at load), kept inside the package so its dependencies resolve. */
const COMPILED = join(ROOT, "packages", "vigie", ".bench-dist");

/** CPU time (user + system, ms) of this process's waited-for children so far: Linux's /proc. */
const childrenCpu = () => cpuMs(procStatFields("self"), true);

function timed(args: string[]): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const elapsed = performance.now() - started;
  if (child.status !== 0) throw new Error(`${args.join(" ")} exited ${child.status}: ${(child.stderr || child.stdout).slice(0, 300)}`);
  return elapsed;
}

export default async function cliBench(): Promise<string> {
  const series = {
    node: [] as number[],
    status: [] as number[],
    registry: [] as number[],
    statusCpu: [] as number[],
  };
  const compiled: number[] = [];
  const tsc = spawnSync(
    process.execPath,
    [
      join(ROOT, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      join(ROOT, "packages", "vigie", "tsconfig.build.json"),
      "--outDir",
      COMPILED,
    ],
    { encoding: "utf8" },
  );
  if (tsc.status !== 0) throw new Error(`tsc exited ${tsc.status}: ${tsc.stdout.slice(0, 300)}`);
  let answer = "";
  try {
    for (let run = 0; run < RUNS; run++) {
      series.node.push(timed(["-e", "0"]));
      const started = performance.now();
      const cpuBefore = childrenCpu();
      const child = spawnSync(process.execPath, [CLI, "dev", "status"], { cwd: ROOT, encoding: "utf8" });
      series.status.push(performance.now() - started);
      series.statusCpu.push(childrenCpu() - cpuBefore);
      if (child.status !== 0) throw new Error(`vigie dev status exited ${child.status}: ${child.stderr.slice(0, 300)}`);
      answer = child.stdout.trim();
      series.registry.push(timed(["--input-type=module", "-e", `await import(${JSON.stringify(REGISTRY)})`]));
      compiled.push(timed([join(COMPILED, "cli", "main.js"), "dev", "status"]));
    }
  } finally {
    rmSync(COMPILED, { recursive: true, force: true });
  }
  const row = (label: string, values: number[]) => `| ${label} | ${ms(median(values))} | ${values.map((v) => Math.round(v)).join(", ")} |`;
  return [
    "## cli: a tool call that needs no browser, from the command line",
    "",
    `\`vigie dev status\` on the blog as a child process, spawn to exit, ${RUNS} runs alternating with the two references, medians (${new Date().toISOString().slice(0, 10)}). Target: under 400 ms.`,
    "",
    "| what | median | runs |",
    "| --- | --- | --- |",
    row("Node's own start (`node -e 0`)", series.node),
    row("**`vigie dev status`** (target < 400 ms)", series.status),
    row("**`vigie dev status`, compiled as the npm package ships it** (what an installed vigie runs)", compiled),
    row("importing the whole tool registry (what every call loaded before)", series.registry),
    row("`vigie dev status`, CPU time (user + system) of the child", series.statusCpu),
    "",
    median(compiled) < 400
      ? `Target met by the installed package (${ms(median(compiled))}); from the sources, which Node strips of their types at each load: ${ms(median(series.status))}.`
      : `Target missed by ${ms(median(compiled) - 400)} (installed package) and ${ms(median(series.status) - 400)} (sources) in this run. What remains, in CPU: Node's start, its type stripper's first load, zod (its classic entry loads every locale, about 95 modules) for the arguments, and about 20 .ts files each stripped on load.`,
    `Load average when done: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores (wall times grow with it; the CPU time much less).`,
    `A call imports only its own group's tools file (tools/groups.ts) and the core it needs, plus zod for the arguments; the answer was \`${answer.slice(0, 120)}\`.`,
  ].join("\n");
}
