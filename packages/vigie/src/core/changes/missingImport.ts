// A file deleted or renamed that pages still import: the dev server answers their requests with
// "Could not import `/src/components/X.astro`" (or Vite's "Failed to resolve import"), which
// names the missing file and not where it is imported. The import lines are found in the
// sources: that is where the fix goes (restore the file, or import it from its new name).
import { dirname, extname, join, resolve } from "node:path";
import type { Project } from "../project.ts";
import { SourceFiles } from "../source/files.ts";

const SOURCE_EXTENSIONS = ["astro", "md", "mdx", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "vue", "svelte"];

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
  const name = stripExtension(missing.split("/").pop() ?? missing);
  const found: string[] = [];
  for (const file of new SourceFiles(project.root).files(SOURCE_EXTENSIONS)) {
    if (!file.text.includes(name)) continue;
    file.text.split("\n").forEach((line, index) => {
      for (const [, specifier] of line.matchAll(/(?:from\s+|import\s*\(?\s*)["']([^"']+)["']/g)) {
        if (!specifier || found.length >= max) continue;
        const absolute = specifier.startsWith("/")
          ? join(project.root, specifier)
          : specifier.startsWith(".")
            ? resolve(project.root, dirname(file.path), specifier)
            : undefined;
        if (absolute && stripExtension(absolute) === target) found.push(`${file.path}:${index + 1}`);
      }
    });
    if (found.length >= max) break;
  }
  return found;
}

const stripExtension = (path: string) => (extname(path) ? path.slice(0, -extname(path).length) : path);
