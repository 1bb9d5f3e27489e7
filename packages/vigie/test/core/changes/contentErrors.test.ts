import assert from "node:assert/strict";
import { test } from "node:test";
import { contentErrors, fieldLine } from "../../../src/core/changes/contentErrors.ts";

// The dev server's log after an edit, as Astro 7's content layer writes it.
const LOG = `03:22:45 [ERROR] [glob-loader] Failed to reload en/links.mdx: **articles → en/links** data does not match collection schema.

  **tags.0**: lowercase words joined by hyphens, e.g. dev-server
  **date**: Expected date, received string

03:22:54 [200] /en/articles/links/ 1265ms
03:23:18 [ERROR] [glob-loader] Failed to reload fr/liens.mdx: missed comma between flow collection entries
03:23:19 [ERROR] [glob-loader] Failed to reload en/other.mdx: **articles → en/other** data does not match collection schema.`.split("\n");

const FILES: Record<string, string> = {
  "src/content/articles/en/links.mdx": '---\ntitle: "Links"\ndate: nope\ntags: [Links]\n---\n\nText, with tags: here.\n',
  "src/content/articles/fr/liens.mdx": "---\ntitle: Liens\ndate: [2026\n---\n",
};

test("a schema refusal names the changed file at its first failing field's line, with every field's rule", () => {
  const errors = contentErrors(LOG, Object.keys(FILES), (file) => FILES[file]);
  assert.deepEqual(errors, [
    {
      source: "src/content/articles/en/links.mdx:4",
      file: "src/content/articles/en/links.mdx",
      message:
        "data does not match collection schema: tags.0: lowercase words joined by hyphens, e.g. dev-server; date: Expected date, received string",
    },
    // A frontmatter that does not parse: the file, its parser's words, no field to point at.
    {
      source: "src/content/articles/fr/liens.mdx",
      file: "src/content/articles/fr/liens.mdx",
      message: "missed comma between flow collection entries",
    },
  ]);
});

test("an entry that is not among the changed files is not this edit's error", () => {
  assert.deepEqual(
    contentErrors(LOG, ["src/content/articles/en/link.mdx"], () => undefined),
    [],
  );
});

test("a field's line is its top-level key in the frontmatter, never a line of the body", () => {
  const text = FILES["src/content/articles/en/links.mdx"];
  assert.equal(fieldLine(text, "tags.0"), 4);
  assert.equal(fieldLine(text, "date"), 3);
  assert.equal(fieldLine(text, "missing"), undefined);
  assert.equal(fieldLine("no frontmatter\ntags: x\n", "tags"), undefined);
});

test("an entry that failed and then loaded (read while its file was half written) has no error", () => {
  const lines =
    `03:22:45 [ERROR] [glob-loader] Failed to reload en/links.mdx: **articles → en/links** data does not match collection schema.

  **title**: Required

03:22:45 [glob-loader] Reloaded data from en/links.mdx
03:23:18 [ERROR] [glob-loader] Failed to reload fr/liens.mdx: missed comma between flow collection entries`.split("\n");
  assert.deepEqual(
    contentErrors(lines, Object.keys(FILES), (file) => FILES[file]).map((error) => error.file),
    ["src/content/articles/fr/liens.mdx"],
  );
});

test("an error that says a field is missing which the file has was a read of the file half written", () => {
  const lines =
    `03:22:45 [ERROR] [glob-loader] Failed to reload en/links.mdx: **articles → en/links** data does not match collection schema.

  **title**: title: Required
  **date**: Expected type \`"date"\`, received \`"object"\`
`.split("\n");
  const [error] = contentErrors(lines, Object.keys(FILES), (file) => FILES[file]);
  assert.equal(error?.halfRead, true);
  // The same refusal of a file that lacks the field is the edit's error.
  const [real] = contentErrors(lines, Object.keys(FILES), () => "---\ndate: 2026-01-01\n---\n");
  assert.equal(real?.halfRead, undefined);
  assert.equal(real?.source, "src/content/articles/en/links.mdx");
});
