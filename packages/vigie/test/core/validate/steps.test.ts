// Each validate step's mapping of what a tool found to the report's findings, from fixtures
// shaped as the core returns them (no build, no server, no browser): the severity, the tool
// named with the project's prefix, the rule, the page or file:line, and a fix that says what
// to do. The runs that produce those results have their own tests.
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { SiteFacts } from "../../../src/core/astro/site.ts";
import type { CrawlPage } from "../../../src/core/browser/load/crawl.ts";
import type { PerfResult } from "../../../src/core/browser/perf/perf.ts";
import type { BuildResult } from "../../../src/core/build/build.ts";
import { faultsWithCauses } from "../../../src/core/checks/pageCauses.ts";
import { projectAt } from "../../../src/core/project.ts";
import { buildFindings } from "../../../src/core/validate/steps/build.ts";
import { checkFindings, checkStep } from "../../../src/core/validate/steps/check.ts";
import type { ValidateContext } from "../../../src/core/validate/steps/context.ts";
import { judgePage } from "../../../src/core/validate/steps/crawl.ts";
import { startFailed } from "../../../src/core/validate/steps/dev.ts";
import type { Finding } from "../../../src/core/validate/steps/findings.ts";
import { linkFinding } from "../../../src/core/validate/steps/links.ts";
import { lintFindings, lintStep } from "../../../src/core/validate/steps/lint.ts";
import { budgetFindings, causeFindings, figureOf, spreadOf } from "../../../src/core/validate/steps/perf.ts";
import { routeFinding, routesStep } from "../../../src/core/validate/steps/routes.ts";
import { STARLIGHT_MARKUP } from "../../../src/core/validate/steps/triage.ts";

const SITE: SiteFacts = {
  base: "/",
  trailingSlash: "ignore",
  locales: ["fr", "en"],
  defaultLocale: "fr",
  sitemap: true,
  starlight: false,
  collections: [],
  criticalRoutes: ["/", "/en/"],
  rendering: { output: "static", serve: "static", serveNote: "a static build: served by vigie's static server" },
};

/** What the mappings read of a run: the tools' names under a prefix, the site, the config. */
function context(overrides: { prefix?: string; site?: Partial<SiteFacts>; config?: ValidateContext["config"] } = {}): ValidateContext {
  const prefix = overrides.prefix ?? "docs";
  return {
    tool: (id: string) => `${prefix}_${id}`,
    site: { base: "/", trailingSlash: "ignore", settings: { ...SITE, ...overrides.site } },
    config: overrides.config ?? {},
    critical: ["/"],
    pages: [],
  } as unknown as ValidateContext;
}

const PAGE = "http://127.0.0.1:4321";

/** A crawled page as the crawl step judges it, with no server cause known. */
const judged = (ctx: ValidateContext, crawled: CrawlPage) =>
  judgePage(ctx, { page: crawled, faults: faultsWithCauses(crawled, PAGE, new Map()) });

function page(overrides: Partial<CrawlPage> = {}): CrawlPage {
  return {
    path: "/en/articles/a/",
    url: `${PAGE}/en/articles/a/`,
    status: 200,
    errors: [],
    warnings: [],
    failedRequests: [],
    mermaid: [],
    ...overrides,
  };
}

describe("lint", () => {
  test("a problem fails at its file:line:column with the linter's hint; a missing translation warns", () => {
    const findings = lintFindings(context(), [
      {
        file: "src/content/a.mdx",
        line: 12,
        column: 5,
        rule: "mdx-expression",
        message: "{foo bar} is not valid",
        hint: "Write \\{ instead.",
      },
      { file: "src/content/fr/b.mdx", line: 1, column: 1, rule: "translation", message: "no English version", hint: "Add en/b.mdx." },
    ]);
    assert.deepEqual(findings[0], {
      severity: "fail",
      tool: "docs_build_lint",
      rule: "mdx-expression",
      file: "src/content/a.mdx:12:5",
      message: "mdx-expression: {foo bar} is not valid",
      fix: "Write \\{ instead.",
    });
    assert.equal(findings[1]?.severity, "warn");
  });
});

describe("build", () => {
  const result = (overrides: Partial<BuildResult>): BuildResult => ({
    command: "npm run build",
    success: true,
    timedOut: false,
    aborted: false,
    exitCode: 0,
    ended: { reason: "exit", exitCode: 0, message: "exited with code 0" },
    durationS: 9.5,
    pageCount: 80,
    distBytes: 1,
    errors: [],
    warnings: [],
    outputTail: [],
    report: ".opencode/reports/build.log",
    sourceMaps: { kept: true, note: "hidden source maps kept in .opencode/build/maps/, none in the output" },
    ...overrides,
  });

  test("an error names its page and file:line; a benign notice is no finding; a warning warns", () => {
    const { findings, warnings } = buildFindings(
      context(),
      result({
        success: false,
        exitCode: 1,
        errors: [{ message: "foo is not defined", file: "src/content/a.mdx", line: 3, column: 1, route: "/en/articles/a" }],
        warnings: [
          { message: 'Module level directive "use astro:head-inject" was ignored' },
          { message: "Some chunks are larger than 500 kB", file: "src/pages/index.astro", line: 2 },
        ],
      }),
    );
    assert.equal(warnings, 1);
    assert.deepEqual(
      findings.map((f) => [f.severity, f.tool, f.rule, f.page, f.file]),
      [
        ["fail", "docs_build_run", "build-error", "/en/articles/a/", "src/content/a.mdx:3:1"],
        ["warn", "docs_build_run", "build-warning", undefined, "src/pages/index.astro:2"],
      ],
    );
  });

  test("a failed build with no error it could read says how it ended and where the log is", () => {
    const timeout = { reason: "timeout", timeoutMs: 120_000, message: "timed out after 120 s" } as const;
    const timedOut = buildFindings(
      context(),
      result({ success: false, timedOut: true, exitCode: null, ended: timeout, durationS: 120.4 }),
    ).findings;
    assert.equal(timedOut.length, 1);
    assert.equal(timedOut[0]?.message, "the build timed out after 120 s");
    assert.match(timedOut[0]?.fix ?? "", /\.opencode\/reports\/build\.log/);
    const ended = { reason: "exit", exitCode: 2, message: "exited with code 2" } as const;
    const exited = buildFindings(context(), result({ success: false, exitCode: 2, ended })).findings;
    assert.equal(exited[0]?.message, "the build exited with code 2");
  });
});

describe("astro check", () => {
  test("errors warn at their file:line:column; warnings and hints are not findings", () => {
    const findings = checkFindings(context(), [
      {
        file: "src/pages/index.astro",
        line: 4,
        column: 7,
        severity: "error",
        code: "ts(2322)",
        message: "Type 'number' is not assignable to type 'string'.",
      },
      { file: "src/pages/index.astro", line: 9, column: 1, severity: "warning", message: "unused" },
      { file: "src/lib/x.ts", line: 1, column: 1, severity: "hint", message: "declared but never read" },
    ]);
    assert.equal(findings.length, 1);
    assert.deepEqual(
      [findings[0]?.severity, findings[0]?.rule, findings[0]?.file, findings[0]?.tool],
      ["warn", "type-error", "src/pages/index.astro:4:7", "docs_build_check"],
    );
  });

  test("seven errors of one kind are one finding at the first, naming the others; another kind is its own", () => {
    const kind = {
      severity: "error",
      code: "ts(2345)",
      message: "Argument of type 'Plugin' is not assignable to parameter of type 'Plugin'.",
    } as const;
    const findings = checkFindings(context(), [
      ...[3, 5, 8, 13, 21, 34, 55].map((line) => ({ ...kind, file: "astro.config.mjs", line, column: 5 })),
      {
        file: "src/lib/x.ts",
        line: 2,
        column: 1,
        severity: "error",
        code: "ts(2322)",
        message: "Type 'string' is not assignable to type 'number'.",
      },
    ]);
    assert.equal(findings.length, 2);
    assert.equal(findings[0]?.file, "astro.config.mjs:3:5");
    assert.equal(
      findings[0]?.message,
      "type error, 7 times: Argument of type 'Plugin' is not assignable to parameter of type 'Plugin'. (also at astro.config.mjs:5:5, astro.config.mjs:8:5, astro.config.mjs:13:5, astro.config.mjs:21:5, astro.config.mjs:34:5 and 1 more)",
    );
    assert.equal(findings[1]?.file, "src/lib/x.ts:2:1");
  });
});

describe("links", () => {
  const broken = { to: "/en/missing/", reason: "not found in dist/", where: "a[href] line 40", line: 40, pages: 1 };

  test("a broken link fails on the page that has it, at the source line that writes it", () => {
    const finding = linkFinding(context(), { ...broken, from: "/en/articles/a/", source: "src/content/en/a.mdx:14" });
    assert.equal(finding.severity, "fail");
    assert.equal(finding.rule, "broken-link");
    assert.equal(finding.page, "/en/articles/a/");
    assert.equal(finding.file, "src/content/en/a.mdx:14");
    assert.match(finding.fix, /src\/content\/en\/a\.mdx:14/);
  });

  test("the same link on several pages says how many; an error page's alternate only warns", () => {
    assert.match(linkFinding(context(), { ...broken, from: "/", pages: 12 }).message, /\(on 12 pages\)/);
    const alternate = linkFinding(context(), { ...broken, from: "/404.html", where: 'link[rel=alternate][hreflang="fr"]' });
    assert.deepEqual([alternate.rule, alternate.severity], ["hreflang-alternate", "warn"]);
  });

  test("on a Starlight site, its 404 page's alternate is the theme's, with the accept entry to add", () => {
    const finding = linkFinding(context({ site: { starlight: true } }), {
      ...broken,
      from: "/404.html",
      where: 'link[rel=alternate][hreflang="fr"]',
    });
    assert.equal(finding.origin, STARLIGHT_MARKUP);
    assert.match(finding.fix, /"page": "\/404\.html"/);
  });
});

describe("under --changed", () => {
  const changed = (changes: NonNullable<ValidateContext["options"]["changes"]>) =>
    ({ ...context(), options: { changes } }) as unknown as ValidateContext;

  test("lint does not run when no content file changed, and runs on the changed ones", () => {
    assert.equal(lintStep.skip(changed({ files: [] })), "no content file changed");
    assert.equal(lintStep.skip(changed({ files: ["src/content/articles/en/a.mdx"] })), undefined);
    assert.equal(lintStep.skip(changed({})), undefined);
  });

  test("astro check: skipped with its reason; the critical routes wait for it only when it writes .astro/", () => {
    assert.equal(
      checkStep.skip(changed({ check: { run: false, why: "no .ts, .tsx, .astro or config file changed" } })),
      "no .ts, .tsx, .astro or config file changed",
    );
    assert.equal(checkStep.skip(changed({ check: { run: true, why: "", sync: false } })), undefined);
    assert.deepEqual(routesStep.alsoAfter?.(changed({ check: { run: true, why: "", sync: false } })), []);
    assert.deepEqual(routesStep.alsoAfter?.(changed({ check: { run: true, why: "", sync: true } })), ["astro check"]);
    assert.deepEqual(routesStep.alsoAfter?.(changed({})), ["astro check"]);
    assert.deepEqual(routesStep.alsoAfter?.({ ...context(), options: {} } as unknown as ValidateContext), ["astro check"]);
  });
});

describe("critical routes", () => {
  test("2xx and 3xx are fine; 4xx, 5xx and no answer fail, pointing at the logs", () => {
    const ctx = context();
    assert.equal(routeFinding(ctx, "/", 200), undefined);
    assert.equal(routeFinding(ctx, "/", 301), undefined);
    const missing = routeFinding(ctx, "/en/", 404) as Finding;
    assert.deepEqual([missing.severity, missing.rule, missing.page, missing.message], ["fail", "http-status", "/en/", "HTTP 404"]);
    assert.match(missing.fix, /docs_dev_logs/);
    assert.match((routeFinding(ctx, "/", new Error("connect ECONNREFUSED")) as Finding).message, /^no answer: connect ECONNREFUSED/);
  });

  test("a dev server's 5xx is asked again before it counts; a 5xx that stays, or a given server's, is a finding", async () => {
    // A loopback server: "/" answers 503 once (a dev server restarting), "/en/" always 500, "/gone/" 404.
    let asked = 0;
    const server = createServer((request, response) => {
      if (request.url === "/") response.statusCode = asked++ === 0 ? 503 : 200;
      else response.statusCode = request.url === "/gone/" ? 404 : 500;
      response.end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The project whose server log a 5xx's cause is looked for in (it has none).
    const dir = mkdtempSync(join(tmpdir(), "vigie-routes-"));
    const project = projectAt(dir);
    try {
      const dev = { ...context(), project, critical: ["/", "/en/", "/gone/"], dev: { url }, options: {} } as unknown as ValidateContext;
      const outcome = await routesStep.run(dev);
      assert.deepEqual(
        outcome.findings?.map((f) => `${f.page} ${f.message}`),
        ["/en/ HTTP 500", "/gone/ HTTP 404"],
      );
      assert.match(outcome.summary, /^1\/3 routes answer \(\/ answered once asked again: the dev server was settling\)$/);
      asked = 0;
      const given = { ...context(), project, critical: ["/"], options: { baseUrl: url } } as unknown as ValidateContext;
      assert.deepEqual(
        (await routesStep.run(given)).findings?.map((f) => `${f.page} ${f.message}`),
        ["/ HTTP 503"],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      server.close();
    }
  });
});

describe("crawl", () => {
  test("a clean page: no finding, ok", () => {
    const { findings, line } = judged(context(), page());
    assert.deepEqual(findings, []);
    assert.deepEqual(line, { path: "/en/articles/a/", status: 200, ok: true, summary: "ok" });
  });

  test("each runtime fault is a finding of the page, with its source when known", () => {
    const { findings, line } = judged(
      context(),
      page({
        errors: [
          { message: "Error: widget failed", count: 1, frames: [], located: { source: "src/components/Widget.astro:7" } },
          { message: "console error without a source", count: 1, frames: [], located: { sourceUnknown: "no source map" } },
        ],
        failedRequests: [{ url: `${PAGE}/images/x.png`, status: 404, type: "image", located: { source: "src/content/en/a.mdx:20" } }],
        mermaid: [{ diagram: 1, message: "Parse error on line 2", located: { source: "src/content/en/a.mdx:31" } }],
      }),
    );
    assert.equal(line.ok, false);
    const byRule = (rule: string) => findings.filter((f) => f.rule === rule);
    assert.deepEqual(
      byRule("page-error").map((f) => [f.tool, f.file, f.message]),
      [
        ["docs_browser_crawl", "src/components/Widget.astro:7", "Error: widget failed"],
        ["docs_browser_crawl", undefined, "console error without a source"],
      ],
    );
    assert.match(byRule("page-error")[1]?.fix ?? "", /Reproduce with docs_browser_js_errors/);
    assert.deepEqual(
      byRule("failed-request").map((f) => [f.message, f.file]),
      [["404 image /images/x.png", "src/content/en/a.mdx:20"]],
    );
    const [diagram] = byRule("mermaid");
    assert.equal(diagram?.tool, "docs_browser_js_errors", "a diagram's failure is js_errors' to show");
    assert.match(diagram?.fix ?? "", /docs_build_lint/);
    assert.ok(findings.every((f) => f.severity === "fail" && f.page === "/en/articles/a/"));
  });

  test("a page that answered 500 or never answered fails with its status", () => {
    assert.equal(judged(context(), page({ status: 500 })).findings[0]?.message, "HTTP 500");
    assert.equal(judged(context(), page({ status: 0 })).findings[0]?.message, "no answer");
  });

  test("unsure findings warn and say why; a phone's fault says its viewport; a check cut short on a page that answered warns", () => {
    const { findings, line } = judged(
      context(),
      page({
        errors: [
          { message: "Uncaught Minified React error #418; visit https://react.dev/errors/418", count: 1, frames: [], islands: ["A", "B"] },
          { message: "Uncaught phone only failed", count: 1, frames: [], viewport: "phone" },
        ],
        interrupted: "Timed out after 53000 ms",
      }),
    );
    assert.deepEqual(
      findings.map((f) => [f.rule, f.severity, f.viewport, f.message]),
      [
        [
          "hydration",
          "warn",
          undefined,
          "Uncaught React error #418: Hydration failed because the server rendered HTML didn't match the client in one of the islands A, B (vigie cannot tell which)",
        ],
        ["page-error", "fail", "phone 390×844", "(phone 390×844) Uncaught phone only failed"],
        [
          "check-interrupted",
          "warn",
          undefined,
          "the page answered (HTTP 200) but its check did not finish (Timed out after 53000 ms): its faults, if any, are not known",
        ],
      ],
    );
    assert.equal(line.ok, false);
    // Only unsure findings: the page is not failing.
    const unsure = { message: "Uncaught Minified React error #418", count: 1, frames: [], islands: ["A", "B"] };
    assert.equal(judged(context(), page({ errors: [unsure] })).line.ok, true);
  });

  test("a11y: serious and critical fail, moderate warns and leaves the page ok, minor is no finding; failOn is the config's", () => {
    const violation = (id: string, impact: "minor" | "moderate" | "serious" | "critical") => ({
      id,
      impact,
      help: `${id} help`,
      count: 1,
      target: "main img",
      helpUrl: `https://dequeuniversity.com/rules/axe/4.11/${id}`,
    });
    const a11y = [violation("image-alt", "critical"), violation("region", "moderate"), violation("tabindex", "minor")];
    const audited = judged(context(), page({ a11y }));
    assert.deepEqual(
      audited.findings.map((f) => [f.rule, f.severity, f.tool]),
      [
        ["image-alt", "fail", "docs_browser_a11y"],
        ["region", "warn", "docs_browser_a11y"],
      ],
    );
    assert.equal(audited.line.ok, false);
    const lenient = judged(context({ config: { a11y: { failOn: ["critical"] } } }), page({ a11y: [violation("region", "moderate")] }));
    assert.equal(lenient.line.ok, true);
  });
});

describe("perf", () => {
  const result = (server: "dev" | "production"): PerfResult => ({
    url: `${PAGE}/`,
    runs: 5,
    samples: [],
    spread: {},
    causes: [],
    server,
    medians: {
      ttfbMs: 10,
      domInteractiveMs: 50,
      domContentLoadedMs: 60,
      loadMs: 350,
      lcpMs: 400,
      cls: 0,
      transferKb: 120,
      requests: 9,
      jsKb: 20,
    },
    budget: { loadMs: { value: 350, max: 200, pass: false }, cls: { value: 0, max: 0.1, pass: true } },
    verdict: "over_budget",
  });

  test("a metric over budget on the production build warns with its median and budget", () => {
    const findings = budgetFindings(context(), "/", result("production"));
    assert.equal(findings.length, 1);
    assert.deepEqual([findings[0]?.severity, findings[0]?.rule, findings[0]?.tool], ["warn", "perf-budget", "docs_browser_perf"]);
    assert.equal(findings[0]?.message, "loadMs 350 over the budget of 200 (median of 5 loads)");
    assert.equal(figureOf("/", result("production")).verdict, "over_budget");
  });

  test("dev-server timings are reported, never judged", () => {
    assert.equal(figureOf("/", result("dev")).verdict, "not_judged");
  });

  test("the spread of the loads is said, in the finding and the figure", () => {
    const spread: PerfResult = { ...result("production"), spread: { loadMs: [300, 410], cls: [0, 0.01] } };
    assert.equal(
      budgetFindings(context(), "/", spread)[0]?.message,
      "loadMs 350 over the budget of 200 (median of 5 loads, 300–410 over the loads)",
    );
    assert.equal(spreadOf(spread), "load 300–410 ms, CLS 0–0.01");
    assert.equal(figureOf("/", spread).spread, "load 300–410 ms, CLS 0–0.01");
  });

  test("each cause is a WARN finding with its rule, element, source line and fix", () => {
    const [finding] = causeFindings(context(), "/en/", [
      {
        rule: "perf-lcp-lazy",
        metric: "lcp",
        selector: "figure > img",
        message: "LCP image figure > img (dev-loop.webp) is lazy-loaded above the fold",
        fix: "load it eagerly: <Image priority>",
        located: { source: "src/content/articles/en/a.mdx:14" },
      },
    ]);
    assert.deepEqual(finding, {
      severity: "warn",
      tool: "docs_browser_perf",
      rule: "perf-lcp-lazy",
      page: "/en/",
      target: "figure > img",
      file: "src/content/articles/en/a.mdx:14",
      message: "LCP image figure > img (dev-loop.webp) is lazy-loaded above the fold",
      fix: "Load it eagerly: <Image priority>; then measure again with docs_browser_perf.",
    });
  });
});

describe("dev server", () => {
  test("a start that failed names the error, the log's last lines and what to do for its reason", () => {
    const finding = startFailed(context(), {
      kind: "failed",
      reason: "port-taken",
      port: 4321,
      error: "port 4321 is held by another program",
      logTail: ["a", "b", "c", "d"],
    } as never);
    assert.equal(finding.severity, "fail");
    assert.equal(finding.tool, "docs_dev_start");
    assert.match(finding.message, /port 4321 is held by another program \(log: b \| c \| d\)/);
    assert.match(finding.fix, /"dev\.port"/);
  });
});
