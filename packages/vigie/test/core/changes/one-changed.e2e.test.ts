// One "changed", asked by its three entry points on a copy of the blog under git: `validate
// --changed`, the crawl tool with `changed` and `blog_dev_changes` reach the same pages for the
// same edit, on the blog's dev server (its module graph, no build, at most CHANGED_PAGE_LIMIT
// pages, chosen alike) and on a build (the build's fingerprints against one baseline: the pages
// the crawl recorded as not ok are those validate then loads again).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../../../src/core/answer.ts";
import { BrowserSession, sharedSession } from "../../../src/core/browser/session/session.ts";
import { baselinePath, readBaseline } from "../../../src/core/changes/baseline.ts";
import { CHANGED_PAGE_LIMIT } from "../../../src/core/changes/changed.ts";
import type { PagesRecord } from "../../../src/core/changes/record.ts";
import { statePath } from "../../../src/core/project.ts";
import { type StaticServer, serveStatic } from "../../../src/core/staticServer.ts";
import { changeScope } from "../../../src/core/validate/changeScope.ts";
import { validate } from "../../../src/core/validate/runner.ts";
import type { ValidationReport } from "../../../src/core/validate/steps/findings.ts";
import { findTool } from "../../../src/tools/registry.ts";
import { runTool } from "../../../src/tools/run.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";
import { call, freePort, killEverythingIn } from "../devServer/helpers.ts";

interface CrawlAnswer extends Answer {
  pages?: number;
  failing?: { path: string }[];
  changed?: { chosen: number; of: number; why: string };
}

interface ChangesAnswer extends Answer {
  baseline?: { pages: number };
  pages?: { path: string }[];
  clean?: string[];
}

/** Used by the two tag-list pages, /tags/ and /en/tags/. */
const COMPONENT = "src/views/TagsView.astro";
const LAYOUT = "src/layouts/BaseLayout.astro";
const TAG_PAGES = ["/en/tags/", "/tags/"];
const THROWS = '</ul>\n  <script>\n    throw new Error("tag cloud failed on purpose");\n  </script>\n';

describe("one changed: validate --changed, the crawl's changed and dev changes agree", { timeout: 900_000 }, () => {
  let copy: BlogCopy;
  let server: StaticServer | undefined;
  const originals = new Map<string, string>();
  const edit = (file: string, change: (text: string) => string) => {
    const path = join(copy.root, file);
    const text = readFileSync(path, "utf8");
    if (!originals.has(file)) originals.set(file, text);
    writeFileSync(path, change(text));
  };
  const undo = (file: string) => {
    const text = originals.get(file);
    if (text !== undefined) writeFileSync(join(copy.root, file), text);
    originals.delete(file);
  };

  /** The crawl tool with `changed`, and the paths it loaded (its report's). */
  const crawl = async (args: Record<string, unknown> = {}): Promise<{ answer: CrawlAnswer; paths: string[] }> => {
    const tool = findTool("blog_browser_crawl");
    assert.ok(tool);
    const answer = (await runTool(tool, { changed: true, ...args }, { project: copy })) as CrawlAnswer;
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.ok(Buffer.byteLength(JSON.stringify(answer)) <= 2048);
    if (answer.pages === 0) return { answer, paths: [] };
    const report = JSON.parse(readFileSync(statePath(copy, "reports", "crawl.json"), "utf8")) as { pages: { path: string }[] };
    return { answer, paths: report.pages.map((page) => page.path).sort() };
  };
  /** blog_dev_changes, and the paths it checked. */
  const changes = async (args: Record<string, unknown> = {}): Promise<{ answer: ChangesAnswer; paths: string[] }> => {
    const tool = findTool("blog_dev_changes");
    assert.ok(tool);
    const answer = (await runTool(tool, args, { project: copy })) as ChangesAnswer;
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    return { answer, paths: [...(answer.pages ?? []).map((page) => page.path), ...(answer.clean ?? [])].sort() };
  };
  /** `vigie validate --changed` against HEAD, in this process; the pages its crawl loaded. */
  const validateChanged = async (): Promise<{ report: ValidationReport; paths: string[]; notes: string }> => {
    const { plan, scope } = await changeScope(copy);
    const session = new BrowserSession();
    try {
      const report = await validate(copy, { session, changes: scope });
      return { report, paths: report.pages.map((page) => page.path).sort(), notes: plan.notes.join("\n") };
    } finally {
      await session.close();
    }
  };
  const buildRecord = () => readBaseline<PagesRecord>(copy).build;
  const builtAt = () => statSync(join(copy.root, "dist", "index.html")).mtimeMs;

  before(async () => {
    copy = copyBlog("one-changed");
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\n");
    // astro check and perf say nothing of the pages a change reaches: left out of these runs.
    writeFileSync(join(copy.root, "vigie.config.json"), `${JSON.stringify({ checks: { check: false, perf: false } })}\n`);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, stdio: "ignore" });
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "the blog");
    server = await serveStatic(join(copy.root, "dist"));
  });

  after(async () => {
    try {
      await call(copy, "stop", {});
      await sharedSession().close();
      await server?.close();
    } finally {
      killEverythingIn(copy);
      copy.remove();
    }
  });

  test("one baseline: the crawl of a build records it, the dev server's first look joins it in the same file", async () => {
    const { answer } = await crawl({ port: server?.port });
    assert.match(answer.changed?.why ?? "", /no record of a previous run/, JSON.stringify(answer));
    assert.ok((answer.pages ?? 0) > 40, JSON.stringify(answer));
    const record = buildRecord();
    assert.ok(record && Object.keys(record.pages).length === answer.pages, JSON.stringify(answer));
    assert.ok(Object.values(record.pages).every((page) => page.ok));

    const started = await call(copy, "start", { port: await freePort(), timeoutMs: 120_000 });
    assert.equal(started.status, "started", JSON.stringify(started));
    const first = await changes();
    assert.ok((first.answer.baseline?.pages ?? 0) >= 40, JSON.stringify(first.answer));
    // One file holds both: the build's record, kept, and the dev server's last look.
    const baseline = readBaseline<PagesRecord, { pages: Record<string, unknown> }>(copy);
    assert.deepEqual(baseline.build, record);
    assert.ok(Object.keys(baseline.dev?.pages ?? {}).length >= 40);
    assert.deepEqual(readdirSync(join(copy.stateDir, "changes")), ["baseline.json"]);
    assert.equal(baselinePath(copy), join(copy.stateDir, "changes", "baseline.json"));
  });

  test("on the dev server: a component's edit reaches the same two pages from all three, without a build", async () => {
    const built = builtAt();
    try {
      edit(COMPONENT, (text) => text.replace("</ul>\n", THROWS));
      const dev = await changes();
      assert.deepEqual(dev.paths, TAG_PAGES, JSON.stringify(dev.answer));
      const validated = await validateChanged();
      assert.match(validated.notes, /pages: the 2 pages the change reaches \(the dev server's module graph\)/);
      assert.deepEqual(validated.paths, TAG_PAGES, JSON.stringify(validated.report.pages));
      const crawled = await crawl();
      assert.match(crawled.answer.changed?.why ?? "", /dev server's module graph/, JSON.stringify(crawled.answer));
      assert.deepEqual(crawled.paths, TAG_PAGES, JSON.stringify(crawled.answer));
      assert.deepEqual(crawled.answer.failing?.map((page) => page.path).sort(), TAG_PAGES, JSON.stringify(crawled.answer));
      assert.deepEqual(
        validated.report.pages
          .filter((page) => !page.ok)
          .map((page) => page.path)
          .sort(),
        TAG_PAGES,
      );
      // Nothing was built: the dev server's graph told.
      assert.equal(builtAt(), built);
    } finally {
      undo(COMPONENT);
    }
    await changes();
  });

  test("on the dev server: the layout reaches every page, and all three load the same CHANGED_PAGE_LIMIT of them", async () => {
    try {
      edit(LAYOUT, (text) => text.replace('<main id="content"', '<main data-edit="1" id="content"'));
      const dev = await changes();
      assert.equal(dev.paths.length, CHANGED_PAGE_LIMIT, JSON.stringify(dev.answer));
      const validated = await validateChanged();
      const crawled = await crawl();
      assert.deepEqual(validated.paths, dev.paths);
      assert.deepEqual(crawled.paths, dev.paths);
      assert.equal(crawled.answer.changed?.chosen, CHANGED_PAGE_LIMIT);
    } finally {
      undo(LAYOUT);
    }
    await changes();
  });

  test("on a build: the same edit, the same failing pages; validate loads again what the crawl recorded as not ok", async () => {
    const stopped = await call(copy, "stop", {});
    assert.match(JSON.stringify(stopped), /stopped/, JSON.stringify(stopped));
    edit(COMPONENT, (text) => text.replace("</ul>\n", THROWS));
    try {
      const crawled = await crawl({ port: server?.port });
      // The tag pages' output changed (Shiki may tokenize a line otherwise on a busy machine: a page more).
      for (const path of TAG_PAGES) assert.ok(crawled.paths.includes(path), JSON.stringify(crawled.answer));
      assert.ok(crawled.paths.length < 10, JSON.stringify(crawled.answer));
      assert.deepEqual(crawled.answer.failing?.map((page) => page.path).sort(), TAG_PAGES, JSON.stringify(crawled.answer));
      for (const path of TAG_PAGES) assert.equal(buildRecord()?.pages[path]?.ok, false);

      const validated = await validateChanged();
      for (const path of TAG_PAGES) assert.ok(validated.paths.includes(path), JSON.stringify(validated.report.pages));
      assert.match(validated.report.steps.find((step) => step.name === "crawl")?.summary ?? "", /2 that failed last time/);
      assert.deepEqual(
        validated.report.pages
          .filter((page) => !page.ok)
          .map((page) => page.path)
          .sort(),
        TAG_PAGES,
      );
    } finally {
      undo(COMPONENT);
    }
  });
});
