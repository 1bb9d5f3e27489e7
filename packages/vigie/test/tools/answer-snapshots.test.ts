// Real answers of the tools, as every face gets them (runTool), pinned in
// answer-snapshots.snapshot.json: dev_status with no server, build_lint on a small site with a
// problem, js_errors on a small local page with faults, crawl on a small static site, and two
// error answers; none over 2 KB. What changes from run to run is masked: ports, the project's absolute path,
// times (ms, durationMs, durationS, readyMs, uptimeS) and hashes. `UPDATE_SNAPSHOTS=1` rewrites it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Answer, MAX_ANSWER_BYTES, serialize } from "../../src/core/answer.ts";
import { sharedSession } from "../../src/core/browser/session/session.ts";
import { type Project, projectAt } from "../../src/core/project.ts";
import { findTool } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { assertAnswerMatches } from "../support/answers.ts";
import { html, type PageServer, startPageServer } from "../support/pages.ts";
import { matchSnapshot } from "../support/snapshot.ts";

const SNAPSHOT = join(import.meta.dirname, "answer-snapshots.snapshot.json");

/** The fields that hold a duration or a time, whatever their value. */
const TIMES = new Set(["ms", "durationMs", "durationS", "readyMs", "uptimeS"]);

/** An answer with what changes from run to run masked. */
function mask(value: unknown, root: string, key = ""): unknown {
  if (TIMES.has(key) && typeof value === "number") return "<time>";
  if (typeof value === "string")
    return value
      .replaceAll(root, "<root>")
      .replace(/(127\.0\.0\.1|localhost):\d+/g, "$1:<port>")
      .replace(/\b[0-9a-f]{8,}\b/g, "<hash>");
  if (Array.isArray(value)) return value.map((item) => mask(item, root));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([inner, item]) => [inner, mask(item, root, inner)]));
  return value;
}

let server: PageServer;
let project: Project;

before(async () => {
  server = await startPageServer();
  project = projectAt(mkdtempSync(join(tmpdir(), "vigie-answer-snapshots-")));
  writeFileSync(join(project.root, "package.json"), '{"name":"answer-snapshots","private":true}\n');
  // A Markdown page with braces in its prose and a diagram (mermaid is not installed here: said in notes).
  mkdirSync(join(project.root, "src", "pages"), { recursive: true });
  writeFileSync(
    join(project.root, "src", "pages", "notes.mdx"),
    "---\ntitle: Notes\n---\n\n# Notes\n\nSome prose with {undefinedThing} in it.\n\n```mermaid\nflowchart TD\n  A[Start] -->> B[End]\n```\n",
  );
  server.routes.set("/", {
    body: html('<h1>Home</h1><a href="/fine/">fine</a> <a href="/broken/">broken</a> <a href="/gone/">gone</a>', "Home"),
  });
  server.routes.set("/fine/", { body: html("<p>Fine.</p>", "Fine") });
  server.routes.set("/broken/", {
    body: html(
      '<h1>Broken</h1><img src="/missing.png" alt="missing"><script>console.error("a console error"); throw new Error("thrown by the page");</script>',
      "Broken",
    ),
  });
});

after(async () => {
  await sharedSession().close();
  await server.close();
  rmSync(project.root, { recursive: true, force: true });
});

async function answerOf(name: string, args: Answer = {}): Promise<unknown> {
  const tool = findTool(name);
  assert.ok(tool, name);
  const answer = await runTool(tool, args, { project });
  assertAnswerMatches(tool, answer);
  const size = Buffer.byteLength(serialize(answer));
  assert.ok(size <= MAX_ANSWER_BYTES, `${name}: ${size} bytes, over ${MAX_ANSWER_BYTES}: ${serialize(answer).slice(0, 300)}`);
  return mask(answer, project.root);
}

describe("the tools' answers", () => {
  test("match the snapshot, ports, paths, times and hashes masked", async () => {
    const answers = {
      "blog_dev_status, no server": await answerOf("blog_dev_status"),
      "blog_dev_logs, no log yet": await answerOf("blog_dev_logs"),
      "blog_build_lint, braces in prose": await answerOf("blog_build_lint"),
      "blog_build_links, no build": await answerOf("blog_build_links"),
      "blog_browser_js_errors, a page with faults": await answerOf("blog_browser_js_errors", { path: "/broken/", port: server.port }),
      "blog_browser_js_errors, a clean page": await answerOf("blog_browser_js_errors", { path: "/fine/", port: server.port }),
      "blog_browser_crawl, a small site": await answerOf("blog_browser_crawl", { port: server.port, concurrency: 1 }),
    };
    matchSnapshot(SNAPSHOT, answers);
  });
});
