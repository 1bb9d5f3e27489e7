// `vigie validate --project DIR --json` on Astro sites vigie has never seen: a minimal
// site under a base with trailing slashes, and a site in three locales with German as the
// default (Starlight, installed from npm, is in package-sites.npm.test.ts). Each gives PASS
// clean, and FAIL naming the page and the tool once one fault is injected.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { resolvesPublicNames } from "../packages/vigie/src/core/browser/page/network.ts";
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

// Hosts under .invalid exist nowhere: on a machine without public DNS (a sandbox) vigie cannot
// tell them from hosts it cannot reach, and sets them aside, naming them once; on a machine that
// resolves public names they are URLs that point nowhere, and findings.
describe("a site that needs the network: a page rendered from a remote resource, a remote image", { timeout: 900_000 }, () => {
  const site = minimalSite();
  sites.push(site);

  test("this machine's network is never the site's fault; what it cannot reach is named", async () => {
    const offline = !(await resolvesPublicNames());
    site.write(
      "src/pages/remote.astro",
      '---\nimport Page from "../layouts/Page.astro";\nconst photo = await fetch("https://photos.example.invalid/today.json");\n---\n<Page title="Remote"><p>{photo.status}</p></Page>\n',
    );
    site.write(
      "src/pages/about.astro",
      site.read("src/pages/about.astro").replace("</p>", '</p>\n  <img src="https://images.example.invalid/team.jpg" alt="The team">'),
    );
    site.write(
      "src/pages/index.astro",
      site.read("src/pages/index.astro").replace("</ul>", '  <li><a href="/remote/">Remote</a></li>\n  </ul>'),
    );
    const run = await validate(site);
    const notJudged = run.report.notJudged ?? [];
    const build = (offline ? notJudged : run.report.findings).find((f) => f.tool === "blog_build_run");
    if (!offline) {
      // Public names resolve here: both hosts are URLs that point nowhere.
      assert.equal(run.report.verdict, "FAIL", summary(run.report.findings));
      assert.equal(build?.severity, "fail");
      return;
    }
    // Listed apart, not counted: no FAIL and no WARN for this machine's network.
    assert.equal(run.report.verdict, "PASS", `${summary(run.report.findings)}\n${run.output.slice(-2000)}`);
    assert.equal(build?.rule, "build-network", summary(notJudged));
    assert.equal(build?.unreachable, "photos.example.invalid");
    assert.match(run.output, /not judged: this machine's network \(2, not counted\)/);
    assert.match(build?.file ?? "", /^src\/pages\/remote\.astro:3:\d+$/);
    assert.match(
      build?.message ?? "",
      /the build of the page \/remote .* fetched photos\.example\.invalid, which this machine cannot reach/,
    );
    const crawl = run.report.steps.find((step) => step.name === "crawl");
    assert.match(crawl?.summary ?? "", /not judged: this machine cannot reach images\.example\.invalid \(1 request on 1 page\)/);
    // The build tool says it the same way: the error not judged, and why.
    const built = spawnSync(process.execPath, [MAIN, "build_run", "--project", site.root], {
      cwd: site.root,
      encoding: "utf8",
      timeout: 300_000,
    });
    const answer = JSON.parse(built.stdout) as { success: boolean; errors: { notJudged?: string; file?: string }[]; hint?: string };
    assert.equal(answer.success, false, built.stdout);
    assert.match(answer.errors[0]?.notJudged ?? "", /^this machine cannot reach photos\.example\.invalid/, built.stdout);
    assert.match(answer.hint ?? "", /^Not the site's fault: src\/pages\/remote\.astro:3 fetched photos\.example\.invalid/, built.stdout);
    // The page the dev server could not render for want of the host: a warning that says why.
    const remote = notJudged.find((f) => f.page === "/remote/" && f.tool === "blog_browser_crawl");
    assert.equal(remote?.severity, "warn", summary(notJudged));
    assert.match(remote?.message ?? "", /not judged: its render fetched photos\.example\.invalid/);
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
