import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { linksTo, pagesOfFiles } from "../../../src/core/changes/removedPages.ts";
import { projectAt } from "../../../src/core/project.ts";

function projectWith(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), "vigie-removed-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, project: projectAt(root) };
}

const PATHS = ["/", "/about/", "/en/articles/first/", "/articles/premier/", "/tags/astro/"];

test("the pages changed files make: a page file's route, a content entry's pages by slug, and whether the file is gone", () => {
  const { root, project } = projectWith({ "src/content/articles/fr/premier.mdx": "---\ntitle: Premier\n---\n" });
  try {
    const reached = { "src/content/articles/fr/premier.mdx": { content: true, pages: [] } };
    assert.deepEqual(
      pagesOfFiles(
        project,
        [
          "src/pages/about.astro",
          "src/pages/tags/[tag].astro",
          "src/content/articles/en/first.mdx",
          "src/content/articles/fr/premier.mdx",
          "src/components/Nav.astro",
        ],
        reached,
        PATHS,
      ),
      [
        { path: "/about/", file: "src/pages/about.astro", deleted: true },
        { path: "/en/articles/first/", file: "src/content/articles/en/first.mdx", deleted: true },
        { path: "/articles/premier/", file: "src/content/articles/fr/premier.mdx", deleted: false },
      ],
    );
    assert.deepEqual(pagesOfFiles(project, ["src/pages/index.astro"], {}, PATHS), [
      { path: "/", file: "src/pages/index.astro", deleted: true },
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the lines that link to a page: an href and a Markdown link, with or without the slash, with a fragment; not code shown, not a longer path", () => {
  const { root, project } = projectWith({
    "src/components/Nav.astro": '<nav>\n  <a href="/about/">About</a>\n  <a href="/about-us/">Us</a>\n</nav>\n',
    "src/content/articles/en/first.mdx":
      "---\ntitle: First\n---\n\nSee [about](/about) and [the team](/about/#team).\n\n```md\n[about](/about/)\n```\n",
    "src/content/articles/en/about.mdx": "---\ntitle: About\n---\n\n[self](/about/)\n",
    "src/lib/links.ts": 'export const about = "/about/";\nexport const other = "/aboutness/";\n',
  });
  try {
    assert.deepEqual(
      linksTo(project, ["/about/"], ["src/content/articles/en/about.mdx"])
        .map((link) => link.at)
        .sort(),
      ["src/components/Nav.astro:2", "src/content/articles/en/first.mdx:5", "src/content/articles/en/first.mdx:5", "src/lib/links.ts:1"],
    );
    assert.deepEqual(linksTo(project, []), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
