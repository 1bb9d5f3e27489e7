// The content collections of an Astro project and their files: read from the glob
// loaders of src/content.config.ts, Starlight's docsLoader included (fallback: every
// folder of src/content/).
import { existsSync, globSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Project } from "../../project.ts";

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

/** The text of the object, array or call opened at `open` ("{", "[" or "("), up to its match; strings and templates skipped roughly. */
export function balanced(text: string, open: number): string {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if (char === "(" || char === "{" || char === "[") depth++;
    else if (char === ")" || char === "}" || char === "]") {
      depth--;
      if (depth === 0) return text.slice(open, i + 1);
    }
  }
  return text.slice(open);
}

interface Definition {
  variable: string;
  base?: string;
  patterns: string[];
}

function definitionsOf(text: string): Definition[] {
  const definitions: Definition[] = [];
  for (const match of text.matchAll(/([\w$]+|["'][^"']+["'])\s*[:=]\s*defineCollection\s*\(/g)) {
    const body = balanced(text, (match.index ?? 0) + match[0].length - 1);
    const variable = (match[1] as string).replace(/["']/g, "");
    // Starlight's docsLoader() is a glob loader over src/content/docs.
    if (/\bdocsLoader\s*\(/.test(body)) {
      definitions.push({ variable, base: join("src", "content", "docs"), patterns: ["**/*.md", "**/*.mdx"] });
      continue;
    }
    const loader = /\bglob\s*\(/.exec(body);
    if (!loader) continue;
    const options = balanced(body, loader.index + loader[0].length - 1);
    const base = /\bbase\s*:\s*(["'`])([^"'`]+)\1/.exec(options)?.[2];
    const patternText = /\bpattern\s*:\s*(\[[^\]]*\]|(["'`])[^"'`]+\2)/.exec(options)?.[1] ?? "";
    const patterns = [...patternText.matchAll(/(["'`])([^"'`]+)\1/g)].map((p) => p[2] as string);
    definitions.push({ variable, base, patterns });
  }
  return definitions;
}

/** Collection names by variable, from `export const collections = { blog, docs: docsCollection }`. */
function exportedNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  const at = /\bcollections\s*=\s*\{/.exec(text);
  if (!at) return names;
  const body = balanced(text, at.index + at[0].length - 1).slice(1, -1);
  for (const entry of body.split(",")) {
    const [key, value] = entry.split(":").map((part) => part.trim().replace(/["']/g, ""));
    if (!key) continue;
    if (value && /^[\w$]+$/.test(value)) names.set(value, key);
    else if (!value) names.set(key, key);
  }
  return names;
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
    const text = readFileSync(configPath, "utf8");
    const names = exportedNames(text);
    for (const definition of definitionsOf(text)) {
      const name = names.get(definition.variable) ?? definition.variable;
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
