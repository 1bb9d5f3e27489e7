// The blog itself, built and served by `astro preview`, looked at in a real Chromium.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "../packages/vigie/src/core/browser/session/launch.ts";
import { buildSite, checkPages, openAndWatch, type PageReport, type Preview, sitemapPaths, startPreview } from "./support/site.ts";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

describe("the blog, built and previewed", () => {
  let preview: Preview;
  let browser: Browser;
  let paths: string[] = [];
  let reports: Promise<PageReport[]> | undefined;
  /** One pass over every page, shared by the tests that look at runtime faults and diagrams. */
  const pageReports = () => {
    reports ??= browser.newContext().then(async (context) => {
      try {
        return await checkPages(context, preview.url, paths);
      } finally {
        await context.close();
      }
    });
    return reports;
  };

  before(async () => {
    await buildSite();
    preview = await startPreview();
    browser = await launchChromium();
    paths = await sitemapPaths(preview.url);
  });

  after(async () => {
    await browser?.close();
    await preview?.stop();
  });

  test("the sitemap lists every kind of page in both languages", () => {
    for (const expected of ["/", "/en/", "/articles/", "/en/articles/", "/tags/", "/en/tags/"]) {
      assert.ok(paths.includes(expected), `sitemap lacks ${expected}`);
    }
    assert.equal(paths.filter((p) => /^\/articles\/[^/]+\/$/.test(p)).length, 12, "12 French articles");
    assert.equal(paths.filter((p) => /^\/en\/articles\/[^/]+\/$/.test(p)).length, 12, "12 English articles");
    assert.ok(paths.some((p) => p.startsWith("/tags/")) && paths.some((p) => p.startsWith("/en/tags/")));
  });

  test("every sitemap URL answers 200, the feeds are RSS and an unknown path is a 404", async () => {
    for (const path of paths) {
      const response = await fetch(`${preview.url}${path}`, { redirect: "manual" });
      assert.equal(response.status, 200, `${path} answered ${response.status}`);
    }
    for (const feed of ["/rss.xml", "/en/rss.xml"]) {
      const response = await fetch(`${preview.url}${feed}`);
      assert.equal(response.status, 200);
      assert.match(await response.text(), /<rss[\s\S]*<item>/);
    }
    const missing = await fetch(`${preview.url}/this-page-does-not-exist/`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Page introuvable|Page not found/);
  });

  test("every page has hreflang alternates that exist", async () => {
    for (const path of paths) {
      const html = await (await fetch(`${preview.url}${path}`)).text();
      const alternates = [...html.matchAll(/<link rel="alternate" hreflang="(fr|en)" href="([^"]+)"/g)];
      assert.ok(alternates.length >= 1, `${path} has no hreflang alternate`);
      for (const [, , href] of alternates) {
        const target = new URL(href ?? "").pathname;
        assert.ok(paths.includes(target), `${path}: alternate ${target} is not a page of the site`);
      }
    }
  });

  test("every page loads without page error, console error, failed request or response >= 400", async () => {
    const problems: string[] = [];
    for (const report of await pageReports()) {
      for (const kind of ["pageErrors", "consoleErrors", "failedRequests", "badResponses"] as const) {
        for (const item of report[kind]) problems.push(`${report.path} ${kind}: ${item}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test("every Mermaid diagram becomes an SVG that is not mermaid's error SVG", async () => {
    let diagrams = 0;
    let articlesWithDiagrams = 0;
    for (const report of await pageReports()) {
      for (const [index, state] of report.diagrams.entries()) {
        assert.deepEqual(state, { state: "rendered", svg: true, errorSvg: false }, `${report.path} diagram ${index + 1}`);
      }
      diagrams += report.diagrams.length;
      if (report.diagrams.length > 0) articlesWithDiagrams += 1;
    }
    assert.ok(articlesWithDiagrams >= 8, `diagrams on ${articlesWithDiagrams} pages, expected at least 4 articles in both languages`);
    assert.ok(diagrams >= 10, `only ${diagrams} diagrams`);
  });

  test("axe-core finds no serious or critical violation on key pages in both languages", async () => {
    const diagramArticle = (prefix: string) =>
      paths.find((p) => p.startsWith(`${prefix}/articles/`) && /mermaid/.test(p)) ??
      paths.find((p) => p.startsWith(`${prefix}/articles/`) && !p.endsWith("/articles/"));
    const targets = ["/", "/en/", "/articles/", "/en/articles/", diagramArticle(""), diagramArticle("/en")];
    const context = await browser.newContext();
    try {
      const violations: string[] = [];
      for (const path of targets) {
        assert.ok(path, "a target page is missing");
        const page = await context.newPage();
        await openAndWatch(page, `${preview.url}${path}`);
        await page.addScriptTag({ content: axeSource });
        const result = await page.evaluate(async () => {
          const axe = (
            window as unknown as {
              axe: { run: (context: Document) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
            }
          ).axe;
          const report = await axe.run(document);
          return report.violations.map((v) => ({ id: v.id, impact: v.impact, target: v.nodes[0]?.target.join(" ") }));
        });
        await page.close();
        for (const v of result) {
          if (v.impact === "serious" || v.impact === "critical") violations.push(`${path}: ${v.id} (${v.impact}) at ${v.target}`);
        }
      }
      assert.deepEqual(violations, []);
    } finally {
      await context.close();
    }
  });

  test("pages are readable on a phone: no horizontal scrolling", async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true });
    try {
      const wide: string[] = [];
      for (const path of ["/", "/en/articles/", ...paths.filter((p) => p.startsWith("/articles/")).slice(0, 4)]) {
        const page = await context.newPage();
        await openAndWatch(page, `${preview.url}${path}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        await page.close();
        if (overflow > 1) wide.push(`${path} scrolls ${overflow}px sideways`);
      }
      assert.deepEqual(wide, []);
    } finally {
      await context.close();
    }
  });
});
