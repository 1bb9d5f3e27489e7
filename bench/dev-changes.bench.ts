// After an edit, from save to answer: blog_dev_changes on a copy of the blog with vigie's dev
// server running and its baseline taken, for an article, a component and the layout (each saved,
// asked, then undone and asked again), beside `vigie validate --changed` after the same edits as a
// share of the full `vigie validate` of the same copy.
// Targets: an article ≤ 2 s, a component ≤ 3 s, a layout ≤ 8 s (median); --changed ≤ 40 % of the full run.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Answer } from "../packages/vigie/src/core/answer.ts";
import { startDevServer, stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import { devTools } from "../packages/vigie/src/tools/dev.ts";
import { runTool } from "../packages/vigie/src/tools/run.ts";
import { freePort, killEverythingIn } from "../packages/vigie/test/core/devServer/helpers.ts";
import { type BlogCopy, copyBlog, killGroup } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

const ROUNDS = Number(process.env.VIGIE_BENCH_ROUNDS ?? 10);
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

async function validateWall(copy: BlogCopy, extra: string[] = []): Promise<number> {
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
  return performance.now() - started;
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
  let validateLine = "";
  try {
    const started = await startDevServer(copy, { port: await freePort(), timeoutMs: 120_000 });
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
    await stopDevServer(copy);
    if (process.env.VIGIE_BENCH_VALIDATE !== "0") {
      writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\nreport.json\n");
      git("init", "-q");
      git("add", ".");
      git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "clean");
      const full = await validateWall(copy);
      const shares: string[] = [];
      for (const edit of EDITS) {
        const path = join(copy.root, edit.file);
        if (edit.kind === "article") appendFileSync(path, "\n\nOne more paragraph.\n");
        else writeFileSync(path, edit.make(readFileSync(path, "utf8"), 0));
        const wall = await validateWall(copy, ["--changed"]);
        git("checkout", "-q", "--", ".");
        const share = Math.round((wall / full) * 100);
        shares.push(`${edit.kind} ${ms(wall)} (${share} %: ${share <= 40 ? "met" : "missed"})`);
      }
      validateLine = `\`vigie validate\` (dev server stopped, one run each): full ${ms(full)}; \`--changed\` after ${shares.join(", ")}; target ≤ 40 % of the full run.`;
    }
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
    validateLine,
  ].join("\n");
}
