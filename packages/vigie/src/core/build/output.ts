// Reads Astro's build output (Astro's logger, Vite/rolldown diagnostics, MDX compile
// errors) into errors and warnings. Positions are taken as printed; locate.ts then
// maps them back to the source files. Input is already ANSI stripped.
import { networkCause } from "../browser/page/network.ts";

export interface BuildIssue {
  message: string;
  /** Relative to the project root once located; as printed before. */
  file?: string;
  line?: number;
  column?: number;
  /** Astro error name or bundler code: InvalidContentEntryDataError, UNRESOLVED_IMPORT, MODULE_LEVEL_DIRECTIVE... */
  code?: string;
  /** The page being generated when a render error happened, e.g. /en/articles/x. */
  route?: string;
  /** The file that threw, when it is not `file` (a component used by the page). */
  component?: string;
  hint?: string;
  /** Stack frames printed with the error, for locate.ts. */
  stack?: string[];
  /** Detail lines printed under the message (schema errors list one field a line). */
  details?: string[];
  /** True when line/column come from the file's own source (an MDX parse position), not from compiled code. */
  sourcePosition?: boolean;
  /** What the error was caused by, when printed ("getaddrinfo ENOTFOUND plus.unsplash.com"). */
  cause?: string;
  /** The host a request of the build could not reach, read from the cause. */
  host?: string;
  /** How: "not-found" (the name did not resolve) or "no-connection". */
  reach?: "not-found" | "no-connection";
  /** Set by the build when this machine's network explains the error (it cannot reach `host`): not the site's fault. */
  unreachable?: boolean;
}

export interface ParsedOutput {
  errors: BuildIssue[];
  warnings: BuildIssue[];
}

const TIMESTAMP = /^\d{2}:\d{2}:\d{2} /;
const LEVEL = /^(?:\d{2}:\d{2}:\d{2} )?\[(ERROR|WARN)\] (?:\[([^\]]+)\] ?)?(.*)$/;
/** `[InvalidContentEntryDataError] ...` or `[UNRESOLVED_IMPORT] ...` at the start of a line. */
const NAMED = /^\[([A-Za-z][A-Za-z]*Error|[A-Z][A-Z0-9_]+)\] (.+)$/;
const SECTION = /^(Location|Hint|Stack trace|Error reference|Caused by):\s*$/;
const FRAME = /^\s*╭─\[ ?(.+?):(\d+):(\d+) ?\]/;
const STACK = /^\s+at /;
/** A page file being generated: "▶ src/pages/homes/personal.astro". */
const GENERATING = /^(?:\d{2}:\d{2}:\d{2} )?▶ (\S+)\s*$/;
/**
 * A page whose generation failed, as Astro 5 and 6 print it: the error glued to the output
 * path where its time would have been, "  └─ /homes/personal/index.htmlfetch failed".
 */
const FAILED_PAGE = /^(?:\d{2}:\d{2}:\d{2} )?\s+└─ (\/\S*?\.html)(?!\s*\(\+)(\S.*)$/;

/** The route of an output path: /homes/personal/index.html → /homes/personal, /404.html → /404. */
const routeOf = (html: string) => html.replace(/\/index\.html$/, "").replace(/\.html$/, "") || "/";

interface Block {
  level: "error" | "warn";
  source?: string;
  first: string;
  lines: string[];
  /** Stack lines printed just before the block (Astro prints the full stack of a render error first). */
  before: string[];
}

export function parseBuildOutput(output: string): ParsedOutput {
  const lines = output.split("\n");
  const blocks: Block[] = [];
  let current: Block | undefined;
  let page: string | undefined;
  for (const [index, line] of lines.entries()) {
    const failed = FAILED_PAGE.exec(line);
    if (failed) {
      const where = `Caught error rendering ${routeOf(failed[1] ?? "")}: ${failed[2]}`;
      current = { level: "error", first: where, lines: page ? ["Location:", `  ${page}:0:0`] : [], before: [] };
      blocks.push(current);
      continue;
    }
    page = GENERATING.exec(line)?.[1] ?? page;
    const level = LEVEL.exec(line);
    const named = !level && !current ? NAMED.exec(line) : null;
    if (level || named) {
      current = level
        ? {
            level: level[1] === "ERROR" ? "error" : "warn",
            source: level[2],
            first: level[3] ?? "",
            lines: [],
            before: stackBefore(lines, index),
          }
        : { level: "error", first: line, lines: [], before: stackBefore(lines, index) };
      blocks.push(current);
      continue;
    }
    if (TIMESTAMP.test(line) || /^ generating /.test(line)) {
      current = undefined;
      continue;
    }
    current?.lines.push(line);
  }
  const errors: BuildIssue[] = [];
  const warnings: BuildIssue[] = [];
  for (const block of blocks) {
    const issue = parseBlock(block);
    if (!issue) continue;
    const list = block.level === "error" ? errors : warnings;
    if (!list.some((other) => sameIssue(other, issue))) list.push(issue);
  }
  return { errors, warnings };
}

function stackBefore(lines: string[], index: number): string[] {
  const frames: string[] = [];
  for (let i = index - 1; i >= 0 && STACK.test(lines[i] ?? ""); i--) frames.unshift((lines[i] ?? "").trim());
  return frames;
}

function sameIssue(a: BuildIssue, b: BuildIssue): boolean {
  return a.message === b.message && a.file === b.file && a.line === b.line && a.route === b.route;
}

/** A message without the bundler's decorations. */
const tidy = (message: string) =>
  message
    .replace(/^\(!\) /, "")
    .replace(/ Consider:$/, "")
    .replace(/ \(mdx-jsx:[\w-]+\)$/, "");

function parseBlock(block: Block): BuildIssue | undefined {
  const rest = [...block.lines];
  let message = block.first.trim();
  // "✗ Build failed in 2.96s", "[plugin builtin:vite-reporter]": the real message is on the next line.
  if (!message || /^✗ Build failed/.test(message) || /^\[plugin [^\]]+\]$/.test(message)) {
    const at = rest.findIndex((line) => line.trim() !== "" && !SECTION.test(line.trim()) && !STACK.test(line));
    if (at < 0) return message ? { message } : undefined;
    message = (rest[at] ?? "").trim();
    rest.splice(0, at + 1);
  }
  const issue: BuildIssue = { message };
  const named = NAMED.exec(message);
  if (named) {
    issue.code = named[1];
    issue.message = named[2] ?? message;
  }
  const rendering = /^Caught error rendering (\S+?):? (.*)$/.exec(issue.message);
  if (rendering) {
    issue.route = rendering[1];
    issue.message = rendering[2] ?? issue.message;
  }
  const position = /^(\d+):(\d+): (.*)$/.exec(issue.message);
  if (position) {
    issue.line = Number(position[1]);
    issue.column = Number(position[2]);
    issue.message = position[3] ?? issue.message;
    issue.sourcePosition = true;
  }
  issue.message = tidy(issue.message);

  let section: string | undefined;
  const hint: string[] = [];
  const stack: string[] = [];
  const details: string[] = [];
  for (const raw of rest) {
    const line = raw.trim();
    const header = SECTION.exec(line);
    if (header) {
      section = header[1];
      continue;
    }
    if (!line) continue;
    const frame = FRAME.exec(raw);
    if (frame && issue.file === undefined) {
      issue.file = frame[1];
      issue.line = Number(frame[2]);
      issue.column = Number(frame[3]);
      continue;
    }
    if (section === "Location") {
      const location = /^(.*?):(\d+):(\d+)$/.exec(line);
      if (location) {
        issue.file = location[1];
        // Astro prints 0:0 when it only knows the file.
        if (Number(location[2]) > 0) {
          issue.line = Number(location[2]);
          issue.column = Number(location[3]);
        } else if (!issue.sourcePosition) {
          issue.line = undefined;
          issue.column = undefined;
        }
      }
    } else if (section === "Caused by") {
      if (!STACK.test(raw) && !issue.cause) issue.cause = line;
    } else if (section === "Hint") hint.push(line);
    else if (section === "Stack trace") {
      if (STACK.test(raw)) stack.push(line);
    } else if (section === undefined && /^\s{2}\S/.test(raw) && !/^[│╭╰─]/.test(line) && !/^\d+ │/.test(line)) details.push(line);
  }
  if (hint.length > 0) issue.hint = hint.join(" ");
  if (stack.length > 0 || block.before.length > 0) issue.stack = [...block.before, ...stack];
  if (details.length > 0) {
    issue.details = details;
    if (issue.code?.endsWith("Error")) issue.message = `${issue.message} ${details.join("; ")}`;
  }
  return withNetworkCause(issue);
}

/** A request of the build that never reached its host: which host, and how. */
function withNetworkCause(issue: BuildIssue): BuildIssue {
  const network = networkCause(issue.cause ?? issue.message);
  return network ? { ...issue, host: network.host, reach: network.reach } : issue;
}

/** When a failed build printed nothing we recognise: the most telling of its last lines. */
export function fallbackError(output: string): BuildIssue {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !STACK.test(line));
  const last = lines.slice(-30);
  const telling = last.find((line) => /\berror\b|not supported|failed|cannot|unable|missing/i.test(line));
  return { message: telling ?? last.at(-1) ?? "the build failed without any output" };
}
