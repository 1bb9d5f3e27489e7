// `vigie validate --project DIR --json` on Astro sites vigie has never seen: a minimal
// site under a base with trailing slashes, and a site in three locales with German as the
// default (Starlight, installed from npm, is in package-sites.npm.test.ts). Each gives PASS
// clean, and FAIL naming the page and the tool once one fault is injected.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { stopDevServer } from "../packages/vigie/src/core/devServer/index.ts";
import type { Finding, ValidationReport } from "../packages/vigie/src/core/validate/steps/findings.ts";
import { killGroup } from "../packages/vigie/test/support/blog.ts";
import { minimalSite, multilingualSite, type Site } from "./support/sites.ts";

const MAIN = join(import.meta.dirname, "..", "packages", "vigie", "src", "cli", "main.ts");
const sites: Site[] = [];
after(async () => {
  for (const site of sites) {
    await stopDevServer(site).catch(() => undefined);
    site.remove();
  }
});

/**
 * astro check is left out (it adds half a minute a run; the missing-package case has its
 * own test), and the load budget is loose: this machine is shared, timings are not what
 * these tests are about.
 */
const BASE_CONFIG = { checks: { check: false }, budgets: { loadMs: 5000 } };

async function validate(
  site: Site,
  config: object = BASE_CONFIG,
): Promise<{ code: number | null; report: ValidationReport; output: string }> {
  writeFileSync(join(site.root, "vigie.config.json"), JSON.stringify(config));
  const json = join(site.root, "report.json");
  rmSync(json, { force: true });
  const child = spawn(process.execPath, [MAIN, "validate", "--project", site.root, "--json", json], {
    cwd: site.root,
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

const summary = (findings: Finding[]) => findings.map((f) => `${f.severity} ${f.tool} ${f.page ?? f.file ?? ""}: ${f.message}`).join("\n");

function assertPass(run: Awaited<ReturnType<typeof validate>>) {
  assert.equal(run.report.verdict, "PASS", `${summary(run.report.findings)}\n${run.output.slice(-1500)}`);
  assert.equal(run.code, 0);
}

function assertFailNames(run: Awaited<ReturnType<typeof validate>>, tool: string, page: RegExp): Finding {
  assert.equal(run.report.verdict, "FAIL", run.output.slice(-1500));
  assert.equal(run.code, 1);
  const finding = run.report.findings.find((f) => f.severity === "fail" && f.tool === tool && page.test(f.page ?? ""));
  assert.ok(finding, `no ${tool} failure on ${page}:\n${summary(run.report.findings)}`);
  return finding;
}

describe("a minimal site: .astro and .md pages, no integration, base /docs, trailingSlash always", { timeout: 900_000 }, () => {
  const site = minimalSite({ base: "/docs", trailingSlash: "always" });
  sites.push(site);

  test("clean: PASS, critical route under the base, pages found by following links", async () => {
    const run = await validate(site);
    assertPass(run);
    assert.deepEqual(run.report.site?.criticalRoutes, ["/docs/"]);
    assert.equal(run.report.site?.sitemap, false);
    assert.deepEqual(
      run.report.pages.map((page) => page.path),
      ["/docs/", "/docs/about/", "/docs/guide/", "/docs/notes/first/"],
    );
    assert.match(run.report.steps.find((s) => s.name === "crawl")?.summary ?? "", /\(links\)/);
    assert.ok(!run.report.findings.some((f) => f.rule === "translation"));
  });

  test("a broken internal link: FAIL naming the page and blog_build_links", async () => {
    site.write("src/pages/guide.md", `${site.read("src/pages/guide.md")}\nSee also [the old page](/docs/removed-page/).\n`);
    const run = await validate(site);
    const finding = assertFailNames(run, "blog_build_links", /^\/docs\/guide\/$/);
    assert.match(finding.message, /\/docs\/removed-page\//);
    assert.equal(finding.file?.split(":")[0], "src/pages/guide.md");
  });
});

describe("three locales, German the default; a glob collection in src/data/notes", { timeout: 900_000 }, () => {
  const site = multilingualSite();
  sites.push(site);

  test("clean: PASS, each locale's home is a critical route", async () => {
    const run = await validate(site);
    assertPass(run);
    assert.deepEqual(run.report.site?.locales, ["de", "fr", "it"]);
    assert.deepEqual(run.report.site?.criticalRoutes, ["/", "/fr/", "/it/"]);
    assert.deepEqual(run.report.site?.collections, [{ name: "notes", folder: "src/data/notes", entries: 6 }]);
    assert.equal(run.report.pages.length, 9);
  });

  test("an image without alt text in one French note: FAIL naming the page and blog_browser_a11y", async () => {
    const note = "src/data/notes/fr/weather.md";
    site.write(note, `${site.read(note)}\n<img src="/favicon.svg" width="32" height="32">\n`);
    const run = await validate(site);
    const finding = assertFailNames(run, "blog_browser_a11y", /^\/fr\/notes\/weather\/$/);
    assert.equal(finding.rule, "image-alt");
    assert.equal(finding.origin, undefined);
  });
});
