// GET a path on the local dev server, and say what came back in a few hundred bytes:
// status, type, length, title, a text excerpt, the redirect target, and for Astro's dev
// error page the error's name and the message the server logged for it.
import { decodeHTML } from "entities";
import { clip, VigieError } from "../answer.ts";
import { StepError } from "../nextStep.ts";
import type { Project } from "../project.ts";
import { waitUntil } from "../wait.ts";
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
  /** Instead of a port: the origin of a server on this machine ("http://localhost:4321"). */
  origin?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What came back, in a few hundred bytes. */
export interface HttpGetResult {
  status: number;
  contentType: string | undefined;
  bodyLength: number;
  /** Where a redirect points: a path on the same server, else the whole URL. */
  redirectedTo?: string;
  title?: string;
  /** Astro's dev error page: the error's name, and the message (and file) the server logged for it. */
  errorName?: string;
  errorMessage?: string;
  errorFile?: string;
  bodyExcerpt?: string;
  /** For another 5xx: the first error the server logged during the request. */
  serverError?: string;
  ms: number;
}

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

function squash(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export function htmlTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  return match ? squash(decodeHTML(match[1] ?? "")) : undefined;
}

/** The text a reader sees in the body, without scripts, styles and tags. */
export function htmlText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return squash(
    decodeHTML(
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

/** The local server asked: the origin given, else the port given on 127.0.0.1, else the dev server's. */
function serverOf(project: Project, options: HttpGetOptions): URL {
  if (options.origin) return new URL(options.origin);
  const port = options.port ?? readDevPort(project);
  if (port === undefined) {
    const hint = 'Start the dev server first, or pass the "port" of a local server.';
    throw new StepError("no dev server of this project is running", "dev-not-running", hint);
  }
  return new URL(`http://${LOOPBACK}:${port}`);
}

/** GETs a path on the local server (the running dev server by default). */
export async function httpGet(project: Project, options: HttpGetOptions): Promise<HttpGetResult> {
  checkPath(options.path);
  const server = serverOf(project, options);
  const https = server.protocol === "https:";
  const port = Number(server.port || (https ? 443 : 80));
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  const url = new URL(options.path, server);
  if (url.origin !== server.origin) refuse("it would leave the local server", PATH_HINT);
  const logFrom = logSize(project);
  const started = Date.now();
  let response: Awaited<ReturnType<typeof getLocal>>;
  try {
    response = await getLocal(port, `${url.pathname}${url.search}`, {
      timeoutMs,
      signal: options.signal,
      maxBodyBytes: 2 * 1024 * 1024,
      host: url.hostname.replace(/^\[|\]$/g, ""),
      https,
    });
  } catch (error) {
    if (error instanceof RequestTimeout) {
      const hint = 'The page may be compiling or stuck: retry with a larger "timeoutMs", or read the dev server\'s log.';
      throw new StepError(`GET ${options.path}: no answer within ${timeoutMs} ms`, "http-timeout", hint, { port });
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ECONNREFUSED") {
      const hint = "Check the dev server's status; start it if it is not running.";
      throw new StepError(`GET ${options.path}: nothing listens on ${LOOPBACK}:${port}`, "http-refused", hint, { port });
    }
    const hint = "Check the dev server's status, and its log for the server's side.";
    throw new StepError(`GET ${options.path} failed: ${(error as Error).message}`, "http-failed", hint, { port });
  }
  const ms = Date.now() - started;
  const contentType = headerText(response.headers["content-type"]);
  const answer: Omit<HttpGetResult, "ms"> & { ms?: number } = { status: response.status, contentType, bodyLength: response.bodyLength };
  const location = headerText(response.headers.location);
  if (location) {
    const target = URL.parse(location, url);
    answer.redirectedTo = !target
      ? location
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
  return { ...answer, ms };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The message the server logged for the error: written during the request, or soon after, or else the last one logged. */
async function loggedError(project: Project, name: string, from: number): Promise<Pick<HttpGetResult, "errorMessage" | "errorFile">> {
  const soon = await waitUntil(() => findLoggedError(project, name, from, false), { timeoutMs: LOG_WAIT_MS, intervalMs: POLL_MS });
  const found = soon ?? findLoggedError(project, name, from, true);
  if (!found) return { errorMessage: "not found in the dev-server log" };
  return found.file ? { errorMessage: found.message, errorFile: found.file } : { errorMessage: found.message };
}
