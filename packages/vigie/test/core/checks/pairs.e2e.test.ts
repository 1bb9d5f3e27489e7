// Each check of the check service says the same of the same page through its tool and through
// its validate step: perf (a page over budget measured again), a11y (rules, impacts reported,
// sources), the screenshot of a failing page, the critical routes, and the links of pages as a
// live server renders them. One small site, served by vigie's static server, in a real Chromium.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../../../src/core/answer.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { jpegSize } from "../../../src/core/browser/page/names.ts";
import { sharedSession } from "../../../src/core/browser/session/session.ts";
import { loadConfig } from "../../../src/core/config.ts";
import { type Project, projectAt } from "../../../src/core/project.ts";
import { type StaticServer, serveStatic } from "../../../src/core/staticServer.ts";
import type { ToolId, ValidateContext } from "../../../src/core/validate/steps/context.ts";
import { crawlStep } from "../../../src/core/validate/steps/crawl.ts";
import type { Finding } from "../../../src/core/validate/steps/findings.ts";
import { linksStep } from "../../../src/core/validate/steps/links.ts";
import { perfStep } from "../../../src/core/validate/steps/perf.ts";
import { routesStep } from "../../../src/core/validate/steps/routes.ts";
import { findTool } from "../../../src/tools/registry.ts";
import { runTool } from "../../../src/tools/run.ts";

/** A 1×1 PNG. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

const HOME = [
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pairs</title></head><body>',
  "<main><h1>Pairs</h1>",
  '<p><a href="/a/">A page</a> and <a href="/missing/">a page that is not there</a>.</p>',
  '<button class="unnamed"></button>',
  '<img class="probe" src="/images/probe.png">',
  "</main></body></html>",
].join("\n");
const PAGE_A =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A</title></head><body><main><h1>A</h1><a href="/">Home</a></main></body></html>';

/** The source of the home page: where the image without alt text is written. */
const SOURCE = ["---", "---", "<main>", "  <h1>Pairs</h1>", '  <img class="probe" src="/images/probe.png">', "</main>", ""].join("\n");

const tool = (project: Project, name: string, args: Record<string, unknown>) => {
  const definition = findTool(`blog_${name}`);
  assert.ok(definition, name);
  return runTool(definition, args, { project }) as Promise<Answer>;
};

describe("tool and validate step: one check each, the same findings", { timeout: 300_000 }, () => {
  let dir: string;
  let project: Project;
  let server: StaticServer;
  let ctx: ValidateContext;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "vigie-pairs-"));
    writeFileSync(join(dir, "package.json"), "{}");
    writeFileSync(join(dir, "astro.config.mjs"), "export default {};\n");
    // Every load is over a 1 ms budget: both measure the page again.
    writeFileSync(join(dir, "vigie.config.json"), JSON.stringify({ budgets: { loadMs: 1 }, perfRuns: 1, viewports: ["desktop"] }));
    mkdirSync(join(dir, "src", "pages"), { recursive: true });
    writeFileSync(join(dir, "src", "pages", "index.astro"), SOURCE);
    mkdirSync(join(dir, "dist", "a"), { recursive: true });
    mkdirSync(join(dir, "dist", "images"));
    writeFileSync(join(dir, "dist", "index.html"), HOME);
    writeFileSync(join(dir, "dist", "a", "index.html"), PAGE_A);
    writeFileSync(join(dir, "dist", "images", "probe.png"), PNG);
    project = projectAt(dir);
    server = await serveStatic(join(dir, "dist"));
    ctx = {
      project,
      config: loadConfig(project),
      site: readSite(project),
      options: { session: sharedSession(), baseUrl: server.url },
      tool: (id: ToolId) => `blog_${id}`,
      critical: ["/", "/missing/"],
      pages: [],
    } as unknown as ValidateContext;
  });

  after(async () => {
    await sharedSession().close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let crawled: Awaited<ReturnType<typeof crawlStep.run>>;
  const crawl = async () => {
    crawled ??= await crawlStep.run(ctx);
    return crawled;
  };

  test("a11y: the same violations, severities, targets and sources", async () => {
    const answer = (await tool(project, "browser_a11y", { port: server.port })) as Answer & {
      violations: { id: string; severity: string; target: string; source?: string }[];
    };
    const step = (await crawl()).findings?.filter((f: Finding) => f.tool === "blog_browser_a11y" && f.page === "/") ?? [];
    const fromTool = answer.violations.map((v) => `${v.id} ${v.severity} ${v.target} ${v.source ?? "-"}`).sort();
    const fromStep = step.map((f) => `${f.rule} ${f.severity} ${f.target} ${f.file ?? "-"}`).sort();
    assert.deepEqual(fromTool, fromStep);
    assert.ok(
      fromTool.some((line) => line.startsWith("button-name fail")),
      JSON.stringify(answer),
    );
    // The image is found in the source that writes it, by both.
    assert.ok(
      fromTool.some((line) => line.startsWith("image-alt fail") && line.endsWith("src/pages/index.astro:5")),
      fromTool.join("\n"),
    );
  });

  test("screenshot: the failing page pictured at the tool's size, its violating elements outlined", async () => {
    const answer = (await tool(project, "browser_screenshot", { port: server.port })) as Answer & { width: number; height: number };
    const shot = (await crawl()).screenshots?.find((picture) => picture.page === "/");
    assert.ok(shot, JSON.stringify((await crawl()).screenshots));
    const size = jpegSize(readFileSync(join(dir, shot.file)));
    assert.deepEqual([size.width, size.height], [answer.width, answer.height]);
    assert.ok(answer.width > 0 && answer.height > 0);
    // Outlined: the elements of the violations the a11y check reports on the page.
    const targets = new Set((crawled.findings ?? []).filter((f) => f.tool === "blog_browser_a11y" && f.page === "/").map((f) => f.target));
    assert.ok(shot.outlined?.includes("button") && shot.outlined.includes("img"), JSON.stringify(shot));
    assert.ok(
      shot.outlined?.every((selector) => targets.has(selector)),
      JSON.stringify({ shot, targets: [...targets] }),
    );
  });

  test("perf: a page over budget is measured again by both, and judged alike", async () => {
    ctx.pages = [{ path: "/", status: 200, ok: false, summary: "" }];
    const answer = (await tool(project, "browser_perf", { port: server.port })) as Answer & {
      runs: number;
      verdict: string;
      budget: Record<string, { pass?: boolean }>;
    };
    const step = await perfStep.run(ctx);
    const figure = step.perf?.find((p) => p.page === "/");
    assert.ok(figure, JSON.stringify(step));
    // One load asked (the config's perfRuns), then three more as the page is over budget.
    assert.equal(answer.runs, 4, JSON.stringify(answer));
    assert.equal(figure.runs, 4);
    assert.equal(answer.verdict, "over_budget");
    assert.equal(figure.verdict, "over_budget");
    const over = Object.entries(answer.budget).flatMap(([metric, entry]) => (entry.pass === false ? [metric] : []));
    const budgetFindings = (step.findings ?? []).filter((f) => f.rule === "perf-budget");
    assert.deepEqual(budgetFindings.map((f) => f.message.split(" ")[0]).sort(), over.sort());
  });

  test("routes: what dev_http_get answers is what the critical routes step judges", async () => {
    const home = (await tool(project, "dev_http_get", { path: "/", port: server.port })) as Answer & { status: number };
    const missing = (await tool(project, "dev_http_get", { path: "/missing/", port: server.port })) as Answer & { status: number };
    const step = await routesStep.run(ctx);
    assert.equal(home.status, 200);
    assert.equal(missing.status, 404);
    assert.deepEqual(
      step.findings?.map((f) => `${f.page} ${f.message}`),
      ["/missing/ HTTP 404"],
    );
    assert.match(step.summary, /^1\/2 routes answer/);
  });

  test("links on a live server: build_links with pages and validate --changed's links step", async () => {
    const answer = (await tool(project, "build_links", { pages: ["/"], port: server.port })) as Answer & {
      broken: { from: string; to: string }[];
    };
    const dev = { url: server.url, paths: ["/"], reached: 1, known: [], why: "the pages given" };
    const step = await linksStep.run({ ...ctx, options: { ...ctx.options, changes: { dev } } } as unknown as ValidateContext);
    const fromTool = answer.broken.map((link) => `${link.from} ${link.to}`).sort();
    const fromStep = (step.findings ?? []).map((f) => `${f.page} ${f.message.replace(/^broken link to (\S+):.*$/, "$1")}`).sort();
    assert.deepEqual(fromTool, ["/ /missing/"]);
    assert.deepEqual(fromStep, fromTool);
  });
});
