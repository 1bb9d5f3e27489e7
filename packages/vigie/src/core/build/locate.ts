// Maps what the build printed back to the source files: a render error names a route
// and a compiled chunk, an unresolved import names a line of the compiled MDX, a
// schema error names only the file. We find the page's .mdx, the `{foo}` that threw,
// the import line, the frontmatter field.
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { readFrontmatter } from "../astro/frontmatter.ts";
import { type MdxNode, parseMdx, pointOf, walk } from "../astro/mdx.ts";
import type { Project } from "../project.ts";
import type { BuildIssue } from "./output.ts";
import { sourceNamed, sourceOfRoute } from "./sources.ts";

type Position = { line: number; column: number };

function read(project: Project, file: string): string | undefined {
  try {
    return readFileSync(join(project.root, file), "utf8");
  } catch {
    return undefined;
  }
}

function normalizeFile(project: Project, file: string): string {
  let path = file.replace(/^file:\/\//, "").replace(/\?.*$/, "");
  if (isAbsolute(path)) path = relative(project.root, path);
  return path;
}

/** Where an MDX page uses an undefined name: the `{foo}` in prose or the prop that reads it. */
function usageIn(source: string, name: string): Position | undefined {
  const word = new RegExp(`(^|[^\\w$.])${name.replace(/[$]/g, "\\$")}(?![\\w$])`);
  const parsed = parseMdx(source);
  let found: Position | undefined;
  if (parsed.tree) {
    walk(parsed.tree, (node: MdxNode) => {
      if (found) return false;
      if ((node.type === "mdxTextExpression" || node.type === "mdxFlowExpression") && word.test(node.value ?? "") && node.position) {
        found = { line: node.position.start.line, column: node.position.start.column };
        return false;
      }
      if ((node.type === "mdxJsxFlowElement" || node.type === "mdxJsxTextElement") && node.position) {
        const text = source.slice(node.position.start.offset, node.position.end.offset);
        const attribute = (node.attributes ?? []).find((a) => typeof a.value === "object" && a.value && word.test(a.value.value));
        if (attribute?.name) {
          const at = text.indexOf(`${attribute.name}=`);
          found = pointOf(source, node.position.start.offset + Math.max(0, at));
          return false;
        }
      }
      return true;
    });
  }
  if (found) return found;
  const match = new RegExp(`\\{[^}\\n]*\\b${name}\\b[^}\\n]*\\}`).exec(source);
  return match ? pointOf(source, match.index) : undefined;
}

/** The `throw` that most likely raised `message` in a component's source. */
function throwIn(source: string, message: string): Position | undefined {
  const lines = source.split("\n");
  const words = new Set(message.toLowerCase().match(/[a-z]{3,}/g) ?? []);
  let best: { index: number; score: number } | undefined;
  for (const [index, line] of lines.entries()) {
    if (!/\bthrow\b/.test(line)) continue;
    const score = (line.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((word) => words.has(word)).length;
    if (!best || score > best.score) best = { index, score };
  }
  if (!best) return undefined;
  const column = (lines[best.index] ?? "").search(/\bthrow\b/) + 1;
  return { line: best.index + 1, column };
}

function locateRenderError(project: Project, issue: BuildIssue): void {
  const frames = issue.stack ?? [];
  const page = issue.route ? sourceOfRoute(project, issue.route) : undefined;
  const componentName = frames.map((frame) => /AstroComponentInstance\.([\w$]+) \[as factory\]/.exec(frame)?.[1]).find(Boolean);
  const chunkName = frames
    .map((frame) => /\/chunks\/([\w.-]+?)_[\w-]{8}\.mjs/.exec(frame)?.[1])
    .find((name) => name && !/^(jsx-runtime|prerender|server|_@astro|astro|render|entry)/.test(name));
  const file = page ?? (chunkName ? sourceNamed(project, chunkName) : undefined);
  if (file) issue.file = file;
  const undefinedName = /(?:ReferenceError: )?([\w$]+) is not defined/.exec(issue.message)?.[1];
  const source = file ? read(project, file) : undefined;
  // A request the page's render made: the line that names its host.
  const host = issue.host && source ? source.indexOf(issue.host) : -1;
  if (host >= 0 && source) {
    Object.assign(issue, pointOf(source, host));
    return;
  }
  if (undefinedName && source) {
    const at = /\.mdx?$/.test(file ?? "") ? usageIn(source, undefinedName) : undefined;
    if (at) {
      issue.line = at.line;
      issue.column = at.column;
      return;
    }
  }
  if (componentName) {
    const component = sourceNamed(project, componentName);
    const componentSource = component ? read(project, component) : undefined;
    if (component && componentSource) {
      const at = throwIn(componentSource, issue.message);
      issue.component = at ? `${component}:${at.line}` : component;
    }
  }
}

export function locateIssue(project: Project, issue: BuildIssue): BuildIssue {
  const located: BuildIssue = { ...issue };
  if (located.file) located.file = normalizeFile(project, located.file);
  const file = located.file;
  if (located.route) {
    locateRenderError(project, located);
    return located;
  }
  if (!file) return located;
  const source = read(project, file);
  const markdown = /\.(mdx?|markdown)$/i.test(file);
  if (source && markdown && !located.sourcePosition) {
    // Positions printed for an .mdx are in its compiled JavaScript.
    located.line = undefined;
    located.column = undefined;
    const specifier = /Could not resolve ['"]([^'"]+)['"]/.exec(located.message)?.[1];
    const at = specifier ? source.indexOf(specifier) : -1;
    if (at >= 0) Object.assign(located, pointOf(source, at));
  }
  if (source && markdown && located.sourcePosition && located.line && located.column && /expression/i.test(located.message)) {
    // The parser points inside the braces; the fix starts at the `{`.
    const lineText = source.split("\n")[located.line - 1] ?? "";
    const brace = lineText.lastIndexOf("{", located.column - 1);
    if (brace >= 0) located.column = brace + 1;
  }
  if (source && located.details && /schema/i.test(located.message)) {
    const field = /^([\w.[\]-]+): /.exec(located.details[0] ?? "")?.[1];
    if (field) {
      const path = field
        .split(/[.[\]]/)
        .filter(Boolean)
        .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
      located.line = readFrontmatter(source).lineOf(path);
      located.column = 1;
    }
  }
  return located;
}

export function locateIssues(project: Project, issues: BuildIssue[]): BuildIssue[] {
  return issues.map((issue) => locateIssue(project, issue));
}
