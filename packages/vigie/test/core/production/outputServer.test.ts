// vigie's offline server of a build output, on hand-written minimal `.vercel/output` and
// `.netlify/` trees (a static file, a route rewrite, a function that answers, one that throws,
// the 404 fallback), served for real in a child process and fetched over loopback; a thrown
// error is in the server's log as Astro writes its own, and its cause is read from there.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { askServerError } from "../../../src/core/checks/serverErrors.ts";
import type { LoggingServer } from "../../../src/core/production/childServer.ts";
import { netlifyPattern, parseRedirects } from "../../../src/core/production/netlifyOutput.ts";
import { startOutputServer } from "../../../src/core/production/outputServer.ts";
import { readVercelOutput, resolveVercel } from "../../../src/core/production/vercelOutput.ts";

const roots: string[] = [];
const servers: LoggingServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "vigie-output-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function get(server: LoggingServer, path: string): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

// A function as @astrojs/vercel 11 writes it: `export default { fetch }`, its module at a path mirroring the project.
const RENDER = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/now")) throw new Error("the clock is broken");
    if (url.pathname === "/api/hello.json") return Response.json({ hello: "world", q: url.searchParams.get("q") });
    if (url.pathname.startsWith("/greet/")) return Response.json({ path: url.pathname, q: url.searchParams.get("q") });
    return new Response("<h1>Not found</h1>", { status: 404, headers: { "content-type": "text/html" } });
  },
};
`;

const VERCEL = {
  ".vercel/output/config.json": JSON.stringify({
    version: 3,
    routes: [
      { src: "^/_astro(?:/(.*))$", headers: { "cache-control": "public, max-age=31536000, immutable" }, continue: true },
      { src: "^/old/?$", status: 308, headers: { Location: "/about/" } },
      { handle: "filesystem" },
      { src: "^/greet/([^/]+?)/?$", dest: "/api/hello.json?q=$1", check: true },
      { src: "^/api/hello\\.json$", dest: "_render" },
      { src: "^/now/?$", dest: "_render" },
      { src: "^/.*$", dest: "_render", status: 404 },
    ],
  }),
  ".vercel/output/static/index.html": "<h1>Home</h1>",
  ".vercel/output/static/about/index.html": "<h1>About</h1>",
  ".vercel/output/static/_astro/app.AbCdEfGh.js": "console.log(1);",
  ".vercel/output/functions/_render.func/.vc-config.json": JSON.stringify({
    runtime: "nodejs24.x",
    handler: ".vercel/output/server/entry.mjs",
    launcherType: "Nodejs",
  }),
  ".vercel/output/functions/_render.func/.vercel/output/server/entry.mjs": RENDER,
  "src/pages/now.astro": '---\nexport const prerender = false;\nthrow new Error("the clock is broken");\n---\n',
};

describe("vigie's offline Vercel server", () => {
  let server: LoggingServer;
  let root: string;
  before(async () => {
    root = tree(VERCEL);
    server = await startOutputServer({ root } as never, "vercel", { publish: join(root, "dist") });
    servers.push(server);
  });

  test("static files before the functions, with the routes' headers; directory URLs give their index.html", async () => {
    assert.deepEqual([(await get(server, "/")).status, (await get(server, "/")).body], [200, "<h1>Home</h1>"]);
    assert.equal((await get(server, "/about")).body, "<h1>About</h1>");
    const asset = await get(server, "/_astro/app.AbCdEfGh.js");
    assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.match(asset.headers.get("content-type") ?? "", /javascript/);
  });

  test("a route to a function, a rewrite with its capture, a redirect, the 404 fallback", async () => {
    assert.deepEqual(JSON.parse((await get(server, "/api/hello.json")).body), { hello: "world", q: null });
    // A function sees the URL asked, with the query the routes added (Vercel's way: Astro reads its route from it).
    assert.deepEqual(JSON.parse((await get(server, "/greet/bob/")).body), { path: "/greet/bob/", q: "bob" });
    const old = await get(server, "/old/");
    assert.equal(old.status, 308);
    assert.equal(old.headers.get("location"), "/about/");
    const missing = await get(server, "/nope/");
    assert.equal(missing.status, 404);
    assert.equal(missing.body, "<h1>Not found</h1>");
  });

  test("a function that throws: 500 with an empty body, its error in the log, the cause named with its source", async () => {
    const now = await get(server, "/now/");
    assert.deepEqual([now.status, now.body], [500, ""]);
    assert.match(server.log(), /\[ERROR\] Error: the clock is broken/);
    const routes = [
      { route: "/now", component: "src/pages/now.astro", type: "page" as const, prerender: false, pattern: "^\\/now\\/?$", params: [] },
    ];
    const cause = await askServerError({ root } as never, `${server.url}/now/`, server.log, {
      base: "/",
      routes,
      outDirs: [join(root, ".vercel", "output")],
    });
    assert.deepEqual(cause, {
      name: "Error",
      message: "the clock is broken",
      source: "src/pages/now.astro:3",
      from: "server log",
      status: 500,
    });
  });

  test("the routes alone: phases in order, methods and conditions", () => {
    const output = readVercelOutput(root);
    assert.ok(output);
    const at = (path: string, method = "GET") => resolveVercel(output, { method, url: new URL(path, "http://x"), headers: {} });
    assert.equal(at("/about/").kind, "file");
    assert.deepEqual(at("/now/").kind, "function");
    const fallback = at("/missing");
    assert.equal(fallback.kind === "function" && fallback.status, 404);
  });
});

const NETLIFY = {
  ".netlify/v1/config.json": JSON.stringify({
    headers: [{ for: "/_astro/*", values: { "Cache-Control": "public, max-age=31536000, immutable" } }],
  }),
  ".netlify/v1/functions/ssr/ssr.mjs": `export default async (request, context) => {
  const url = new URL(request.url);
  if (url.pathname.startsWith("/now")) throw new Error("the clock is broken");
  if (url.pathname === "/api/hello.json") return Response.json({ hello: "world", ip: context.ip });
  return new Response("<h1>Not found</h1>", { status: 404, headers: { "content-type": "text/html" } });
};
export const config = { name: "Astro SSR", path: "/*", preferStatic: true };
`,
  "dist/index.html": "<h1>Home</h1>",
  "dist/about/index.html": "<h1>About</h1>",
  "dist/_astro/app.AbCdEfGh.js": "console.log(1);",
  "dist/_redirects": "/old /about/ 301\n/docs/* /about/ 200\n",
};

describe("vigie's offline Netlify server", () => {
  let server: LoggingServer;
  before(async () => {
    const root = tree(NETLIFY);
    server = await startOutputServer({ root } as never, "netlify", { publish: join(root, "dist") });
    servers.push(server);
  });

  test("static files first (preferStatic), the config's headers; the function for the rest", async () => {
    assert.equal((await get(server, "/about/")).body, "<h1>About</h1>");
    const asset = await get(server, "/_astro/app.AbCdEfGh.js");
    assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.deepEqual(JSON.parse((await get(server, "/api/hello.json")).body), { hello: "world", ip: "127.0.0.1" });
    assert.equal((await get(server, "/nope/")).status, 404);
  });

  test("the image CDN's URLs give the original file, unresized", async () => {
    const image = await get(server, "/.netlify/images?url=%2F_astro%2Fapp.AbCdEfGh.js&w=640");
    assert.deepEqual([image.status, image.body], [200, "console.log(1);"]);
  });

  test("_redirects: a redirect and a rewrite", async () => {
    const old = await get(server, "/old");
    assert.deepEqual([old.status, old.headers.get("location")], [301, "/about/"]);
    assert.equal((await get(server, "/docs/a/b")).body, "<h1>About</h1>");
  });

  test("a function that throws: 500, its error in the log", async () => {
    const now = await get(server, "/now/");
    assert.equal(now.status, 500);
    assert.match(server.log(), /\[ERROR\] Error: the clock is broken/);
  });

  test("Netlify's patterns and _redirects lines", () => {
    assert.equal(netlifyPattern("/blog/:slug").exec("/blog/hello/")?.groups?.slug, "hello");
    assert.equal(netlifyPattern("/*").test("/a/b"), true);
    assert.deepEqual(parseRedirects("# c\n/a /b 302!\n/c /d\n"), [
      { from: "/a", to: "/b", status: 302, force: true },
      { from: "/c", to: "/d", status: 301, force: false },
    ]);
  });
});

test("a build output that is not there: the server's start fails with why", async () => {
  const root = tree({ "package.json": "{}" });
  await assert.rejects(
    startOutputServer({ root } as never, "vercel", { publish: join(root, "dist"), timeoutMs: 20_000 }),
    /exited: .*could not start: \.vercel\/output\/config\.json is missing/s,
  );
});
