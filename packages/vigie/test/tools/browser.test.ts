// The six browser tools as every face calls them (runTool): answers, sizes, files, errors.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { sharedSession } from "../../src/core/browser/session/session.ts";
import { type Project, projectAt } from "../../src/core/project.ts";
import { findTool } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { assertAnswerMatches } from "../support/answers.ts";
import { html, type PageServer, startPageServer } from "../support/pages.ts";

let server: PageServer;
let project: Project;

before(async () => {
  server = await startPageServer();
  project = projectAt(mkdtempSync(join(tmpdir(), "vigie-browser-tools-")));
  writeFileSync(join(project.root, "package.json"), "{}");
  server.routes.set("/", { body: html("<h1>Home</h1><p>All good.</p>", "Home") });
  server.routes.set("/broken/", {
    body: html(
      `<h1>Broken</h1><img src="/missing.png" alt="missing"><script src="/missing.js"></script>
         <script>console.error("first console error"); setTimeout(() => { throw new Error("thrown after load") }, 0); Promise.reject(new Error("rejected"));</script>`,
      "Broken",
    ),
  });
});

after(async () => {
  await sharedSession().close();
  await server.close();
  rmSync(project.root, { recursive: true, force: true });
});

const call = async (name: string, args: unknown) => {
  const tool = findTool(`blog_browser_${name}`);
  assert.ok(tool, name);
  const answer = await runTool(tool, args, { project });
  assertAnswerMatches(tool, answer);
  return answer;
};
const bytes = (answer: unknown) => Buffer.byteLength(JSON.stringify(answer));

describe("js_errors", () => {
  test("a clean page: one call, under 600 bytes", async () => {
    const answer = await call("js_errors", { path: "/", port: server.port });
    assert.equal(answer.status, 200);
    assert.deepEqual([answer.errors, answer.failedRequests], [[], []]);
    assert.match(String(answer.summary), /^clean/);
    assert.ok(bytes(answer) <= 600, `${bytes(answer)} bytes`);
  });

  test("a broken page: every fault named, under 1 KB", async () => {
    const answer = await call("js_errors", { path: "/broken/", port: server.port });
    const text = JSON.stringify(answer);
    for (const fault of ["first console error", "thrown after load", "rejected", "404 image /missing.png", "404 script /missing.js"]) {
      assert.ok(text.includes(fault), `${fault} missing from ${text}`);
    }
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes`);
  });

  test("bad input: an error answer naming the argument, never an exception", async () => {
    const cases: [unknown, RegExp][] = [
      [{ path: "/", port: 70000 }, /port/],
      [{ path: "/", port: "80" }, /port/],
      [{ path: "https://example.com/" }, /absolute URL|must start/],
      [{ path: "/../../etc/passwd", port: server.port }, /\.\./],
      [{ path: "/\r\nHost: evil", port: server.port }, /control/],
      [{ path: "/", port: 70000, nope: true }, /port/],
      ["just a string", /object/],
      [{ path: "/", port: server.port, actions: [{ tap: "button A" }] }, /actions\[0\]: no verb \(unknown: tap\)/],
      [{ path: "/", port: server.port, actions: "click" }, /actions/],
    ];
    for (const [args, pattern] of cases) {
      const answer = await call("js_errors", args);
      assert.match(String(answer.error), pattern, JSON.stringify(answer));
      assert.ok(answer.hint, "every error has a hint");
    }
  });

  test("no server running and no port: says to start the dev server", async () => {
    const answer = await call("js_errors", { path: "/" });
    assert.match(String(answer.error), /no .*server/i);
    assert.equal(answer.hint, "Start it with blog_dev_start (or pass port for a server already running on 127.0.0.1).");
  });
});

describe("screenshot", () => {
  test("a PNG under .opencode/screenshots, answered as a path and dimensions", async () => {
    const answer = await call("screenshot", { path: "/", port: server.port, viewport: "mobile" });
    const { screenshot } = answer.files as { screenshot: string };
    assert.match(screenshot, /^\.opencode\/screenshots\/home-mobile-[0-9-]+\.png$/);
    assert.ok(existsSync(join(project.root, screenshot)));
    assert.equal(answer.width, 780, "390 CSS pixels at device scale 2");
    assert.ok(Number(answer.bytes) > 1000);
    assert.ok(bytes(answer) < 300);
  });

  test("odd characters and traversal attempts in the path never leave the folder", async () => {
    server.routes.set("/odd ë<>|:*\"'/", { body: html("odd") });
    const odd = await call("screenshot", { path: "/odd%20%C3%AB%3C%3E%7C:*%22'/", port: server.port });
    const { screenshot } = odd.files as { screenshot: string };
    assert.match(screenshot, /^\.opencode\/screenshots\/[a-z0-9-]+\.png$/, JSON.stringify(odd));
    const file = resolve(project.root, screenshot);
    assert.ok(file.startsWith(join(project.stateDir, "screenshots")));
    const climbing = await call("screenshot", { path: "/..%2F..%2F..%2Ftmp%2Fx", port: server.port });
    assert.ok(climbing.error, "refused");
  });

  test("a selector captures one element; an unknown selector is an error", async () => {
    const answer = await call("screenshot", { path: "/", port: server.port, selector: "h1" });
    assert.ok(Number(answer.height) < 200, JSON.stringify(answer));
    const missing = await call("screenshot", { path: "/", port: server.port, selector: "#nothing-here" });
    assert.match(String(missing.error), /matched nothing/);
    assert.equal(missing.hint, "Check the selector against the page (blog_dev_http_get shows the HTML), or omit it to capture the page.");
    assert.equal(missing.argument, "selector");
  });

  test("only the newest 50 screenshots are kept", async () => {
    const dir = join(project.stateDir, "screenshots");
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 60; i += 1) writeFileSync(join(dir, `old-${String(i).padStart(2, "0")}.png`), "x");
    await call("screenshot", { path: "/", port: server.port });
    const files = readdirSync(dir);
    assert.equal(files.length, 50);
    assert.ok(
      files.some((name) => name.startsWith("home-desktop-")),
      "the new one is kept",
    );
  });

  test("bad viewport: names the accepted values", async () => {
    const answer = await call("screenshot", { path: "/", port: server.port, viewport: "tablet" });
    assert.match(String(answer.error), /viewport/);
    assert.match(String(answer.hint), /desktop.*mobile/);
  });
});

describe("visual_diff", () => {
  test("baseline created, then match, then changed with a diff image, then a new size", async () => {
    server.routes.set("/visual/", { body: html("<h1>Stable</h1><p>Same text.</p>") });
    const first = await call("visual_diff", { path: "/visual/", port: server.port });
    assert.equal(first.status, "baseline_created");
    assert.ok(existsSync(join(project.root, (first.files as { baseline: string }).baseline)));
    const second = await call("visual_diff", { path: "/visual/", port: server.port });
    assert.equal(second.status, "match");
    assert.equal(second.diffRatio, 0);
    server.routes.set("/visual/", { body: html('<h1 style="color:red">Changed</h1><p>Same text.</p>') });
    const third = await call("visual_diff", { path: "/visual/", port: server.port });
    assert.equal(third.status, "changed");
    assert.ok(Number(third.diffRatio) > 0);
    assert.ok(existsSync(join(project.root, (third.files as { diffImage: string }).diffImage)));
    server.routes.set("/visual/", { body: html('<h1>Stable</h1><p>Same text.</p><div style="height:3000px"></div>') });
    const fourth = await call("visual_diff", { path: "/visual/", port: server.port });
    assert.equal(fourth.status, "changed");
    assert.notDeepEqual(fourth.size, fourth.baselineSize);
    const updated = await call("visual_diff", { path: "/visual/", port: server.port, update: true });
    assert.equal(updated.status, "baseline_updated");
    assert.equal((await call("visual_diff", { path: "/visual/", port: server.port })).status, "match");
  });
});

describe("a11y, perf and crawl answers", () => {
  test("a11y groups violations by rule with impact, count and a target", async () => {
    server.routes.set("/a11y/", {
      body: `<!doctype html><html><head><link rel="icon" href="data:,"></head><body><img src="data:," ><img src="data:,"></body></html>`,
    });
    const answer = await call("a11y", { path: "/a11y/", port: server.port });
    const violations = answer.violations as { id: string; impact: string; count: number; target: string }[];
    const alt = violations.find((v) => v.id === "image-alt");
    assert.ok(alt);
    assert.deepEqual([alt.impact, alt.count], ["critical", 2]);
    assert.match((answer.files as { report: string }).report, /^\.opencode\/reports\/a11y-.*\.json$/);
    const tagged = await call("a11y", { path: "/a11y/", port: server.port, tags: ["wcag2a"] });
    assert.ok(
      (tagged.violations as { id: string }[]).every((v) => v.id !== "region"),
      "best-practice rules are filtered out",
    );
  });

  test("perf answers medians and a verdict, and says when the server is not a production one", async () => {
    const answer = await call("perf", { path: "/", port: server.port, runs: 2 });
    // A production page over budget is measured again (three more loads), as validate does, and
    // judged on all five: on a busy machine the verdict after them may be either.
    const remeasured = answer.server === "production" && answer.runs === 5;
    assert.ok(answer.runs === 2 || remeasured, JSON.stringify(answer));
    if (answer.verdict === "over_budget" && answer.server === "production") assert.equal(answer.runs, 5, JSON.stringify(answer));
    assert.ok((answer.medians as { loadMs: number }).loadMs > 0);
    assert.ok(["pass", "over_budget"].includes(String(answer.verdict)));
    assert.ok(bytes(answer) < 800);
  });

  test("crawl without a sitemap follows links and lists only failing pages", async () => {
    server.routes.set("/", { body: html('<a href="/ok/">ok</a> <a href="/broken/">broken</a> <a href="/gone/">gone</a>') });
    server.routes.set("/ok/", { body: html("fine") });
    const answer = await call("crawl", { port: server.port });
    assert.equal(answer.source, "links");
    assert.equal(answer.pages, 4);
    const failing = answer.failing as { path: string; status: number }[];
    assert.deepEqual(failing.map((f) => [f.path, f.status]).sort(), [
      ["/broken/", 200],
      ["/gone/", 404],
    ]);
    assert.ok(existsSync(join(project.root, (answer.files as { report: string }).report)));
    server.routes.set("/", { body: html("<h1>Home</h1><p>All good.</p>", "Home") });
  });
});
