// blog_dev_changes on a copy of the blog, with its real dev server (started by vigie, with its
// dev integration) and Chromium: after an edit to an article, to a component two pages use, to
// the layout, to the stylesheet, and a syntax error, each call names exactly the pages reached
// and the new fault with its source; after the edit is undone, the fault is "resolved".
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../../../src/core/answer.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { CHANGED_PAGE_LIMIT } from "../../../src/core/changes/changed.ts";
import { hasWarmChecker, warmTypeErrors } from "../../../src/core/changes/dev.ts";
import { changeScope } from "../../../src/core/validate/changeScope.ts";
import { validate } from "../../../src/core/validate/runner.ts";
import type { ValidationReport } from "../../../src/core/validate/steps/findings.ts";
import { devTools } from "../../../src/tools/dev.ts";
import { runTool } from "../../../src/tools/run.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";
import { INVALID_FLOWCHART } from "../../support/faults.ts";
import { call, freePort, killEverythingIn } from "../devServer/helpers.ts";

interface PageDelta {
  path: string;
  new?: unknown[];
  resolved?: unknown[];
  still?: number;
}

interface ChangesAnswer extends Answer {
  baseline?: { pages: number; faults: number; ms: number };
  changed?: string[];
  applied?: string;
  reached?: number;
  pages?: PageDelta[];
  clean?: string[];
  pending?: string[];
  removed?: { path: string; file: string; linkedFrom?: string[] }[];
}

const ARTICLE = "src/content/articles/en/orphan-dev-servers.mdx";
const ARTICLE_PAGE = "/en/articles/orphan-dev-servers/";
/** Used by the two tag-list pages, /tags/ and /en/tags/. */
const COMPONENT = "src/views/TagsView.astro";
const LAYOUT = "src/layouts/BaseLayout.astro";
const STYLESHEET = "src/styles/global.css";

const bytes = (answer: unknown) => Buffer.byteLength(JSON.stringify(answer));

describe("blog_dev_changes on the blog's dev server", { timeout: 900_000 }, () => {
  let copy: BlogCopy;
  const originals = new Map<string, string>();
  const changes = async (args: Record<string, unknown> = {}): Promise<ChangesAnswer> => {
    const definition = devTools.find((tool) => tool.exportName === "changes");
    if (!definition) throw new Error("no changes tool");
    const answer = (await runTool(definition, args, { project: copy })) as ChangesAnswer;
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.ok(bytes(answer) <= 2048, `${bytes(answer)} bytes: ${JSON.stringify(answer)}`);
    return answer;
  };
  const edit = (file: string, change: (text: string) => string) => {
    const path = join(copy.root, file);
    const text = readFileSync(path, "utf8");
    if (!originals.has(file)) originals.set(file, text);
    const changed = change(text);
    assert.notEqual(changed, text, `the edit of ${file} changed nothing`);
    writeFileSync(path, changed);
  };
  const undo = (file: string) => {
    const text = originals.get(file);
    if (text !== undefined) writeFileSync(join(copy.root, file), text);
    originals.delete(file);
  };
  const pathsOf = (answer: ChangesAnswer) =>
    [...(answer.pages ?? []).map((page) => page.path), ...(answer.clean ?? []), ...(answer.pending ?? [])].sort();
  const page = (answer: ChangesAnswer, path: string) => answer.pages?.find((entry) => entry.path === path);

  /** `vigie validate --changed` against HEAD, in this process, with the dev server running. */
  const validateChanged = async (): Promise<{ report: ValidationReport; notes: string[] }> => {
    const { plan, scope } = await changeScope(copy);
    const session = new BrowserSession();
    try {
      return { report: await validate(copy, { session, changes: scope }), notes: plan.notes };
    } finally {
      await session.close();
    }
  };
  const stepOf = (report: ValidationReport, name: string) => report.steps.find((step) => step.name === name);

  before(async () => {
    copy = copyBlog("dev-changes");
    // Under git, for validate --changed (the changes against HEAD).
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\n");
    const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, stdio: "ignore" });
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=vigie", "-c", "user.email=vigie@localhost", "commit", "-q", "-m", "the blog");
    const started = await call(copy, "start", { port: await freePort(), timeoutMs: 120_000 });
    assert.equal(started.status, "started", JSON.stringify(started));
  });

  after(async () => {
    try {
      await call(copy, "stop", {});
    } finally {
      killEverythingIn(copy);
      copy.remove();
    }
  });

  test("the first call takes the baseline; a call with nothing changed says so in a few bytes", async () => {
    const first = await changes();
    assert.ok((first.baseline?.pages ?? 0) >= 40, JSON.stringify(first));
    assert.equal(first.baseline?.faults, 0, JSON.stringify(first));
    const nothing = await changes();
    assert.deepEqual(nothing.changed, []);
    assert.ok(bytes(nothing) <= 100, `${bytes(nothing)} bytes`);
  });

  test("an article: its page alone, the failed diagram with its file:line, then resolved", async () => {
    try {
      edit(ARTICLE, (text) => `${text}\n\n${INVALID_FLOWCHART}\n`);
      const broken = await changes();
      assert.deepEqual(broken.changed, [ARTICLE]);
      assert.deepEqual(pathsOf(broken), [ARTICLE_PAGE]);
      const faults = JSON.stringify(page(broken, ARTICLE_PAGE)?.new);
      assert.match(faults, /Mermaid diagram 1 failed/);
      assert.match(faults, new RegExp(`${ARTICLE.replaceAll(".", "\\.")}:\\d+`));
      console.log(`article: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      undo(ARTICLE);
    }
    const fixed = await changes();
    assert.deepEqual(pathsOf(fixed), [ARTICLE_PAGE]);
    assert.match(JSON.stringify(page(fixed, ARTICLE_PAGE)?.resolved), /Mermaid diagram 1 failed/);
    assert.equal(page(fixed, ARTICLE_PAGE)?.new, undefined);
    console.log(`article undone: ${bytes(fixed)} bytes`);
  });

  test("a frontmatter the collection's schema refuses: the entry, the field at its line, the rule; then resolved", async () => {
    // The dev server logs the refusal and keeps rendering the entry's last valid data: the page answers 200.
    try {
      edit(ARTICLE, (text) => text.replace(/^tags: \[/m, "tags: [Not A Tag, "));
      const broken = await changes();
      assert.deepEqual(pathsOf(broken), [ARTICLE_PAGE], JSON.stringify(broken));
      const line =
        readFileSync(join(copy.root, ARTICLE), "utf8")
          .split("\n")
          .findIndex((text) => text.startsWith("tags:")) + 1;
      assert.match(
        broken.applied ?? "",
        new RegExp(`^error: .*does not match collection schema.*tags\\.0.*\\(${ARTICLE.replaceAll(".", "\\.")}:${line}\\)`),
      );
      const faults = JSON.stringify(page(broken, ARTICLE_PAGE)?.new);
      assert.match(faults, /content entry not loaded/);
      assert.match(faults, new RegExp(`${ARTICLE.replaceAll(".", "\\.")}:${line}`));
      console.log(`schema error: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      undo(ARTICLE);
    }
    const fixed = await changes();
    assert.match(JSON.stringify(page(fixed, ARTICLE_PAGE)?.resolved), /content entry not loaded/, JSON.stringify(fixed));
    assert.doesNotMatch(fixed.applied ?? "", /^error/);
  });

  test("a component two pages use: both pages, the error with its file:line, then resolved", async () => {
    try {
      edit(COMPONENT, (text) =>
        text.replace("</ul>\n", '</ul>\n  <script>\n    throw new Error("tag cloud failed on purpose");\n  </script>\n'),
      );
      const broken = await changes();
      assert.deepEqual(broken.changed, [COMPONENT]);
      assert.deepEqual(pathsOf(broken), ["/en/tags/", "/tags/"]);
      for (const path of ["/en/tags/", "/tags/"]) {
        const faults = JSON.stringify(page(broken, path)?.new);
        assert.match(faults, /tag cloud failed on purpose/);
        assert.match(faults, /src\/views\/TagsView\.astro:\d+/);
      }
      console.log(`component: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      undo(COMPONENT);
    }
    const fixed = await changes();
    assert.deepEqual(pathsOf(fixed), ["/en/tags/", "/tags/"]);
    for (const path of ["/en/tags/", "/tags/"]) assert.match(JSON.stringify(page(fixed, path)?.resolved), /tag cloud failed on purpose/);
  });

  test("a syntax error: the server's error with its file:line, the pages' error pages, then resolved", async () => {
    try {
      edit(COMPONENT, (text) => text.replace("const { lang } = Astro.props;", "const { lang } = Astro.props;\nconst broken = ;"));
      const broken = await changes();
      assert.deepEqual(pathsOf(broken), ["/en/tags/", "/tags/"]);
      assert.match(broken.applied ?? "", /^error: .*\(src\/views\/TagsView\.astro:\d+\)/, JSON.stringify(broken));
      for (const path of ["/en/tags/", "/tags/"]) assert.match(JSON.stringify(page(broken, path)?.new), /HTTP 500|dev error page/);
      // The changed file's type errors, from the checker the dev server keeps warm.
      assert.match(JSON.stringify(broken.types), /src\/views\/TagsView\.astro:\d+/, JSON.stringify(broken));
      console.log(`syntax error: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      undo(COMPONENT);
    }
    const fixed = await changes();
    for (const path of ["/en/tags/", "/tags/"]) assert.ok(page(fixed, path)?.resolved?.length, JSON.stringify(fixed));
  });

  test("validate --changed asks the dev server's warm checker about the changed files only", async () => {
    assert.ok(hasWarmChecker(copy));
    try {
      edit(COMPONENT, (text) =>
        text.replace("const { lang } = Astro.props;", "const { lang } = Astro.props;\nconst count: number = lang;"),
      );
      const answer = await warmTypeErrors(copy, [COMPONENT]);
      assert.ok("errors" in answer, JSON.stringify(answer));
      assert.deepEqual(
        answer.errors.map((error) => `${error.file}:${error.line}`),
        [`${COMPONENT}:10`],
        JSON.stringify(answer),
      );
      assert.match(answer.errors[0]?.message ?? "", /not assignable to type 'number'/);
    } finally {
      undo(COMPONENT);
    }
    const fixed = await warmTypeErrors(copy, [COMPONENT]);
    assert.deepEqual(fixed, { errors: [] });
    // The edit and its undo, seen by the next look: the pages are as before.
    const after = await changes();
    assert.deepEqual(after.changed, [COMPONENT]);
    assert.equal(after.pages, undefined, JSON.stringify(after));
  });

  // Before the layout's test, which ends on a new baseline: the pages this leaves pending are forgotten there.
  test("a component deleted that the articles' view imports: the pages, the import's file:line, then resolved", async () => {
    const DELETED = "src/components/Terminal.astro";
    const text = readFileSync(join(copy.root, DELETED), "utf8");
    const view = readFileSync(join(copy.root, "src/views/ArticleView.astro"), "utf8").split("\n");
    const importLine = view.findIndex((line) => /from "\.\.\/components\/Terminal\.astro"/.test(line)) + 1;
    assert.ok(importLine > 0);
    try {
      rmSync(join(copy.root, DELETED));
      const broken = await changes();
      assert.deepEqual(broken.changed, [DELETED]);
      const at = `src/views/ArticleView.astro:${importLine}`;
      assert.match(
        broken.applied ?? "",
        new RegExp(`^error: ${DELETED.replaceAll(".", "\\.")} is imported but does not exist.*\\(${at}\\)`),
        JSON.stringify(broken),
      );
      assert.ok((broken.pages ?? []).length >= 2, JSON.stringify(broken));
      for (const entry of broken.pages ?? []) {
        // The page's error, at the import; not the browser's failure of the same document again.
        assert.deepEqual(entry.new?.[0], { message: `${DELETED} is imported but does not exist (deleted or renamed)`, source: at });
        assert.doesNotMatch(JSON.stringify(entry.new), /net::ERR_/, JSON.stringify(entry));
      }
      console.log(`deleted import: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      writeFileSync(join(copy.root, DELETED), text);
    }
    const fixed = await changes();
    assert.ok(
      (fixed.pages ?? []).every((entry) => entry.resolved?.length && !entry.new),
      JSON.stringify(fixed),
    );
  });

  test("an article removed: the pages whose text links to it, at the link's line; then resolved when it is back", async () => {
    const REMOVED = "src/content/articles/en/small-tool-answers.mdx";
    const GONE = "/en/articles/small-tool-answers/";
    const text = readFileSync(join(copy.root, REMOVED), "utf8");
    /** The line of each article that links to the removed one, as the reader sees it in the source. */
    const linksAt = ["headless-browser-for-agents", "validation-verdicts"].map((slug) => {
      const file = `src/content/articles/en/${slug}.mdx`;
      const line =
        readFileSync(join(copy.root, file), "utf8")
          .split("\n")
          .findIndex((each) => each.includes(`](${GONE})`)) + 1;
      assert.ok(line > 0, `${file} links to ${GONE}`);
      return { page: `/en/articles/${slug}/`, at: `${file}:${line}` };
    });
    try {
      rmSync(join(copy.root, REMOVED));
      const broken = await changes();
      assert.deepEqual(broken.changed, [REMOVED], JSON.stringify(broken));
      assert.deepEqual(broken.removed, [{ path: GONE, file: REMOVED, linkedFrom: linksAt.map((link) => link.at) }], JSON.stringify(broken));
      for (const { page: path, at } of linksAt) {
        assert.deepEqual(
          page(broken, path)?.new,
          [{ message: `broken link to ${GONE}: the page is gone (its file was deleted or renamed)`, source: at }],
          JSON.stringify(broken),
        );
      }
      assert.equal(page(broken, GONE), undefined, "the removed page itself is not loaded");
      console.log(`page removed: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      writeFileSync(join(copy.root, REMOVED), text);
    }
    const back = await changes();
    assert.equal(back.removed, undefined, JSON.stringify(back));
    for (const { page: path } of linksAt) {
      assert.equal(page(back, path)?.resolved?.length, 1, JSON.stringify(back));
      assert.equal(page(back, path)?.new, undefined, JSON.stringify(back));
    }
  });

  test("the config changed: the server restarts with it and pages are checked; a config that throws: said, then resolved", async () => {
    const CONFIG = "astro.config.mjs";
    try {
      edit(CONFIG, (text) => text.replace('site: "https://vigie.dev",', 'site: "https://vigie.dev",\n  compressHTML: false,'));
      const restarted = await changes();
      assert.deepEqual(restarted.changed, [CONFIG], JSON.stringify(restarted));
      assert.equal(restarted.applied, "restarted", JSON.stringify(restarted));
      assert.ok((restarted.reached ?? 0) >= 40, JSON.stringify(restarted));
      assert.equal(restarted.pages, undefined, JSON.stringify(restarted));
      edit(CONFIG, (text) =>
        text.replace("export default defineConfig(", 'throw new Error("config broken on purpose");\nexport default defineConfig('),
      );
      const broken = await changes();
      assert.match(
        broken.applied ?? "",
        /^error: the dev server did not restart with the changed config \(it runs with the previous one\): .*config broken on purpose.*\(astro\.config\.mjs\)$/,
        JSON.stringify(broken),
      );
      console.log(`config: restarted in ${restarted.ms} ms; broken said in ${broken.ms} ms`);
    } finally {
      undo(CONFIG);
    }
    const fixed = await changes();
    assert.equal(fixed.applied, "restarted", JSON.stringify(fixed));
  });

  test("a page added: its route is checked; a render that fails after the 200 went out is the page's fault at its line", async () => {
    const PAGE = "src/pages/nouvelle.astro";
    const page = (props: string) =>
      `---\nimport BaseLayout from "../layouts/BaseLayout.astro";\n---\n<BaseLayout title="Nouvelle" description="Une page nouvelle" lang="fr"${props}><h1>Nouvelle</h1></BaseLayout>\n`;
    const layoutLine =
      readFileSync(join(copy.root, LAYOUT), "utf8")
        .split("\n")
        .findIndex((line) => line.includes("alternates[other]")) + 1;
    try {
      // No alternates: the layout throws as it renders, after Astro streamed the page's first bytes with a 200.
      writeFileSync(join(copy.root, PAGE), page(""));
      const broken = await changes();
      assert.deepEqual(broken.changed, [PAGE], JSON.stringify(broken));
      assert.deepEqual(
        broken.pages?.map((entry) => entry.path),
        ["/nouvelle/"],
        JSON.stringify(broken),
      );
      const fault = JSON.stringify(broken.pages?.[0]?.new);
      assert.match(fault, /render failed after it answered 200.*Cannot read properties of undefined/, JSON.stringify(broken));
      assert.match(fault, new RegExp(`"source":"${LAYOUT}:${layoutLine}"`), JSON.stringify(broken));
      console.log(`page added: ${bytes(broken)} bytes, ${broken.ms} ms`);
      writeFileSync(join(copy.root, PAGE), page(' alternates={{ fr: "/nouvelle/" }}'));
      const fixed = await changes();
      assert.match(JSON.stringify(fixed.pages?.[0]?.resolved), /render failed/, JSON.stringify(fixed));
    } finally {
      rmSync(join(copy.root, PAGE), { force: true });
      await changes();
    }
  });

  test("a file no page imports (read with fs, say): the answer says so, and pages of every template are checked instead", async () => {
    const DATA = "src/data/reading-list.json";
    mkdirSync(join(copy.root, "src", "data"), { recursive: true });
    writeFileSync(join(copy.root, DATA), '{ "books": [] }\n');
    try {
      const answer = await changes();
      assert.deepEqual(answer.changed, [DATA], JSON.stringify(answer));
      assert.deepEqual(answer.unused, [DATA], JSON.stringify(answer));
      assert.match(String(answer.note), /module graph cannot see a file read with fs.*checked instead/, JSON.stringify(answer));
      const checked = [...(answer.clean ?? []), ...(answer.pages ?? []).map((entry) => entry.path)];
      assert.ok(checked.length >= 3 && checked.some((path) => /\/articles\/.+/.test(path)), JSON.stringify(answer));
    } finally {
      rmSync(join(copy.root, "src", "data"), { recursive: true, force: true });
      await changes();
    }
  });

  test("the layout reaches every page: CHANGED_PAGE_LIMIT checked, the rest named, then resolved on the pages asked", async () => {
    let checked = "";
    let pending = "";
    try {
      edit(LAYOUT, (text) =>
        text.replace("  </body>", '    <script>\n      console.error("layout failed on purpose");\n    </script>\n  </body>'),
      );
      const broken = await changes();
      assert.deepEqual(broken.changed, [LAYOUT]);
      assert.ok((broken.reached ?? 0) >= 40, JSON.stringify(broken));
      assert.equal(broken.pages?.length, CHANGED_PAGE_LIMIT, JSON.stringify(broken));
      for (const entry of broken.pages ?? [])
        assert.match(JSON.stringify(entry.new), /layout failed on purpose.*src\/layouts\/BaseLayout\.astro:\d+/);
      assert.ok((broken.pending?.length ?? 0) > 0 && (broken.more as Record<string, number>)?.pending, JSON.stringify(broken));
      console.log(`layout: ${bytes(broken)} bytes, ${broken.ms} ms`);
      checked = broken.pages?.[0]?.path ?? "";
      pending = broken.pending?.[0] ?? "";
    } finally {
      undo(LAYOUT);
    }
    // One page checked with the fault, one left pending (its baseline is still clean): asked by name.
    const fixed = await changes({ pages: [checked, pending] });
    assert.deepEqual(
      fixed.pages?.map((entry) => entry.path),
      [checked],
      JSON.stringify(fixed),
    );
    assert.match(JSON.stringify(fixed.pages?.[0]?.resolved), /layout failed on purpose/);
    assert.deepEqual(fixed.clean, [pending], JSON.stringify(fixed));
    // A new baseline forgets what is pending.
    const reset = await changes({ reset: true });
    assert.ok(reset.baseline, JSON.stringify(reset));
  });

  test("the stylesheet reaches the pages that load it: the missing image, then resolved", async () => {
    try {
      edit(STYLESHEET, (text) => `${text}\nbody { background-image: url("/missing-on-purpose.png"); }\n`);
      const broken = await changes({ limit: 2 });
      assert.deepEqual(broken.changed, [STYLESHEET]);
      assert.ok((broken.reached ?? 0) >= 40, JSON.stringify(broken));
      for (const entry of broken.pages ?? []) assert.match(JSON.stringify(entry.new), /404 .*missing-on-purpose\.png/);
      console.log(`stylesheet: ${bytes(broken)} bytes, ${broken.ms} ms`);
    } finally {
      undo(STYLESHEET);
    }
    const fixed = await changes({ limit: 2 });
    assert.ok(
      (fixed.pages ?? []).every((entry) => /missing-on-purpose/.test(JSON.stringify(entry.resolved))),
      JSON.stringify(fixed),
    );
  });

  test("validate --changed on the dev server: the pages the graph says a change reaches, their faults and links at file:line, no build", async () => {
    try {
      edit(ARTICLE, (text) => `${text}\n\nSee [the missing page](/en/articles/no-such-article/).\n`);
      edit(COMPONENT, (text) =>
        text.replace("</ul>\n", '</ul>\n  <script>\n    throw new Error("tag cloud failed on purpose");\n  </script>\n'),
      );
      const { report, notes } = await validateChanged();
      assert.match(notes.join("\n"), /pages: the 3 pages the change reaches \(the dev server's module graph\), on the dev server/);
      assert.equal(report.verdict, "FAIL", JSON.stringify(report.steps));
      assert.equal(stepOf(report, "build")?.status, "skipped");
      assert.match(stepOf(report, "build")?.summary ?? "", /not run: --changed checks/);
      assert.equal(stepOf(report, "perf")?.status, "skipped");
      assert.deepEqual(report.pages.map((page) => page.path).sort(), [ARTICLE_PAGE, "/en/tags/", "/tags/"]);
      const where = report.findings.map((finding) => `${finding.rule} ${finding.page} ${finding.file}`).sort();
      assert.equal(where.length, 3, JSON.stringify(report.findings));
      assert.match(where[0] ?? "", new RegExp(`^broken-link ${ARTICLE_PAGE} ${ARTICLE}:\\d+$`));
      assert.match(where[1] ?? "", /^page-error \/en\/tags\/ src\/views\/TagsView\.astro:\d+$/);
      assert.match(where[2] ?? "", /^page-error \/tags\/ src\/views\/TagsView\.astro:\d+$/);
      console.log(`validate --changed on the dev server: ${report.durationS} s`);
    } finally {
      undo(ARTICLE);
      undo(COMPONENT);
    }
    const { report } = await validateChanged();
    assert.equal(report.verdict, "PASS", JSON.stringify(report.findings));
  });

  test("validate --changed on the dev server: a layout reaches every page, a few are loaded, the rest named", async () => {
    try {
      edit(LAYOUT, (text) => text.replace('<main id="content"', '<main data-edit="1" id="content"'));
      const { report } = await validateChanged();
      assert.equal(report.verdict, "PASS", JSON.stringify(report.findings));
      assert.equal(report.pages.length, CHANGED_PAGE_LIMIT);
      // Spread over the routes: the home, an article, a tag page are among them.
      for (const kind of [/^\/$|^\/en\/$/, /\/articles\/[^/]+\/$/, /\/tags\/[^/]+\/$/])
        assert.ok(
          report.pages.some((page) => kind.test(page.path)),
          JSON.stringify(report.pages),
        );
      assert.match(stepOf(report, "crawl")?.summary ?? "", /8 of the \d+ pages the change reaches .*; \d+ more not loaded/);
    } finally {
      undo(LAYOUT);
    }
  });

  test("validate --changed goes back to the build when the graph cannot vouch for a change, and says why", async () => {
    const served = join(copy.root, "public", "robots-extra.txt");
    writeFileSync(served, "User-agent: *\n");
    try {
      const { plan, scope } = await changeScope(copy);
      assert.equal(scope.dev, undefined);
      assert.match(plan.notes.join("\n"), /pages: the build's \(public\/robots-extra\.txt is served as it is/);
    } finally {
      execFileSync("rm", ["-f", served]);
    }
    // A module no page uses (nor one the graph knows): the build says what it does.
    const unused = join(copy.root, "src", "components", "NotUsedYet.astro");
    writeFileSync(unused, "<p>not used yet</p>\n");
    try {
      const { plan, scope } = await changeScope(copy);
      assert.equal(scope.dev, undefined);
      assert.match(
        plan.notes.join("\n"),
        /pages: the build's \(src\/components\/NotUsedYet\.astro is not in the dev server's module graph/,
      );
    } finally {
      execFileSync("rm", ["-f", unused]);
    }
    const { scope } = await changeScope(copy, "HEAD", { build: true });
    assert.equal(scope.dev, undefined);
  });
});
