// The pieces of the content linter on small inputs: frontmatter lines, the JSON
// Schema subset Astro's collection schemas use, slugs and translation pairs.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readFrontmatter } from "../../../src/core/astro/frontmatter.ts";
import { parseMdx } from "../../../src/core/astro/mdx.ts";
import { expressionProblems, readEsm } from "../../../src/core/lint/content/expressions.ts";
import { type Entry, entryId, slugProblems, translationProblems } from "../../../src/core/lint/content/pairs.ts";
import { type JsonSchema, validate } from "../../../src/core/lint/content/schema.ts";

const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 1 },
    date: { type: "string", format: "date-time" },
    tags: { type: "array", minItems: 1, items: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" } },
    lang: { type: "string", enum: ["fr", "en"] },
    draft: { type: "boolean", default: false },
  },
  required: ["title", "date", "tags", "lang"],
};

function entry(file: string, data: Record<string, unknown>): Entry {
  const entryPath = file.replace(/^src\/content\/articles\//, "");
  return { collection: "articles", path: `/blog/${file}`, file, entryPath, data, lineOf: () => 3 };
}

describe("frontmatter against the collection schema", () => {
  const source = "---\ntitle: Hello\ndate: 2026-01-02\ntags: [ok, Not Ok]\nlang: english\n---\n\nText.\n";

  test("each wrong field with its line in the file", () => {
    const frontmatter = readFrontmatter(source);
    assert.ok(frontmatter.data);
    const issues = validate(frontmatter.data, SCHEMA).map((issue) => ({
      path: issue.path.join("."),
      line: frontmatter.lineOf(issue.path),
      message: issue.message,
    }));
    assert.deepEqual(
      issues.map(({ path, line }) => ({ path, line })),
      [
        { path: "tags.1", line: 4 },
        { path: "lang", line: 5 },
      ],
    );
    assert.match(issues[1]?.message ?? "", /expected one of "fr", "en", got "english"/);
  });

  test("a YAML date (a string to YAML 1.2) passes format date-time, as z.coerce.date() takes it", () => {
    assert.deepEqual(validate({ title: "x", date: "2026-01-02", tags: ["a"], lang: "fr" }, SCHEMA), []);
    assert.match(validate({ title: "x", date: "someday", tags: ["a"], lang: "fr" }, SCHEMA)[0]?.message ?? "", /not a date/);
  });

  test("a missing required field is reported on the opening line", () => {
    const frontmatter = readFrontmatter("---\ntitle: Hello\n---\n");
    const missing = validate(frontmatter.data, SCHEMA).filter((issue) => issue.message === "required field is missing");
    assert.deepEqual(
      missing.map((issue) => issue.path[0]),
      ["date", "tags", "lang"],
    );
    assert.equal(frontmatter.lineOf(["date"]), 1);
  });

  test("invalid YAML is an error with its line", () => {
    const frontmatter = readFrontmatter("---\ntitle: Hello\ntags: [a, b\n---\n");
    assert.ok(frontmatter.error);
    assert.ok(frontmatter.error.line >= 3);
  });
});

describe("slugs and translations", () => {
  test("ids as Astro's glob loader makes them, and duplicates", () => {
    assert.equal(entryId(entry("src/content/articles/en/My Post.mdx", {})), "en/my-post");
    assert.equal(entryId(entry("src/content/articles/en/x.mdx", { slug: "custom" })), "custom");
    // github-slugger, as Astro: punctuation dropped, each space a dash, nothing trimmed.
    assert.equal(entryId(entry("src/content/articles/en/Hello, World! (2024).md", {})), "en/hello-world-2024");
    assert.equal(entryId(entry("src/content/articles/fr/Ça va/index.md", {})), "fr/ça-va");
    assert.equal(entryId(entry("src/content/articles/en/🚀 Launch.md", {})), "en/-launch");
    const problems = slugProblems([
      entry("src/content/articles/en/post.mdx", { lang: "en" }),
      entry("src/content/articles/en/Post.md", { lang: "en" }),
      entry("src/content/articles/en/2024/post.mdx", { lang: "en" }),
      entry("src/content/articles/fr/post.mdx", { lang: "fr" }),
    ]);
    assert.deepEqual(
      problems.map((problem) => problem.file),
      ["src/content/articles/en/Post.md", "src/content/articles/en/2024/post.mdx"],
    );
    assert.match(problems[0]?.message ?? "", /duplicate id "en\/post"/);
    assert.match(problems[1]?.message ?? "", /same URL/);
  });

  test("pairs: a missing translation each way, drafts neither required nor counted, a lang in the wrong folder", () => {
    const problems = translationProblems(
      [
        entry("src/content/articles/fr/a.mdx", { lang: "fr", key: "a" }),
        entry("src/content/articles/en/a.mdx", { lang: "en", key: "a" }),
        entry("src/content/articles/fr/b.mdx", { lang: "fr", key: "b" }),
        entry("src/content/articles/en/c.mdx", { lang: "en", key: "c" }),
        entry("src/content/articles/fr/c.mdx", { lang: "fr", key: "c", draft: true }),
        entry("src/content/articles/fr/d.mdx", { lang: "en", key: "d" }),
      ],
      ["fr", "en"],
    );
    const summary = problems.map((problem) => `${problem.file}: ${problem.message.split(":")[0]}`);
    assert.deepEqual(summary, [
      "src/content/articles/fr/b.mdx: no en translation",
      "src/content/articles/en/c.mdx: no fr translation",
      'src/content/articles/fr/d.mdx: lang is "en" but the file is in the fr/ folder',
      "src/content/articles/fr/d.mdx: no fr translation",
    ]);
  });
});

describe("braces in MDX prose", () => {
  const check = (source: string) => {
    const parsed = parseMdx(source);
    return expressionProblems(parsed, "a.mdx", readEsm(parsed.tree, source)).map(
      (problem) => `${problem.line}:${problem.column} ${problem.rule}`,
    );
  };

  test("component props, imports, code, comments and escapes are not prose", () => {
    const source = [
      'import fig from "./fig.png";',
      "export const year = 2026;",
      "",
      '<Figure src={fig} alt="x" />',
      "<Mermaid code={`flowchart TD",
      "  A --> B`} />",
      "",
      "Inline `{code}`, \\{escaped\\}, {'{'}quoted{'}'}, {/* a comment */} and {year} or {frontmatter.title}.",
      "",
      "```ts",
      "const x = { a: 1 };",
      "```",
    ].join("\n");
    assert.deepEqual(check(source), []);
  });

  test("{}, {1,2}, {foo}, an undefined prop, each at its column", () => {
    assert.deepEqual(check("A {} B {1,2} C {foo}.\n\n<Figure src={img} />\n"), [
      "1:3 mdx-expression",
      "1:8 mdx-expression",
      "1:16 mdx-expression",
      "3:9 mdx-expression",
    ]);
  });

  test("one syntax error does not hide the next", () => {
    assert.deepEqual(check("A {foo bar} here.\n\nA lone { there.\n\nAnd {baz}.\n"), [
      "1:3 mdx-syntax",
      "3:8 mdx-syntax",
      "5:5 mdx-expression",
    ]);
  });
});
