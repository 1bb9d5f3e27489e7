// The crawl gives each failing page's findings their source file:line: a small built
// site (HTML written by the test) served from disk, with the sources it came from beside it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { crawlSite, failingPages } from "../../../src/core/browser/load/crawl.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { type StaticServer, serveStatic } from "../../../src/core/staticServer.ts";

const session = new BrowserSession({ idleMs: 5_000 });
const root = mkdtempSync(join(tmpdir(), "vigie-crawl-source-"));
let server: StaticServer | undefined;

function write(path: string, text: string) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const ARTICLE = [
  "---",
  "title: Charts",
  "---",
  "",
  "Some prose.",
  "",
  "![A chart that is not there](/images/absent-chart.png)",
  "",
  "More prose.",
  "",
  '<img src="/images/logo.svg" width="32" height="32" />',
  "",
].join("\n");

const THROWER = '<div>thrower</div>\n<script is:inline>\n  throw new Error("inline script failed on purpose");\n</script>\n';

const page = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>t</title></head><body><main>${body}</main></body></html>`;

before(async () => {
  write("src/content/articles/en/charts.mdx", ARTICLE);
  write("src/components/Thrower.astro", THROWER);
  write("src/pages/index.astro", "<h1>Home</h1>\n");
  write("dist/images/logo.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32"/></svg>');
  write(
    "dist/en/articles/charts/index.html",
    page(
      '<h1>Charts</h1><p>Some prose.</p><p><img src="/images/absent-chart.png" alt="A chart that is not there"></p><p>More prose.</p><img src="/images/logo.svg" width="32" height="32">',
    ),
  );
  write(
    "dist/en/thrower/index.html",
    page('<h1>Thrower</h1><div>thrower</div>\n<script>\n  throw new Error("inline script failed on purpose");\n</script>'),
  );
  write("dist/index.html", page("<h1>Home</h1>"));
  server = await serveStatic(join(root, "dist"));
});

after(async () => {
  await session.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("crawl with a source root", () => {
  test("a missing image, an image without alt and an inline script error name their source lines", async () => {
    const result = await crawlSite(session, server?.url ?? "", {
      paths: ["/", "/en/articles/charts/", "/en/thrower/"],
      a11y: true,
      sourceRoot: root,
    });
    const byPath = (path: string) => result.pages.find((p) => p.path === path);
    const charts = byPath("/en/articles/charts/");
    assert.ok(charts, JSON.stringify(result.pages.map((p) => p.path)));
    const missing = charts.failedRequests.find((f) => f.url.endsWith("/images/absent-chart.png"));
    assert.ok(missing, JSON.stringify(charts.failedRequests));
    assert.deepEqual(missing.located, { source: "src/content/articles/en/charts.mdx:7" });

    const alt = charts.a11y?.find((v) => v.id === "image-alt");
    assert.ok(alt, JSON.stringify(charts.a11y));
    assert.deepEqual(alt.srcs, ["/images/logo.svg"]);
    assert.deepEqual(alt.sources, [{ source: "src/content/articles/en/charts.mdx:11" }]);

    const thrower = byPath("/en/thrower/");
    assert.ok(thrower);
    assert.match(thrower.errors.map((e) => e.message).join("\n"), /inline script failed on purpose/);
    assert.deepEqual(thrower.errors[0]?.located, { source: "src/components/Thrower.astro:3" });

    const home = byPath("/");
    assert.ok(home);
    assert.ok(
      home.errors.every((e) => e.located === undefined),
      `a passing page is not located: ${JSON.stringify(home)}`,
    );
    assert.deepEqual(
      failingPages(result).map((p) => p.path),
      ["/en/articles/charts/", "/en/thrower/"],
    );
  });

  test("without a source root nothing is located", async () => {
    const result = await crawlSite(session, server?.url ?? "", { paths: ["/en/articles/charts/"], a11y: true });
    const charts = result.pages[0];
    assert.ok(charts);
    assert.equal(charts.failedRequests[0]?.located, undefined);
    assert.equal(charts.a11y?.find((v) => v.id === "image-alt")?.sources, undefined);
  });
});
