// .opencode/dev-server.log: reset at each start, appended to by every process of the
// server, kept under a size cap, read back as whole ANSI-free lines.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readText } from "../files.ts";
import { cleanOutput } from "../process/output.ts";
import { type Project, relativePath } from "../project.ts";
import { literalPattern } from "../text.ts";
import { withLock } from "./lock.ts";
import { files, writeAtomic } from "./state.ts";

/** Past this size a read keeps only the log's last KEEP bytes. */
export const LOG_CAP_BYTES = 4 * 1024 * 1024;
const KEEP_BYTES = 1024 * 1024;
/** The lines of a log's tail. */
export const TAIL_LINES = 12;

/**
 * Empties the log and opens it for the server: O_APPEND, so that every process of the
 * group writes at the end, and a read that trims the file never leaves a hole.
 */
export function openFreshLog(project: Project): number {
  rmSync(files.logCursor(project), { force: true });
  return openSync(files.log(project), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND, 0o644);
}

/** Bytes [from, to) of a file; to defaults to its size. */
export function readRange(path: string, from: number, to?: number): { text: string; end: number } {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return { text: "", end: 0 };
  }
  try {
    const end = Math.min(to ?? Number.POSITIVE_INFINITY, fstatSync(fd).size);
    const start = Math.max(0, Math.min(from, end));
    const buffer = Buffer.alloc(end - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return { text: buffer.subarray(0, read).toString("utf8"), end: start + read };
  } finally {
    closeSync(fd);
  }
}

export function logSize(project: Project): number {
  try {
    return statSync(files.log(project)).size;
  } catch {
    return 0;
  }
}

/** The log's whole lines written from byte `from` on (from its start when it was reset since), and where it then ended. */
export function linesSince(project: Project, from: number): { lines: string[]; end: number } {
  const size = logSize(project);
  const read = readRange(files.log(project), from <= size ? from : 0, size);
  return { lines: toLines(read.text), end: read.end };
}

/** Lines of a chunk of log text, ANSI stripped, without the trailing empty line. */
export function toLines(text: string): string[] {
  const lines = cleanOutput(text).split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => line.trimEnd());
}

/**
 * The last `count` non-empty lines of the log, whole: how much of them an answer shows is the
 * answer's business (the dev tools' definitions declare it).
 */
export function logTail(project: Project, count = TAIL_LINES): string[] {
  const size = logSize(project);
  const lines = toLines(readRange(files.log(project), size - 32 * 1024).text).filter((line) => line.trim() !== "");
  return lines.slice(-count);
}

/**
 * Keeps the log under LOG_CAP_BYTES: when over, keeps its last KEEP_BYTES (from a line
 * start) and returns how many bytes were dropped from its head.
 */
function trimLog(project: Project): number {
  const path = files.log(project);
  const size = logSize(project);
  if (size <= LOG_CAP_BYTES) return 0;
  const { text } = readRange(path, size - KEEP_BYTES, size);
  const kept = text.slice(text.indexOf("\n") + 1);
  const dropped = size - Buffer.byteLength(kept);
  // Truncate in place (same inode, the server's O_APPEND descriptors follow the new end).
  writeFileSync(path, `[vigie] log over ${LOG_CAP_BYTES} bytes: its first ${dropped} bytes were dropped\n${kept}`);
  return dropped;
}

// Error lines: Astro's "[ERROR]", "SomethingError:", npm's "ERR!", failures and uncaught exceptions.
const ERROR_LINE = /\[error\]|\w*error\b|\berr!|\bfail(?:ed|ure|s)?\b|\bexception\b|\bunhandled\b|\bpanic\b/i;
const WARN_LINE = /\[warn(?:ing)?\]|\bwarn(?:ing|ings)?\b|\bdeprecat/i;
// What follows an error line and belongs to it: indented stack frames, code frames, "Stack trace:".
const CONTINUATION = /^(?:\s+\S|\s*at\s|\s*\d+\s*\||\s*\^|\s*Stack trace:|\s*Location:|\s*Hint:|\s*\[\.\.\.\])/;

export type LogLevel = "error" | "warn";

// Astro's request lines ("10:34:19 [200] /path 5ms"): errors only when the status is 5xx.
const REQUEST_LINE = /^(?:\S+\s+)?\[(\d{3})\]\s/;

function keepLevel(lines: string[], level: LogLevel): string[] {
  const head = level === "error" ? ERROR_LINE : new RegExp(`${ERROR_LINE.source}|${WARN_LINE.source}`, "i");
  const isHead = (line: string) => {
    const request = REQUEST_LINE.exec(line);
    return request ? Number(request[1]) >= 500 : head.test(line);
  };
  const kept: string[] = [];
  let inBlock = false;
  for (const line of lines) {
    if (isHead(line)) {
      kept.push(line);
      inBlock = true;
    } else if (inBlock && CONTINUATION.test(line)) {
      kept.push(line);
    } else {
      inBlock = false;
    }
  }
  return kept;
}

const LIBRARY_FRAME = /^\s+at .*\/node_modules\//;

/** Keeps the first of consecutive stack frames inside node_modules and counts the others. */
function collapseLibraryFrames(lines: string[]): string[] {
  const kept: string[] = [];
  let hidden = 0;
  for (const line of lines) {
    if (LIBRARY_FRAME.test(line) && LIBRARY_FRAME.test(kept.at(-1) ?? "")) {
      hidden++;
      continue;
    }
    if (hidden > 0) kept.push(`    [${hidden} more frames in node_modules]`);
    hidden = 0;
    kept.push(line);
  }
  if (hidden > 0) kept.push(`    [${hidden} more frames in node_modules]`);
  return kept;
}

export interface LogsOptions {
  /** How many of the last matching lines (default 50, at most 500). */
  lines?: number;
  /** Keep lines containing this text (case-insensitive). */
  filter?: string;
  level?: LogLevel;
  /** "last": only what was written after the previous logs call. */
  since?: "last";
}

export interface LogsAnswer {
  [key: string]: unknown;
  /** The last N lines that matched, whole. */
  lines: string[];
  /** Lines that matched (before the last N were taken). */
  total: number;
  log: string;
  /** There is no log yet (no server was started). */
  missing?: true;
}

/** The logs tool: the last lines of the log, filtered, and where the whole log is. */
export async function readDevLogs(project: Project, options: LogsOptions = {}): Promise<LogsAnswer> {
  const wanted = options.lines ?? 50;
  return withLock(project, "dev-server.logs", { waitMs: 10_000 }, async () => {
    const path = files.log(project);
    const log = relativePath(project, path);
    if (!existsSync(path)) return { lines: [], total: 0, log, missing: true };
    const dropped = trimLog(project);
    const size = logSize(project);
    const cursor = readCursor(project);
    const previousEnd = Math.max(0, cursor - dropped);
    const from = options.since === "last" ? (previousEnd <= size ? previousEnd : 0) : 0;
    const { text } = readRange(path, from, size);
    // Stop at the last complete line; a partial one is read next time.
    const complete = text.slice(0, text.lastIndexOf("\n") + 1);
    writeCursor(project, from + Buffer.byteLength(complete));
    let lines = toLines(complete).filter((line) => line.trim() !== "");
    if (options.level) lines = collapseLibraryFrames(keepLevel(lines, options.level));
    if (options.filter) {
      const needle = options.filter.toLowerCase();
      lines = lines.filter((line) => line.toLowerCase().includes(needle));
    }
    const total = lines.length;
    const answer: LogsAnswer = { lines: lines.slice(-wanted), total, log };
    if (total === 0 && options.since === "last") answer.note = "nothing new since the previous logs call";
    return answer;
  });
}

function readCursor(project: Project): number {
  try {
    const offset = (JSON.parse(readText(files.logCursor(project)) ?? "{}") as { offset?: unknown }).offset;
    return typeof offset === "number" && offset >= 0 ? offset : 0;
  } catch {
    return 0;
  }
}

function writeCursor(project: Project, offset: number): void {
  writeAtomic(files.logCursor(project), `${JSON.stringify({ offset })}\n`);
}

export interface LoggedError {
  message: string;
  /** The source file and position the log names for it, relative to the project. */
  file?: string;
}

const ERROR_PREFIX = /^.*?\[ERROR\]\s*/;

/**
 * The message the server logged for an error named `name` (e.g. MDXError): the line
 * "name: message", else the first "[ERROR]" line, written from byte `from` on; with
 * `anywhere`, the last "name: message" of the log's last 256 KB. The file is the first
 * frame in the project (outside node_modules) near that message: Astro logs the same
 * error twice, once with the framework's stack and once with the source position.
 */
export function findLoggedError(project: Project, name: string, from: number, anywhere: boolean): LoggedError | undefined {
  const size = logSize(project);
  const recent = linesSince(project, from).lines;
  const tail = () => toLines(readRange(files.log(project), size - 256 * 1024, size).text);
  const named = new RegExp(`(?:^|[\\s\\]])${literalPattern(name)}:\\s*(.*)$`);
  const messageIn = (lines: string[]): string | undefined => {
    for (let index = lines.length - 1; index >= 0; index--) {
      const match = named.exec(lines[index] as string);
      if (match) return (match[1] ?? "").trim();
    }
    return undefined;
  };
  let message = messageIn(recent) ?? recent.find((line) => ERROR_PREFIX.test(line))?.replace(ERROR_PREFIX, "");
  if (!message && anywhere) message = messageIn(tail());
  if (!message) return undefined;
  const error: LoggedError = { message: message || name };
  const file = projectFrame(project, recent) ?? frameNear(project, tail(), message);
  if (file) error.file = file;
  return error;
}

/** The first "at /abs/path:line:col" of the project's own files (not node_modules) in these lines. */
function projectFrame(project: Project, lines: readonly string[]): string | undefined {
  for (const line of lines) {
    for (const [, file, row, column] of line.matchAll(/(\/[^\s():]+):(\d+)(?::(\d+))?/g)) {
      if (file?.startsWith(`${project.root}/`) && !file.includes("/node_modules/")) {
        return `${relativePath(project, file)}:${row}${column ? `:${column}` : ""}`;
      }
    }
  }
  return undefined;
}

/** A project frame within 40 lines of the last line that repeats the message. */
function frameNear(project: Project, lines: string[], message: string): string | undefined {
  const needle = message.slice(0, 80);
  for (let index = lines.length - 1; index >= 0; index--) {
    if (!(lines[index] as string).includes(needle)) continue;
    const file =
      projectFrame(project, lines.slice(index, index + 40)) ?? projectFrame(project, lines.slice(Math.max(0, index - 40), index));
    if (file) return file;
  }
  return undefined;
}

/** The first error line written from byte `from` on, without its time and level prefix. */
export function firstErrorSince(project: Project, from: number): string | undefined {
  const line = linesSince(project, from).lines.find((text) => ERROR_PREFIX.test(text));
  return line?.replace(ERROR_PREFIX, "");
}
