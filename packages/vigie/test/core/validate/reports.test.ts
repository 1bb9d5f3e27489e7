// The JUnit report read back by a strict XML parser (saxes, jsdom's own): text that XML 1.0
// forbids (an ESC from a coloured console message, other control characters, lone
// surrogates) must not reach the file, in element text nor in attributes.
// The HTML report: each failing page's screenshot inlined beside its findings.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SaxesParser } from "saxes";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { toHtml, toJUnit, toText } from "../../../src/core/validate/reports.ts";
import { type Finding, type ValidationReport, verdictOf } from "../../../src/core/validate/steps/findings.ts";
import { setNotJudged } from "../../../src/core/validate/steps/triage.ts";

/** XML 1.0's Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

interface Parsed {
  attributes: Record<string, string>[];
  texts: string[];
}

/** Parses the document strictly; throws on the first well-formedness error. */
function parseXml(document: string): Parsed {
  const parser = new SaxesParser({ xmlns: false });
  const parsed: Parsed = { attributes: [], texts: [] };
  let failure: Error | undefined;
  parser.on("error", (error) => {
    failure ??= error;
  });
  parser.on("opentag", (tag) => parsed.attributes.push({ tag: tag.name, ...(tag.attributes as Record<string, string>) }));
  parser.on("text", (text) => {
    if (text.trim()) parsed.texts.push(text);
  });
  parser.write(document).close();
  if (failure) throw failure;
  return parsed;
}

const ESC = "\u001b";

function reportWith(message: string, page: string, step = "crawl"): ValidationReport {
  return {
    verdict: "FAIL",
    project: "/tmp/site",
    startedAt: "2026-12-02T16:00:00.000Z",
    durationS: 1.5,
    steps: [{ name: step, tool: "blog_browser_crawl", status: "fail", ms: 1200, summary: "1 failing page" }],
    findings: [{ severity: "fail", tool: "blog_browser_crawl", page, message, fix: "Open the page and fix the script." }],
    pages: [{ path: page, status: 200, ok: false, summary: "1 error" }],
    perf: [],
    screenshots: [],
  };
}

describe("JUnit report", () => {
  test("a console message with an ESC and other forbidden characters still gives a well-formed file", () => {
    const message = `console error: ${ESC}[31mred${ESC}[0m \u0000nul \u0008bs \u000bvt \uFFFE \uD800lone <&> "quoted" 'single' — é 😀`;
    const page = `/en/bad${ESC}[1m/`;
    const document = toJUnit(reportWith(message, page, `crawl${ESC}[0m`));
    assert.doesNotMatch(document, NOT_XML_CHAR, "every character is an XML 1.0 Char");
    const parsed = parseXml(document);
    const failure = parsed.attributes.find((entry) => entry.tag === "failure");
    assert.ok(failure, "a failure element");
    // Terminal colours go; other forbidden characters show as U+FFFD; the rest round-trips.
    assert.match(failure.message ?? "", /^FAIL: console error: red \uFFFDnul \uFFFDbs \uFFFDvt \uFFFD \uFFFDlone /);
    assert.match(failure.message ?? "", /<&> "quoted" 'single' — é 😀/);
    const text = parsed.texts.join("");
    assert.match(text, /<&> "quoted" 'single' — é 😀/);
    assert.match(text, /fix: Open the page and fix the script\./);
    const testcase = parsed.attributes.find((entry) => entry.tag === "testcase" && entry.name?.startsWith("/en/bad"));
    assert.ok(testcase, `a test case for the page: ${JSON.stringify(parsed.attributes)}`);
    assert.equal(testcase.name, "/en/bad/");
    assert.ok(parsed.attributes.some((entry) => entry.tag === "testcase" && entry.name === "crawl"));
  });

  test("a clean report is unchanged by the cleaning: names and messages round-trip exactly", () => {
    const document = toJUnit(reportWith('Uncaught Error: a < b && c > "d"\tat\r\n line 2', "/en/ok/"));
    const parsed = parseXml(document);
    const failure = parsed.attributes.find((entry) => entry.tag === "failure");
    assert.equal(failure?.message, 'FAIL: Uncaught Error: a < b && c > "d"\tat\r');
    assert.equal(parsed.texts.join(""), 'FAIL: Uncaught Error: a < b && c > "d"\tat\r\n line 2\nfix: Open the page and fix the script.');
    assert.ok(parsed.attributes.some((entry) => entry.tag === "testcase" && entry.name === "/en/ok/"));
  });

  test("under another prefix the crawled pages go in the crawl step's suite, named with that prefix", () => {
    const report = reportWith("Uncaught Error: boom", "/en/bad/");
    report.steps = report.steps.map((step) => ({ ...step, tool: "docs_browser_crawl" }));
    report.findings = report.findings.map((finding) => ({ ...finding, tool: "docs_browser_crawl" }));
    const suites = parseXml(toJUnit(report))
      .attributes.filter((entry) => entry.tag === "testsuite")
      .map((entry) => entry.name);
    assert.deepEqual(suites, ["docs_browser_crawl"]);
  });
});

describe("HTML report", () => {
  test("each screenshot inlined as a data: URL beside its page's findings, with what it outlines", () => {
    const root = mkdtempSync(join(tmpdir(), "vigie-html-"));
    try {
      mkdirSync(join(root, ".opencode", "reports", "screenshots"), { recursive: true });
      const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
      writeFileSync(join(root, ".opencode", "reports", "screenshots", "en-bad.jpg"), jpeg);
      const report = reportWith("image-alt (critical, 1×): Images must have alternative text at main > img", "/en/bad/");
      report.findings.push({ severity: "fail", tool: "blog_browser_crawl", page: "/other/", message: "not this page's", fix: "-" });
      report.screenshots = [
        { page: "/en/bad/", file: ".opencode/reports/screenshots/en-bad.jpg", outlined: ["main > img"] },
        { page: "/gone/", file: ".opencode/reports/screenshots/gone.jpg" },
      ];
      const page = toHtml(report, root);
      const sections = page.match(/<section class="page">[\s\S]*?<\/section>/g) ?? [];
      assert.equal(sections.length, 1, "a screenshot whose file is gone is left out");
      const [section = ""] = sections;
      assert.ok(section.includes(`src="data:image/jpeg;base64,${jpeg.toString("base64")}"`));
      assert.match(section, /alt="Screenshot of \/en\/bad\/, the failing element outlined"/);
      assert.match(section, /Outlined in red: <code>main &gt; img<\/code>/);
      assert.match(section, /image-alt \(critical, 1×\)/);
      assert.doesNotMatch(section, /not this page's/);
      assert.doesNotMatch(page, /(src|href)="(https?:)?\/\//, "nothing loaded from a server");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the HTML report in Chromium", () => {
  test("failures first, long messages folded, no scrolling sideways on a desktop or a phone", async () => {
    const report = reportWith("Uncaught Error: boom", "/en/bad/");
    const long = `type error: ${"Argument of type 'Plugin<any>' is not assignable to parameter of type 'PluginOption'. ".repeat(8)}`;
    report.verdict = "FAIL";
    report.findings = [
      { severity: "warn", tool: "blog_build_check", file: "astro.config.mjs:12:5", message: long, fix: "Fix the types." },
      { severity: "warn", tool: "blog_browser_a11y", page: `/${"a-very-long-slug-without-any-space-".repeat(6)}/`, message: "x", fix: "y" },
      ...report.findings,
    ];
    report.steps[0] = {
      ...report.steps[0],
      summary: `https://example.com/${"unbreakable".repeat(40)}`,
    } as ValidationReport["steps"][number];
    const session = new BrowserSession();
    try {
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        const seen = await session.withPage(async (page) => {
          await page.setViewportSize(viewport);
          await page.setContent(toHtml(report, "/tmp"));
          return page.evaluate(() => ({
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            first: document.querySelector("table.findings tr.fail, table.findings tr.warn")?.className,
            folded: document.querySelectorAll("table.findings details").length,
          }));
        });
        assert.deepEqual(seen, { overflow: 0, first: "fail", folded: 1 }, `at ${viewport.width}×${viewport.height}`);
      }
    } finally {
      await session.close();
    }
  });
});

describe("findings this machine's network explains", () => {
  test("are moved apart: not counted in the verdict, listed once under 'not judged' in the text report", () => {
    const findings: Finding[] = [
      { severity: "warn", tool: "blog_browser_a11y", rule: "region", page: "/", message: "region (moderate, 1×)", fix: "See axe." },
      {
        severity: "warn",
        tool: "blog_build_run",
        rule: "build-network",
        page: "/homes/personal/",
        file: "src/pages/homes/personal.astro:296:21",
        unreachable: "plus.unsplash.com",
        message: "not judged: the build of the page /homes/personal fetched plus.unsplash.com, which this machine cannot reach",
        fix: "Nothing to fix if the machines that build the site reach plus.unsplash.com.",
      },
    ];
    const notJudged = setNotJudged(findings);
    assert.deepEqual(
      notJudged.map((finding) => finding.rule),
      ["build-network"],
    );
    assert.deepEqual(
      findings.map((finding) => finding.rule),
      ["region"],
    );
    assert.equal(verdictOf(findings), "WARN");
    assert.equal(verdictOf([]), "PASS");
    const report = { ...reportWith("x", "/"), verdict: "WARN" as const, findings, notJudged };
    const text = toText(report);
    assert.match(text, /^WARN — 0 failures, 1 warning/);
    assert.match(
      text,
      /not judged: this machine's network \(1, not counted\):\n {2}\/homes\/personal\/ src\/pages\/homes\/personal\.astro:296:21 \[blog_build_run\] not judged: the build/,
    );
    // The HTML report lists them apart too, with what the config accepted.
    const accepted = [{ ...(findings[0] as Finding), rule: "landmark-unique", reason: "the code blocks' frames, by design" }];
    const page = toHtml({ ...report, accepted }, "/tmp");
    const aside = page.slice(page.indexOf("<h2>Not counted in the verdict</h2>"));
    assert.match(aside, /<h3>Accepted in vigie\.config\.json \(1\)<\/h3>.*landmark-unique: the code blocks' frames, by design/s);
    assert.match(aside, /<h3>Not judged: this machine's network \(1\)<\/h3>.*plus\.unsplash\.com/s);
    assert.match(page.slice(0, page.indexOf("<h2>Not counted")), /<h2>Findings \(1\)<\/h2>/);
  });
});

describe("the text report", () => {
  test("a finding that reads the same on several pages is said once, with the other pages", () => {
    const region = (page: string): Finding => ({
      severity: "warn",
      tool: "blog_browser_a11y",
      rule: "region",
      page,
      message: "region (moderate, 1×): All page content should be contained by landmarks at .dark",
      fix: "See axe.",
    });
    const pages = ["/", "/about", "/blog", "/contact", "/pricing", "/terms"];
    const other: Finding = { ...region("/blog"), rule: "image-alt", message: "image-alt (critical, 1×)", severity: "fail" };
    const report = { ...reportWith("x", "/"), findings: [...pages.map(region), other] };
    const text = toText(report);
    assert.match(text, /^WARN \/ \(and 5 more pages: \/about, \/blog, \/contact, \/pricing, …\) \[blog_browser_a11y\]$/m);
    assert.equal(text.match(/All page content should be contained/g)?.length, 1, text);
    assert.match(text, /^FAIL \/blog \[blog_browser_a11y\]\n {2}image-alt/m);
  });
});
