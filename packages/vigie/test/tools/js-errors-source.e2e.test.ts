// blog_browser_js_errors on a real Astro dev server of a blog copy (started with
// blog_dev_start), in real Chromium: each fault points at the line of the source that
// made it — the .mdx fence of an invalid diagram, the Markdown of a missing image, the
// line of a component's client script that throws.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../../src/core/answer.ts";
import { checkJsErrors } from "../../src/core/browser/load/jsErrors.ts";
import { locateFindings } from "../../src/core/browser/page/locate.ts";
import { sharedSession } from "../../src/core/browser/session/session.ts";
import { findTool } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { call, freePort, killEverythingIn } from "../core/devServer/helpers.ts";
import { type BlogCopy, copyBlog } from "../support/blog.ts";
import { addFaultPages, appendToArticle, breakTabsKeyboard, INVALID_FLOWCHART, TABS } from "../support/faults.ts";

const DIAGRAM_ARTICLE = "src/content/articles/en/mermaid-in-the-browser.mdx";
const BROKEN_ARTICLE = "src/content/articles/en/orphan-dev-servers.mdx";
const COMPONENT = "src/components/ThrowsOnLoad.astro";

/** The 1-based line of the last line of `file` that contains `text`. */
function lineOf(root: string, file: string, text: string): number {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const index = lines.findLastIndex((line) => line.includes(text));
  assert.ok(index >= 0, `${text} not in ${file}`);
  return index + 1;
}

const bytes = (answer: unknown) => Buffer.byteLength(JSON.stringify(answer));

describe("js_errors findings point at their source (dev server of a blog copy)", () => {
  let copy: BlogCopy;

  before(async () => {
    copy = copyBlog("js-errors-source");
    writeFileSync(
      join(copy.root, COMPONENT),
      [
        "---",
        "---",
        '<p class="throws-on-load">This component throws in the browser.</p>',
        "<script>",
        '  const armed = document.querySelector(".throws-on-load") !== null;',
        "  function explode(): never {",
        '    throw new Error("component script failed on purpose");',
        "  }",
        "  if (armed) explode();",
        "</script>",
        "",
      ].join("\n"),
    );
    const article = join(copy.root, BROKEN_ARTICLE);
    const text = readFileSync(article, "utf8").replace(
      /^(import devLoop .*)$/m,
      '$1\nimport ThrowsOnLoad from "../../../components/ThrowsOnLoad.astro";',
    );
    writeFileSync(article, `${text}\n\n<ThrowsOnLoad />\n\n![A picture that is not there](/images/not-there.png)\n`);
    appendToArticle(copy.root, "en", "mermaid-in-the-browser", INVALID_FLOWCHART);
    // The Tabs' keyboard navigation broken: an arrow key throws.
    breakTabsKeyboard(copy.root, "tab keyboard navigation broke on purpose");
    addFaultPages(copy.root);
    const started = await call(copy, "start", { port: await freePort() });
    assert.equal(started.status, "started", JSON.stringify(started));
    // The first request compiles the page: give it time on a busy machine.
    await call(copy, "http_get", { path: "/en/articles/orphan-dev-servers/", timeoutMs: 90_000 });
  });

  after(async () => {
    await sharedSession().close();
    if (copy) {
      await call(copy, "stop").catch(() => undefined);
      killEverythingIn(copy);
      copy.remove();
    }
  });

  const jsErrors = (path: string, more: object = {}) => {
    const tool = findTool("blog_browser_js_errors");
    assert.ok(tool);
    return runTool(tool, { path, ...more }, { project: copy });
  };

  /** js_errors until `done` holds (Vite optimises dependencies and reloads on a first visit). */
  async function settled(path: string, done: (answer: Answer) => boolean): Promise<Answer> {
    let answer: Answer = {};
    for (let attempt = 0; attempt < 4; attempt += 1) {
      answer = await jsErrors(path);
      if (done(answer)) return answer;
    }
    return answer;
  }

  test("an invalid diagram: the .mdx and the line of its ```mermaid fence", async (t) => {
    const answer = await settled("/en/articles/mermaid-in-the-browser/", (a) => Array.isArray(a.mermaid) && !a.incomplete);
    const mermaid = answer.mermaid as { diagram: number; message: string; source?: string }[];
    assert.equal(mermaid?.length, 1, JSON.stringify(answer));
    const fence = lineOf(copy.root, DIAGRAM_ARTICLE, "```mermaid");
    assert.equal(mermaid[0]?.source, `${DIAGRAM_ARTICLE}:${fence}`, JSON.stringify(answer));
    assert.match(String(mermaid[0]?.message), /Parse error/);
    t.diagnostic(`${bytes(answer)} bytes: ${JSON.stringify(answer)}`);
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes`);
  });

  test("a missing image and a component that throws: the article's line and the component's line", async (t) => {
    const answer = await settled(
      "/en/articles/orphan-dev-servers/",
      (a) => JSON.stringify(a.errors).includes("on purpose") && JSON.stringify(a.failedRequests).includes("not-there"),
    );
    const requests = answer.failedRequests as { request: string; source?: string }[];
    const image = requests.find((item) => typeof item === "object" && item.request.includes("/images/not-there.png"));
    assert.equal(image?.source, `${BROKEN_ARTICLE}:${lineOf(copy.root, BROKEN_ARTICLE, "/images/not-there.png")}`, JSON.stringify(answer));
    const errors = answer.errors as { message: string; source?: string }[];
    const thrown = errors.find((item) => typeof item === "object" && item.message.includes("component script failed on purpose"));
    assert.equal(thrown?.source, `${COMPONENT}:${lineOf(copy.root, COMPONENT, "throw new Error")}`, JSON.stringify(answer));
    assert.doesNotMatch(thrown?.message ?? "", /http:\/\//, "the source replaces the bundled frame");
    t.diagnostic(`${bytes(answer)} bytes: ${JSON.stringify(answer)}`);
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes`);
  });

  test("a page's inline script that throws and its missing image: the .astro page's line", async (t) => {
    const thrown = await settled("/faults/throw/", (a) => JSON.stringify(a.errors).includes("on purpose"));
    t.diagnostic(JSON.stringify(thrown));
    const error = (thrown.errors as { source?: string }[])[0];
    assert.equal(error?.source, "src/pages/faults/throw.astro:3", JSON.stringify(thrown));
    const image = await settled("/faults/missing-image/", (a) => JSON.stringify(a.failedRequests).includes("not-there"));
    const request = (image.failedRequests as { source?: string }[])[0];
    assert.equal(request?.source, "src/pages/faults/missing-image.astro:3", JSON.stringify(image));
  });

  test("a console.error in an inline script: the .astro page's line", async () => {
    const answer = await settled("/faults/console/", (a) => JSON.stringify(a.errors).includes("on purpose"));
    const error = (answer.errors as { source?: string; sourceUnknown?: string }[])[0];
    assert.equal(error?.source, "src/pages/faults/console.astro:3", JSON.stringify(answer));
  });

  test("locating is a step of its own after the check: its cost is logged, not judged", async (t) => {
    const url = `http://127.0.0.1:${readFileSync(join(copy.stateDir, "dev-server.port"), "utf8").trim()}/en/articles/orphan-dev-servers/`;
    const findings = await checkJsErrors(sharedSession(), url);
    assert.ok(
      findings.errors.every((error) => error.located === undefined),
      "no sourceRoot, nothing located",
    );
    const started = performance.now();
    const located = await locateFindings(findings, copy.root);
    t.diagnostic(
      `locating ${findings.errors.length} errors and ${findings.failedRequests.length} failed requests took ${Math.round(performance.now() - started)} ms`,
    );
    assert.ok(located.errors.every((error) => error.located !== undefined));
  });

  test("actions: focus the tab list, press ArrowRight → the error after step 2, at the line of Tabs.astro", async (t) => {
    const actions = [{ focus: "tab Verbose" }, { press: "ArrowRight" }];
    const path = "/en/articles/small-tool-answers/";
    let answer: Answer = {};
    for (let attempt = 0; attempt < 4 && !JSON.stringify(answer.errors ?? []).includes("on purpose"); attempt += 1)
      answer = await jsErrors(path, { actions });
    assert.deepEqual(answer.actions, { ran: 2, of: 2 }, JSON.stringify(answer));
    const errors = answer.errors as { message: string; afterStep?: number; source?: string }[];
    const thrown = errors.find((item) => typeof item === "object" && item.message.includes("tab keyboard navigation broke on purpose"));
    assert.equal(thrown?.afterStep, 2, JSON.stringify(answer));
    assert.equal(thrown?.source, `${TABS}:${lineOf(copy.root, TABS, "broke on purpose")}`, JSON.stringify(answer));
    t.diagnostic(`${bytes(answer)} bytes: ${JSON.stringify(answer)}`);
    assert.ok(bytes(answer) <= 1024, `${bytes(answer)} bytes`);
    // A wrong target: a short answer with the page's tabs, not a timeout.
    const wrong = await jsErrors(path, { actions: [{ focus: "tab Concise" }] });
    const failed = wrong.stepFailed as { step: number; onThePage?: string[] };
    assert.equal(failed?.step, 1, JSON.stringify(wrong));
    assert.ok(failed.onThePage?.includes("tab Compact"), JSON.stringify(wrong));
    t.diagnostic(`${bytes(wrong)} bytes: ${JSON.stringify(wrong)}`);
    assert.ok(bytes(wrong) <= 1024, `${bytes(wrong)} bytes`);
  });

  test("a page without faults stays as small as before: nothing to locate, nothing read", async (t) => {
    const answer = await settled("/en/articles/headless-browser-for-agents/", (a) => !a.incomplete);
    assert.deepEqual([answer.errors, answer.failedRequests, answer.sourceUnknown], [[], [], undefined], JSON.stringify(answer));
    t.diagnostic(`${bytes(answer)} bytes: ${JSON.stringify(answer)}`);
    assert.ok(bytes(answer) <= 600, `${bytes(answer)} bytes`);
  });
});
