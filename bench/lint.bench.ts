// How long blog_build_lint takes on the blog's articles: the first lint of a process
// (it loads satteri, acorn, then jsdom and mermaid in a worker: the cold figure), the
// following ones (the target: under 3 s), and the following ones after every diagram
// changed (warm parser, no cached verdict). Measured side by side on one copy.
import { execFileSync } from "node:child_process";
import { readSite } from "../packages/vigie/src/core/astro/site.ts";
import { lint } from "../packages/vigie/src/core/checks/lint.ts";
import { clearMermaidCache, closeMermaidParsers } from "../packages/vigie/src/core/lint/mermaid/parser.ts";
import { copyBlog } from "../packages/vigie/test/support/blog.ts";
import { median, ms } from "./stats.ts";

const PROCESSES = 3;
const RUNS = 5;

const LINT_MODULE = new URL("../packages/vigie/src/core/checks/lint.ts", import.meta.url).pathname;
const PARSER_MODULE = new URL("../packages/vigie/src/core/lint/mermaid/parser.ts", import.meta.url).pathname;

/** A fresh Node process: import and first lint, then a second lint. */
function coldProcess(root: string): { first: number; second: number } {
  const script = `
    const t0 = performance.now();
    const { lint } = await import(${JSON.stringify(LINT_MODULE)});
    const { projectAt } = await import(${JSON.stringify(new URL("../packages/vigie/src/core/project.ts", import.meta.url).pathname)});
    const project = projectAt(${JSON.stringify(root)});
    await lint(project);
    const first = performance.now() - t0;
    const t1 = performance.now();
    await lint(project);
    const second = performance.now() - t1;
    const { closeMermaidParsers } = await import(${JSON.stringify(PARSER_MODULE)});
    await closeMermaidParsers();
    console.log(JSON.stringify({ first, second }));
  `;
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as { first: number; second: number };
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

function row(label: string, values: number[]): string {
  return `| ${label} | ${ms(median(values))} | ${values.map((value) => Math.round(value)).join(", ")} |`;
}

export default async function (): Promise<string> {
  const copy = copyBlog("bench-lint");
  try {
    // The collection schema comes from `astro sync`: done once, before any timing.
    const first = await lint(readSite(copy));
    const problems = (first.content?.problems.length ?? 0) + (first.mermaid?.problems.length ?? 0);
    await closeMermaidParsers();

    const cold: number[] = [];
    const second: number[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const run = coldProcess(copy.root);
      cold.push(run.first);
      second.push(run.second);
    }
    const inProcessFirst = await time(() => lint(readSite(copy)));
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) warm.push(await time(() => lint(readSite(copy))));
    const edited: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      clearMermaidCache();
      edited.push(await time(() => lint(readSite(copy))));
    }
    const contentOnly: number[] = [];
    for (let i = 0; i < RUNS; i++) contentOnly.push(await time(() => lint(readSite(copy), { linters: ["content"] })));

    return [
      "## lint: blog_build_lint on the blog's articles",
      "",
      `${first.files} Markdown/MDX files, ${first.mermaid?.diagrams ?? 0} Mermaid diagrams, ${problems} problems (the clean blog). ` +
        `Cold: ${PROCESSES} fresh Node processes (imports, jsdom and mermaid in a worker, first lint). Then ${RUNS} lints in this process. Medians, then each run.`,
      "",
      "| measure | median | runs |",
      "|---|---|---|",
      row("cold: new process, import + first lint", cold),
      row("**second lint in that process** (target < 3 s)", second),
      row("first lint in a process with the modules loaded (worker start)", [inProcessFirst]),
      row("warm lint, diagrams unchanged (cached verdicts)", warm),
      row("warm lint, every diagram changed (parsed again)", edited),
      row("content linter alone", contentOnly),
      "",
      `Ratio cold / warm-with-every-diagram-parsed: ${(median(cold) / median(edited)).toFixed(1)}×.`,
    ].join("\n");
  } finally {
    await closeMermaidParsers();
    copy.remove();
  }
}
