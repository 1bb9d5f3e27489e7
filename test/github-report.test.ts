// The validation report where GitHub shows it: the SARIF log validates against the SARIF 2.1.0
// schema (OASIS's JSON schema, test/fixtures/sarif-2.1.0.schema.json) and places each finding
// at its source file and line; `vigie merge` on GitHub Actions (GITHUB_ACTIONS=true, a temporary
// GITHUB_STEP_SUMMARY) prints one annotation per finding, as many as GitHub shows, escaped by
// its rules, and writes the verdict and the table of findings to the job summary.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { annotation, annotations, escapeData, escapeProperty, jobSummary, toSarif } from "../packages/vigie/src/core/validate/github.ts";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";

const MAIN = join(import.meta.dirname, "..", "packages", "vigie", "src", "cli", "main.ts");
const SCHEMA = JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", "sarif-2.1.0.schema.json"), "utf8")) as object;

const temp = mkdtempSync(join(tmpdir(), "vigie-github-"));
after(() => rmSync(temp, { recursive: true, force: true }));

const MERMAID: Finding = {
  severity: "fail",
  tool: "blog_browser_js_errors",
  rule: "mermaid",
  page: "/en/articles/mermaid-in-the-browser/",
  file: "src/content/articles/en/mermaid-in-the-browser.mdx:48",
  message:
    "Mermaid diagram 2 failed: Parse error on line 3:\n...B{Decide  B -->|yes| C[Done\n----------------------^\nExpecting 'SQE', got 'PIPE'",
  fix: "Fix the diagram's syntax at src/content/articles/en/mermaid-in-the-browser.mdx:48 (blog_build_lint shows the line), then check the page with blog_browser_js_errors.",
};
const IMAGE: Finding = {
  severity: "fail",
  tool: "blog_browser_crawl",
  rule: "failed-request",
  page: "/articles/budgets-de-performance/",
  file: "src/content/articles/fr/budgets-de-performance.mdx:31:1",
  message: "404 image /images/graphique-absent.png, 100% missing",
  fix: "Fix the cause at src/content/articles/fr/budgets-de-performance.mdx:31:1 and check again.",
};
const A11Y: Finding = {
  severity: "warn",
  tool: "blog_browser_a11y",
  rule: "region",
  page: "/en/",
  target: "main > p:nth-child(2)",
  message: "region (moderate, 1×): All page content should be contained by landmarks at main > p:nth-child(2)",
  fix: "See https://dequeuniversity.com/rules/axe/4.11/region",
};
const PERF: Finding = {
  severity: "warn",
  tool: "blog_browser_perf",
  rule: "perf-budget",
  page: "/",
  message: "load 1830 ms over the budget of 1500 ms",
  fix: "Look at the largest requests with blog_browser_perf.",
};

interface SarifResult {
  level: string;
  message: { text: string };
  locations?: { physicalLocation: { artifactLocation: { uri: string }; region?: object } }[];
  suppressions?: unknown;
  [key: string]: unknown;
}
interface SarifLog {
  runs: { tool: { driver: { rules: { id: string }[] } }; results: SarifResult[]; invocations: { executionSuccessful: boolean }[] }[];
}

function reportOf(findings: Finding[], accepted: ValidationReport["accepted"] = []): ValidationReport {
  return {
    verdict: findings.some((f) => f.severity === "fail") ? "FAIL" : findings.length ? "WARN" : "PASS",
    project: join(temp, "site"),
    startedAt: "2026-12-05T08:00:00.000Z",
    durationS: 61.2,
    steps: [{ name: "crawl", tool: "blog_browser_crawl", status: "fail", ms: 20_000, summary: "66 pages, 2 failing" }],
    findings,
    pages: [{ path: "/", status: 200, ok: true, summary: "ok" }],
    perf: [],
    screenshots: [],
    ...(accepted.length ? { accepted } : {}),
  };
}

// The schema's language pattern ("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$") is not a valid
// Unicode regular expression: patterns are read as plain ones, as draft-04 validators do.
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validateSarif = ajv.compile(SCHEMA);

describe("SARIF 2.1.0", () => {
  const report = reportOf([MERMAID, IMAGE, A11Y, PERF], [{ ...A11Y, page: "/404/", reason: "the theme's markup" }]);
  const sarif = toSarif(report, { version: "0.1.0" }) as SarifLog;

  test("the log validates against the SARIF 2.1.0 schema", () => {
    assert.ok(validateSarif(sarif), JSON.stringify(validateSarif.errors, null, 2));
  });

  test("a broken log does not (the schema is really applied)", () => {
    const broken = structuredClone(sarif);
    const first = broken.runs[0]?.results[0];
    assert.ok(first);
    first.level = "fatal";
    assert.equal(validateSarif(broken), false);
  });

  test("each finding is a result: its rule, level, message, source file and line, page as a property", () => {
    const [run] = sarif.runs;
    assert.ok(run);
    assert.equal(run.results.length, 5, "four findings and the accepted one");
    assert.deepEqual(
      run.tool.driver.rules.map((rule) => rule.id),
      ["mermaid", "failed-request", "region", "perf-budget"],
    );
    assert.deepEqual(run.results[0], {
      ruleId: "mermaid",
      ruleIndex: 0,
      level: "error",
      message: { text: `${MERMAID.message} (page ${MERMAID.page})\nWhat to do: ${MERMAID.fix}` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: "src/content/articles/en/mermaid-in-the-browser.mdx", uriBaseId: "%SRCROOT%" },
            region: { startLine: 48 },
          },
        },
      ],
      properties: { tool: "blog_browser_js_errors", page: "/en/articles/mermaid-in-the-browser/", fix: MERMAID.fix },
    });
    assert.deepEqual(run.results[1]?.locations?.[0]?.physicalLocation.region, {
      startLine: 31,
      startColumn: 1,
    });
    assert.equal(run.results[2]?.level, "warning");
    assert.equal(run.results[2]?.locations, undefined, "no source known: no location made up");
    assert.deepEqual(run.results[4]?.suppressions, [{ kind: "external", status: "accepted", justification: "the theme's markup" }]);
  });

  test("a finding whose source is not known: on the site's config when given (GitHub refuses a result without a location), said so", () => {
    const placed = toSarif(report, { version: "0.1.0", siteFile: "astro.config.mjs" }) as SarifLog;
    const results = placed.runs[0]?.results ?? [];
    assert.ok(
      results.every((result) => result.locations?.length === 1),
      "every result has a location",
    );
    assert.deepEqual(results[2]?.locations?.[0]?.physicalLocation, {
      artifactLocation: { uri: "astro.config.mjs", uriBaseId: "%SRCROOT%" },
      region: { startLine: 1 },
    });
    assert.match(results[2]?.message.text ?? "", /\(its source is not known: placed on the site's config\)/);
    assert.doesNotMatch(results[0]?.message.text ?? "", /placed on/);
    assert.ok(validateSarif(placed));
  });

  test("a project below the repository's root: paths from the root", () => {
    const nested = toSarif(report, { version: "0.1.0", prefix: "site/" }) as SarifLog;
    const uri = nested.runs[0]?.results[0]?.locations?.[0]?.physicalLocation.artifactLocation.uri;
    assert.equal(uri, "site/src/content/articles/en/mermaid-in-the-browser.mdx");
    assert.ok(validateSarif(nested));
  });

  test("a run that could not start: a valid log with no result, its notification says why", () => {
    const failed = { ...reportOf([]), verdict: "FAIL" as const, harnessError: { message: "no Chromium", hint: "Install one." } };
    const log = toSarif(failed, { version: "0.1.0" }) as SarifLog;
    assert.ok(validateSarif(log), JSON.stringify(validateSarif.errors));
    assert.equal(log.runs[0]?.invocations[0]?.executionSuccessful, false);
  });
});

describe("workflow annotations", () => {
  test("escaped as GitHub reads them: % CR LF in the message, and , : too in properties", () => {
    assert.equal(escapeData("100% done\r\nnext"), "100%25 done%0D%0Anext");
    assert.equal(escapeProperty("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    assert.equal(
      annotation(MERMAID),
      `::error file=src/content/articles/en/mermaid-in-the-browser.mdx,line=48,title=vigie%3A mermaid on /en/articles/mermaid-in-the-browser/::${escapeData(`${MERMAID.message}\nWhat to do: ${MERMAID.fix}`)}`,
    );
    assert.match(annotation(IMAGE), /^::error file=src\/content\/articles\/fr\/budgets-de-performance\.mdx,line=31,col=1,title=/);
    assert.match(annotation(IMAGE), /::404 image \/images\/graphique-absent\.png, 100%25 missing%0AWhat to do/);
    assert.match(annotation(A11Y), /^::warning title=vigie%3A region on \/en\/::region \(moderate/);
    for (const line of [MERMAID, IMAGE, A11Y, PERF].map((f) => annotation(f))) assert.doesNotMatch(line, /[\r\n]/);
  });

  test("10 errors and 10 warnings at most, as GitHub shows of one step, then a line saying how many more", () => {
    const many = [
      ...Array.from({ length: 13 }, (_, i) => ({ ...IMAGE, page: `/p${i}/` })),
      ...Array.from({ length: 11 }, (_, i) => ({ ...PERF, page: `/w${i}/` })),
    ];
    const lines = annotations(reportOf(many));
    assert.equal(lines.filter((line) => line.startsWith("::error ")).length, 10);
    assert.equal(lines.filter((line) => line.startsWith("::warning ")).length, 10);
    assert.equal(
      lines.at(-1),
      "vigie: 3 more failures and 1 more warning not annotated (GitHub shows 10 of each per step): every finding is in the job summary.",
    );
  });

  test("the job summary: verdict, counts and one table row per finding, cells escaped", () => {
    const summary = jobSummary(reportOf([MERMAID, A11Y, { ...PERF, message: "a | b" }]), ["vigie.sarif"]);
    assert.match(summary, /^## ❌ vigie validate: FAIL\n\n1 failure, 2 warnings, 1 page checked in 61\.2 s\.\n/);
    const rows = summary.split("\n").filter((line) => /^\| (FAIL|WARN) \|/.test(line));
    assert.equal(rows.length, 3);
    assert.match(
      rows[0] ?? "",
      /\| `src\/content\/articles\/en\/mermaid-in-the-browser\.mdx:48` \| mermaid \| Mermaid diagram 2 failed: Parse error on line 3:<br>/,
    );
    assert.match(rows[2] ?? "", /a \\\| b/);
    assert.match(summary, /Reports: `vigie\.sarif`\./);
  });
});

describe("vigie merge on GitHub Actions", () => {
  const site = join(temp, "site");
  mkdirSync(site, { recursive: true });
  writeFileSync(join(site, "astro.config.mjs"), "export default {};\n");
  const reportFile = join(temp, "report.json");
  writeFileSync(reportFile, JSON.stringify(reportOf([MERMAID, IMAGE, A11Y])));
  const run = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [MAIN, "merge", reportFile, ...args], {
      cwd: temp,
      encoding: "utf8",
      env: { ...process.env, CI: "true", GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "", ...env },
    });

  test("annotations on stdout, the summary appended to GITHUB_STEP_SUMMARY, a SARIF file that validates", () => {
    const summaryFile = join(temp, "step-summary.md");
    writeFileSync(summaryFile, "earlier step\n");
    const sarifFile = join(temp, "vigie.sarif");
    const { status, stdout, stderr } = run(["--sarif", sarifFile], { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summaryFile });
    assert.equal(status, 1, stderr);
    const commands = stdout.split("\n").filter((line) => line.startsWith("::"));
    assert.deepEqual(
      commands.map((line) => line.split(" ")[0]),
      ["::error", "::error", "::warning"],
    );
    assert.ok(commands.includes(annotation(MERMAID)), stdout);
    const summary = readFileSync(summaryFile, "utf8");
    assert.ok(summary.startsWith("earlier step\n## ❌ vigie validate: FAIL"), summary);
    assert.match(summary, /Reports: `.*vigie\.sarif`/);
    const log = JSON.parse(readFileSync(sarifFile, "utf8")) as SarifLog;
    assert.ok(validateSarif(log), JSON.stringify(validateSarif.errors));
    assert.deepEqual(
      log.runs[0]?.results.map((result) => result.locations?.[0]?.physicalLocation.artifactLocation.uri),
      ["src/content/articles/en/mermaid-in-the-browser.mdx", "src/content/articles/fr/budgets-de-performance.mdx", "astro.config.mjs"],
    );
  });

  test("off GitHub Actions: no workflow command", () => {
    const { status, stdout } = run([]);
    assert.equal(status, 1);
    assert.doesNotMatch(stdout, /^::/m);
  });

  test("a report file in a folder that does not exist: a clear error, exit 2, before any work", () => {
    const { status, stderr } = run(["--sarif", join(temp, "missing", "vigie.sarif")]);
    assert.equal(status, 2);
    assert.match(stderr, /^vigie merge: --sarif .*missing\/vigie\.sarif: the folder .*missing does not exist/);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
  });
});
