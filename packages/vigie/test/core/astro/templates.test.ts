// The page file a URL comes from, read from src/pages as Astro routes it: the most specific
// route first, under the site's base, with or without the trailing slash or .html.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { pageTemplates } from "../../../src/core/astro/templates.ts";

const root = mkdtempSync(join(tmpdir(), "vigie-templates-"));
after(() => rmSync(root, { recursive: true, force: true }));
for (const file of [
  "index.astro",
  "about.md",
  "[...blog]/index.astro",
  "blog/[slug].mdx",
  "blog/index.astro",
  "tags/[tag]/[...page].astro",
  "homes/personal.astro",
  "post-[id].astro",
  "_drafts/secret.astro",
  "rss.xml.ts",
  "notes/[...page].astro",
  "notes/[...slug].astro",
]) {
  mkdirSync(dirname(join(root, "src", "pages", file)), { recursive: true });
  writeFileSync(join(root, "src", "pages", file), "---\n---\n");
}

test("each path's page file: static before parameters, parameters before a rest", () => {
  const template = pageTemplates(root);
  const expected: Record<string, string | undefined> = {
    "/": "src/pages/index.astro",
    "/about/": "src/pages/about.md",
    "/homes/personal/": "src/pages/homes/personal.astro",
    "/blog/": "src/pages/blog/index.astro",
    "/blog/first-post/": "src/pages/blog/[slug].mdx",
    "/blog/first-post/index.html": "src/pages/blog/[slug].mdx",
    "/post-7/": "src/pages/post-[id].astro",
    "/tags/astro/": "src/pages/tags/[tag]/[...page].astro",
    "/tags/astro/2/": "src/pages/tags/[tag]/[...page].astro",
    "/get-started-website-with-astro": "src/pages/[...blog]/index.astro",
    "/how-to-customize": "src/pages/[...blog]/index.astro",
  };
  assert.deepEqual(Object.fromEntries(Object.keys(expected).map((path) => [path, template(path)])), expected);
});

test("a path two routes as specific as each other could make names both", () => {
  const both = "src/pages/notes/[...page].astro | src/pages/notes/[...slug].astro";
  assert.equal(pageTemplates(root)("/notes/first/"), both);
  assert.equal(pageTemplates(root)("/notes/"), both);
});

test("under a base; a site without src/pages has no template", () => {
  assert.equal(pageTemplates(root, "/docs/")("/docs/about/"), "src/pages/about.md");
  assert.equal(pageTemplates(root, "/docs/")("/docs/"), "src/pages/index.astro");
  assert.equal(pageTemplates(join(root, "nowhere"))("/about/"), undefined);
});
