// Why a page or an endpoint answered 5xx: Astro's error name and message, and the source
// file (and line where it can be known), read from what the server logged while answering.
// On a production build the stack points at bundled chunks: the source file is the route's
// (from the build's route list), its line the one that writes the error's message.
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { clip } from "../answer.ts";
import { routeOf, type SiteRoute } from "../astro/rendering.ts";
import { networkCause } from "../browser/page/network.ts";
import { files } from "../devServer/state.ts";
import type { Project } from "../project.ts";
import { sleep } from "../wait.ts";

export interface ServerErrorCause {
  /** The error's name ("Error", "TypeError", "AstroError"). */
  name: string;
  message: string;
  /** The source, `file:line` or the file alone, relative to the root. */
  source?: string;
  /** Where the cause was read. */
  from: "dev error page" | "server log";
  /** The status the server answered with when asked again. */
  status?: number;
  /** When the render failed on a request of its own that never reached its host: that host, and Node's words. */
  network?: { host: string; reach: "not-found" | "no-connection"; cause: string; unreachable?: boolean };
}

const ERROR_LINE = /\[ERROR\]\s*(?:\[[^\]]+\]\s*)?(?:(\w*Error|\w+Exception):\s*)?(.*)$/;
const FRAME = /(?:file:\/\/)?(\/[^\s():]+):(\d+)(?::(\d+))?/;

/** The first frame of the stack in the project's own sources (not node_modules, not the build). */
function projectFrame(project: Project, lines: string[], outDirs: string[]): string | undefined {
  for (const line of lines) {
    const match = FRAME.exec(line);
    const file = match?.[1];
    if (!file?.startsWith(`${project.root}/`) || file.includes("/node_modules/")) continue;
    if (outDirs.some((dir) => file.startsWith(`${dir}/`))) continue;
    return `${file.slice(project.root.length + 1)}:${match?.[2]}`;
  }
  return undefined;
}

/** `file:line` of the first line of `file` that contains the message's text, or the file alone. */
export function lineOfMessage(project: Project, file: string, message: string): string {
  let text: string;
  try {
    text = readFileSync(join(project.root, file), "utf8");
  } catch {
    return file;
  }
  const needle = message.trim().slice(0, 60);
  if (needle.length < 4) return file;
  const index = text.split("\n").findIndex((line) => line.includes(needle));
  return index >= 0 ? `${file}:${index + 1}` : file;
}

/**
 * The first error a server logged in `text` (what it printed while answering `pathname`),
 * with its source: a frame in the project's sources, else the route's file.
 */
export function causeInLog(
  project: Project,
  text: string,
  options: { pathname: string; base: string; routes?: SiteRoute[]; outDirs?: string[] },
): ServerErrorCause | undefined {
  const lines = text.split("\n");
  const at = lines.findIndex((line) => ERROR_LINE.test(line));
  if (at < 0) return undefined;
  const match = ERROR_LINE.exec(lines[at] as string);
  const name = match?.[1] ?? "Error";
  const message = clip((match?.[2] ?? "").trim() || "(no message)", 300);
  const stack = lines.slice(at, at + 40);
  const route = options.routes ? routeOf(options.routes, options.base, options.pathname) : undefined;
  const network = networkCause(stack.join("\n"));
  const source =
    projectFrame(project, stack, options.outDirs ?? []) ??
    (route ? lineOfMessage(project, route.component, network?.host ?? message) : undefined);
  return { name, message, ...(source ? { source } : {}), from: "server log", ...(network ? { network } : {}) };
}

/**
 * Asks `url` again and reads what the server logs meanwhile: the cause of its 5xx, or
 * undefined when it logged none (within about a second) or answers no error now.
 */
export async function askServerError(
  project: Project,
  url: string,
  log: () => string,
  options: { base: string; routes?: SiteRoute[]; outDirs?: string[] },
): Promise<ServerErrorCause | undefined> {
  const from = log().length;
  let status = 0;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(15_000), redirect: "manual" });
    status = response.status;
    await response.body?.cancel();
  } catch {
    return undefined;
  }
  if (status < 500) return undefined;
  const pathname = new URL(url).pathname;
  for (let waited = 0; waited <= 1000; waited += 100) {
    const cause = causeInLog(project, log().slice(from), { pathname, ...options });
    if (cause) return { ...cause, status };
    await sleep(100);
  }
  return undefined;
}

/** The dev server's log as one growing text, read from where it stood when this was made. */
export function devLog(project: Project): () => string {
  const path = files.log(project);
  const size = () => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const start = size();
  return () => {
    const end = size();
    if (end <= start) return "";
    const buffer = Buffer.alloc(Math.min(end - start, 4_000_000));
    const fd = openSync(path, "r");
    try {
      readSync(fd, buffer, 0, buffer.length, end - buffer.length);
    } finally {
      closeSync(fd);
    }
    return buffer.toString("utf8");
  };
}

/** "Error: no bob here (src/pages/greet/[name].astro:3)". */
export function describeCause(cause: ServerErrorCause): string {
  return `${cause.name}: ${cause.message}${cause.source ? ` (${cause.source})` : ""}`;
}
