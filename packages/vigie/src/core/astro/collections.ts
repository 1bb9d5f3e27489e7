// The content collections of an Astro project and their files: read from the glob
// loaders of src/content.config.ts (its syntax tree, ./config.ts), Starlight's docsLoader
// included (fallback: every folder of src/content/).
import { existsSync, globSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Project } from "../project.ts";
import { readContentConfig } from "./contentConfig.ts";

export interface Collection {
  name: string;
  /** Absolute folder of its entries. */
  base: string;
  patterns: string[];
  /** Absolute paths of its Markdown/MDX entries, sorted. */
  files: string[];
  /** Where `astro sync` writes its JSON Schema. */
  schemaPath: string;
}

export const CONTENT_CONFIGS = [
  "src/content.config.ts",
  "src/content.config.mts",
  "src/content.config.js",
  "src/content.config.mjs",
  "src/content/config.ts",
];

const MARKDOWN = /\.(md|mdx|markdown)$/i;

export function contentConfigPath(project: Project): string | undefined {
  return CONTENT_CONFIGS.map((name) => join(project.root, name)).find((path) => existsSync(path));
}

function filesOf(base: string, patterns: string[]): string[] {
  if (!existsSync(base)) return [];
  const files = new Set<string>();
  for (const pattern of patterns.length > 0 ? patterns : ["**/*"]) {
    const negated = pattern.startsWith("!");
    for (const path of globSync(negated ? pattern.slice(1) : pattern, { cwd: base })) {
      const absolute = join(base, path);
      if (!MARKDOWN.test(path) || !statSync(absolute).isFile()) continue;
      if (negated) files.delete(absolute);
      else files.add(absolute);
    }
  }
  return [...files].sort();
}

export function findCollections(project: Project): Collection[] {
  const schemaPath = (name: string) => join(project.root, ".astro", "collections", `${name}.schema.json`);
  const configPath = contentConfigPath(project);
  const collections: Collection[] = [];
  if (configPath) {
    for (const { name, ...definition } of readContentConfig(configPath, readFileSync(configPath, "utf8"))) {
      const base = resolve(project.root, definition.base ?? join("src", "content", name));
      collections.push({
        name,
        base,
        patterns: definition.patterns,
        files: filesOf(base, definition.patterns),
        schemaPath: schemaPath(name),
      });
    }
  }
  if (collections.length > 0) return collections;
  // No glob loader found: the legacy layout, one collection per folder of src/content/.
  const contentDir = join(project.root, "src", "content");
  if (!existsSync(contentDir)) return [];
  return readdirSync(contentDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const base = join(contentDir, entry.name);
      return { name: entry.name, base, patterns: ["**/*"], files: filesOf(base, ["**/*"]), schemaPath: schemaPath(entry.name) };
    });
}

/** Markdown and MDX pages under src/pages (linted for expressions, diagrams and images, not frontmatter). */
export function pageFiles(project: Project): string[] {
  const pages = join(project.root, "src", "pages");
  return filesOf(pages, ["**/*.md", "**/*.mdx", "**/*.markdown"]);
}
