// What `--changed` chooses, on real builds of a copy of the blog under git: the pages whose
// built output changed (an oracle independent of the fingerprints: the HTML files that differ
// between the two builds), the content files to lint, and whether astro check must run.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Answer } from "../../../src/core/answer.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { sharedSession } from "../../../src/core/browser/session/session.ts";
import { choosePages, planChanges, recordPages } from "../../../src/core/changes/index.ts";
import { htmlTokens } from "../../../src/core/changes/styles.ts";
import { type StaticServer, serveStatic } from "../../../src/core/staticServer.ts";
import { changeScope } from "../../../src/core/validate/changeScope.ts";
import { findTool } from "../../../src/tools/registry.ts";
import { runTool } from "../../../src/tools/run.ts";
import { type BlogCopy, copyBlog, runAstro } from "../../support/blog.ts";
import { appendToArticle } from "../../support/faults.ts";

interface CrawlAnswer extends Answer {
  pages: number;
  failing: { path: string }[];
  changed?: { chosen: number; of: number; why: string };
}

const ARTICLE = "src/content/articles/en/orphan-dev-servers.mdx";
const TRANSLATION = "src/content/articles/fr/serveurs-de-dev-orphelins.mdx";
const COMPONENT = "src/components/Terminal.astro";
const STYLESHEET = "src/styles/global.css";

/** URL path → HTML of every page of the build. */
function builtPages(dist: string): Map<string, string> {
  const pages = new Map<string, string>();
  for (const file of readdirSync(dist, { recursive: true }) as string[]) {
    if (!file.endsWith(".html")) continue;
    const path = `/${file.replace(/index\.html$/, "").replace(/\.html$/, "")}`;
    pages.set(path, readFileSync(join(dist, file), "utf8"));
  }
  return pages;
}

const differing = (before: Map<string, string>, now: Map<string, string>) =>
  [...now.keys()].filter((path) => before.get(path) !== now.get(path)).sort();

/** The page's HTML without the links that load its stylesheets. */
const withoutStylesheets = (html = "") => html.replace(/<link\b[^>]*\bstylesheet\b[^>]*>/g, "");

describe("--changed on real builds of the blog", { timeout: 600_000 }, () => {
  let copy: BlogCopy;
  let dist = "";
  let baseline = new Map<string, string>();
  const git = (...args: string[]) => execFileSync("git", args, { cwd: copy.root, encoding: "utf8" });
  const edit = (file: string, change: (text: string) => string) => {
    const path = join(copy.root, file);
    const text = readFileSync(path, "utf8");
    const changed = change(text);
    assert.notEqual(changed, text, `the edit of ${file} changed nothing`);
    writeFileSync(path, changed);
  };
  /** Builds, chooses pages against the record of the baseline, then puts the sources back. */
  const afterEdit = async (file: string, change: (text: string) => string) => {
    try {
      edit(file, change);
      await runAstro(copy.root, ["build"]);
      const now = builtPages(dist);
      const plan = planChanges(readSite(copy));
      const selection = choosePages(copy, dist, "/", [...now.keys()]);
      return { plan, selection, truth: differing(baseline, now), now };
    } finally {
      git("checkout", "--", ".");
    }
  };

  before(async () => {
    copy = copyBlog("changes");
    dist = join(copy.root, "dist");
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\n");
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base");
    await runAstro(copy.root, ["build"]);
    baseline = builtPages(dist);
    recordPages(
      copy,
      dist,
      "/",
      [...baseline.keys()].map((path) => ({ path, ok: true })),
    );
  });

  after(() => copy?.remove());

  test("with nothing changed: no page, no lint, no astro check", () => {
    const plan = planChanges(readSite(copy));
    assert.deepEqual(plan.files, []);
    assert.deepEqual(plan.lintFiles, []);
    assert.equal(plan.check, false);
    const selection = choosePages(copy, dist, "/", [...baseline.keys()]);
    assert.deepEqual(selection.paths, []);
    assert.equal(selection.unchanged, baseline.size);
  });

  test("an article's title: its page and the listings that show it, nothing unrelated; lint the pair; no astro check", async () => {
    const { plan, selection, truth } = await afterEdit(ARTICLE, (text) => text.replace(/^title: "(.*)"$/m, 'title: "$1 (revised)"'));
    assert.deepEqual(plan.lintFiles, [TRANSLATION, ARTICLE].sort());
    assert.equal(plan.check, false, plan.notes.join("\n"));
    for (const path of truth) assert.ok(selection.paths.includes(path), `${path} changed but was not chosen: ${selection.reason}`);
    assert.ok(selection.paths.includes("/en/articles/orphan-dev-servers/"), selection.reason);
    assert.ok(selection.paths.includes("/en/articles/"), selection.reason);
    // The pages that show the title (listings, tags, the neighbours' links) and no other.
    assert.deepEqual(selection.paths, truth, selection.reason);
    const unrelated = [...baseline.keys()].filter((path) => /^\/en\/articles\/./.test(path) && !truth.includes(path));
    assert.ok(unrelated.length >= 5, `only ${unrelated.length} English articles left unchosen: ${selection.reason}`);
  });

  test("astro check syncs first when a change can alter the types .astro/ holds: a lock, tsconfig, an actions file", () => {
    const cases: [string, string][] = [
      ["package-lock.json", "{}\n"],
      ["tsconfig.json", `${readFileSync(join(copy.root, "tsconfig.json"), "utf8")}\n`],
      ["src/actions/index.ts", "export const server = {};\n"],
    ];
    for (const [file, text] of cases) {
      try {
        mkdirSync(dirname(join(copy.root, file)), { recursive: true });
        writeFileSync(join(copy.root, file), text);
        const plan = planChanges(readSite(copy));
        assert.equal(plan.check, true, file);
        assert.equal(plan.sync, true, `${file}: ${plan.notes.join("; ")}`);
      } finally {
        git("checkout", "-q", "--", ".");
        git("clean", "-fdq");
      }
    }
  });

  test("a shared component's markup: every page that renders it, and astro check", async () => {
    const { plan, selection, truth, now } = await afterEdit(COMPONENT, (text) =>
      text.replace(/<(div|figure|pre|section)\b/, '<$1 data-probe="1"'),
    );
    assert.equal(plan.check, true);
    // The build wrote .astro/'s types and no change can alter them: the check reads them as they are.
    assert.equal(plan.sync, false, plan.notes.join("\n"));
    assert.deepEqual(plan.lintFiles, []);
    const rendering = [...now].filter(([, html]) => html.includes('data-probe="1"')).map(([path]) => path);
    assert.ok(rendering.length >= 8, `the component is on ${rendering.length} pages`);
    for (const path of [...rendering, ...truth]) assert.ok(selection.paths.includes(path), `${path} not chosen: ${selection.reason}`);
    assert.ok(selection.paths.length < baseline.size, selection.reason);
    assert.ok(relative(copy.root, dist) === "dist");
  });

  test("a stylesheet rule: the pages with an element it applies to; none for a rule no element has", async () => {
    // The clean tree built again (the tests before left their edit's build), and recorded as the
    // crawl leaves it: each page with the classes and ids of its elements.
    await runAstro(copy.root, ["build"]);
    const clean = builtPages(dist);
    recordPages(
      copy,
      dist,
      "/",
      [...clean].map(([path, html]) => ({ path, ok: true, tokens: [...htmlTokens(html)] })),
    );
    /** Builds after the edit and chooses as `validate --changed` does, then puts the sources back. */
    const choose = async (change: (text: string) => string) => {
      try {
        edit(STYLESHEET, change);
        await runAstro(copy.root, ["build"]);
        const choice = await (await changeScope(copy)).scope.pages?.(readSite(copy));
        const now = builtPages(dist);
        // Pages whose HTML differs beyond its stylesheet links (Shiki may tokenize a line otherwise on a busy machine).
        const beyond = [...now.keys()].filter((path) => withoutStylesheets(clean.get(path)) !== withoutStylesheets(now.get(path)));
        return { choice, truth: differing(clean, now), beyond: beyond.sort() };
      } finally {
        git("checkout", "--", ".");
      }
    };
    const nowhere = await choose((text) => `${text}\n.no-element-has-this { gap: 0; }\n`);
    // Every page loads the stylesheet, whose name (its hash) changed.
    assert.ok(nowhere.truth.length >= 40, `${nowhere.truth.length} pages changed`);
    assert.deepEqual(nowhere.choice?.paths, nowhere.beyond, nowhere.choice?.why);
    // The others keep their verdict (the 404 page is not crawled).
    assert.deepEqual(
      nowhere.choice?.unaffected,
      nowhere.truth.filter((path) => path !== "/404" && !nowhere.beyond.includes(path)),
      nowhere.choice?.why,
    );
    const terminal = await choose((text) => `${text}\n.terminal { outline: 1px solid; }\n`);
    const withTerminal = [...clean].filter(([, html]) => htmlTokens(html).has(".terminal")).map(([path]) => path);
    assert.ok(withTerminal.length >= 2, `.terminal is on ${withTerminal.length} pages`);
    assert.deepEqual(terminal.choice?.paths, [...new Set([...withTerminal, ...terminal.beyond])].sort(), terminal.choice?.why);
    const variable = await choose((text) => `${text}\n:root { --probe: 1px; }\n`);
    assert.deepEqual(
      variable.choice?.paths,
      variable.truth.filter((path) => path !== "/404"),
      variable.choice?.why,
    );
  });
});

describe("blog_browser_crawl with changed: true", { timeout: 900_000 }, () => {
  let copy: BlogCopy;
  let server: StaticServer | undefined;
  /** The crawl's answer, and the pages whose HTML its build changed (Shiki may tokenize a line otherwise on a busy machine). */
  const crawl = async (): Promise<{ answer: CrawlAnswer; truth: string[] }> => {
    const tool = findTool("blog_browser_crawl");
    assert.ok(tool);
    const before = builtPages(join(copy.root, "dist"));
    const answer = (await runTool(tool, { changed: true, port: server?.port }, { project: copy })) as CrawlAnswer;
    return { answer, truth: differing(before, builtPages(join(copy.root, "dist"))) };
  };

  before(async () => {
    copy = copyBlog("crawl-changed");
    writeFileSync(join(copy.root, ".gitignore"), "dist/\nnode_modules/\n.astro/\n.opencode/\n");
    execFileSync("git", ["init", "-q"], { cwd: copy.root });
    await runAstro(copy.root, ["build"]);
    server = await serveStatic(join(copy.root, "dist"));
  });

  after(async () => {
    await sharedSession().close();
    await server?.close();
    copy?.remove();
  });

  test("no record: every page, and says so; then an article's missing image: its pages only, the failing one named", async () => {
    const { answer: first } = await crawl();
    assert.match(first.changed?.why ?? "", /no record of a previous run/, JSON.stringify(first));
    assert.ok(first.pages > 40, JSON.stringify(first));
    assert.equal(first.pages, first.changed?.chosen);
    assert.equal(first.failing.length, 0, JSON.stringify(first));

    const { answer: again, truth: rebuilt } = await crawl();
    assert.equal(again.pages, rebuilt.length, `chosen: ${JSON.stringify(again)}; rebuilt otherwise: ${rebuilt.join(", ")}`);
    if (rebuilt.length === 0) assert.match(again.changed?.why ?? "", /no page's output changed/);

    appendToArticle(copy.root, "en", "mermaid-in-the-browser", "![a picture that is not there](/images/not-there.png)");
    const { answer: broken, truth } = await crawl();
    assert.ok(truth.includes("/en/articles/mermaid-in-the-browser/"));
    assert.equal(broken.pages, truth.length, `${JSON.stringify(broken)}; changed: ${truth.join(", ")}`);
    assert.deepEqual(
      broken.failing.map((page) => page.path),
      ["/en/articles/mermaid-in-the-browser/"],
      JSON.stringify(broken),
    );
    assert.ok(Buffer.byteLength(JSON.stringify(broken)) <= 2048);
  });
});
