// A content entry the dev server could not load after an edit: Astro's content loaders log it
// ("[ERROR] [glob-loader] Failed to reload en/post.mdx: … data does not match collection
// schema." and the fields that fail on the next lines) and keep serving the entry's last valid
// data, so its pages still answer 200 with the old text. Read from the dev server's log since
// the last look, each error is named at the changed file and, for a field that fails, at the
// frontmatter line of that field.
import { join } from "node:path";
import { linesSince } from "../devServer/log.ts";
import { readText } from "../files.ts";
import type { Project } from "../project.ts";

export interface ContentError {
  /** The changed file, with the line of the first field that fails when it is known. */
  source: string;
  /** The changed file alone (what reaches pages). */
  file: string;
  message: string;
}

/** "HH:MM:SS [ERROR] [glob-loader] Failed to reload <id>: <message>". */
const FAILED = /^(?:\d\d:\d\d:\d\d\s+)?\[ERROR\]\s+\[([\w-]+)\]\s+Failed to (?:re)?load\s+(\S+?):\s*(.*)$/;
/** A new entry of the log: a time, or a level in brackets. */
const ENTRY = /^(?:\d\d:\d\d:\d\d\s|\[[A-Z]+\])/;
/** "**tags.0**: lowercase words…", a field that fails and its rule. */
const FIELD = /^\s*\*\*([^*]+)\*\*:\s*(.*)$/;

const plain = (text: string) => text.replace(/\*\*/g, "").replace(/\s+/g, " ").trim();

/** The errors the content loaders logged (from byte `from` of the log on) for the changed files, and where the log then ended. */
export function contentErrorsSince(project: Project, from: number, changed: readonly string[]): { errors: ContentError[]; end: number } {
  const { lines, end } = linesSince(project, from);
  const errors = changed.length ? contentErrors(lines, changed, (file) => readText(join(project.root, file))) : [];
  return { errors, end };
}

/** The content errors of these log lines that name one of the changed files (pure: the reader gives the files' text). */
export function contentErrors(
  lines: readonly string[],
  changed: readonly string[],
  read: (file: string) => string | undefined,
): ContentError[] {
  const found = new Map<string, ContentError>();
  for (let index = 0; index < lines.length; index += 1) {
    const match = FAILED.exec(lines[index] as string);
    if (!match) continue;
    const [, , id = "", first = ""] = match;
    const file = changed.find((path) => path === id || path.endsWith(`/${id}`));
    if (!file) continue;
    const fields: { name: string; rule: string }[] = [];
    for (let next = index + 1; next < lines.length && !ENTRY.test(lines[next] as string); next += 1) {
      const field = FIELD.exec(lines[next] as string);
      if (field) fields.push({ name: plain(field[1] ?? ""), rule: plain(field[2] ?? "") });
    }
    // "**articles → en/post** data does not match collection schema." : the entry is said by the file.
    const said = plain(first.replace(/^\*\*[^*]*\*\*\s*/, ""));
    const message = fields.length
      ? `${said.replace(/\.$/, "")}: ${fields.map((field) => `${field.name}: ${field.rule}`).join("; ")}`
      : said;
    const line = fields[0] ? fieldLine(read(file), fields[0].name) : undefined;
    // The last error of a file is the one that stands (an earlier one was fixed, or is the same).
    found.set(file, { source: line ? `${file}:${line}` : file, file, message: message.slice(0, 400) });
  }
  return [...found.values()];
}

/** The line (1-based) of a field's top-level key in the file's frontmatter, as "tags.0" names it. */
export function fieldLine(text: string | undefined, field: string): number | undefined {
  if (!text?.startsWith("---")) return undefined;
  const key = field.split(".")[0] ?? "";
  const lines = text.split("\n");
  for (let index = 1; index < lines.length; index += 1) {
    const line = lines[index] as string;
    if (/^---\s*$/.test(line)) return undefined;
    if (line.startsWith(`${key}:`) || line.startsWith(`"${key}":`) || line.startsWith(`'${key}':`)) return index + 1;
  }
  return undefined;
}
