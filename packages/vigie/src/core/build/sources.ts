// Finding the source file behind something built: the entry or page that generates
// a route, the file named like a compiled chunk, the file that contains a string.
import { existsSync, globSync, readFileSync } from "node:fs";
import { basename, extname, join, relative } from "node:path";
import { findCollections } from "../astro/collections.ts";
import { pointOf } from "../astro/mdx.ts";
import type { Project } from "../project.ts";

/** The source file that generates a route: a content entry named like its last segment, or a file of src/pages. */
export function sourceOfRoute(project: Project, route: string): string | undefined {
  const segments = route
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      try {
        return decodeURIComponent(segment).replace(/\.html$/, "");
      } catch {
        return segment;
      }
    });
  const last = segments.at(-1);
  if (last) {
    const candidates = findCollections(project)
      .flatMap((collection) => collection.files)
      .filter((path) => basename(path, extname(path)) === last)
      .map((path) => relative(project.root, path));
    if (candidates.length > 0) {
      const score = (file: string) => segments.filter((segment) => file.split("/").includes(segment)).length;
      return candidates.sort((a, b) => score(b) - score(a))[0];
    }
  }
  const stem = join("src", "pages", ...segments);
  for (const candidate of [".astro", ".md", ".mdx", ".ts", "/index.astro", "/index.md", "/index.mdx"].map((suffix) => stem + suffix)) {
    if (existsSync(join(project.root, candidate))) return candidate;
  }
  return undefined;
}

/** A source file named like a compiled chunk or a component: `ArticleView_DE1gSz_n.mjs` → src/views/ArticleView.astro. */
export function sourceNamed(project: Project, name: string): string | undefined {
  const matches = globSync(`src/**/${name}.{astro,mdx,md,ts,tsx,js,jsx}`, { cwd: project.root });
  return matches.sort()[0];
}

/** Searches the project's source files for strings, reading each file once. */
export class SourceSearch {
  private readonly files: { file: string; text: string }[];

  constructor(project: Project) {
    this.files = globSync("src/**/*.{astro,mdx,md,markdown,ts,tsx,js,jsx,mjs,html}", { cwd: project.root })
      .sort()
      .map((file) => ({ file, text: readFileSync(join(project.root, file), "utf8") }));
  }

  /** `file:line` of the first occurrence of one of `needles`, looking in `preferred` first. */
  find(needles: string[], preferred?: string): string | undefined {
    const ordered = preferred
      ? [...this.files.filter((f) => f.file === preferred), ...this.files.filter((f) => f.file !== preferred)]
      : this.files;
    for (const { file, text } of ordered) {
      for (const needle of needles) {
        if (!needle) continue;
        const at = text.indexOf(needle);
        if (at >= 0) return `${file}:${pointOf(text, at).line}`;
      }
    }
    return undefined;
  }
}
