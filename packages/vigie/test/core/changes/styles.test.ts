// `--changed` after a change made only to stylesheets: which rules changed, which elements
// they can apply to, and which built pages must be loaded again (a page none of whose
// elements, as last checked or as its new HTML writes them, a changed rule can apply to keeps
// its verdict). Hand-made builds in a temporary folder.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { choosePages, recordPages } from "../../../src/core/changes/record.ts";
import { changedRules, htmlTokens, selectorNeeds, styleChange } from "../../../src/core/changes/styles.ts";
import { projectAt } from "../../../src/core/project.ts";

describe("the rules a stylesheet change touches", () => {
  test("an appended rule, an edited one, a removed one; comments and whitespace are not changes", () => {
    const before = "/* site */\n.a { color: red; }\n.b { margin: 0 }\n@media (width > 40em) { .c { padding: 1rem; } }\n.d{}";
    assert.deepEqual(
      changedRules(before, `${before}\n.e { gap: 0 }`).map((rule) => rule.selector),
      [".e"],
    );
    assert.deepEqual(
      changedRules(before, before.replace("margin: 0", "margin: 1px")).map((rule) => rule.selector),
      [".b", ".b"],
    );
    assert.deepEqual(
      changedRules(before, before.replace(".d{}", "")).map((rule) => rule.selector),
      [".d"],
    );
    assert.deepEqual(changedRules(before, before.replace("/* site */", "/* the site */").replace(".a {", ".a  {")), []);
    assert.deepEqual(
      changedRules(before, before.replace("(width > 40em)", "(width > 50em)")).map((rule) => rule.selector),
      [".c", ".c"],
    );
  });

  test("the classes and ids a selector needs; none for a type, a universal or an attribute selector", () => {
    assert.deepEqual(selectorNeeds(".nav > a.active:hover::after"), [[".nav", ".active"]]);
    assert.deepEqual(selectorNeeds(".card[data-astro-cid-x], #main .note:not(.quiet)"), [[".card"], ["#main", ".note"]]);
    assert.deepEqual(selectorNeeds("li:nth-child(2n of .item) .tag"), [[".tag"]]);
    assert.equal(selectorNeeds("main p"), undefined);
    assert.equal(selectorNeeds(".a, *"), undefined);
    assert.equal(selectorNeeds("[data-theme=dark]"), undefined);
    assert.equal(selectorNeeds(":is(.a, .b)"), undefined);
    assert.equal(selectorNeeds(".a\\:b"), undefined);
  });

  test("what reaches every element: a custom property, a @font-face, a nested rule, a rule with no class or id", () => {
    const change = (before: string, after: string) => styleChange([{ file: "site.css", before, after }]);
    assert.match(change(":root { --ink: #111 }", ":root { --ink: #222 }").everywhere ?? "", /custom property/);
    assert.match(change(".x { --gap: 1px }", ".x { --gap: 2px }").everywhere ?? "", /custom property/);
    assert.match(change("", "@font-face { font-family: A; src: url(a.woff2) }").everywhere ?? "", /@font-face/);
    assert.match(change("", ".a { & .b { color: red } }").everywhere ?? "", /nested rule/);
    assert.match(change("", "p { margin: 0 }").everywhere ?? "", /any page/);
    assert.deepEqual(change(".a { color: red }", ".a { color: red }\n.b .c { color: blue }"), { needs: [[".b", ".c"]], rules: 1 });
  });

  test("the classes and ids an HTML document writes", () => {
    assert.deepEqual(
      [...htmlTokens(`<main id="content" class="container wide"><p class='note'>x</p><span class=tag>y</span></main>`)].sort(),
      ["#content", ".container", ".note", ".tag", ".wide"],
    );
  });
});

describe("the pages a stylesheet change loads again", () => {
  const root = mkdtempSync(join(tmpdir(), "vigie-styles-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const project = projectAt(root);
  writeFileSync(join(root, "package.json"), "{}");
  const dist = join(root, "dist");
  /** A build: two pages linking one hashed stylesheet, the first with a script; `markup` changes the first page. */
  const build = (hash: string, css: string, markup = "") => {
    rmSync(dist, { recursive: true, force: true });
    mkdirSync(join(dist, "_astro"), { recursive: true });
    mkdirSync(join(dist, "notes"), { recursive: true });
    writeFileSync(join(dist, "_astro", `site.${hash}.css`), css);
    writeFileSync(
      join(dist, "_astro", "app.js"),
      "document.body.append(Object.assign(document.createElement('b'), { className: 'made' }));",
    );
    const head = `<link rel="stylesheet" href="/_astro/site.${hash}.css">`;
    writeFileSync(
      join(dist, "index.html"),
      `<html><head>${head}</head><body><div class="card">${markup}</div><script src="/_astro/app.js"></script></body></html>`,
    );
    writeFileSync(
      join(dist, "notes", "index.html"),
      `<html><head>${head}<style>.n{color:red}</style></head><body><p class="note">n</p></body></html>`,
    );
  };
  const paths = ["/", "/notes/"];
  const styles = (before: string, after: string) => ({
    change: styleChange([{ file: "src/site.css", before, after }]),
    files: ["src/site.css"],
  });
  const CSS = ".card { color: #222 }\n.note { color: #333 }";

  test("a rule for an element a script drew on one page: that page only; the other keeps its verdict", () => {
    build("A", CSS);
    // As the crawl saw them: the script's element is in the first page's classes.
    recordPages(project, dist, "/", [
      { path: "/", ok: true, tokens: [".card", ".made"] },
      { path: "/notes/", ok: true, tokens: [".note"] },
    ]);
    const after = `${CSS}\n.made { outline: 1px solid }`;
    build("B", after);
    const selection = choosePages(project, dist, "/", paths, styles(CSS, after));
    assert.deepEqual(selection.paths, ["/"]);
    assert.deepEqual(selection.unaffected, ["/notes/"]);
    assert.match(selection.reason, /1 page changed only by src\/site\.css, with no element its changed rule applies to/);
    // Without what the change was, both pages changed.
    assert.deepEqual(choosePages(project, dist, "/", paths).paths, paths);
    // Recorded as kept, the unaffected page is unchanged for the next run, and still knows its classes.
    recordPages(project, dist, "/", [
      { path: "/", ok: true, tokens: [".card", ".made"] },
      { path: "/notes/", ok: true, kept: true },
    ]);
    const next = choosePages(project, dist, "/", paths, styles(after, `${after}\n.note { margin: 0 }`));
    assert.deepEqual(next.paths, []);
    assert.equal(next.unchanged, 2);
    build("C", `${after}\n.note { margin: 0 }`);
    assert.deepEqual(choosePages(project, dist, "/", paths, styles(after, `${after}\n.note { margin: 0 }`)).paths, ["/notes/"]);
  });

  test("a rule for no element of any page: no page; a custom property or a page's own markup change: loaded", () => {
    build("A", CSS);
    recordPages(project, dist, "/", [
      { path: "/", ok: true, tokens: [".card", ".made"] },
      { path: "/notes/", ok: true, tokens: [".note"] },
    ]);
    build("B", `${CSS}\n.unused { gap: 0 }`);
    assert.deepEqual(choosePages(project, dist, "/", paths, styles(CSS, `${CSS}\n.unused { gap: 0 }`)).paths, []);
    build("B", `${CSS}\n:root { --ink: red }`);
    assert.deepEqual(choosePages(project, dist, "/", paths, styles(CSS, `${CSS}\n:root { --ink: red }`)).paths, paths);
    // The page's markup changed too (not only its stylesheet): loaded whatever the rule.
    build("B", `${CSS}\n.unused { gap: 0 }`, "<em>new</em>");
    assert.deepEqual(choosePages(project, dist, "/", paths, styles(CSS, `${CSS}\n.unused { gap: 0 }`)).paths, ["/"]);
  });

  test("a page that failed, or that was recorded without its classes, is loaded again", () => {
    build("A", CSS);
    recordPages(project, dist, "/", [
      { path: "/", ok: false, tokens: [".card"] },
      { path: "/notes/", ok: true },
    ]);
    build("B", `${CSS}\n.unused { gap: 0 }`);
    assert.deepEqual(choosePages(project, dist, "/", paths, styles(CSS, `${CSS}\n.unused { gap: 0 }`)).paths, paths);
  });
});
