// vigie's dev integration, copied to .opencode/dev/ and added by the config vigie's dev server
// starts with (it wraps the project's own config, which stays untouched). Its Vite plugin
// answers GET /__vigie/dev?since=N on the dev server: the files the watcher saw change after
// sequence number N, the pages each reaches through the module graph (importers walked up to
// the pages), the last update the server sent its browsers (hmr, full reload, error with
// file:line), and the routes; GET /__vigie/dev/reach?files=a,b the pages given files reach
// now (and the pages the server rendered, whose modules its graph knows); GET /__vigie/dev/types?files=a,b answers the type errors of those files from Astro's
// checker, kept warm in this process (it ends with the server). Plain JavaScript, no
// dependency: it runs inside the user's Astro.
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

const MAX_CHANGES = 500;
const MAX_WALK = 5000;
const MAX_REACH = 200;
const MAX_RENDERED = 20000;
const CONTENT = /\.(md|mdx|markdown|mdoc|json|ya?ml|toml|csv)$/i;

export default function vigieDev() {
  const state = { root: process.cwd(), srcDir: "", pagesDir: "", routes: [] };
  return {
    name: "vigie-dev",
    hooks: {
      "astro:config:setup": ({ config, updateConfig }) => {
        state.root = fileURLToPath(config.root);
        state.srcDir = fileURLToPath(config.srcDir);
        state.pagesDir = fileURLToPath(new URL("pages/", config.srcDir));
        updateConfig({ vite: { plugins: [vigieDevPlugin(state)] } });
      },
      "astro:routes:resolved": ({ routes }) => {
        state.routes = routes.map((route) => ({
          pattern: route.pattern,
          regex: route.patternRegex.source,
          entrypoint: String(route.entrypoint),
          type: route.type,
          params: route.params,
          prerender: route.isPrerendered,
        }));
      },
    },
  };
}

function vigieDevPlugin(state) {
  let seq = 0;
  const changes = [];
  const rendered = new Set();
  let last;
  const rel = (file) => relative(state.root, file).split(sep).join("/");
  const noted = (event) => {
    seq += 1;
    last = { seq, at: Date.now(), ...event };
  };
  return {
    name: "vigie-dev",
    apply: "serve",
    configureServer(server) {
      server.watcher.on("all", (event, file) => {
        if (!["add", "change", "unlink"].includes(event)) return;
        const path = rel(file);
        if (path.startsWith("..") || /(^|\/)(node_modules|\.git|\.astro|\.opencode|dist)\//.test(path)) return;
        seq += 1;
        changes.push({ seq, at: Date.now(), file: path, event });
        if (changes.length > MAX_CHANGES) changes.shift();
      });
      // What the browsers are told: an HMR update, a full reload, or an error for the overlay.
      const watchSend = (channel) => {
        if (!channel || typeof channel.send !== "function" || channel.__vigie) return;
        const send = channel.send.bind(channel);
        channel.__vigie = true;
        channel.send = (...args) => {
          try {
            const payload = typeof args[0] === "string" ? { type: "custom", event: args[0] } : args[0];
            if (payload?.type === "update") noted({ kind: "hmr", files: (payload.updates ?? []).map((u) => u.path).slice(0, 5) });
            else if (payload?.type === "full-reload") noted({ kind: "full-reload", ...(payload.path ? { path: payload.path } : {}) });
            else if (payload?.type === "error") noted({ kind: "error", ...errorOf(payload.err, rel) });
          } catch {
            // never break the server for a note
          }
          return send(...args);
        };
      };
      watchSend(server.ws);
      watchSend(server.environments?.client?.hot);
      server.middlewares.use((request, response, next) => {
        const url = new URL(request.url ?? "/", "http://localhost");
        // The pages this server rendered: its module graph knows what each of them uses.
        if (request.method === "GET" && !/^\/(@|__|node_modules\/|src\/)/.test(url.pathname)) {
          response.once("finish", () => {
            if (rendered.size < MAX_RENDERED && String(response.getHeader("content-type") ?? "").includes("text/html")) {
              rendered.add(url.pathname);
            }
          });
        }
        if (url.pathname === "/__vigie/dev/types") {
          const files = (url.searchParams.get("files") ?? "").split(",").filter(Boolean);
          typeErrors(state, files, rel).then(
            (answer) => reply(response, 200, answer),
            (error) =>
              reply(response, 200, {
                unavailable: String(error?.message ?? error)
                  .split("\n")[0]
                  .slice(0, 200),
              }),
          );
          return;
        }
        if (url.pathname === "/__vigie/dev/reach") {
          // The pages given files reach now (validate --changed: the files changed since a git ref).
          const files = (url.searchParams.get("files") ?? "").split(",").filter((file) => file && !file.startsWith(".."));
          const reached = {};
          for (const file of files.slice(0, MAX_REACH)) reached[file] = pagesReached(server, state, join(state.root, file), rel);
          reply(response, 200, { reached, routes: state.routes, rendered: [...rendered] });
          return;
        }
        if (url.pathname !== "/__vigie/dev") return next();
        const since = Number(url.searchParams.get("since") ?? 0) || 0;
        const changed = [...new Set(changes.filter((change) => change.seq > since).map((change) => change.file))];
        const reached = {};
        for (const file of changed) reached[file] = pagesReached(server, state, join(state.root, file), rel);
        response.setHeader("content-type", "application/json");
        response.end(
          JSON.stringify({
            seq,
            lastChangeSeq: changes.at(-1)?.seq ?? 0,
            changed,
            reached,
            last: last && last.seq > since ? last : undefined,
            routes: state.routes,
          }),
        );
      });
    },
  };
}

function reply(response, status, body) {
  response.statusCode = status;
  response.setHeader("content-type", "application/json");
  response.end(JSON.stringify(body));
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

/** The type errors of `files` (relative to the root), from the warm checker. */
async function typeErrors(state, files, rel) {
  const paths = files.filter((file) => CHECKED.test(file) && !file.startsWith("..")).map((file) => join(state.root, file));
  if (!paths.length) return { errors: [] };
  const started = Date.now();
  asked += 1;
  const id = asked;
  const answer = await new Promise((resolve) => {
    waiting.set(id, resolve);
    checkerThread(state.root).postMessage({ id, paths });
  });
  if (answer.unavailable) return { unavailable: answer.unavailable };
  const errors = answer.errors.map((error) => ({ source: `${rel(error.path)}:${error.line}`, message: error.message }));
  return { errors, ms: Date.now() - started };
}

/** The overlay's error: its message and file:line, relative to the root. */
function errorOf(err, rel) {
  if (!err) return { message: "unknown error" };
  const file = err.loc?.file ?? err.id;
  const where = file ? `${rel(String(file).split("?")[0])}${err.loc?.line ? `:${err.loc.line}` : ""}` : undefined;
  return {
    message: String(err.message ?? err)
      .split("\n")[0]
      .slice(0, 300),
    ...(where ? { file: where } : {}),
  };
}

/**
 * The page components a file reaches: its modules' importers, walked up in every environment's
 * module graph, down to the modules under src/pages/. A content entry is not walked (every page
 * that reads a collection imports it): it is answered as content, the pages that render it are
 * told apart by the caller; a module a content entry imports (a component in an MDX article)
 * answers those entries, each of which reaches only its own pages.
 */
function pagesReached(server, state, file, rel) {
  if (file.startsWith(state.srcDir) && !file.startsWith(state.pagesDir) && CONTENT.test(file)) return { content: true, pages: [] };
  const pages = new Set();
  const entries = new Set();
  const isEntry = (path) => path.startsWith(state.srcDir) && !path.startsWith(state.pagesDir) && CONTENT.test(path);
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
