// The project's source files, listed and read at most once per check (files change
// between checks, so nothing is kept longer than the object that holds it).
import { readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { walkFiles } from "../files.ts";

const SKIPPED = new Set(["node_modules", ".git", "dist", ".astro", ".opencode", ".fixtures"]);
const MAX_FILES = 20_000;
const MAX_BYTES = 2_000_000;

export interface SourceFile {
  /** Relative to the project root, with forward slashes: "src/content/articles/en/x.mdx". */
  path: string;
  text: string;
  /** Line (1-based) of each character offset: see `lineAt`. */
  lineStarts: number[];
}

/** Offsets where each line starts, for turning an offset into a line. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) starts.push(index + 1);
  return starts;
}

/** The 1-based line of `offset` in `file`. */
export function lineAt(file: SourceFile, offset: number): number {
  let low = 0;
  let high = file.lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((file.lineStarts[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** Lines of Markdown/MDX inside fenced code blocks other than `exceptLang` (code shown to readers, not used). */
export function fencedLines(file: SourceFile, exceptLang?: string): Set<number> {
  const fenced = new Set<number>();
  if (!/\.mdx?$/.test(file.path)) return fenced;
  const lines = file.text.split("\n");
  let open: { marker: string; keep: boolean } | undefined;
  lines.forEach((line, index) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (open) {
      if (fence?.[1]?.startsWith(open.marker) && line.trim() === fence[1]) open = undefined;
      else if (!open.keep) fenced.add(index + 1);
      return;
    }
    if (fence) open = { marker: fence[1] ?? "```", keep: fence[2] === exceptLang };
  });
  return fenced;
}

/** The source files of one project, listed on first use and read once each. */
export class SourceFiles {
  readonly root: string;
  private listed: string[] | undefined;
  private readonly cache = new Map<string, SourceFile | undefined>();

  constructor(root: string) {
    this.root = root;
  }

  /** Relative paths under src/ whose extension is one of `extensions` ("mdx", "astro"...). */
  list(extensions: readonly string[]): string[] {
    if (!this.listed) this.listed = this.walk(join(this.root, "src"));
    const pattern = new RegExp(`\\.(${extensions.join("|")})$`);
    return this.listed.filter((path) => pattern.test(path));
  }

  /** True when the project has a src/ folder with at least one file. */
  hasSources(): boolean {
    this.list([]);
    return (this.listed?.length ?? 0) > 0;
  }

  /** One file's text and line starts; undefined when it cannot be read. */
  read(path: string): SourceFile | undefined {
    if (this.cache.has(path)) return this.cache.get(path);
    let file: SourceFile | undefined;
    try {
      const absolute = join(this.root, path);
      if (statSync(absolute).size <= MAX_BYTES) {
        const text = readFileSync(absolute, "utf8");
        file = { path, text, lineStarts: lineStartsOf(text) };
      }
    } catch {
      file = undefined;
    }
    this.cache.set(path, file);
    return file;
  }

  /** Every readable file among `extensions`. */
  *files(extensions: readonly string[]): Generator<SourceFile> {
    for (const path of this.list(extensions)) {
      const file = this.read(path);
      if (file) yield file;
    }
  }

  private walk(dir: string): string[] {
    const prefix = `${relative(this.root, dir).split(sep).join("/")}/`;
    return walkFiles(dir, { skip: SKIPPED, limit: MAX_FILES }).map((path) => `${prefix}${path}`);
  }
}

/** Source files a page's content can come from. */
export const CONTENT_EXTENSIONS = ["md", "mdx", "markdoc", "astro", "html"] as const;
