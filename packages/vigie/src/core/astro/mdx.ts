// MDX parsed with satteri, the compiler @astrojs/mdx uses: the same nodes and the
// same syntax errors as the build, with positions in the source file. A syntax
// error stops a parser; we blank the faulty character and parse again, so one
// file's later faults are found in the same run.
import { markdownToMdast, mdxToJs, mdxToMdast } from "satteri";

export interface Point {
  line: number;
  column: number;
  offset: number;
}

export interface MdxAttribute {
  type: string;
  name?: string;
  value?: string | { type: string; value: string } | null;
}

export interface MdxNode {
  type: string;
  value?: string;
  name?: string | null;
  lang?: string | null;
  url?: string;
  attributes?: MdxAttribute[];
  children?: MdxNode[];
  position?: { start: Point; end: Point };
}

export interface MdxSyntaxError {
  line: number;
  column: number;
  /** The character the error is about: the `{` or `<` that opens the faulty construct. */
  offset: number;
  message: string;
}

export interface ParsedMdx {
  source: string;
  tree?: MdxNode;
  /** Syntax errors, in the order found (each one hid the next from the parser). */
  errors: MdxSyntaxError[];
}

const MAX_RETRIES = 20;

/** Offset of a 1-based line and column (UTF-16 columns, as satteri counts). */
export function offsetOf(source: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = source.indexOf("\n", offset);
    if (next < 0) return source.length;
    offset = next + 1;
  }
  return Math.min(source.length, offset + Math.max(0, column - 1));
}

/** 1-based line and column of an offset. */
export function pointOf(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf("\n"); i >= 0 && i < offset; i = source.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** The unescaped `open` character at or before `offset` that starts the faulty construct. */
function opener(source: string, offset: number, open: string): number {
  for (let i = Math.min(offset, source.length - 1); i >= 0; i--) {
    if (source[i] === open && source[i - 1] !== "\\") return i;
    // Do not cross a blank line: the construct starts in the same block.
    if (source[i] === "\n" && source[i - 1] === "\n") break;
  }
  return -1;
}

function locateError(source: string, line: number, column: number, message: string): number {
  const at = offsetOf(source, line, column);
  const char = source[at];
  if (char === "{" || char === "<") return at;
  const tag = /closing tag for `<[^`]*>` \((\d+):(\d+)\)/.exec(message);
  if (tag) return offsetOf(source, Number(tag[1]), Number(tag[2]));
  if (/expression|brace/i.test(message)) return opener(source, at, "{");
  if (/tag|jsx|`<`/i.test(message)) return opener(source, at, "<");
  return -1;
}

function cleanMessage(message: string): string {
  return message
    .replace(/^\d+:\d+: /, "")
    .replace(/ \(mdx[\w:-]*\)$/, "")
    .trim();
}

export function parseMdx(source: string, options: { markdown?: boolean } = {}): ParsedMdx {
  if (options.markdown) return { source, tree: markdownToMdast(source) as unknown as MdxNode, errors: [] };
  const errors: MdxSyntaxError[] = [];
  let text = source;
  for (let attempt = 0; attempt <= MAX_RETRIES; attempt++) {
    try {
      const tree = mdxToMdast(text) as unknown as MdxNode;
      compileError(text, errors);
      return { source, tree, errors };
    } catch (error) {
      const { raw, line, column, positioned } = compilerError(error);
      const offset = positioned ? locateError(text, line, column, raw) : -1;
      const at = offset >= 0 ? pointOf(text, offset) : { line, column };
      errors.push({ ...at, offset: offset >= 0 ? offset : offsetOf(text, line, column), message: cleanMessage(raw) });
      if (offset < 0 || attempt === MAX_RETRIES) break;
      // Same length, so every later position still matches the file.
      text = `${text.slice(0, offset)} ${text.slice(offset + 1)}`;
    }
  }
  return { source, errors };
}

/** satteri's message and the position it starts with ("12:5: ..."), line 1 column 1 when it gives none. */
function compilerError(error: unknown): { raw: string; line: number; column: number; positioned: boolean } {
  const raw = error instanceof Error ? error.message : String(error);
  const position = /^(\d+):(\d+): /.exec(raw);
  return { raw, line: Number(position?.[1] ?? 1), column: Number(position?.[2] ?? 1), positioned: position !== null };
}

/** The tree parsed; compiling finds what only the compiler checks (import and export lines). */
function compileError(text: string, errors: MdxSyntaxError[]): void {
  try {
    mdxToJs(text);
  } catch (error) {
    const { raw, line, column } = compilerError(error);
    if (errors.some((known) => known.line === line)) return;
    errors.push({ line, column, offset: offsetOf(text, line, column), message: cleanMessage(raw) });
  }
}

/** Depth-first walk; `visit` returning false skips the node's children. */
export function walk(node: MdxNode, visit: (node: MdxNode, parent?: MdxNode) => boolean | undefined, parent?: MdxNode): void {
  if (visit(node, parent) === false) return;
  for (const child of node.children ?? []) walk(child, visit, node);
}

/** The frontmatter block (between the leading `---` lines), with the line its content starts on. */
export function frontmatterOf(source: string): { text: string; startLine: number; endLine: number } | undefined {
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return undefined;
  const text = match[1] ?? "";
  return { text, startLine: 2, endLine: 2 + text.split("\n").length };
}
