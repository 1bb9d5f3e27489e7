// `vigie validate` against `vigie validate --changed` after the edit of one article, on a copy
// of the blog under git with the default checks (astro check on), alternating, then the
// verdict of --changed against the full run's for two faults made as the only change.
// Targets (issue 12): --changed median ≤ 15 s and ≤ 40 % of the full run's median in the same
// run; the full run ≤ 30 s.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/findings.ts";
import { type BlogCopy, copyBlog, killGroup } from "../packages/vigie/test/support/blog.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS) || 3;
const MAIN = join(import.meta.dirname, "..", "packages", "vigie", "src", "cli", "main.ts");
const TARGET_FULL_S = 30;
const TARGET_CHANGED_S = 15;
const TARGET_RATIO = 0.4;

interface Run {
  wallS: number;
  code: number | null;
  report?: ValidationReport;
  output: string;
}

async function validate(copy: BlogCopy, extra: string[] = []): Promise<Run> {
  const json = join(copy.root, "report.json");
  writeFileSync(json, "");
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN, "validate", "--project", copy.root, "--json", json, ...extra], {
    cwd: copy.root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "1" },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), 600_000);
  const [code] = (await once(child, "exit")) as [number | null];
  const wallS = (performance.now() - started) / 1000;
  clearTimeout(timer);
  killGroup(child, "SIGKILL");
  let report: ValidationReport | undefined;
  try {
    report = JSON.parse(readFileSync(json, "utf8")) as ValidationReport;
  } catch {
    report = undefined;
  }
  return { wallS, code, report, output };
}

const article = (copy: BlogCopy, lang: string, slug: string) => join(copy.root, "src", "content", "articles", lang, `${slug}.mdx`);
const append = (file: string, text: string) => appendFileSync(file, `\n\n${text}\n`);

/** The two faults of test/validate.test.ts checked here, each as the only change. */
const FAULTS = [
  {
    name: "a broken internal link",
    inject: (copy: BlogCopy) =>
      append(article(copy, "fr", "site-statique-bilingue"), "Voir aussi [un article qui n'existe pas](/articles/article-inexistant/)."),
    tool: "blog_build_links",
  },
  {
    name: "an image without alt text",
    inject: (copy: BlogCopy) => append(article(copy, "en", "performance-budgets"), '<img src="/favicon.svg" width="32" height="32" />'),
    tool: "blog_browser_a11y",
  },
];

const s = (value: number) => `${value.toFixed(1)} s`;
const against = (value: number, target: number) => (value <= target ? "met" : `missed by ${(value - target).toFixed(1)} s`);
const failed = (run: Run) =>
  run.report
    ? (run.report.harnessError?.message ?? "")
    : `no report (exit ${run.code}): ${run.output.trim().split("\n").slice(-3).join(" / ").slice(0, 300)}`;
const where = (findings: Finding[], tool: string) =>
  [...new Set(findings.filter((f) => f.tool === tool).map((f) => [f.page, f.file].filter(Boolean).join(" ") || "(site)"))].sort();

export default async function (): Promise<string> {
  const copy = copyBlog("bench-validate");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, encoding: "utf8" });
  const full: Run[] = [];
  const changed: Run[] = [];
  const parity: { name: string; tool: string; full: Run; changed: Run }[] = [];
  try {
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\nreport.json\n");
    writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify({ checks: {} }));
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "clean");
    const reset = () => {
      git("checkout", "-q", "--", ".");
      git("clean", "-fdq");
    };
    for (let round = 0; round < RUNS; round++) {
      full.push(await validate(copy));
      append(
        article(copy, "en", "small-tool-answers"),
        `One more paragraph, edit ${round + 1}: an agent that has just changed one article wants to know quickly whether it broke anything.`,
      );
      try {
        changed.push(await validate(copy, ["--changed"]));
      } finally {
        reset();
      }
    }
    // --changed first: the record it compares with is the clean tree's, as an agent's would be.
    for (const fault of FAULTS) {
      fault.inject(copy);
      try {
        const withChanged = await validate(copy, ["--changed"]);
        const whole = await validate(copy);
        parity.push({ name: fault.name, tool: fault.tool, full: whole, changed: withChanged });
      } finally {
        reset();
      }
    }
  } finally {
    await stopDevServer(copy).catch(() => undefined);
    copy.remove();
  }
  const loadAtEnd = loadavg()
    .map((v) => v.toFixed(2))
    .join(", ");

  const walls = (runs: Run[]) => runs.map((run) => run.wallS);
  const fullMedian = median(walls(full));
  const changedMedian = median(walls(changed));
  const ratio = changedMedian / fullMedian;
  const row = (label: string, runs: Run[], target: string) => {
    const values = walls(runs);
    return `| ${label} | ${s(median(values))} | ${s(Math.min(...values))} | ${s(Math.max(...values))} | ${values.map((v) => v.toFixed(1)).join(", ")} | ${target} |`;
  };
  const stepNames = [...new Set([...full, ...changed].flatMap((run) => run.report?.steps.map((step) => step.name) ?? []))];
  const stepMedian = (runs: Run[], name: string) => {
    const values = runs.flatMap((run) => run.report?.steps.filter((step) => step.name === name).map((step) => step.ms) ?? []);
    return values.length ? `${(median(values) / 1000).toFixed(1)} s` : "–";
  };
  const stepStatus = (runs: Run[], name: string) =>
    [...new Set(runs.flatMap((run) => run.report?.steps.filter((step) => step.name === name).map((step) => step.status) ?? []))].join("/");
  const pagesLoaded = (runs: Run[]) => runs.map((run) => run.report?.pages.length ?? "?").join(", ");
  const errors = [...full, ...changed, ...parity.flatMap((p) => [p.full, p.changed])].map(failed).filter(Boolean);
  const verdicts = (runs: Run[]) => runs.map((run) => run.report?.verdict ?? "none").join(", ");

  return [
    "## validate: the full run against `--changed` after the edit of one article",
    "",
    `A copy of the blog under git, \`vigie.config.json\` \`{"checks":{}}\` (every default check, astro check on). ${RUNS} rounds, alternating: the full \`vigie validate\`, then one paragraph appended to src/content/articles/en/small-tool-answers.mdx and \`vigie validate --changed\`, then \`git checkout -- .\`. Wall time of the CLI process (\`CI=1\`, \`--json\`), seconds.`,
    "",
    "| run | median | min | max | runs | target |",
    "|---|---|---|---|---|---|",
    row("**full `validate`**", full, `≤ ${TARGET_FULL_S} s: ${against(fullMedian, TARGET_FULL_S)}`),
    row("**`validate --changed`** (one article edited)", changed, `≤ ${TARGET_CHANGED_S} s: ${against(changedMedian, TARGET_CHANGED_S)}`),
    `| **--changed / full** (medians) | ${(ratio * 100).toFixed(0)} % | | | | ≤ ${TARGET_RATIO * 100} %: ${ratio <= TARGET_RATIO ? "met" : `missed by ${((ratio - TARGET_RATIO) * 100).toFixed(0)} points (${s(changedMedian - TARGET_RATIO * fullMedian)})`} |`,
    "",
    `Verdicts: full ${verdicts(full)}; --changed ${verdicts(changed)}. Pages loaded: full ${pagesLoaded(full)}; --changed ${pagesLoaded(changed)}.`,
    "",
    "Each step's median (the JSON report's `steps`; steps run side by side where independent, so they do not add up to the wall time):",
    "",
    "| step | full | status | --changed | status |",
    "|---|---|---|---|---|",
    ...stepNames.map(
      (name) =>
        `| ${name} | ${stepMedian(full, name)} | ${stepStatus(full, name)} | ${stepMedian(changed, name)} | ${stepStatus(changed, name)} |`,
    ),
    "",
    "Verdict parity: each fault made as the only change on the clean tree, `--changed` first (compared with the last run's record), then the full run; one run each.",
    "",
    "| fault | full: verdict, where | --changed: verdict, where, pages loaded, wall | same verdict and page |",
    "|---|---|---|---|",
    ...parity.map((p) => {
      const fullWhere = where(p.full.report?.findings ?? [], p.tool);
      const changedWhere = where(p.changed.report?.findings ?? [], p.tool);
      const same = p.full.report?.verdict === p.changed.report?.verdict && fullWhere.length > 0 && fullWhere.join() === changedWhere.join();
      return `| ${p.name} (${p.tool}) | ${p.full.report?.verdict ?? "none"}, ${fullWhere.join("; ") || "no finding"} | ${p.changed.report?.verdict ?? "none"}, ${changedWhere.join("; ") || "no finding"}, ${p.changed.report?.pages.length ?? "?"} pages, ${s(p.changed.wallS)} | ${same ? "yes" : "**no**"} |`;
    }),
    "",
    `Load average (1, 5, 15 min) at the end: ${loadAtEnd} (2 cores, shared with other work).`,
    ...(errors.length ? ["", `Errors: ${errors.join("; ").slice(0, 1500)}`] : []),
  ].join("\n");
}
