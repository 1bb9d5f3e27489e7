// GET a path on the local dev server, and say what came back in a few hundred bytes:
// status, type, length, title, a text excerpt, the redirect target, and for Astro's dev
// error page the error's name and the message the server logged for it.
import { clip, VigieError } from "../answer.ts";
import type { Project } from "../project.ts";
import { findLoggedError, firstErrorSince, logSize } from "./log.ts";
import { LOOPBACK } from "./ports.ts";
import { getLocal, RequestTimeout } from "./request.ts";
import { readDevPort } from "./status.ts";

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
const EXCERPT_CHARS = 500;
/** How long to wait for the server to log the error behind a 500 it already answered. */
const LOG_WAIT_MS = 500;
const POLL_MS = 25;

export interface HttpGetOptions {
  /** The path, starting with "/" (query allowed). */
  path: string;
  /** Default: the running dev server's port. */
  port?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type HttpGetAnswer = { [key: string]: unknown; status: number };

function refuse(reason: string, hint: string): never {
  throw new VigieError(`invalid argument "path": ${reason}`, hint, { argument: "path" });
}

const PATH_HINT = 'Pass a path on the local server that starts with "/", e.g. "/" or "/en/articles/".';

/** Checks a path for the local server; throws a VigieError saying why it is refused. */
export function checkPath(path: string): void {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) refuse("absolute URLs are refused: only the local dev server is reachable", PATH_HINT);
  if (!path.startsWith("/")) refuse('it must start with "/"', PATH_HINT);
  if (path.startsWith("//")) refuse('"//" would name another host', PATH_HINT);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\u007f]/.test(path)) refuse("control characters (CR, LF, tab...) are refused: they could forge headers", PATH_HINT);
  if (path.includes("\\")) refuse("backslashes are refused", PATH_HINT);
  if (path.length > 2048) refuse("longer than 2048 characters", PATH_HINT);
  const pathname = path.split(/[?#]/)[0] ?? "";
  let depth = 0;
  for (const raw of pathname.split("/").slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      refuse(`bad percent-encoding in "${clip(raw, 40)}"`, PATH_HINT);
    }
    if (segment.includes("/") || segment.includes("\\")) refuse("encoded slashes are refused", PATH_HINT);
    if (segment === "..") depth--;
    else if (segment !== "." && segment !== "") depth++;
    if (depth < 0) refuse('".." would climb above the site root', PATH_HINT);
  }
}

const TEXT_TYPE =
  /^text\/|[/+](?:json|xml|javascript|ecmascript|x-www-form-urlencoded|svg\+xml)\b|^application\/(?:json|xml|javascript|manifest\+json)/i;

function isText(contentType: string | undefined, body: Buffer): boolean {
  if (contentType) return TEXT_TYPE.test(contentType);
  return !body.subarray(0, 1024).includes(0);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function htmlTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  return match ? clip(squash(decodeEntities(match[1] ?? "")), 200) : undefined;
}

/** The text a reader sees in the body, without scripts, styles and tags. */
export function htmlText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return squash(
    decodeEntities(
      body
        .replace(/<(script|style|template|svg|noscript)\b[\s\S]*?<\/\1>/gi, " ")
        .replace(/<!--[\s\S]*?-->/g, " ")
        .replace(/<[^>]+>/g, " "),
    ),
  );
}

/** Astro's dev error page: a 5xx whose whole body is `<title>SomeError</title>` plus the Vite client. */
export function devErrorName(status: number, html: string): string | undefined {
  if (status < 500 || html.length > 4096 || !html.includes("/@vite/client")) return undefined;
  const title = htmlTitle(html);
  return title && /^\w*Error$|^\w+Exception$/.test(title) ? title : undefined;
}

/** The http_get tool. */
export async function httpGet(project: Project, options: HttpGetOptions): Promise<HttpGetAnswer> {
  checkPath(options.path);
  const port = options.port ?? readDevPort(project);
  if (port === undefined) {
    throw new VigieError("no dev server of this project is running", 'Call blog_dev_start first, or pass the "port" of a local server.');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const url = new URL(options.path, `http://${LOOPBACK}:${port}`);
  if (url.hostname !== LOOPBACK || url.port !== String(port)) refuse("it would leave the local server", PATH_HINT);
  const logFrom = logSize(project);
  const started = Date.now();
  let response: Awaited<ReturnType<typeof getLocal>>;
  try {
    response = await getLocal(port, `${url.pathname}${url.search}`, { timeoutMs, signal: options.signal, maxBodyBytes: 2 * 1024 * 1024 });
  } catch (error) {
    if (error instanceof RequestTimeout) {
      throw new VigieError(
        `GET ${options.path}: no answer within ${timeoutMs} ms`,
        'The page may be compiling or stuck: retry with a larger "timeoutMs", or read blog_dev_logs.',
        { port },
      );
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ECONNREFUSED") {
      throw new VigieError(
        `GET ${options.path}: nothing listens on ${LOOPBACK}:${port}`,
        "Call blog_dev_status; blog_dev_start starts the server.",
        { port },
      );
    }
    throw new VigieError(
      `GET ${options.path} failed: ${(error as Error).message}`,
      "Call blog_dev_status, and blog_dev_logs for the server's side.",
      { port },
    );
  }
  const ms = Date.now() - started;
  const contentType = headerText(response.headers["content-type"]);
  const answer: HttpGetAnswer = { status: response.status, contentType, bodyLength: response.bodyLength };
  const location = headerText(response.headers.location);
  if (location) {
    const target = URL.parse(location, url);
    answer.redirectedTo = !target
      ? clip(location, 300)
      : target.origin === url.origin
        ? `${target.pathname}${target.search}${target.hash}`
        : target.href;
  }
  if (isText(contentType, response.body)) {
    const text = response.body.toString("utf8");
    const html = /html/i.test(contentType ?? "") || /^\s*<(?:!doctype html|html)/i.test(text);
    if (html) {
      const title = htmlTitle(text);
      if (title) answer.title = title;
      const errorName = devErrorName(response.status, text);
      if (errorName) {
        answer.errorName = errorName;
        Object.assign(answer, await loggedError(project, errorName, logFrom));
      } else {
        const excerpt = htmlText(text);
        if (excerpt) answer.bodyExcerpt = clip(excerpt, EXCERPT_CHARS);
      }
    } else if (text.trim()) {
      answer.bodyExcerpt = clip(text.trim(), EXCERPT_CHARS);
    }
  }
  if (response.status >= 500 && !answer.errorName) {
    const logged = firstErrorSince(project, logFrom);
    if (logged) answer.serverError = logged;
  }
  answer.ms = ms;
  if (response.status >= 400) answer.hint = hintFor(response.status, answer);
  return answer;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function hintFor(status: number, answer: HttpGetAnswer): string {
  if (answer.errorFile)
    return 'Fix the source at errorFile; the dev server reloads by itself. blog_dev_logs level "error" has the whole trace.';
  if (status === 404) return "No page at this path: check the route and the slug.";
  if (status >= 500) return 'The server failed to render it: blog_dev_logs with level "error" shows why.';
  return `The server answered ${status}.`;
}

/** The message the server logged for the error: written during the request, or soon after, or else the last one logged. */
async function loggedError(project: Project, name: string, from: number): Promise<Record<string, string>> {
  const deadline = Date.now() + LOG_WAIT_MS;
  for (;;) {
    const last = Date.now() >= deadline;
    const found = findLoggedError(project, name, from, last);
    if (found) return found.file ? { errorMessage: found.message, errorFile: found.file } : { errorMessage: found.message };
    if (last) return { errorMessage: "not found in the dev-server log" };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
