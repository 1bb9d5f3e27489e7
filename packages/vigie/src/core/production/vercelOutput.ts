// Vercel's Build Output API (`.vercel/output/`, v3), served offline as Vercel serves it:
// config.json's routes in order (the routes before `handle: filesystem`, then the static files
// and functions, then the routes after it, the error phase last), with their rewrites ($1 and
// named captures), status codes, headers and redirects; `static/` files; and each function
// (`functions/NAME.func/.vc-config.json`) loaded in this Node process: a web handler (`{ fetch }`,
// `GET`…) or a Node one (`(req, res)`). What this server cannot do (edge middleware, image
// resizing, ISR, crons) is listed as notes, never answered with an error.
import { existsSync, readdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join, relative } from "node:path";
import { readJson, servedFile } from "../files.ts";
import { callFetch, type FetchHandler, logError, moduleLoader, regexOf, requestUrl, sendFile, sendText, webRequest } from "./outputHttp.ts";

interface Condition {
  type: "header" | "cookie" | "query" | "host";
  key?: string;
  value?: string;
}

export interface VercelRoute {
  src?: string;
  dest?: string;
  headers?: Record<string, string>;
  status?: number;
  continue?: boolean;
  /** After its rewrite, a destination that is not a file or a function goes on to the next routes. */
  check?: boolean;
  methods?: string[];
  handle?: string;
  has?: Condition[];
  missing?: Condition[];
  middlewarePath?: string;
  locale?: unknown;
}

export interface VercelFunction {
  /** "_render", "api/hello": the path it is served at, without its leading slash. */
  name: string;
  dir: string;
  runtime?: string;
  /** The module to load, relative to `dir` (`handler` for Node, `entrypoint` for edge). */
  handler?: string;
  environment?: Record<string, string>;
  /** A prerender (ISR) function: Vercel caches its answers; here it runs on every request. */
  prerender: boolean;
}

export interface VercelOutput {
  /** `.vercel/output`, absolute. */
  dir: string;
  routes: VercelRoute[];
  functions: Map<string, VercelFunction>;
  /** Static files served at another path than their own (config.json `overrides`): URL path → file. */
  overrides: Map<string, string>;
  /** config.json asks for image optimisation (`/_vercel/image`). */
  images: boolean;
  crons: number;
}

/** Every `NAME.func` folder under `functions/`, nested ones included ("api/hello"). */
function functionsUnder(dir: string, root = dir, depth = 0): VercelFunction[] {
  if (depth > 8 || !existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): VercelFunction[] => {
    if (!entry.isDirectory()) return [];
    const path = join(dir, entry.name);
    if (!entry.name.endsWith(".func")) return functionsUnder(path, root, depth + 1);
    const config = readJson(join(path, ".vc-config.json")) ?? {};
    const name = relative(root, path).replace(/\.func$/, "");
    const handler = (config.handler ?? config.entrypoint) as string | undefined;
    const prerenderConfig = join(dir, `${entry.name.replace(/\.func$/, "")}.prerender-config.json`);
    return [
      {
        name,
        dir: path,
        ...(typeof config.runtime === "string" ? { runtime: config.runtime } : {}),
        ...(handler ? { handler } : {}),
        ...(config.environment && typeof config.environment === "object"
          ? { environment: config.environment as Record<string, string> }
          : {}),
        prerender: existsSync(prerenderConfig),
      },
    ];
  });
}

/** The build output of `root` (the project's root), or undefined when there is no `.vercel/output/config.json`. */
export function readVercelOutput(root: string): VercelOutput | undefined {
  const dir = join(root, ".vercel", "output");
  const config = readJson(join(dir, "config.json"));
  if (!config) return undefined;
  const overrides = new Map<string, string>();
  for (const [file, override] of Object.entries((config.overrides ?? {}) as Record<string, { path?: string }>))
    overrides.set(`/${(override.path ?? file).replace(/^\//, "")}`, join(dir, "static", file));
  return {
    dir,
    routes: Array.isArray(config.routes) ? (config.routes as VercelRoute[]) : [],
    functions: new Map(functionsUnder(join(dir, "functions")).map((fn) => [fn.name, fn])),
    overrides,
    images: Boolean(config.images),
    crons: Array.isArray(config.crons) ? config.crons.length : 0,
  };
}

/** What the output asks for that this server does not do, one short phrase each. */
export function vercelNotes(output: VercelOutput): string[] {
  const functions = [...output.functions.values()];
  const edge = functions.filter((fn) => fn.runtime === "edge").map((fn) => fn.name);
  const isr = functions.filter((fn) => fn.prerender).map((fn) => fn.name);
  const middleware = output.routes.some((route) => route.middlewarePath);
  return [
    ...(middleware ? ["edge middleware not run"] : []),
    ...(edge.length ? [`edge function${edge.length > 1 ? "s" : ""} ${edge.join(", ")} run in Node`] : []),
    ...(isr.length ? [`ISR not cached (${isr.join(", ")} run on every request)`] : []),
    ...(output.images ? ["images served unresized (/_vercel/image)"] : []),
    ...(output.crons ? [`${output.crons} cron${output.crons > 1 ? "s" : ""} not run`] : []),
  ];
}

/** How one request is answered, once the routes are applied. */
export type VercelAnswer =
  | { kind: "file"; file: string; status: number; headers: Record<string, string> }
  | { kind: "function"; fn: VercelFunction; status?: number; headers: Record<string, string>; query: URLSearchParams }
  | { kind: "status"; status: number; headers: Record<string, string> }
  | { kind: "not found"; headers: Record<string, string> };

interface RouteState {
  method: string;
  pathname: string;
  query: URLSearchParams;
  requestHeaders: Record<string, string | string[] | undefined>;
  headers: Record<string, string>;
  status?: number;
}

const anchored = (src: string) => regexOf(`${src.startsWith("^") ? "" : "^"}${src}${src.endsWith("$") ? "" : "$"}`);

/** `$1`, `$name` in a destination or a header, from the match. */
function substitute(text: string, match: RegExpExecArray): string {
  return text.replace(/\$(\d+|[A-Za-z_]\w*)/g, (whole, key: string) => {
    const value = /^\d+$/.test(key) ? match[Number(key)] : match.groups?.[key];
    return value ?? (/^\d+$/.test(key) ? "" : whole);
  });
}

function cookieOf(header: string | string[] | undefined, key: string): string | undefined {
  const text = Array.isArray(header) ? header.join("; ") : (header ?? "");
  for (const part of text.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === key) return value.join("=");
  }
  return undefined;
}

/** Whether a `has` / `missing` condition holds for the request. */
function holds(condition: Condition, state: RouteState): boolean {
  const key = condition.key?.toLowerCase() ?? "";
  const actual =
    condition.type === "header"
      ? [state.requestHeaders[key]].flat()[0]
      : condition.type === "cookie"
        ? cookieOf(state.requestHeaders.cookie, condition.key ?? "")
        : condition.type === "query"
          ? (state.query.get(condition.key ?? "") ?? undefined)
          : [state.requestHeaders.host].flat()[0]?.split(":")[0];
  if (actual === undefined) return false;
  return condition.value === undefined || (regexOf(`^(?:${condition.value})$`)?.test(actual) ?? actual === condition.value);
}

/** The route's match on the request now, or undefined. */
function matchRoute(route: VercelRoute, state: RouteState): RegExpExecArray | undefined {
  if (!route.src || route.middlewarePath || route.locale) return undefined;
  if (route.methods && !route.methods.map((m) => m.toUpperCase()).includes(state.method)) return undefined;
  const match = anchored(route.src)?.exec(state.pathname);
  if (!match) return undefined;
  if (route.has && !route.has.every((condition) => holds(condition, state))) return undefined;
  if (route.missing?.some((condition) => holds(condition, state))) return undefined;
  return match;
}

/**
 * Applies the routes of one phase; a route without `continue` ends it (a `check` route only
 * when its destination is found). Its answer when it is a status, a redirect, or what `find` found.
 */
function applyPhase(
  routes: VercelRoute[],
  state: RouteState,
  find: (state: RouteState) => VercelAnswer | undefined = () => undefined,
): { matched: boolean; answer?: VercelAnswer } {
  for (const route of routes) {
    const match = matchRoute(route, state);
    if (!match) continue;
    for (const [name, value] of Object.entries(route.headers ?? {})) state.headers[name.toLowerCase()] = substitute(value, match);
    if (route.status) state.status = route.status;
    if (route.dest) {
      const dest = new URL(substitute(route.dest, match).replace(/^(?![a-z]+:)\/?/, "/"), "http://output.local");
      if (dest.host !== "output.local") return { matched: true, answer: { kind: "not found", headers: state.headers } };
      state.pathname = dest.pathname;
      for (const [name, value] of dest.searchParams) state.query.set(name, value);
    }
    if (route.continue) continue;
    const redirect = route.status && route.status >= 300 && route.status < 400;
    if (redirect || (route.status && !route.dest))
      return { matched: true, answer: { kind: "status", status: route.status as number, headers: state.headers } };
    const found = route.dest ? find(state) : undefined;
    if (found) return { matched: true, answer: found };
    if (!route.check) return { matched: true };
  }
  return { matched: false };
}

/** The static file or the function at a path, if any. */
function lookup(output: VercelOutput, state: RouteState, status = 200): VercelAnswer | undefined {
  const name = state.pathname.replace(/^\/+|\/+$/g, "");
  const fn = output.functions.get(name) ?? output.functions.get(name ? `${name}/index` : "index");
  const file = output.overrides.get(state.pathname) ?? servedFile(join(output.dir, "static"), state.pathname);
  if (file && existsSync(file)) return { kind: "file", file, status: state.status ?? status, headers: state.headers };
  if (fn) return { kind: "function", fn, headers: state.headers, query: state.query, ...(state.status ? { status: state.status } : {}) };
  return undefined;
}

/** The routes of each phase: the main ones (before any `handle`), then each handle's. */
function phases(routes: VercelRoute[]): Map<string, VercelRoute[]> {
  const byPhase = new Map<string, VercelRoute[]>([["main", []]]);
  let phase = "main";
  for (const route of routes) {
    if (route.handle) {
      phase = route.handle;
      if (!byPhase.has(phase)) byPhase.set(phase, []);
    } else byPhase.get(phase)?.push(route);
  }
  return byPhase;
}

/** How the output answers a request: a static file, a function, a status (redirects included), or nothing (404). */
export function resolveVercel(
  output: VercelOutput,
  request: { method: string; url: URL; headers: Record<string, string | string[] | undefined> },
): VercelAnswer {
  const state: RouteState = {
    method: request.method.toUpperCase(),
    pathname: request.url.pathname,
    query: new URLSearchParams(request.url.search),
    requestHeaders: request.headers,
    headers: {},
  };
  const byPhase = phases(output.routes);
  if (output.images && state.pathname === "/_vercel/image") {
    const original = state.query.get("url") ?? "";
    if (original.startsWith("/"))
      return lookup(output, { ...state, pathname: original.split("?")[0] as string }) ?? { kind: "not found", headers: {} };
  }
  const find = (now: RouteState) => lookup(output, now);
  for (const phase of ["main", "filesystem", "miss"]) {
    // The static files and functions come after the main routes.
    const found = phase === "filesystem" ? lookup(output, state) : undefined;
    if (found) return found;
    const applied = applyPhase(byPhase.get(phase) ?? [], state, phase === "main" ? undefined : find);
    if (applied.answer) return applied.answer;
  }
  state.status = 404;
  const error = applyPhase(byPhase.get("error") ?? [], state, (now) => lookup(output, now, 404));
  return error.answer ?? { kind: "not found", headers: state.headers };
}

/** A function's handler as a web handler (which also gets the Node request and response, for Node handlers). */
type Invoke = (
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  extra: { status?: number; headers: Record<string, string> },
) => Promise<void>;

/** Loads the function's module once and calls what it exports: `default` (object with fetch, or function), else the method's export. */
function functionInvoker(fn: VercelFunction): Invoke {
  const load = moduleLoader(join(fn.dir, fn.handler ?? "index.js"), `the function ${fn.name}`);
  return async (request, response, url, extra) => {
    let exports: Record<string, unknown>;
    try {
      exports = await load();
    } catch {
      sendText(response, 500, "");
      return;
    }
    const main = exports.default as { fetch?: FetchHandler } | ((...args: unknown[]) => unknown) | undefined;
    const method = exports[(request.method ?? "GET").toUpperCase()];
    if (main && typeof main === "object" && typeof main.fetch === "function") {
      const fetch = main.fetch.bind(main);
      return callFetch(response, () => fetch(webRequest(request, url)), extra);
    }
    if (typeof method === "function") return callFetch(response, () => (method as FetchHandler)(webRequest(request, url)), extra);
    if (typeof main !== "function") {
      logError(new TypeError(`the function ${fn.name} exports no handler (default, fetch or ${request.method})`));
      sendText(response, 500, "");
      return;
    }
    await nodeHandler(main, request, response, url, extra);
  };
}

/** A Node handler (`(req, res)`); one that returns a Response instead is a web handler. */
async function nodeHandler(
  main: (...args: unknown[]) => unknown,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  extra: { status?: number; headers: Record<string, string> },
): Promise<void> {
  for (const [name, value] of Object.entries(extra.headers)) response.setHeader(name, value);
  if (extra.status) response.statusCode = extra.status;
  request.url = `${url.pathname}${url.search}`;
  try {
    const result = await main(request, response);
    if (result instanceof Response && !response.headersSent) await callFetch(response, () => result, extra);
  } catch (error) {
    logError(error);
    if (!response.headersSent) sendText(response, 500, "");
  }
}

/** The request handler of the whole output. */
export function vercelServer(output: VercelOutput): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  const invokers = new Map<string, Invoke>();
  for (const fn of output.functions.values()) {
    for (const [name, value] of Object.entries(fn.environment ?? {})) process.env[name] ??= value;
    invokers.set(fn.name, functionInvoker(fn));
  }
  const notFound = join(output.dir, "static", "404.html");
  return async (request, response) => {
    const url = requestUrl(request);
    const answer = resolveVercel(output, { method: request.method ?? "GET", url, headers: request.headers });
    if (answer.kind === "file") return sendFile(response, answer.file, answer.status, answer.headers);
    if (answer.kind === "status") return sendText(response, answer.status, "", answer.headers);
    if (answer.kind === "not found") {
      if (existsSync(notFound)) return sendFile(response, notFound, 404, answer.headers);
      return sendText(response, 404, "The page could not be found.\n\nNOT_FOUND\n", answer.headers);
    }
    // The function sees the URL asked, with the query the routes added.
    const seen = new URL(url);
    for (const [name, value] of answer.query) seen.searchParams.set(name, value);
    const invoke = invokers.get(answer.fn.name) as Invoke;
    await invoke(request, response, seen, { ...(answer.status ? { status: answer.status } : {}), headers: answer.headers });
  };
}
