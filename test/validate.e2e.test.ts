// `vigie validate --json` on copies of the blog with one fault each: the expected
// verdict, and a finding that names the page or file and the tool that saw it.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCheck } from "../packages/vigie/src/core/check/check.ts";
import { stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import type { ValidateContext } from "../packages/vigie/src/core/validate/context.ts";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/findings.ts";
import { checkFindings } from "../packages/vigie/src/core/validate/steps/check.ts";
import { type BlogCopy, copyBlog, killGroup } from "../packages/vigie/test/support/blog.ts";

const MAIN = join(import.meta.dirname, "..", "packages", "vigie", "src", "cli", "main.ts");
const copies: BlogCopy[] = [];
after(async () => {
  for (const copy of copies) {
    // A validate that was killed could not stop the dev server it started.
    await stopDevServer(copy).catch(() => undefined);
    copy.remove();
  }
});

async function validateCopy(
  copy: BlogCopy,
  config: object = { checks: { check: false } },
  extra: string[] = [],
): Promise<{ code: number | null; report: ValidationReport; output: string }> {
  writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(config));
  const json = join(copy.root, "report.json");
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
  clearTimeout(timer);
  killGroup(child, "SIGKILL");
  return { code, report: JSON.parse(readFileSync(json, "utf8")) as ValidationReport, output };
}

const article = (copy: BlogCopy, lang: "fr" | "en", slug: string) => join(copy.root, "src", "content", "articles", lang, `${slug}.mdx`);
const append = (file: string, text: string): undefined => {
  appendFileSync(file, `\n\n${text}\n`);
};
const matching = (findings: Finding[], tool: string, where: RegExp) =>
  findings.find((f) => f.tool === tool && where.test(`${f.page ?? ""} ${f.file ?? ""}`));

interface Fault {
  name: string;
  /** Injects the fault; returns the vigie.config.json to use, if not the default. */
  inject: (copy: BlogCopy) => object | undefined;
  verdict: "PASS" | "WARN" | "FAIL";
  tool: string;
  where: RegExp;
  /** A finding of `tool` at `where` names this file and the last line that holds `text`. */
  source?: { lang: "fr" | "en"; slug: string; text: string };
}

/** "src/content/articles/en/x.mdx:12": the last line of the article that holds `text`. */
const expectedSource = (copy: BlogCopy, { lang, slug, text }: NonNullable<Fault["source"]>): string => {
  const lines = readFileSync(article(copy, lang, slug), "utf8").split("\n");
  const index = lines.findLastIndex((line) => line.includes(text));
  return `src/content/articles/${lang}/${slug}.mdx:${index + 1}`;
};

const FAULTS: Fault[] = [
  {
    name: "invalid Mermaid in one EN article only",
    inject: (copy) =>
      append(article(copy, "en", "mermaid-in-the-browser"), "```mermaid\nflowchart TD\n  A[Start] --> B{Decide\n  B -->|yes| C[Done\n```"),
    verdict: "FAIL",
    tool: "blog_browser_js_errors",
    where: /^\/en\/articles\/mermaid-in-the-browser\//,
    source: { lang: "en", slug: "mermaid-in-the-browser", text: "```mermaid" },
  },
  {
    name: "a component that throws in the browser on one article only",
    inject: (copy) => {
      writeFileSync(
        join(copy.root, "src", "components", "Broken.astro"),
        `<div class="broken">broken</div>\n<script>\n  throw new Error("Broken component failed in the browser");\n</script>\n`,
      );
      const file = article(copy, "en", "orphan-dev-servers");
      const text = readFileSync(file, "utf8").replace(/\n---\n/, '\n---\nimport Broken from "../../../components/Broken.astro";\n');
      writeFileSync(file, `${text}\n\n<Broken />\n`);
      return undefined;
    },
    verdict: "FAIL",
    tool: "blog_browser_crawl",
    where: /^\/en\/articles\/orphan-dev-servers\//,
  },
  {
    name: "a missing image",
    inject: (copy) =>
      append(
        article(copy, "fr", "budgets-de-performance"),
        '<img src="/images/graphique-absent.png" alt="Un graphique qui manque" width="400" height="200" />',
      ),
    verdict: "FAIL",
    tool: "blog_browser_crawl",
    where: /^\/articles\/budgets-de-performance\//,
    source: { lang: "fr", slug: "budgets-de-performance", text: "graphique-absent.png" },
  },
  {
    name: "a broken internal link",
    inject: (copy) =>
      append(article(copy, "fr", "site-statique-bilingue"), "Voir aussi [un article qui n'existe pas](/articles/article-inexistant/)."),
    verdict: "FAIL",
    tool: "blog_build_links",
    where: /site-statique-bilingue/,
  },
  {
    name: "{foo bar} in MDX prose",
    inject: (copy) => {
      append(article(copy, "fr", "accolades-mdx-dans-le-texte"), "Une phrase avec {foo bar} au milieu.");
      return undefined;
    },
    verdict: "FAIL",
    tool: "blog_build_lint",
    where: /src\/content\/articles\/fr\/accolades-mdx-dans-le-texte\.mdx:\d+:\d+/,
  },
  {
    name: "a page slower than the budget",
    inject: (copy) => {
      const file = join(copy.root, "src", "pages", "index.astro");
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace(
          '<HomeView lang="fr" />',
          '<HomeView lang="fr" />\n<script is:inline>const start = performance.now(); while (performance.now() - start < 600) {}</script>',
        ),
      );
      return undefined;
    },
    verdict: "WARN",
    tool: "blog_browser_perf",
    where: /^\/ /,
  },
  {
    name: "an image without alt text",
    inject: (copy) => {
      append(article(copy, "en", "performance-budgets"), '<img src="/favicon.svg" width="32" height="32" />');
      return undefined;
    },
    verdict: "FAIL",
    tool: "blog_browser_a11y",
    where: /^\/en\/articles\/performance-budgets\//,
    source: { lang: "en", slug: "performance-budgets", text: '<img src="/favicon.svg"' },
  },
  {
    name: "a missing EN translation",
    inject: (copy) => {
      rmSync(article(copy, "en", "visual-regression-baselines"));
      return undefined;
    },
    verdict: "WARN",
    tool: "blog_build_lint",
    where: /src\/content\/articles\/fr\/regression-visuelle-references\.mdx/,
  },
  {
    name: "a dev command that fails to start",
    inject: () => ({
      checks: { check: false },
      dev: { command: ["node", "-e", "console.error('dev server cannot start: port config broken'); process.exit(3)"] },
    }),
    verdict: "FAIL",
    tool: "blog_dev_start",
    where: /.*/,
  },
];

describe("vigie validate on the blog with one fault each", () => {
  test("the clean blog: PASS with no finding", async () => {
    const copy = copyBlog("validate-clean");
    copies.push(copy);
    // Load times on a shared 2-core machine swing several-fold with what else runs: the clean
    // run judges them against a looser budget (the perf fault below keeps the default one).
    const { code, report, output } = await validateCopy(copy, { budgets: { loadMs: 1000 } });
    assert.deepEqual(report.findings, [], output);
    assert.equal(report.verdict, "PASS");
    assert.equal(code, 0);
    assert.ok(report.pages.length >= 60, "every page was crawled");
    assert.ok(
      report.steps.some((s) => s.name === "stop" && s.status === "ok"),
      "it stopped the dev server it started",
    );
  });

  for (const fault of FAULTS) {
    test(`${fault.name}: ${fault.verdict} from ${fault.tool}`, async () => {
      const copy = copyBlog(`validate-${fault.name.replace(/\W+/g, "-").slice(0, 30)}`);
      copies.push(copy);
      const config = fault.inject(copy);
      const { code, report, output } = await validateCopy(copy, config ?? { checks: { check: false } });
      const summary = report.findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""} ${f.message}`).join("\n");
      assert.equal(report.verdict, fault.verdict, `${summary}\n${output.slice(-1500)}`);
      assert.equal(code, fault.verdict === "FAIL" ? 1 : 0);
      assert.ok(matching(report.findings, fault.tool, fault.where), `no finding from ${fault.tool} at ${fault.where}:\n${summary}`);
      for (const finding of report.findings) assert.ok(finding.fix, "every finding says what to do");
      if (fault.source) {
        const expected = expectedSource(copy, fault.source);
        assert.ok(
          report.findings.some((f) => f.tool === fault.tool && fault.where.test(f.page ?? "") && f.file === expected),
          `no finding from ${fault.tool} at ${fault.where} with the source ${expected}:\n${summary}`,
        );
      }
    });
  }
});

// `validate --changed` on one copy under git: a full run records each page, then each fault
// is made as the only change, checked with --changed, and undone. Same verdict, same page
// and tool as the full runs above.
describe("vigie validate --changed: each fault as the only change", () => {
  const copy = copyBlog("validate-changed");
  copies.push(copy);
  const config = { checks: { check: false } };
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, encoding: "utf8" });

  test("a full run first records every page; --changed with nothing changed loads none", async () => {
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\nreport.json\n");
    writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(config));
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "clean");
    const full = await validateCopy(copy, config);
    assert.ok(full.report.pages.length >= 60, full.output.slice(-1500));
    const none = await validateCopy(copy, config, ["--changed"]);
    assert.equal(none.report.pages.length, 0, none.output.slice(-1500));
    assert.match(none.output, /--changed: 0 changed files/);
  });

  for (const fault of FAULTS) {
    test(`${fault.name}: ${fault.verdict} from ${fault.tool}, with --changed`, async () => {
      try {
        // A fault made in vigie.config.json changes what every check depends on: everything is checked.
        const faultConfig = fault.inject(copy);
        const { report, output } = await validateCopy(copy, faultConfig ?? config, ["--changed"]);
        const summary = report.findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""} ${f.message}`).join("\n");
        assert.equal(report.verdict, fault.verdict, `${summary}\n${output.slice(-1500)}`);
        assert.ok(matching(report.findings, fault.tool, fault.where), `no finding from ${fault.tool} at ${fault.where}:\n${summary}`);
        if (faultConfig) assert.match(output, /vigie\.config\.json changed: everything is checked/);
        else assert.ok(report.pages.length < 40, `--changed loaded ${report.pages.length} pages:\n${output.slice(-1500)}`);
      } finally {
        git("checkout", "-q", "--", ".");
        git("clean", "-fdq");
      }
    });
  }

  // The one fault astro check alone sees: --changed must find exactly what the full check finds.
  test("a type error in a .ts module: WARN from blog_build_check, with --changed, as the full astro check finds it", async () => {
    const checked = { checks: { check: true } };
    writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(checked));
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-am", "astro check on");
    try {
      append(join(copy.root, "src", "lib", "articles.ts"), 'export const readingSpeed: number = "fast";');
      const { report, output } = await validateCopy(copy, checked, ["--changed"]);
      const summary = report.findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""} ${f.message}`).join("\n");
      assert.equal(report.verdict, "WARN", `${summary}\n${output.slice(-1500)}`);
      assert.match(output, /--changed: 1 changed file .*src\/lib\/articles\.ts/);
      // The build wrote the same types beside it: the check read them as they were.
      assert.match(report.steps.find((step) => step.name === "astro check")?.summary ?? "", /1 errors.*on the types in \.astro\//);
      const full = await runCheck(copy);
      const fullFindings = checkFindings({ tool: (id: string) => `blog_${id}` } as ValidateContext, full.diagnostics);
      assert.equal(fullFindings.length, 1, full.report);
      assert.deepEqual(
        report.findings.filter((f) => f.tool === "blog_build_check"),
        fullFindings,
      );
      assert.match(fullFindings[0]?.file ?? "", /^src\/lib\/articles\.ts:\d+:\d+$/);
    } finally {
      git("checkout", "-q", "--", ".");
      git("clean", "-fdq");
    }
  });
});
