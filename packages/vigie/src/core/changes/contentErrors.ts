// A content entry the dev server could not load after an edit: Astro's content loaders log it
// ("[ERROR] [glob-loader] Failed to reload en/post.mdx: … data does not match collection
// schema." and the fields that fail on the next lines) and keep serving the entry's last valid
// data, so its pages still answer 200 with the old text. Read from the dev server's log since
// the last look, each error is named at the changed file and, for a field that fails, at the
// frontmatter line of that field.
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { linesSince } from "../devServer/log.ts";
import { readText } from "../files.ts";
import type { Project } from "../project.ts";
import { sleep } from "../wait.ts";

export interface ContentError {
  /** The changed file, with the line of the first field that fails when it is known. */
  source: string;
  /** The changed file alone (what reaches pages). */
  file: string;
  message: string;
  /**
   * The loader read the file while it was being written (an editor truncates it, then writes):
   * a field it says is missing is in the file now. Its next read is the one that counts.
   */
  halfRead?: boolean;
}

/** "HH:MM:SS [ERROR] [glob-loader] Failed to reload <id>: <message>". */
const FAILED = /^(?:\d\d:\d\d:\d\d\s+)?\[ERROR\]\s+\[([\w-]+)\]\s+Failed to (?:re)?load\s+(\S+?):\s*(.*)$/;
/** "HH:MM:SS [glob-loader] Reloaded data from <id>": the entry loaded since, whatever failed before. */
const RELOADED = /^(?:\d\d:\d\d:\d\d\s+)?\[[\w-]+\]\s+Reloaded data from\s+(\S+?)\s*$/;
/** A new entry of the log: a time, or a level in brackets. */
const ENTRY = /^(?:\d\d:\d\d:\d\d\s|\[[A-Z]+\])/;
/** "**tags.0**: lowercase words…", a field that fails and its rule. */
const FIELD = /^\s*\*\*([^*]+)\*\*:\s*(.*)$/;

/** A field's rule that says it is missing: "Required" (zod 3), "expected string, received undefined" (zod 4). */
const MISSING = /^(?:[\w.]+: )?Required$|received undefined/i;

const plain = (text: string) => text.replace(/\*\*/g, "").replace(/\s+/g, " ").trim();

/** How long a look waits for the loader's next read of a file it read half written. */
const HALF_READ_WAIT_MS = 3000;

/**
 * The errors the content loaders logged (from byte `from` of the log on) for the changed files,
 * and where the log then ended. An error from a read of a half-written file is waited past (the
 * loader reads the file again once written, within HALF_READ_WAIT_MS, touched halfway if need
 * be); one that still stands is said as such.
 */
export async function contentErrorsSince(
  project: Project,
  from: number,
  changed: readonly string[],
  signal?: AbortSignal,
): Promise<{ errors: ContentError[]; end: number }> {
  const read = () => {
    const { lines, end } = linesSince(project, from);
    const errors = changed.length ? contentErrors(lines, changed, (file) => readText(join(project.root, file))) : [];
    return { errors, end };
  };
  const by = Date.now() + HALF_READ_WAIT_MS;
  let found = read();
  let touched = false;
  while (found.errors.some((error) => error.halfRead) && Date.now() < by && !signal?.aborted) {
    await sleep(100);
    found = read();
    // The watcher may have told the loader of one write only: the file is touched (its time, not
    // its text) so that it is read again, whole, as a second save would.
    if (!touched && Date.now() > by - HALF_READ_WAIT_MS / 2) {
      touched = true;
      for (const error of found.errors.filter((each) => each.halfRead)) touch(join(project.root, error.file));
    }
  }
  const errors = found.errors.map((error) =>
    error.halfRead
      ? { ...error, message: `${error.message} (the dev server read the file while it was being written: save it again)` }
      : error,
  );
  return { errors, end: found.end };
}

function touch(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // gone since: nothing to read again
  }
}

/** The content errors of these log lines that name one of the changed files (pure: the reader gives the files' text). */
export function contentErrors(
  lines: readonly string[],
  changed: readonly string[],
  read: (file: string) => string | undefined,
): ContentError[] {
  const found = new Map<string, ContentError>();
  const fileOf = (id: string) => changed.find((path) => path === id || path.endsWith(`/${id}`));
  for (let index = 0; index < lines.length; index += 1) {
    // An entry read while its file was half written (an editor truncates, then writes) fails, then loads.
    const reloaded = RELOADED.exec(lines[index] as string);
    const loaded = reloaded ? fileOf(reloaded[1] ?? "") : undefined;
    if (loaded) found.delete(loaded);
    const match = FAILED.exec(lines[index] as string);
    if (!match) continue;
    const [, , id = "", first = ""] = match;
    const file = fileOf(id);
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
    const text = read(file);
    const line = fields[0] ? fieldLine(text, fields[0].name) : undefined;
    const halfRead = fields.some((field) => MISSING.test(field.rule) && fieldLine(text, field.name) !== undefined);
    // The last error of a file stands (an earlier one was fixed, or is the same), unless the entry loaded since.
    found.set(file, { source: line ? `${file}:${line}` : file, file, message: message.slice(0, 400), ...(halfRead ? { halfRead } : {}) });
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
