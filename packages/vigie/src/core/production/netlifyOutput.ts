// The build @astrojs/netlify writes, served offline as Netlify serves it: the publish folder
// (the config's outDir) with its `_redirects`, the redirects and headers of
// `.netlify/v1/config.json`, and the functions of `.netlify/v1/functions/` (or the older
// `.netlify/functions-internal/`), each loaded in this Node process and called as Netlify
// calls a function (`default(request, context)`, or a Lambda-style `handler(event)`), at the
// paths its `config` names (`preferStatic`: after the static files). In Netlify's order:
// forced redirects, functions, static files, the other redirects, 404.html. What this server
// does not do (edge functions, image resizing, netlify.toml) is listed as notes.
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { readJson, servedFile } from "../files.ts";
import { callFetch, type FetchHandler, logError, moduleLoader, regexOf, requestUrl, sendFile, sendText, webRequest } from "./outputHttp.ts";

export interface NetlifyRedirect {
  from: string;
  to: string;
  status: number;
  force: boolean;
}

export interface NetlifyFunction {
  name: string;
  file: string;
}

/** A function with what its module's `config` says, once loaded. */
interface LoadedFunction extends NetlifyFunction {
  paths: RegExp[];
  excluded: RegExp[];
  preferStatic: boolean;
  call: (request: IncomingMessage, response: ServerResponse, url: URL) => Promise<void>;
}

export interface NetlifyOutput {
  /** The publish folder (absolute). */
  publish: string;
  redirects: NetlifyRedirect[];
  headers: { pattern: RegExp; values: Record<string, string> }[];
  functions: NetlifyFunction[];
  edgeFunctions: number;
  /** The build's pages use Netlify's image CDN (`/.netlify/images`, on by default: only pages with `<Image>` use it). */
  images: boolean;
  netlifyToml: boolean;
}

/** A Netlify path pattern ("/*", "/blog/:slug", "/api/*") as a regular expression with its named parts. */
export function netlifyPattern(path: string): RegExp {
  const source = path
    .split(/(\*|:[A-Za-z_]\w*)/)
    .map((part) =>
      part === "*" ? "(?<splat>.*)" : part.startsWith(":") ? `(?<${part.slice(1)}>[^/]+)` : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return regexOf(`^${source}/?$`) ?? /^$/;
}

/** The rules of a `_redirects` file: "from to [status][!]", comments and conditions left out. */
export function parseRedirects(text: string): NetlifyRedirect[] {
  return text.split("\n").flatMap((line): NetlifyRedirect[] => {
    const [from, to, code] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!from || !to) return [];
    const status = Number.parseInt(code ?? "301", 10);
    return [{ from, to, status: Number.isNaN(status) ? 301 : status, force: code?.endsWith("!") ?? false }];
  });
}

/** The function entry files: `NAME/NAME.mjs` (or index.mjs) and `NAME.mjs`. */
function functionsUnder(dir: string): NetlifyFunction[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): NetlifyFunction[] => {
    const name = entry.name.replace(/\.[cm]?js$/, "");
    if (entry.isFile() && /\.[cm]?js$/.test(entry.name)) return [{ name, file: join(dir, entry.name) }];
    if (!entry.isDirectory()) return [];
    const file = [`${name}.mjs`, `${name}.js`, "index.mjs", "index.js"].map((base) => join(dir, entry.name, base)).find(existsSync);
    return file ? [{ name, file }] : [];
  });
}

/** HTML files looked at, at most, for what the pages use. */
const MAX_PAGES_READ = 500;

/** Whether one of the built pages (the first MAX_PAGES_READ) contains `text`. */
function pagesMention(publish: string, text: string): boolean {
  let pages: string[];
  try {
    pages = (readdirSync(publish, { recursive: true }) as string[]).filter((path) => path.endsWith(".html")).slice(0, MAX_PAGES_READ);
  } catch {
    return false;
  }
  return pages.some((path) => {
    try {
      return readFileSync(join(publish, path), "utf8").includes(text);
    } catch {
      return false;
    }
  });
}

/** The Netlify build of `root` (the project's root) with its publish folder, or undefined when there is no `.netlify/`. */
export function readNetlifyOutput(root: string, publish: string): NetlifyOutput | undefined {
  const dir = join(root, ".netlify");
  if (!existsSync(dir)) return undefined;
  const config = readJson(join(dir, "v1", "config.json")) ?? {};
  let redirectsFile = "";
  try {
    redirectsFile = readFileSync(join(publish, "_redirects"), "utf8");
  } catch {
    // none
  }
  const configured = (Array.isArray(config.redirects) ? config.redirects : []) as Partial<NetlifyRedirect>[];
  const headers = (Array.isArray(config.headers) ? config.headers : []) as { for?: string; values?: Record<string, string> }[];
  const edge = readJson(join(dir, "v1", "edge-functions", "manifest.json")) ?? readJson(join(dir, "edge-functions", "manifest.json"));
  return {
    publish,
    redirects: [
      ...parseRedirects(redirectsFile),
      ...configured.flatMap((r) => (r.from && r.to ? [{ from: r.from, to: r.to, status: r.status ?? 301, force: r.force ?? false }] : [])),
    ],
    headers: headers.flatMap((rule) => (rule.for && rule.values ? [{ pattern: netlifyPattern(rule.for), values: rule.values }] : [])),
    functions: [...functionsUnder(join(dir, "v1", "functions")), ...functionsUnder(join(dir, "functions-internal"))],
    edgeFunctions: Array.isArray(edge?.functions) ? edge.functions.length : 0,
    images: Boolean(config.images) && pagesMention(publish, "/.netlify/images"),
    netlifyToml: existsSync(join(root, "netlify.toml")),
  };
}

/** What the build asks for that this server does not do, one short phrase each. */
export function netlifyNotes(output: NetlifyOutput): string[] {
  return [
    ...(output.edgeFunctions ? [`${output.edgeFunctions} edge function${output.edgeFunctions > 1 ? "s" : ""} not run`] : []),
    ...(output.images ? ["images served unresized (/.netlify/images)"] : []),
    ...(output.redirects.some((r) => /^https?:/.test(r.to)) ? ["redirects to other hosts not proxied"] : []),
    ...(output.netlifyToml ? ["netlify.toml not read"] : []),
  ];
}

/** The context a Netlify function gets (Functions v2), as far as it can be known offline. */
function functionContext(request: IncomingMessage, params: Record<string, string>): Record<string, unknown> {
  return {
    account: { id: "local" },
    cookies: { get: () => undefined, set: () => undefined, delete: () => undefined },
    deploy: { context: "dev", id: "local", published: false },
    geo: {},
    ip: request.socket.remoteAddress ?? "127.0.0.1",
    params,
    requestId: randomUUID(),
    server: { region: "local" },
    site: { id: "local", name: "local", url: `http://${request.headers.host ?? "127.0.0.1"}` },
    json: (value: unknown) => Response.json(value),
    log: (...args: unknown[]) => console.log(...args),
    waitUntil: (promise: Promise<unknown>) => void promise.catch((error: unknown) => logError(error)),
  };
}

/** A Lambda-style handler (`handler(event, context)` → `{ statusCode, headers, body }`) as a web one. */
function lambdaHandler(handler: (event: unknown, context: unknown) => unknown): FetchHandler {
  return async (request) => {
    const url = new URL(request.url);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
    const result = (await handler(
      {
        rawUrl: request.url,
        path: url.pathname,
        httpMethod: request.method,
        headers: Object.fromEntries(request.headers),
        queryStringParameters: Object.fromEntries(url.searchParams),
        body,
        isBase64Encoded: false,
      },
      {},
    )) as { statusCode?: number; headers?: Record<string, string>; body?: string; isBase64Encoded?: boolean } | undefined;
    const payload = result?.body === undefined ? null : result.isBase64Encoded ? Buffer.from(result.body, "base64") : result.body;
    return new Response(payload, { status: result?.statusCode ?? 200, headers: result?.headers ?? {} });
  };
}

/** Loads a function: its config (paths, preferStatic) and a caller. */
async function loadFunction(fn: NetlifyFunction): Promise<LoadedFunction> {
  const load = moduleLoader(fn.file, `the function ${fn.name}`);
  let exports: Record<string, unknown> = {};
  try {
    exports = await load();
  } catch {
    // logged; its requests answer 500
  }
  const config = (exports.config ?? {}) as { path?: string | string[]; excludedPath?: string | string[]; preferStatic?: boolean };
  const paths = [config.path ?? `/.netlify/functions/${fn.name}`].flat().map(netlifyPattern);
  const excluded = [config.excludedPath ?? []].flat().map(netlifyPattern);
  const main =
    typeof exports.default === "function"
      ? (exports.default as FetchHandler)
      : typeof exports.handler === "function"
        ? lambdaHandler(exports.handler as (event: unknown, context: unknown) => unknown)
        : undefined;
  const call = async (request: IncomingMessage, response: ServerResponse, url: URL) => {
    if (!main) {
      await load().catch(() => undefined);
      if (Object.keys(exports).length) logError(new TypeError(`the function ${fn.name} exports no handler (default or handler)`));
      return sendText(response, 500, "");
    }
    const params = paths.map((pattern) => pattern.exec(url.pathname)?.groups).find(Boolean) ?? {};
    await callFetch(response, () => main(webRequest(request, url), functionContext(request, { ...params })));
  };
  return { ...fn, paths, excluded, preferStatic: config.preferStatic === true, call };
}

const matches = (fn: LoadedFunction, pathname: string) =>
  fn.paths.some((pattern) => pattern.test(pathname)) && !fn.excluded.some((pattern) => pattern.test(pathname));

/** `to` with the rule's `:splat` and named parts from the match. */
function target(rule: NetlifyRedirect, pathname: string): string | undefined {
  const match = netlifyPattern(rule.from.split("?")[0] as string).exec(pathname);
  if (!match) return undefined;
  return rule.to.replace(/:([A-Za-z_]\w*)/g, (whole, key: string) => match.groups?.[key] ?? whole);
}

interface NetlifyServer {
  output: NetlifyOutput;
  functions: LoadedFunction[];
}

/** Serves `pathname` from the static files or the functions (after a rewrite), with `status`; false when nothing is there. */
async function serveAt(
  server: NetlifyServer,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  status = 200,
): Promise<boolean> {
  const file = servedFile(server.output.publish, url.pathname);
  if (file) {
    const headers = Object.assign(
      {},
      ...server.output.headers.filter((rule) => rule.pattern.test(url.pathname)).map((rule) => rule.values),
    );
    sendFile(response, file, status, headers);
    return true;
  }
  const fn = server.functions.find((one) => matches(one, url.pathname));
  if (!fn) return false;
  await fn.call(request, response, url);
  return true;
}

/** Applies the first redirect rule that matches (forced ones, or the others); true when it answered. */
async function redirect(
  server: NetlifyServer,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  forced: boolean,
): Promise<boolean> {
  for (const rule of server.output.redirects.filter((r) => r.force === forced)) {
    const to = target(rule, url.pathname);
    if (to === undefined || /^https?:/.test(to)) continue;
    if (rule.status >= 300 && rule.status < 400) {
      sendText(response, rule.status, "", { location: to });
      return true;
    }
    const rewritten = new URL(to, url);
    for (const [name, value] of url.searchParams) if (!rewritten.searchParams.has(name)) rewritten.searchParams.set(name, value);
    if (await serveAt(server, request, response, rewritten, rule.status)) return true;
  }
  return false;
}

/** The request handler of the whole build. */
export async function netlifyServer(output: NetlifyOutput): Promise<(request: IncomingMessage, response: ServerResponse) => Promise<void>> {
  const server: NetlifyServer = { output, functions: await Promise.all(output.functions.map(loadFunction)) };
  const notFound = join(output.publish, "404.html");
  return async (request, response) => {
    const url = requestUrl(request);
    if (url.pathname === "/.netlify/images") {
      const original = url.searchParams.get("url") ?? "";
      if (original.startsWith("/") && (await serveAt(server, request, response, new URL(original, url)))) return;
    }
    if (await redirect(server, request, response, url, true)) return;
    const first = server.functions.find((fn) => !fn.preferStatic && matches(fn, url.pathname));
    if (first) return first.call(request, response, url);
    const file = servedFile(output.publish, url.pathname);
    if (file) return void (await serveAt(server, request, response, url));
    if (await redirect(server, request, response, url, false)) return;
    const last = server.functions.find((fn) => fn.preferStatic && matches(fn, url.pathname));
    if (last) return last.call(request, response, url);
    if (existsSync(notFound)) return sendFile(response, notFound, 404);
    sendText(response, 404, "Not Found");
  };
}
