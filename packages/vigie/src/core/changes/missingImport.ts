// A file deleted or renamed that pages still import: the dev server answers their requests with
// "Could not import `/src/components/X.astro`" (or Vite's "Failed to resolve import"), which
// names the missing file and not where it is imported. The import lines are found in the
// sources: that is where the fix goes (restore the file, or import it from its new name).
import { existsSync, readdirSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";
import { readText } from "../files.ts";
import type { Project } from "../project.ts";

const SOURCE = /\.(astro|mdx?|[cm]?[jt]sx?|vue|svelte)$/i;
const SKIPPED = new Set(["node_modules", ".git", ".astro", ".opencode", "dist"]);
const MAX_FILES = 5000;

/** The missing module a dev server's error names (relative to the root), when it is one. */
export function missingModule(message: string): { path: string; from?: string } | undefined {
  const text = message.replace(/<\/?code>/g, "`");
  const could = /Could not import [`"']?\/?([^`"'\s]+)[`"']?/.exec(text);
  if (could?.[1]) return { path: could[1].replace(/^\//, "") };
  const failed = /Failed to resolve import [`"']([^`"']+)[`"'] from [`"']([^`"']+)[`"']/.exec(text);
  if (failed?.[1] && failed[2]) return { path: failed[1], from: failed[2] };
  return undefined;
}

/** Where the project's sources import `missing` (a path relative to the root): "file:line", at most `max`. */
export function importersOf(project: Project, missing: string, max = 5): string[] {
  const target = stripExtension(resolve(project.root, missing));
  const found: string[] = [];
  for (const file of sourceFiles(project.root)) {
    const text = readText(file);
    if (!text?.includes(stripExtension(missing.split("/").pop() ?? missing))) continue;
    const lines = text.split("\n");
    lines.forEach((line, index) => {
      for (const [, specifier] of line.matchAll(/(?:from\s+|import\s*\(?\s*)["']([^"']+)["']/g)) {
        if (!specifier || found.length >= max) continue;
        const absolute = specifier.startsWith("/")
          ? join(project.root, specifier)
          : specifier.startsWith(".")
            ? resolve(dirname(file), specifier)
            : undefined;
        if (absolute && stripExtension(absolute) === target)
          found.push(`${relative(project.root, file).split(sep).join("/")}:${index + 1}`);
      }
    });
    if (found.length >= max) break;
  }
  return found;
}

const stripExtension = (path: string) => (extname(path) ? path.slice(0, -extname(path).length) : path);

function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (files.length >= MAX_FILES || !existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (SOURCE.test(entry.name)) files.push(path);
    }
  };
  walk(join(root, "src"));
  return files;
}
