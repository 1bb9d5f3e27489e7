// src/content.config.* read as a syntax tree: the collections, their loaders and names.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readContentConfig } from "../../../../src/core/astro/contentConfig.ts";

describe("readContentConfig", () => {
  test("glob loaders with their base and patterns, named as collections exports them", () => {
    const source = `import { defineCollection, z } from "astro:content";
import { glob, file } from "astro/loaders";
import type { Loader } from "astro/loaders";
const BASE: string = "./src/data/articles";
const articles = defineCollection({
  loader: glob({ pattern: ["**/*.md", "**/*.mdx", "!drafts/**"], base: BASE }),
  schema: z.object({ title: z.string(), tags: z.array(z.string()).default(["a:b", "pattern: 'x'"]) }),
});
const authors = defineCollection({ loader: file("src/data/authors.json") });
export const collections = { blog: articles, authors, notes: defineCollection({ loader: glob({ pattern: \`*.md\` }) }) };
`;
    assert.deepEqual(readContentConfig("src/content.config.ts", source), [
      { name: "blog", base: "./src/data/articles", patterns: ["**/*.md", "**/*.mdx", "!drafts/**"] },
      { name: "notes", patterns: ["*.md"] },
    ]);
  });

  test("Starlight's docsLoader is a glob over src/content/docs", () => {
    const source = `import { docsLoader } from "@astrojs/starlight/loaders";
export const collections = { docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }) };
`;
    assert.deepEqual(readContentConfig("src/content.config.mjs", source), [
      { name: "docs", base: "src/content/docs", patterns: ["**/*.md", "**/*.mdx"] },
    ]);
  });

  test("comments do not define collections; a file that does not parse defines none", () => {
    const commented = `// const old = defineCollection({ loader: glob({ pattern: "**/*.md" }) });
export const collections = {};
`;
    assert.deepEqual(readContentConfig("src/content.config.ts", commented), []);
    assert.deepEqual(readContentConfig("src/content.config.ts", "export const collections = {"), []);
  });
});
