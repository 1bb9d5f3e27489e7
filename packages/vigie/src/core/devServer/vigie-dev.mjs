// vigie's dev integration, copied to .opencode/dev/ and added by the config vigie's dev server
// starts with (it wraps the project's own config, which stays untouched). Its Vite plugin
// answers GET /__vigie/dev?since=N on the dev server: the files the watcher saw change after
// sequence number N, the pages each reaches through the module graph (importers walked up to
// the pages), the last update the server sent its browsers (hmr, full reload, error with
// file:line), and the routes; GET /__vigie/dev/reach?files=a,b the pages given files reach
// now (and the pages the server rendered, whose modules its graph knows); GET /__vigie/dev/types?files=a,b answers the type errors of those files from Astro's
// checker, kept warm in this process (it ends with the server). Plain JavaScript, no
// dependency: it runs inside the user's Astro.
// Its answers are typed in devProtocol.ts, beside it in vigie (the client reads the same types);
// test/core/devServer/devProtocol.test.ts type-checks this file against them through its JSDoc.
/** @import { DevChangesAnswer, DevEvent, DevReachAnswer, DevRoute, DevTypesAnswer, FileReach, Reached, RenderError } from "./devProtocol.ts" */

import { AsyncLocalStorage } from "node:async_hooks";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

const MAX_CHANGES = 500;
const MAX_WALK = 5000;
const MAX_REACH = 200;
const MAX_RENDERED = 20000;
const CONTENT = /\.(md|mdx|markdown|mdoc|json|ya?ml|toml|csv)$/i;

/**
 * What the integration knows of the project, from Astro's hooks.
 * @typedef {{ root: string; srcDir: string; pagesDir: string; routes: DevRoute[] }} DevState
 */

/**
 * What the plugin has seen of the server's life: the files changed, the pages rendered, the last
 * thing told to the browsers, under one sequence of numbers.
 * @typedef {object} Seen
 * @property {number} seq
 * @property {{ seq: number; at: number; file: string; event: string }[]} changes
 * @property {Set<string>} rendered
 * @property {DevEvent | undefined} last
 * @property {(file: string) => string} rel
 * @property {number} [servers] how many servers this process made (more than one: it restarted)
 * @property {RenderError[]} [renderErrors] errors the server logged while it rendered a page
 */

/**
 * @param {{ configFile?: string }} [options] the project's own config, relative to the root: the
 * server starts from vigie's wrapper, so the project's config is watched for it (a change restarts
 * the server, as under `astro dev`).
 */
export default function vigieDev(options = {}) {
  /** @type {DevState} */
  const state = { root: process.cwd(), srcDir: "", pagesDir: "", routes: [] };
  return {
    name: "vigie-dev",
    hooks: {
      "astro:config:setup": ({ config, updateConfig, addWatchFile, command }) => {
        state.root = fileURLToPath(config.root);
        state.srcDir = fileURLToPath(config.srcDir);
        state.pagesDir = fileURLToPath(new URL("pages/", config.srcDir));
        if (options.configFile && command === "dev") addWatchFile(new URL(options.configFile, config.root));
        updateConfig({ vite: { plugins: [vigieDevPlugin(state)] } });
      },
      "astro:routes:resolved": ({ routes }) => {
        state.routes = routes.map(devRoute);
      },
    },
  };
}

/**
 * One of Astro's resolved routes, as the endpoint lists it.
 * @returns {DevRoute}
 */
function devRoute(route) {
  return {
    pattern: route.pattern,
    regex: route.patternRegex.source,
    entrypoint: String(route.entrypoint),
    type: route.type,
    params: route.params,
    prerender: route.isPrerendered,
  };
}

/**
 * What the server has seen, kept by the process: Astro restarts its server in the same process
 * when the config changes, and the changes, their numbers and the pages rendered go on.
 * @param {DevState} state
 * @returns {Seen}
 */
function processSeen(state) {
  const kept = /** @type {{ __vigieDevSeen?: Seen }} */ (globalThis);
  kept.__vigieDevSeen ??= { seq: 0, changes: [], rendered: new Set(), last: undefined, rel: (file) => file };
  kept.__vigieDevSeen.rel = (file) => relative(state.root, file).split(sep).join("/");
  return kept.__vigieDevSeen;
}

/** @param {DevState} state */
function vigieDevPlugin(state) {
  const seen = processSeen(state);
  return {
    name: "vigie-dev",
    apply: "serve",
    configureServer(server) {
      // A server made again in this process: the config changed and it restarted with it. Vite
      // makes it while the old one still answers, closes the old one, then hands it the requests:
      // the restart is told by the new server's first request, never by the old one closing
      // (pages loaded then met a closed pipeline: MDX modules failed to parse, and stayed so).
      let restarted = Boolean(seen.servers);
      seen.servers = (seen.servers ?? 0) + 1;
      watchChanges(server, seen);
      // What the browsers are told: an HMR update, a full reload, or an error for the overlay.
      watchSend(server.ws, seen);
      watchSend(server.environments?.client?.hot, seen);
      server.middlewares.use((request, response, next) => {
        if (restarted) {
          restarted = false;
          seen.seq += 1;
          seen.last = { seq: seen.seq, at: Date.now(), kind: "restarted" };
        }
        return handle(server, state, seen, request, response, next);
      });
    },
  };
}

/** The files the server's watcher sees added, changed or removed (the project's own, not its tools'). */
function watchChanges(server, /** @type {Seen} */ seen) {
  server.watcher.on("all", (/** @type {string} */ event, /** @type {string} */ file) => {
    if (!["add", "change", "unlink"].includes(event)) return;
    const path = seen.rel(file);
    if (path.startsWith("..") || /(^|\/)(node_modules|\.git|\.astro|\.opencode|dist)\//.test(path)) return;
    seen.seq += 1;
    seen.changes.push({ seq: seen.seq, at: Date.now(), file: path, event });
    if (seen.changes.length > MAX_CHANGES) seen.changes.shift();
  });
}

/**
 * Notes what a channel to the browsers sends, then sends it.
 * @param {Seen} seen
 */
function watchSend(channel, seen) {
  if (!channel || typeof channel.send !== "function" || channel.__vigie) return;
  const send = channel.send.bind(channel);
  /** @param {Omit<DevEvent, "seq" | "at">} event */
  const noted = (event) => {
    seen.seq += 1;
    seen.last = { seq: seen.seq, at: Date.now(), ...event };
  };
  channel.__vigie = true;
  channel.send = (...args) => {
    try {
      const payload = typeof args[0] === "string" ? { type: "custom", event: args[0] } : args[0];
      if (payload?.type === "update") noted({ kind: "hmr", files: (payload.updates ?? []).map((u) => u.path).slice(0, 5) });
      else if (payload?.type === "full-reload") noted({ kind: "full-reload", ...(payload.path ? { path: payload.path } : {}) });
      else if (payload?.type === "error") noted({ kind: "error", ...errorOf(payload.err, seen.rel) });
    } catch {
      // never break the server for a note
    }
    return send(...args);
  };
}

/**
 * The dev server's middleware: notes the pages rendered, answers the endpoint's three routes.
 * @param {DevState} state
 * @param {Seen} seen
 */
function handle(server, state, seen, request, response, next) {
  const url = new URL(request.url ?? "/", "http://localhost");
  // The pages this server rendered: its module graph knows what each of them uses.
  if (request.method === "GET" && !/^\/(@|__|node_modules\/|src\/)/.test(url.pathname)) {
    response.once("finish", () => {
      if (seen.rendered.size < MAX_RENDERED && String(response.getHeader("content-type") ?? "").includes("text/html")) {
        seen.rendered.add(url.pathname);
      }
    });
  }
  const files = (url.searchParams.get("files") ?? "").split(",").filter((file) => file && !file.startsWith(".."));
  if (url.pathname === "/__vigie/dev/types") {
    typeErrors(state, files, seen.rel).then(
      (answer) => reply(response, answer),
      (error) => reply(response, { unavailable: firstLine(error?.message ?? error, 200) }),
    );
    return;
  }
  // The pages given files reach now (validate --changed: the files changed since a git ref).
  if (url.pathname === "/__vigie/dev/reach") return reply(response, reachAnswer(server, state, seen, files));
  // A page's render runs in the request's context: an error the server logs for it is noted with its path.
  if (url.pathname !== "/__vigie/dev") return rendering(seen).run(url.pathname, next);
  reply(response, changesSince(server, state, seen, Number(url.searchParams.get("since") ?? 0) || 0));
}

/**
 * @param {DevState} state
 * @param {Seen} seen
 * @param {string[]} files
 * @returns {DevReachAnswer}
 */
function reachAnswer(server, state, seen, files) {
  /** @type {Reached} */
  const reached = {};
  for (const file of files.slice(0, MAX_REACH)) reached[file] = pagesReached(server, state, join(state.root, file), seen.rel);
  return { reached, routes: state.routes, rendered: [...seen.rendered] };
}

/**
 * The request each log line is written in: Astro streams a page's head with status 200 and logs
 * the error its render meets afterwards ("[ERROR] …" and its stack, on stderr), so the browser
 * gets a page cut short and no error. The process's stderr is watched once; an error line
 * written while a page is rendered is noted with that page's path and the first frame in the project.
 * @param {Seen} seen
 * @returns {AsyncLocalStorage<string>}
 */
function rendering(seen) {
  const kept = /** @type {{ __vigieRendering?: AsyncLocalStorage<string> }} */ (globalThis);
  if (kept.__vigieRendering) return kept.__vigieRendering;
  const store = new AsyncLocalStorage();
  kept.__vigieRendering = store;
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = /** @type {typeof process.stderr.write} */ (
    (chunk, ...rest) => {
      const path = store.getStore();
      if (path) {
        try {
          const text = String(chunk).replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "");
          const error = /\[ERROR\]\s+(?!\[)(.+)/.exec(text);
          if (error?.[1]) {
            const frame = [...text.matchAll(/\((\/[^()\s]+):(\d+):\d+\)|at (\/[^()\s]+):(\d+):\d+/g)]
              .map((match) => ({ file: seen.rel(match[1] ?? match[3] ?? ""), line: match[2] ?? match[4] }))
              .find((found) => !found.file.startsWith("..") && !found.file.includes("node_modules/"));
            seen.seq += 1;
            seen.renderErrors ??= [];
            seen.renderErrors.push({
              seq: seen.seq,
              path,
              message: error[1].trim().slice(0, 300),
              ...(frame ? { file: `${frame.file}:${frame.line}` } : {}),
            });
            if (seen.renderErrors.length > 200) seen.renderErrors.shift();
          }
        } catch {
          // never break the server's output for a note
        }
      }
      return write(chunk, ...rest);
    }
  );
  return store;
}

/**
 * The files changed after sequence number `since`, what each reaches, and the last event after it.
 * @param {DevState} state
 * @param {Seen} seen
 * @param {number} since
 * @returns {DevChangesAnswer}
 */
function changesSince(server, state, seen, since) {
  const changed = [...new Set(seen.changes.filter((change) => change.seq > since).map((change) => change.file))];
  /** @type {Reached} */
  const reached = {};
  for (const file of changed) reached[file] = pagesReached(server, state, join(state.root, file), seen.rel);
  return {
    seq: seen.seq,
    lastChangeSeq: seen.changes.at(-1)?.seq ?? 0,
    changed,
    reached,
    ...(seen.last && seen.last.seq > since ? { last: seen.last } : {}),
    renderErrors: (seen.renderErrors ?? []).filter((error) => error.seq > since).slice(-20),
    routes: state.routes,
  };
}

/** @param {DevChangesAnswer | DevReachAnswer | DevTypesAnswer} body */
function reply(response, body) {
  response.statusCode = 200;
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify(body));
}

/** A message's first line, at most `max` characters. */
function firstLine(message, /** @type {number} */ max) {
  return String(message).split("\n")[0].slice(0, max);
}

/**
 * Astro's checker (@astrojs/language-server, as `astro check` runs it) in a worker thread of the
 * dev server: building its program takes seconds of CPU, which must not stall the server. Made
 * once, its program stays warm; the thread ends with the server's process.
 */
const CHECKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const { join } = require("node:path");
const { pathToFileURL, fileURLToPath } = require("node:url");
let checker;
async function astroChecker() {
  if (checker) return checker;
  const local = createRequire(join(workerData.root, "package.json"));
  let server;
  try { server = local.resolve("@astrojs/language-server"); }
  catch { server = createRequire(local.resolve("@astrojs/check")).resolve("@astrojs/language-server"); }
  let typescript;
  try { typescript = local.resolve("typescript"); } catch { typescript = undefined; }
  const { AstroCheck } = await import(pathToFileURL(server).href);
  checker = new AstroCheck(workerData.root, typescript, undefined);
  return checker;
}
parentPort.on("message", async ({ id, paths }) => {
  try {
    const astro = await astroChecker();
    for (const path of paths) astro.linter.fileUpdated?.(path);
    const result = await astro.lint({ fileNames: paths });
    const errors = [];
    for (const file of result.fileResult) {
      for (const diagnostic of file.errors) {
        if (diagnostic.severity !== 1) continue;
        errors.push({ path: fileURLToPath(file.fileUrl), line: diagnostic.range.start.line + 1, message: String(diagnostic.message).split("\\n")[0].slice(0, 200) });
      }
    }
    parentPort.postMessage({ id, errors });
  } catch (error) {
    parentPort.postMessage({ id, unavailable: String(error && error.message || error).split("\\n")[0].slice(0, 200) });
  }
});
`;

let worker;
let asked = 0;
const waiting = new Map();

function checkerThread(root) {
  if (worker) return worker;
  worker = new Worker(CHECKER, { eval: true, workerData: { root } });
  worker.unref();
  worker.on("message", (message) => {
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const fail = (why) => {
    for (const resolve of waiting.values()) resolve({ unavailable: why });
    waiting.clear();
    worker = undefined;
  };
  worker.on("error", (error) => fail(String(error?.message ?? error).slice(0, 200)));
  worker.on("exit", () => fail("the checker stopped"));
  return worker;
}

const CHECKED = /\.(astro|ts|tsx|mts|cts|js|jsx|mjs|vue|svelte)$/i;

/**
 * The type errors of `files` (relative to the root), from the warm checker.
 * @param {DevState} state
 * @param {string[]} files
 * @param {(file: string) => string} rel
 * @returns {Promise<DevTypesAnswer>}
 */
async function typeErrors(state, files, rel) {
  const paths = files.filter((file) => CHECKED.test(file) && !file.startsWith("..")).map((file) => join(state.root, file));
  if (!paths.length) return { errors: [] };
  const started = Date.now();
  asked += 1;
  const id = asked;
  /** @type {{ errors: { path: string; line: number; message: string }[] } | { unavailable: string }} */
  const answer = await new Promise((resolve) => {
    waiting.set(id, resolve);
    checkerThread(state.root).postMessage({ id, paths });
  });
  if (!("errors" in answer)) return { unavailable: answer.unavailable };
  const errors = answer.errors.map((error) => ({ source: `${rel(error.path)}:${error.line}`, message: error.message }));
  return { errors, ms: Date.now() - started };
}

/**
 * The overlay's error: its message and file:line, relative to the root.
 * @param {(file: string) => string} rel
 * @returns {Pick<DevEvent, "message" | "file">}
 */
function errorOf(err, rel) {
  if (!err) return { message: "unknown error" };
  const file = err.loc?.file ?? err.id;
  const path = file ? rel(String(file).split("?")[0]) : undefined;
  // A place in a dependency or outside the project (Vite's module runner) is not where the fault is.
  const own = path && !path.startsWith("..") && !path.startsWith("/") && !/(^|\/)node_modules\//.test(path);
  const where = own ? `${path}${err.loc?.line ? `:${err.loc.line}` : ""}` : undefined;
  // Astro's messages carry the overlay's markup ("Could not import <code>/src/X.astro</code>").
  const message = firstLine(unescapeHtml(String(err.message ?? err).replace(/<\/?code>/g, "`")), 300);
  return { message, ...(where ? { file: where } : {}) };
}

/** The overlay's message as text: its HTML entities read. */
function unescapeHtml(/** @type {string} */ text) {
  const named = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return text.replace(/&(#\d+|#x[\da-f]+|amp|lt|gt|quot|apos);/gi, (whole, entity) => {
    const lower = entity.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(Number(lower.slice(1)));
    return named[/** @type {keyof typeof named} */ (lower)] ?? whole;
  });
}

/**
 * The page components a file reaches: its modules' importers, walked up in every environment's
 * module graph, down to the modules under src/pages/. A content entry is not walked (every page
 * that reads a collection imports it): it is answered as content, the pages that render it are
 * told apart by the caller; a module a content entry imports (a component in an MDX article)
 * answers those entries, each of which reaches only its own pages.
 * @param {DevState} state
 * @param {string} file
 * @param {(file: string) => string} rel
 * @returns {FileReach}
 */
function pagesReached(server, state, file, rel) {
  if (file.startsWith(state.srcDir) && !file.startsWith(state.pagesDir) && CONTENT.test(file)) return { content: true, pages: [] };
  /** @type {Set<string>} */
  const pages = new Set();
  /** @type {Set<string>} */
  const entries = new Set();
  const isEntry = (/** @type {string} */ path) => path.startsWith(state.srcDir) && !path.startsWith(state.pagesDir) && CONTENT.test(path);
  let known = false;
  const graphs = [server.moduleGraph, ...Object.values(server.environments ?? {}).map((environment) => environment.moduleGraph)];
  for (const graph of graphs) {
    const start = graph?.getModulesByFile?.(file);
    if (!start?.size) continue;
    known = true;
    const seen = new Set();
    const queue = [...start];
    while (queue.length && seen.size < MAX_WALK) {
      const module = queue.shift();
      if (seen.has(module)) continue;
      seen.add(module);
      const own = module.file?.split("?")[0];
      if (own?.startsWith(state.pagesDir)) pages.add(rel(own));
      if (own && own !== file && isEntry(own)) {
        entries.add(rel(own));
        continue;
      }
      for (const importer of module.importers ?? []) queue.push(importer);
    }
  }
  return { known, pages: [...pages].sort(), ...(entries.size ? { entries: [...entries].sort() } : {}) };
}
