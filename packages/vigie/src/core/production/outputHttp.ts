// What the offline servers of an adapter's build output share (they run in outputRunner's
// process): a Node request made a web Request and a web Response written back, a static file
// answered with its type, a function module loaded once, and server errors written to the
// log the way Astro writes its own ("[ERROR] Error: message" and the stack), so that the
// cause of a 5xx is read from it as on the adapter's own server.
import { createReadStream, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { contentType } from "../mime.ts";

/** A request handler of the output server: it answers, or says it did not (false) so the next rule is tried. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

/** A web fetch handler, as a function module exports it (Vercel's `{ fetch }`, Netlify's default export). */
export type FetchHandler = (request: Request, context?: unknown) => Response | Promise<Response>;

/** Writes an error to the log as Astro's logger does: the first line "[ERROR] Name: message", then its stack. */
export function logError(error: unknown, what?: string): void {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  const stamp = new Date().toTimeString().slice(0, 8);
  process.stderr.write(`${stamp} [ERROR] ${what ? `${what}: ` : ""}${text}\n`);
}

/** The request's URL on this server, absolute. */
export function requestUrl(request: IncomingMessage): URL {
  return new URL(request.url ?? "/", `http://${request.headers.host ?? "127.0.0.1"}`);
}

/** The Node request as a web Request (its body streamed), at `url`. */
export function webRequest(request: IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const method = request.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream, duplex: "half" } : {}),
  } as RequestInit);
}

/** Writes a web Response to the Node response: status (or `status` instead), headers, the body streamed. */
export async function sendWeb(
  response: ServerResponse,
  answer: Response,
  extra: { status?: number; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string | string[]> = { ...extra.headers };
  answer.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  response.writeHead(extra.status ?? answer.status, headers);
  if (!answer.body || response.req.method === "HEAD") {
    response.end();
    return;
  }
  try {
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) response.write(chunk);
  } catch (error) {
    logError(error, "while streaming the answer");
  }
  response.end();
}

/** Answers with a file of the output: its type, `status`, the headers given (else `no-cache`). */
export function sendFile(response: ServerResponse, path: string, status = 200, headers: Record<string, string> = {}): void {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch (error) {
    logError(error, `reading ${path}`);
    response.writeHead(500, { "content-type": "text/plain" }).end("the file could not be read");
    return;
  }
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  response.writeHead(status, {
    "content-type": contentType(path),
    "content-length": String(size),
    "cache-control": "no-cache",
    ...lower,
  });
  if (response.req.method === "HEAD") {
    response.end();
    return;
  }
  const stream = createReadStream(path);
  stream.on("error", () => response.destroy());
  response.on("close", () => stream.destroy());
  stream.pipe(response);
}

/** A plain answer of the server itself (not of the site): "404 Not Found". */
export function sendText(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers }).end(text);
}

/** A module of the output, imported once; a failure is logged at each use, so that every 5xx it causes has its cause. */
export function moduleLoader(file: string, what: string): () => Promise<Record<string, unknown>> {
  let loading: Promise<Record<string, unknown>> | undefined;
  return () => {
    loading ??= import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
    return loading.catch((error: unknown) => {
      logError(error, `${what} could not be loaded`);
      throw error;
    });
  };
}

/** A regular expression from a pattern the output gives, or undefined when it is not one JavaScript reads. */
export function regexOf(source: string, flags = ""): RegExp | undefined {
  try {
    return new RegExp(source, flags);
  } catch {
    return undefined;
  }
}

/** Calls a web handler and writes its answer; a throw is logged and answered 500 with an empty body, as the platforms do. */
export async function callFetch(
  response: ServerResponse,
  call: () => Response | Promise<Response>,
  extra: { status?: number; headers?: Record<string, string> } = {},
): Promise<void> {
  let answer: Response;
  try {
    answer = await call();
  } catch (error) {
    logError(error);
    if (!response.headersSent) sendText(response, 500, "");
    return;
  }
  if (!(answer instanceof Response)) {
    logError(new TypeError("the function did not return a Response"));
    sendText(response, 500, "");
    return;
  }
  await sendWeb(response, answer, extra);
}
