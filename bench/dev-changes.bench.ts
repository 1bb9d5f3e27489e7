// After an edit, from save to answer: blog_dev_changes on a copy of the blog with vigie's dev
// server running and its baseline taken, for an article, a component and the layout (each saved,
// asked, then undone and asked again), beside `vigie validate --changed` after the same edits as a
// share of the full `vigie validate` of the same copy, both with the dev server still running (the
// agent's loop: --changed then asks its module graph and checks the pages reached on it).
// Targets: an article ≤ 2 s, a component ≤ 3 s, a layout ≤ 8 s (median); --changed ≤ 40 % of the full run.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Answer } from "../packages/vigie/src/core/answer.ts";
import { readSite } from "../packages/vigie/src/core/astro/site.ts";
import { startDevServer, stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import { devTools } from "../packages/vigie/src/tools/dev.ts";
import { runTool } from "../packages/vigie/src/tools/run.ts";
import { freePort, killEverythingIn } from "../packages/vigie/test/core/devServer/helpers.ts";
import { type BlogCopy, copyBlog, killGroup } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

const ROUNDS = Number(process.env.VIGIE_BENCH_ROUNDS ?? 10);
const VALIDATE_ROUNDS = Number(process.env.VIGIE_BENCH_VALIDATE_ROUNDS ?? 3);
const MAIN = join(import.meta.dirname, "..", "packages", "vigie", "src", "cli", "main.ts");

const EDITS: { kind: string; what: string; file: string; target: number; make: (text: string, round: number) => string }[] = [
  {
    kind: "article",
    what: "a paragraph appended to src/content/articles/en/small-tool-answers.mdx",
    file: "src/content/articles/en/small-tool-answers.mdx",
    target: 2000,
    make: (text, round) => `${text}\n\nOne more paragraph, edit ${round + 1}.\n`,
  },
  {
    kind: "component",
    what: "an attribute added to src/components/Terminal.astro (on several articles)",
    file: "src/components/Terminal.astro",
    target: 3000,
    make: (text, round) => text.replace('<figure class="terminal"', `<figure class="terminal" data-edit="${round + 1}"`),
  },
  {
    kind: "layout",
    what: "an attribute added to `<main>` in src/layouts/BaseLayout.astro (every page)",
    file: "src/layouts/BaseLayout.astro",
    target: 8000,
    make: (text, round) => text.replace('<main id="content"', `<main data-edit="${round + 1}" id="content"`),
  },
];

interface ValidateRun {
  wall: number;
  verdict: string;
  crawl: string;
}

async function validateRun(copy: BlogCopy, extra: string[] = []): Promise<ValidateRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN, "validate", "--project", copy.root, "--json", join(copy.root, "report.json"), ...extra], {
    cwd: copy.root,
    detached: true,
    stdio: "ignore",
    env: { ...process.env, CI: "1" },
  });
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), 600_000);
  await once(child, "exit");
  clearTimeout(timer);
  killGroup(child, "SIGKILL");
  const wall = performance.now() - started;
  const report = JSON.parse(readFileSync(join(copy.root, "report.json"), "utf8")) as {
    verdict: string;
    steps: { name: string; summary: string }[];
  };
  return { wall, verdict: report.verdict, crawl: report.steps.find((step) => step.name === "crawl")?.summary ?? "" };
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-dev-changes");
  const definition = devTools.find((tool) => tool.exportName === "changes");
  if (!definition) throw new Error("no changes tool");
  const changes = (args: Record<string, unknown> = {}) => runTool(definition, args, { project: copy }) as Promise<Answer>;
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, encoding: "utf8" });
  const times = new Map<string, number[]>(EDITS.map((edit) => [edit.kind, []]));
  const sizes = new Map<string, number[]>(EDITS.map((edit) => [edit.kind, []]));
  const reached = new Map<string, number>();
  let baselineMs = 0;
  let nothingBytes = 0;
  let validateLines: string[] = [];
  try {
    const started = await startDevServer(readSite(copy), { port: await freePort(), timeoutMs: 120_000 });
    if (started.kind === "failed") throw new Error(`dev start failed: ${started.error}`);
    const t0 = performance.now();
    await changes();
    baselineMs = performance.now() - t0;
    nothingBytes = Buffer.byteLength(JSON.stringify(await changes()));
    for (let round = 0; round < ROUNDS; round++) {
      for (const edit of EDITS) {
        const path = join(copy.root, edit.file);
        const original = readFileSync(path, "utf8");
        writeFileSync(path, edit.make(original, round));
        const saved = performance.now();
        const answer = await changes();
        times.get(edit.kind)?.push(performance.now() - saved);
        sizes.get(edit.kind)?.push(Buffer.byteLength(JSON.stringify(answer)));
        reached.set(edit.kind, Number(answer.reached ?? 0));
        writeFileSync(path, original);
        await changes();
      }
    }
    if (process.env.VIGIE_BENCH_VALIDATE !== "0") validateLines = await validateShares(copy, git);
  } finally {
    await stopDevServer(copy).catch(() => undefined);
    killEverythingIn(copy);
    copy.remove();
  }
  const rows = EDITS.map((edit) => {
    const values = times.get(edit.kind) ?? [];
    const value = median(values);
    const verdict = value <= edit.target ? "met" : `missed by ${ms(value - edit.target)}`;
    const bytes = sizes.get(edit.kind) ?? [];
    return `| ${edit.kind}: ${edit.what} | ${ms(value)} | ${ms(Math.min(...values))} | ${ms(Math.max(...values))} | ${reached.get(edit.kind)} | ${Math.min(...bytes)}-${Math.max(...bytes)} B | ≤ ${ms(edit.target)}: ${verdict} |`;
  });
  return [
    "## dev changes: from save to answer after an edit",
    "",
    `A copy of the blog, vigie's dev server running, the baseline taken (${ms(baselineMs)}; a call with nothing changed answers ${nothingBytes} B). ${ROUNDS} round${ROUNDS === 1 ? "" : "s"}: for each edit, the file saved, \`blog_dev_changes\` called (the time is from the save to its answer; at most 5 pages checked), the edit undone and asked again (not timed).`,
    "",
    "| edit | median | min | max | pages reached | answer | target |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    ...validateLines,
  ].join("\n");
}

/**
 * The full `vigie validate` and `--changed` after each edit, the dev server running: VALIDATE_ROUNDS
 * rounds, the edits in a different order each round; medians, and each --changed as a share of the
 * full run's median.
 */
async function validateShares(copy: BlogCopy, git: (...args: string[]) => string): Promise<string[]> {
  writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\nreport.json\n");
  git("init", "-q");
  git("add", ".");
  git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "clean");
  const full: ValidateRun[] = [];
  const changed = new Map<string, ValidateRun[]>(EDITS.map((edit) => [edit.kind, []]));
  for (let round = 0; round < VALIDATE_ROUNDS; round++) {
    full.push(await validateRun(copy));
    const order = EDITS.map((_, index) => EDITS[(index + round) % EDITS.length] as (typeof EDITS)[number]);
    for (const edit of order) {
      const path = join(copy.root, edit.file);
      writeFileSync(path, edit.make(readFileSync(path, "utf8"), round));
      changed.get(edit.kind)?.push(await validateRun(copy, ["--changed"]));
      git("checkout", "-q", "--", ".");
    }
  }
  const fullMedian = median(full.map((run) => run.wall));
  const walls = (runs: ValidateRun[]) => runs.map((run) => ms(run.wall)).join(", ");
  const rows = EDITS.map((edit) => {
    const runs = changed.get(edit.kind) ?? [];
    const value = median(runs.map((run) => run.wall));
    const share = Math.round((value / fullMedian) * 100);
    const verdicts = [...new Set(runs.map((run) => run.verdict))].join("/");
    return `| --changed after the ${edit.kind} | ${ms(value)} | ${walls(runs)} | ${share} % (≤ 40 %: ${share <= 40 ? "met" : "missed"}) | ${verdicts} | ${runs.at(-1)?.crawl ?? ""} |`;
  });
  return [
    `\`vigie validate\` with the dev server still running (the agent's loop), ${VALIDATE_ROUNDS} round${VALIDATE_ROUNDS === 1 ? "" : "s"}: the full run, then \`--changed\` after each edit (in a different order each round), the edit undone after each. Wall time of the CLI process (\`CI=1\`, \`--json\`).`,
    "",
    "| run | median | runs | share of the full run | verdict | crawl (last run) |",
    "|---|---|---|---|---|---|",
    `| full \`validate\` | ${ms(fullMedian)} | ${walls(full)} | 100 % | ${[...new Set(full.map((run) => run.verdict))].join("/")} | ${full.at(-1)?.crawl ?? ""} |`,
    ...rows,
  ];
}
