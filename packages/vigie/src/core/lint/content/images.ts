// Local files a page refers to that do not exist: Markdown images, imports (images,
// components), <img src>, and image paths in frontmatter. Each one breaks the build
// (an unresolved import) or shows a broken image.
import { existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { type MdxNode, type ParsedMdx, pointOf, walk } from "../../astro/mdx.ts";
import { isFile } from "../../files.ts";
import type { Project } from "../../project.ts";
import type { LintProblem } from "../problem.ts";
import type { EsmInfo } from "./expressions.ts";

const IMAGE = /\.(png|jpe?g|gif|webp|avif|svg|bmp|ico|tiff?)$/i;
const SCRIPT_EXTENSIONS = [
  "",
  ".ts",
  ".tsx",
  ".js",
  ".jsx",
  ".mjs",
  ".mts",
  ".astro",
  ".md",
  ".mdx",
  ".json",
  "/index.ts",
  "/index.js",
  "/index.astro",
];

function isRemote(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//") || url.startsWith("#");
}

/** The file a URL in a page's source points at, or undefined when it is not a local path we can check. */
function localTarget(project: Project, from: string, url: string, kind: "markdown" | "import" | "html"): string[] | undefined {
  if (!url || isRemote(url)) return undefined;
  let path = url.split(/[?#]/)[0] ?? "";
  try {
    path = decodeURI(path);
  } catch {
    // keep it as written
  }
  if (path.startsWith("/")) {
    // In HTML and Markdown a root path is served from public/; Vite resolves an import from the root.
    return kind === "import" ? [join(project.root, path), join(project.root, "public", path)] : [join(project.root, "public", path)];
  }
  if (path.startsWith("./") || path.startsWith("../") || kind !== "import") {
    const base = join(dirname(from), path);
    return kind === "html" ? [base, join(project.root, "public", path)] : [base];
  }
  // A bare specifier (a package or an alias): not checked here.
  return undefined;
}

function exists(candidates: string[], tryExtensions: boolean): boolean {
  return candidates.some((candidate) =>
    tryExtensions ? SCRIPT_EXTENSIONS.some((extension) => isFile(candidate + extension)) : isFile(candidate),
  );
}

function problem(
  project: Project,
  file: string,
  source: string,
  offset: number,
  url: string,
  what: string,
  rule: "image" | "import",
  tried: string[],
): LintProblem {
  const { line, column } = pointOf(source, offset);
  const where = relative(project.root, tried[0] ?? url) || url;
  return {
    file,
    line,
    column,
    rule,
    message: `${what} "${url}" does not exist (${where})`,
    hint:
      rule === "import"
        ? "Fix the path or add the file: the build stops on an unresolved import."
        : "Fix the path, or add the image there.",
  };
}

export function missingFiles(
  project: Project,
  absolutePath: string,
  file: string,
  parsed: ParsedMdx,
  esm: EsmInfo,
  frontmatter?: Record<string, unknown>,
): LintProblem[] {
  const problems: LintProblem[] = [];
  const { source } = parsed;
  for (const entry of esm.imports) {
    const candidates = localTarget(project, absolutePath, entry.source, "import");
    if (!candidates) continue;
    const image = IMAGE.test(entry.source);
    if (!exists(candidates, !image && !/\.\w+$/.test(entry.source))) {
      problems.push(
        problem(
          project,
          file,
          source,
          entry.offset,
          entry.source,
          image ? "Imported image" : "Imported file",
          image ? "image" : "import",
          candidates,
        ),
      );
    }
  }
  const check = (node: MdxNode, url: string | undefined, kind: "markdown" | "html") => {
    if (!url) return;
    const candidates = localTarget(project, absolutePath, url, kind);
    if (!candidates || exists(candidates, false)) return;
    const start = node.position?.start.offset ?? 0;
    const at = source.indexOf(url, start);
    problems.push(problem(project, file, source, at >= 0 ? at : start, url, "Image", "image", candidates));
  };
  if (parsed.tree) {
    walk(parsed.tree, (node) => {
      if (node.type === "image") check(node, node.url, "markdown");
      else if ((node.type === "mdxJsxFlowElement" || node.type === "mdxJsxTextElement") && node.name === "img") {
        const src = node.attributes?.find((attribute) => attribute.name === "src")?.value;
        if (typeof src === "string") check(node, src, "html");
      } else if (node.type === "html" && node.value) {
        for (const match of node.value.matchAll(/<img\b[^>]*?\bsrc\s*=\s*["']([^"']+)["']/gi)) check(node, match[1], "html");
      }
      return true;
    });
  }
  // Frontmatter images (an `image()` field, a cover): relative paths only.
  for (const [key, value] of Object.entries(frontmatter ?? {})) {
    if (typeof value !== "string" || !IMAGE.test(value) || !/^\.\.?\//.test(value)) continue;
    const target = join(dirname(absolutePath), value);
    if (existsSync(target)) continue;
    const at = source.indexOf(value);
    problems.push(problem(project, file, source, Math.max(at, 0), value, `Frontmatter image ${key}:`, "image", [target]));
  }
  return problems;
}
