// `vigie validate --json` on a copy of the blog with faults made in it: the expected verdict,
// and for each fault a finding that names its page or file and the tool that saw it.
//
// Each run builds the site, so faults that cannot interfere share one: the faults of a group lie
// each in a file of its own, with the same verdict (a FAIL fault's finding is a failure, so a
// run with it alone would FAIL; a run of WARN faults alone that says WARN has no failure from
// any of them), and each one's finding is checked on its own, as a subtest. The clean blog is
// run on its own, first. The full run of the faults the browser sees also writes what a GitHub
// workflow uploads (SARIF, the HTML report with screenshots) and its annotations and job summary.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, type TestContext, test } from "node:test";
import { pathToFileURL } from "node:url";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { BrowserSession } from "../packages/vigie/src/core/browser/session/session.ts";
import { stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import { runCheck } from "../packages/vigie/src/core/typecheck/typecheck.ts";
import { checkFindings } from "../packages/vigie/src/core/validate/steps/check.ts";
import type { ValidateContext } from "../packages/vigie/src/core/validate/steps/context.ts";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
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
  env: Record<string, string> = {},
): Promise<{ code: number | null; report: ValidationReport; output: string }> {
  writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(config));
  const json = join(copy.root, "report.json");
  const child = spawn(process.execPath, [MAIN, "validate", "--project", copy.root, "--json", json, ...extra], {
    cwd: copy.root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "1", GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "", ...env },
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
/** The findings of `tool` whose page or file `where` matches. */
const matching = (findings: Finding[], tool: string, where: RegExp) =>
  findings.filter((f) => f.tool === tool && where.test(`${f.page ?? ""} ${f.file ?? ""}`));

interface Fault {
  name: string;
  /** Injects the fault; returns the vigie.config.json to use, if not the default. */
  inject: (copy: BlogCopy) => object | undefined;
  verdict: "PASS" | "WARN" | "FAIL";
  tool: string;
  where: RegExp;
  /** A finding of `tool` at `where` names this file and the last line that holds `text`. */
  source?: { lang: "fr" | "en"; slug: string; text: string };
  /** A finding of `tool` at `where` names exactly this source (a component's file:line). */
  sourceFile?: string;
  /**
   * The faults a run makes together: "built", FAIL faults the browser sees on the build (which
   * succeeds); "build", a fault that fails the build (the browser would look at the dev server
   * instead); "warn", the WARN faults; "config", a fault of vigie.config.json (under --changed,
   * everything is checked).
   */
  run: "built" | "build" | "warn" | "config";
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
    run: "built",
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
    // The build inlines the component's small script into the article's HTML: mapped back to its line.
    sourceFile: "src/components/Broken.astro:3",
    run: "built",
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
    run: "built",
  },
  {
    name: "a broken internal link",
    inject: (copy) =>
      append(article(copy, "fr", "site-statique-bilingue"), "Voir aussi [un article qui n'existe pas](/articles/article-inexistant/)."),
    verdict: "FAIL",
    tool: "blog_build_links",
    where: /site-statique-bilingue/,
    run: "built",
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
    run: "build",
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
    run: "warn",
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
    run: "built",
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
    run: "warn",
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
    run: "config",
  },
];

const DEFAULT_CONFIG = { checks: { check: false } };
const faultsOf = (...runs: Fault["run"][]) => FAULTS.filter((fault) => runs.includes(fault.run));

/** Makes `faults` in `copy`; the vigie.config.json to use (a fault's own, else the default). */
function inject(copy: BlogCopy, faults: Fault[]): object {
  let config: object | undefined;
  for (const fault of faults) config = fault.inject(copy) ?? config;
  return config ?? DEFAULT_CONFIG;
}

const summaryOf = (report: ValidationReport) =>
  report.findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? ""} ${f.file ?? ""} ${f.message}`).join("\n");

/**
 * The run of `faults` together: one subtest per fault, its finding from its tool at its place,
 * as severe as its verdict, and at its source line when it has one; then the worst of their
 * verdicts and its exit code, and a fix in every finding.
 */
async function assertFaults(t: TestContext, copy: BlogCopy, faults: Fault[], run: Awaited<ReturnType<typeof validateCopy>>) {
  const { code, report, output } = run;
  const summary = summaryOf(report);
  for (const fault of faults) {
    await t.test(`${fault.name}: ${fault.verdict} from ${fault.tool}`, () => {
      const severity = fault.verdict === "FAIL" ? "fail" : "warn";
      const found = matching(report.findings, fault.tool, fault.where);
      assert.ok(found.length > 0, `no finding from ${fault.tool} at ${fault.where}:\n${summary}`);
      assert.ok(
        found.some((f) => f.severity === severity),
        `no ${severity} from ${fault.tool} at ${fault.where}:\n${summary}`,
      );
      if (fault.sourceFile) {
        assert.ok(
          found.some((f) => f.file === fault.sourceFile),
          `no finding from ${fault.tool} at ${fault.where} with the source ${fault.sourceFile}:\n${summary}`,
        );
      }
      if (fault.source) {
        const expected = expectedSource(copy, fault.source);
        assert.ok(
          found.some((f) => fault.where.test(f.page ?? "") && f.file === expected),
          `no finding from ${fault.tool} at ${fault.where} with the source ${expected}:\n${summary}`,
        );
      }
    });
  }
  const verdict = faults.some((fault) => fault.verdict === "FAIL") ? "FAIL" : "WARN";
  assert.equal(report.verdict, verdict, `${summary}\n${output.slice(-1500)}`);
  assert.equal(code, verdict === "FAIL" ? 1 : 0);
  for (const finding of report.findings) assert.ok(finding.fix, "every finding says what to do");
}

// One copy under git. A full run of the clean blog records each page; each group of faults is
// then made as the only change and checked with --changed, then undone; a type error is checked
// by astro check under --changed; last, full runs of the groups whose build succeeds (the
// records they leave are of no later run).
describe("vigie validate on a copy of the blog: clean, then the faults with --changed, then in full runs", () => {
  const copy = copyBlog("validate");
  copies.push(copy);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, encoding: "utf8" });
  const undo = () => {
    git("checkout", "-q", "--", ".");
    git("clean", "-fdq");
  };

  test("the clean blog: PASS with no finding, every page crawled", async () => {
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\nreport.json\n");
    writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(DEFAULT_CONFIG));
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "clean");
    // Load times on a shared 2-core machine swing several-fold with what else runs: the clean
    // run judges them against a looser budget (the perf fault below keeps the default one).
    // It runs astro check too (the config's default), which the fault runs leave out.
    const { code, report, output } = await validateCopy(copy, { budgets: { loadMs: 1000 } });
    assert.deepEqual(report.findings, [], output);
    assert.equal(report.verdict, "PASS");
    assert.equal(code, 0);
    assert.ok(report.pages.length >= 60, "every page was crawled");
    // Without a terminal, what is under way is said every 10 s: the crawl's pages, the steps' time.
    assert.match(output, /^vigie: … .*(crawl \d+\/\d+ pages|astro check \d+ s)/m, output.slice(0, 3000));
    assert.ok(
      report.steps.some((s) => s.name === "stop" && s.status === "ok"),
      "it stopped the dev server it started",
    );
  });

  test("--changed with nothing changed since that full run loads no page", async () => {
    const none = await validateCopy(copy, DEFAULT_CONFIG, ["--changed"]);
    assert.equal(none.report.pages.length, 0, none.output.slice(-1500));
    assert.match(none.output, /--changed: 0 changed files/);
  });

  for (const group of [faultsOf("built"), faultsOf("build"), faultsOf("warn")]) {
    test(`--changed, the only change: ${group.map((fault) => fault.name).join("; ")}`, async (t) => {
      try {
        const run = await validateCopy(copy, inject(copy, group), ["--changed"]);
        assert.ok(run.report.pages.length < 40, `--changed loaded ${run.report.pages.length} pages:\n${run.output.slice(-1500)}`);
        await assertFaults(t, copy, group, run);
      } finally {
        undo();
      }
    });
  }

  // A fault made in vigie.config.json changes what every check depends on: everything is
  // checked, as in a full run, which also stands for the full run of {foo bar} (its build fails
  // as the dev server does: no browser step looks at anything in either case).
  const everything = faultsOf("config", "build");
  test(`--changed, a config fault checks everything: ${everything.map((fault) => fault.name).join("; ")}`, async (t) => {
    try {
      const run = await validateCopy(copy, inject(copy, everything), ["--changed"]);
      assert.match(run.output, /vigie\.config\.json changed: everything is checked/);
      await assertFaults(t, copy, everything, run);
    } finally {
      undo();
    }
  });

  // The one fault astro check alone sees: --changed must find exactly what the full check finds.
  test("a type error in a .ts module: WARN from blog_build_check, with --changed, as the full astro check finds it", async () => {
    const checked = { checks: { check: true } };
    writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify(checked));
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-am", "astro check on");
    try {
      append(join(copy.root, "src", "lib", "articles.ts"), 'export const readingSpeed: number = "fast";');
      const { report, output } = await validateCopy(copy, checked, ["--changed"]);
      const summary = summaryOf(report);
      assert.equal(report.verdict, "WARN", `${summary}\n${output.slice(-1500)}`);
      assert.match(output, /--changed: 1 changed file .*src\/lib\/articles\.ts/);
      // The build wrote the same types beside it: the check read them as they were.
      assert.match(report.steps.find((step) => step.name === "astro check")?.summary ?? "", /1 errors.*on the types in \.astro\//);
      const full = await runCheck(copy, { cache: false });
      const fullFindings = checkFindings({ tool: (id: string) => `blog_${id}` } as ValidateContext, full.diagnostics);
      assert.equal(fullFindings.length, 1, full.report);
      assert.deepEqual(
        report.findings.filter((f) => f.tool === "blog_build_check"),
        fullFindings,
      );
      assert.match(fullFindings[0]?.file ?? "", /^src\/lib\/articles\.ts:\d+:\d+$/);
    } finally {
      undo();
    }
  });

  test(`a full run: ${faultsOf("built")
    .map((fault) => fault.name)
    .join("; ")}`, async (t) => {
    const group = faultsOf("built");
    const out = mkdtempSync(join(tmpdir(), "vigie-validate-reports-"));
    try {
      // As on GitHub Actions, with the SARIF and HTML reports a workflow uploads.
      const sarifFile = join(out, "vigie.sarif");
      const htmlFile = join(out, "vigie.html");
      const summaryFile = join(out, "summary.md");
      const run = await validateCopy(copy, inject(copy, group), ["--sarif", sarifFile, "--html", htmlFile], {
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summaryFile,
      });
      await assertFaults(t, copy, group, run);
      await t.test("GitHub: SARIF valid and locating the diagram at its line, annotations, job summary", (st) => {
        assertSarifLocates(copy, readFileSync(sarifFile, "utf8"), run.report);
        const line = expectedSource(copy, MERMAID_SOURCE).split(":")[1];
        // The page check's finding (the lint's names the same file, without a page).
        const prefix = `::error file=src/content/articles/en/mermaid-in-the-browser.mdx,line=${line},title=vigie%3A mermaid on /en/articles/mermaid-in-the-browser/::Mermaid diagram`;
        const annotation = run.output.split("\n").find((l) => l.startsWith(prefix));
        assert.ok(annotation, `no annotation starting ${prefix}:\n${run.output.slice(-3000)}`);
        st.diagnostic(`annotation: ${annotation}`);
        const summary = readFileSync(summaryFile, "utf8");
        assert.match(summary, /^## ❌ vigie validate: FAIL\n[\s\S]*\| FAIL \| \/en\/articles\/mermaid-in-the-browser\/ \|/);
        st.diagnostic(`job summary: ${summary.split("\n").slice(0, 5).join(" / ")}`);
      });
      await t.test(
        "the HTML report, opened from the file in Chromium, shows the failing pages' screenshots beside their findings",
        async () => {
          await assertHtmlScreenshots(htmlFile, run.report);
        },
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
      undo();
    }
  });

  test(`a full run: ${faultsOf("warn")
    .map((fault) => fault.name)
    .join("; ")}`, async (t) => {
    try {
      await assertFaults(t, copy, faultsOf("warn"), await validateCopy(copy, inject(copy, faultsOf("warn"))));
    } finally {
      undo();
    }
  });
});

const MERMAID_SOURCE = { lang: "en", slug: "mermaid-in-the-browser", text: "```mermaid" } as const;

/** The SARIF log validates against the SARIF 2.1.0 schema and has the invalid diagram at its file and line. */
function assertSarifLocates(copy: BlogCopy, text: string, report: ValidationReport): void {
  const schema = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", "sarif-2.1.0.schema.json"), "utf8")) as object;
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const check = ajv.compile(schema);
  const log = JSON.parse(text) as {
    runs: {
      results: {
        ruleId: string;
        level: string;
        properties: { page?: string };
        locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
      }[];
    }[];
  };
  assert.ok(check(log), JSON.stringify(check.errors, null, 2));
  const results = log.runs[0]?.results ?? [];
  assert.equal(results.length, report.findings.length, "one result per finding");
  const [file, line] = expectedSource(copy, MERMAID_SOURCE).split(":");
  // The page check's result (the lint's names the same file, without a page).
  const diagram = results.find((r) => r.ruleId === "mermaid" && r.properties.page);
  assert.equal(diagram?.level, "error");
  assert.equal(diagram?.properties.page, "/en/articles/mermaid-in-the-browser/");
  assert.deepEqual(diagram?.locations?.[0]?.physicalLocation, {
    artifactLocation: { uri: file, uriBaseId: "%SRCROOT%" },
    region: { startLine: Number(line) },
  });
}

/**
 * The report opened from its file (no server) in Chromium: a decoded JPEG screenshot of each
 * pictured page, the page without alt text among them with its image outlined, its findings beside it.
 */
async function assertHtmlScreenshots(htmlFile: string, report: ValidationReport): Promise<void> {
  assert.ok(report.screenshots.length >= 1 && report.screenshots.length <= 4, JSON.stringify(report.screenshots));
  const a11yPage = "/en/articles/performance-budgets/";
  const shot = report.screenshots.find((s) => s.page === a11yPage);
  assert.ok(shot, `no screenshot of ${a11yPage}: ${JSON.stringify(report.screenshots)}`);
  assert.match(shot.file, /\.jpg$/);
  assert.ok(
    shot.outlined?.some((target) => /img/.test(target)),
    JSON.stringify(shot),
  );
  const session = new BrowserSession();
  try {
    const context = await (await session.browser()).newContext({ offline: true });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!/^(file|data):/.test(request.url())) requests.push(request.url());
    });
    await page.goto(pathToFileURL(htmlFile).href);
    const figures = await page.$$eval("section.page", (sections) =>
      sections.map((section) => {
        const img = section.querySelector("img") as HTMLImageElement;
        return {
          page: section.querySelector("h3")?.textContent ?? "",
          src: img.src.slice(0, 23),
          width: img.naturalWidth,
          complete: img.complete,
          alt: img.alt,
          findings: section.querySelector("ul")?.textContent ?? "",
        };
      }),
    );
    assert.equal(figures.length, report.screenshots.length, JSON.stringify(figures));
    for (const figure of figures) {
      assert.equal(figure.src, "data:image/jpeg;base64,");
      assert.ok(figure.complete && figure.width >= 800, `the screenshot of ${figure.page} is shown: ${JSON.stringify(figure)}`);
    }
    const a11y = figures.find((figure) => figure.page === a11yPage);
    assert.match(a11y?.alt ?? "", /the failing element outlined/);
    assert.match(a11y?.findings ?? "", /image-alt/);
    assert.deepEqual(requests, [], "the report loads nothing from a server");
    await context.close();
  } finally {
    await session.close();
  }
}
