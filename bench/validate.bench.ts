// `vigie validate` against `vigie validate --changed` after one change of each kind (an article,
// a shared component, the layout, a .ts module, the global stylesheet), on a copy of the blog under
// git with the default checks (astro check on), each beside the full run of the same round; then
// the verdict of --changed against the full run's for faults made as the only change.
// Targets: the full run ≤ 30 s and --changed after an article ≤ 15 s (issue 12); --changed after
// any kind of change ≤ 40 % of the full run's median in the same run (issues 12 and 23).
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { baselinePath } from "../packages/vigie/src/core/changes/baseline.ts";
import { stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import { cacheDir } from "../packages/vigie/src/core/typecheck/cache.ts";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { type BlogCopy, copyBlog, killGroup } from "../packages/vigie/test/support/blog.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.BENCH_RUNS) || 3;
/** BENCH_FAULTS: only the parity faults whose name holds one of these comma-separated words (all by default). */
const FAULT_FILTER = (process.env.BENCH_FAULTS ?? "").split(",").filter(Boolean);
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
const edit = (file: string, change: (text: string) => string) => {
  const text = readFileSync(file, "utf8");
  const changed = change(text);
  if (changed === text) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(file, changed);
};

/** One change of each kind, none a fault: what an agent edits between two runs. */
const CHANGES: { kind: string; what: string; make: (copy: BlogCopy, round: number) => void }[] = [
  {
    kind: "article",
    what: "one paragraph appended to src/content/articles/en/small-tool-answers.mdx",
    make: (copy, round) =>
      append(
        article(copy, "en", "small-tool-answers"),
        `One more paragraph, edit ${round + 1}: an agent that has just changed one article wants to know quickly whether it broke anything.`,
      ),
  },
  {
    kind: "component",
    what: "an attribute added to the markup of src/components/Terminal.astro (on several articles)",
    make: (copy, round) =>
      edit(join(copy.root, "src", "components", "Terminal.astro"), (text) =>
        text.replace('<figure class="terminal"', `<figure class="terminal" data-edit="${round + 1}"`),
      ),
  },
  {
    kind: "layout",
    what: "an attribute added to `<main>` in src/layouts/BaseLayout.astro (every page)",
    make: (copy, round) =>
      edit(join(copy.root, "src", "layouts", "BaseLayout.astro"), (text) =>
        text.replace('<main id="content"', `<main data-edit="${round + 1}" id="content"`),
      ),
  },
  {
    kind: ".ts file",
    what: "the English topics intro changed in src/i18n/ui.ts",
    make: (copy, round) =>
      edit(join(copy.root, "src", "i18n", "ui.ts"), (text) =>
        text.replace('"tags.intro": "The articles, by topic."', `"tags.intro": "The articles, by topic (${round + 1})."`),
      ),
  },
  {
    kind: "style",
    what: "one rule appended to src/styles/global.css (every page)",
    make: (copy, round) => append(join(copy.root, "src", "styles", "global.css"), `.edit-${round + 1} { margin-block: 0; }`),
  },
];

/** Faults of test/validate.e2e.test.ts, a type error and a stylesheet rule, each as the only change. */
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
  {
    name: "a component that throws in the browser",
    inject: (copy: BlogCopy) => {
      writeFileSync(
        join(copy.root, "src", "components", "Broken.astro"),
        `<div class="broken">broken</div>\n<script>\n  throw new Error("Broken component failed in the browser");\n</script>\n`,
      );
      edit(
        article(copy, "en", "orphan-dev-servers"),
        (text) => `${text.replace(/\n---\n/, '\n---\nimport Broken from "../../../components/Broken.astro";\n')}\n\n<Broken />\n`,
      );
    },
    tool: "blog_browser_crawl",
  },
  {
    name: "a stylesheet rule that makes the footer's text unreadable",
    inject: (copy: BlogCopy) => append(join(copy.root, "src", "styles", "global.css"), ".site-footer p { color: #f4f4f4; }"),
    tool: "blog_browser_a11y",
  },
  {
    name: "a type error in a .ts module",
    inject: (copy: BlogCopy) => append(join(copy.root, "src", "lib", "articles.ts"), 'export const readingSpeed: number = "fast";'),
    tool: "blog_build_check",
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
  /** The full run again at once, nothing changed: astro check's result comes from its cache. */
  const again: Run[] = [];
  const changed = new Map<string, Run[]>(CHANGES.map((change) => [change.kind, []]));
  const parity: { name: string; tool: string; full: Run; changed: Run }[] = [];
  // The pages record of the round's full run: each --changed compares with it, as an agent's
  // first --changed after a full run does (not with what the previous kind's run recorded).
  const record = baselinePath(copy);
  const saved = join(copy.root, "pages-record.json");
  try {
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\nreport.json\npages-record.json\n");
    // Every default check; room for a build and a dev server slowed by other work on a shared machine.
    writeFileSync(
      join(copy.root, "vigie.config.json"),
      JSON.stringify({ checks: {}, build: { timeoutS: 600 }, dev: { readyTimeoutS: 120 } }),
    );
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "clean");
    const reset = () => {
      git("checkout", "-q", "--", ".");
      git("clean", "-fdq");
      if (existsSync(saved)) copyFileSync(saved, record);
    };
    for (let round = 0; round < RUNS; round++) {
      // Each round's full run checks the types itself: no result of an earlier run is kept.
      const kept = cacheDir(copy);
      if (kept) rmSync(kept, { recursive: true, force: true });
      full.push(await validate(copy));
      again.push(await validate(copy));
      if (existsSync(record)) copyFileSync(record, saved);
      // A different kind first each round: none always runs just after the full run.
      for (let k = 0; k < CHANGES.length; k++) {
        const change = CHANGES[(k + round) % CHANGES.length] as (typeof CHANGES)[number];
        change.make(copy, round);
        try {
          changed.get(change.kind)?.push(await validate(copy, ["--changed"]));
        } finally {
          reset();
        }
      }
    }
    // --changed first: the record it compares with is the clean tree's, as an agent's would be.
    for (const fault of FAULTS.filter((f) => !FAULT_FILTER.length || FAULT_FILTER.some((word) => f.name.includes(word)))) {
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
  const row = (label: string, runs: Run[], target: string) => {
    const values = walls(runs);
    return `| ${label} | ${s(median(values))} | ${s(Math.min(...values))} | ${s(Math.max(...values))} | ${values.map((v) => v.toFixed(1)).join(", ")} | ${target} |`;
  };
  const ratioCell = (runs: Run[]) => {
    const ratio = median(walls(runs)) / fullMedian;
    const verdict =
      ratio <= TARGET_RATIO
        ? "met"
        : `missed by ${((ratio - TARGET_RATIO) * 100).toFixed(0)} points (${s(median(walls(runs)) - TARGET_RATIO * fullMedian)})`;
    return `${(ratio * 100).toFixed(0)} % (≤ ${TARGET_RATIO * 100} %: ${verdict})`;
  };
  const allChanged = [...changed.values()].flat();
  const stepNames = [...new Set([...full, ...allChanged].flatMap((run) => run.report?.steps.map((step) => step.name) ?? []))];
  const stepMedian = (runs: Run[], name: string) => {
    const values = runs.flatMap((run) => run.report?.steps.filter((step) => step.name === name).map((step) => step.ms) ?? []);
    return values.length ? `${(median(values) / 1000).toFixed(1)} s` : "–";
  };
  const stepStatus = (runs: Run[], name: string) =>
    [...new Set(runs.flatMap((run) => run.report?.steps.filter((step) => step.name === name).map((step) => step.status) ?? []))].join("/");
  const pagesLoaded = (runs: Run[]) => runs.map((run) => run.report?.pages.length ?? "?").join(", ");
  const errors = [...full, ...allChanged, ...parity.flatMap((p) => [p.full, p.changed])].map(failed).filter(Boolean);
  const verdicts = (runs: Run[]) => runs.map((run) => run.report?.verdict ?? "none").join(", ");

  return [
    "## validate: the full run against `--changed` after one change of each kind",
    "",
    `A copy of the blog under git, \`vigie.config.json\` with every default check (astro check on; a 600 s build timeout and 120 s for the dev server, for a loaded machine). ${RUNS} round${RUNS === 1 ? "" : "s"}: the full \`vigie validate\` (astro check's kept results removed first), the same again at once with nothing changed, then for each kind of change (in a different order each round) the change, \`vigie validate --changed\` against the pages record of the round's full run, and \`git checkout -- .\`. Wall time of the CLI process (\`CI=1\`, \`--json\`), seconds.`,
    "",
    "| run | median | min | max | runs | target |",
    "|---|---|---|---|---|---|",
    row("**full `validate`**", full, `≤ ${TARGET_FULL_S} s: ${against(fullMedian, TARGET_FULL_S)}`),
    row(
      "**full `validate` again**, nothing changed (astro check's result kept from the run before)",
      again,
      `≤ ${TARGET_FULL_S} s: ${against(median(walls(again)), TARGET_FULL_S)}; astro check ${stepMedian(again, "astro check")} (full run: ${stepMedian(full, "astro check")})`,
    ),
    ...CHANGES.map((change) => {
      const runs = changed.get(change.kind) ?? [];
      const seconds = change.kind === "article" ? `≤ ${TARGET_CHANGED_S} s: ${against(median(walls(runs)), TARGET_CHANGED_S)}; ` : "";
      return row(
        `**--changed** after ${change.kind === "article" ? "an" : "a"} ${change.kind}: ${change.what}`,
        runs,
        `${seconds}${ratioCell(runs)}`,
      );
    }),
    "",
    `Verdicts: full ${verdicts(full)}; ${CHANGES.map((change) => `${change.kind} ${verdicts(changed.get(change.kind) ?? [])}`).join("; ")}. Pages loaded: full ${pagesLoaded(full)}; ${CHANGES.map((change) => `${change.kind} ${pagesLoaded(changed.get(change.kind) ?? [])}`).join("; ")}.`,
    "",
    "Each step's median (the JSON report's `steps`; steps run side by side where independent, so they do not add up to the wall time):",
    "",
    `| step | full | ${CHANGES.map((change) => `--changed, ${change.kind}`).join(" | ")} |`,
    `|---|---|${CHANGES.map(() => "---").join("|")}|`,
    ...stepNames.map(
      (name) =>
        `| ${name} | ${stepMedian(full, name)} ${stepStatus(full, name)} | ${CHANGES.map((change) => `${stepMedian(changed.get(change.kind) ?? [], name)} ${stepStatus(changed.get(change.kind) ?? [], name)}`).join(" | ")} |`,
    ),
    "",
    "Verdict parity: each fault made as the only change on the clean tree, `--changed` first (compared with the last full run's record), then the full run; one run each.",
    "",
    "| fault | full: verdict, where | --changed: verdict, where, pages loaded, wall | same verdict and place |",
    "|---|---|---|---|",
    ...parity.map((p) => {
      const fullWhere = where(p.full.report?.findings ?? [], p.tool);
      const changedWhere = where(p.changed.report?.findings ?? [], p.tool);
      const same = p.full.report?.verdict === p.changed.report?.verdict && fullWhere.length > 0 && fullWhere.join() === changedWhere.join();
      return `| ${p.name} (${p.tool}) | ${p.full.report?.verdict ?? "none"}, ${fullWhere.join("; ") || "no finding"} | ${p.changed.report?.verdict ?? "none"}, ${changedWhere.join("; ") || "no finding"}, ${p.changed.report?.pages.length ?? "?"} pages, ${s(p.changed.wallS)} | ${same ? "yes" : "**no**"} |`;
    }),
    "",
    "What `--changed` saves, and what it cannot:",
    "- astro check runs only when a .ts, .astro, script, config or lock file changed (not for an article or a stylesheet). When it runs, it reads the types `.astro/` holds (`astro check --noSync`) unless a change can alter them (a lock file, tsconfig, an actions file; the Astro and content config make everything run): the build writes the same types beside it. `astro sync` was about 3 s of the check's 10.5 s of CPU on the blog (measured by hand with `/usr/bin/time`: 8.6 s of CPU with `--noSync`). Such a check no longer holds back the critical routes, and lint is skipped when no content file changed.",
    "- Tried and left: type-checking only the changed files and their importers with the checker `astro check` drives (`AstroCheck` of @astrojs/language-server takes a list of files). Measured by hand on the blog: building the checker (TypeScript's program: parsing and binding lib.dom, @types/node and Astro's types) 4.7-8.4 s, then checking all 32 files 1.5-2.2 s, one file 0.1-0.5 s. A subset saves at most the second figure; only a checker kept warm between runs would save the first, and its process would have to outlive the CLI.",
    "- A change made only to stylesheets changes every page's output too (the hash of the stylesheet every page loads), but a page whose output changed only by its stylesheets is loaded again only when a changed rule can apply to one of its elements: by the classes and ids its elements had when the crawl last saw them (those its scripts drew too) or that its new HTML writes. A changed custom property, @font-face or other at-rule, a rule with no class or id in its selector, or nested rules make every such page count; a page that failed last time is loaded again.",
    "- A layout changes every page's markup: `--changed` then loads every page in the browser, as the full run does, and saves only lint. Astro has no incremental build: the build (its client bundle with Mermaid is about half of it), the dev server's start and the browser's are in every run and set the floor of `--changed`.",
    "",
    `Load average (1, 5, 15 min) at the end: ${loadAtEnd} (2 cores, shared with other work).`,
    ...(errors.length ? ["", `Errors: ${errors.join("; ").slice(0, 1500)}`] : []),
  ].join("\n");
}
