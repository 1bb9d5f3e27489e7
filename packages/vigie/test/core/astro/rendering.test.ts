// How a site renders: the route list Astro embeds in a server bundle, the adapter's folders,
// and which route serves a URL path.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { readAstroSettings } from "../../../src/core/astro/astroConfig.ts";
import { readRendering, renderingFacts, routeOf, routesInBundle } from "../../../src/core/astro/rendering.ts";
import { projectAt } from "../../../src/core/project.ts";

const routeData = (route: string, component: string, type: string, prerender: boolean, pattern: string, params: string[] = []) => ({
  file: "",
  links: [],
  routeData: { route, component, type, prerender, pattern, params, origin: "project", segments: [[{ content: 'x]{"' }]] },
});

const MANIFEST = [
  {
    file: "",
    routeData: {
      route: "/_image",
      component: "node_modules/astro/dist/assets/endpoint/node.js",
      type: "endpoint",
      prerender: false,
      pattern: "^\\/_image\\/?$",
      params: [],
      origin: "internal",
    },
  },
  routeData("/api/stats.json", "src/pages/api/stats.json.ts", "endpoint", false, "^\\/api\\/stats\\.json$"),
  routeData("/greet/[name]", "src/pages/greet/[name].astro", "page", false, "^\\/greet\\/([^/]+?)\\/?$", ["name"]),
  routeData("/now", "src/pages/now.astro", "page", false, "^\\/now\\/?$"),
  routeData("/", "src/pages/index.astro", "page", true, "^\\/$"),
];
const BUNDLE = `const manifest = deserialize({"adapterName":"@astrojs/node","routes":${JSON.stringify(MANIFEST)},"base":"/"});\nexport { manifest };\n`;

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function site(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "vigie-rendering-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the route list of a server bundle", () => {
  test("the project's routes with their source, kind and rendering; Astro's internal ones left out", () => {
    const routes = routesInBundle(BUNDLE);
    assert.deepEqual(
      routes?.map((r) => `${r.route} ${r.component} ${r.type} ${r.prerender}`),
      [
        "/api/stats.json src/pages/api/stats.json.ts endpoint false",
        "/greet/[name] src/pages/greet/[name].astro page false",
        "/now src/pages/now.astro page false",
        "/ src/pages/index.astro page true",
      ],
    );
  });

  test("a URL path finds its route, under the base too", () => {
    const routes = routesInBundle(BUNDLE) ?? [];
    assert.equal(routeOf(routes, "/", "/greet/ann/")?.component, "src/pages/greet/[name].astro");
    assert.equal(routeOf(routes, "/docs/", "/docs/now/")?.route, "/now");
    assert.equal(routeOf(routes, "/", "/missing/"), undefined);
  });

  test("no route list: undefined", () => {
    assert.equal(routesInBundle("export const x = 1;"), undefined);
  });
});

const renderingOf = (root: string) => {
  const project = projectAt(root);
  return readRendering(project, readAstroSettings(project));
};

describe("readRendering", () => {
  test("a static site: vigie's static server on outDir", () => {
    const root = site({ "astro.config.mjs": 'export default { outDir: "build" };\n' });
    const rendering = renderingOf(root);
    assert.equal(rendering.serve, "static");
    assert.equal(rendering.staticDir, join(root, "build"));
    assert.equal(rendering.routes, undefined);
  });

  test("@astrojs/node: astro preview, the prerendered pages in dist/client, the routes from dist/server", () => {
    const root = site({
      "astro.config.mjs":
        'import node from "@astrojs/node";\nexport default { output: "server", adapter: node({ mode: "standalone" }) };\n',
      "dist/client/index.html": "<html></html>",
      "dist/server/chunks/manifest_x.mjs": BUNDLE,
    });
    const rendering = renderingOf(root);
    assert.equal(rendering.output, "server");
    assert.equal(rendering.adapter, "@astrojs/node");
    assert.equal(rendering.serve, "preview");
    assert.equal(rendering.staticDir, join(root, "dist", "client"));
    assert.equal(rendering.routesFrom, "dist/server/chunks/manifest_x.mjs");
    assert.deepEqual(renderingFacts(rendering).routes?.[0], {
      route: "/api/stats.json",
      file: "src/pages/api/stats.json.ts",
      renders: "endpoint",
    });
  });

  test("@astrojs/vercel: its build output served by vigie, the folder counted as built code, what is not served said", () => {
    const root = site({
      "astro.config.mjs": 'import vercel from "@astrojs/vercel";\nexport default { adapter: vercel() };\n',
      ".vercel/output/config.json": JSON.stringify({ version: 3, routes: [{ handle: "filesystem" }], images: { sizes: [640] } }),
      ".vercel/output/static/index.html": "<html></html>",
    });
    const rendering = renderingOf(root);
    assert.equal(rendering.serve, "output");
    assert.equal(rendering.outputKind, "vercel");
    assert.equal(rendering.staticDir, join(root, ".vercel", "output", "static"));
    assert.deepEqual(rendering.buildDirs, [join(root, ".vercel", "output")]);
    assert.equal(
      rendering.serveNote,
      "adapter vercel: its build output (.vercel/output) served offline by vigie as Vercel serves it; not as deployed: images served unresized (/_vercel/image)",
    );
  });

  test("@astrojs/vercel: the routes are read from the function's bundle, which keeps the project's own .vercel/ path", () => {
    const root = site({
      "astro.config.mjs": 'import vercel from "@astrojs/vercel";\nexport default { adapter: vercel() };\n',
      ".vercel/output/static/index.html": "<html></html>",
      ".vercel/output/functions/_render.func/.vercel/output/server/entry.mjs": BUNDLE,
    });
    const rendering = renderingOf(root);
    assert.equal(rendering.routesFrom, ".vercel/output/functions/_render.func/.vercel/output/server/entry.mjs");
    assert.deepEqual(
      rendering.routes?.filter((route) => !route.prerender).map((route) => route.route),
      ["/api/stats.json", "/greet/[name]", "/now"],
    );
  });

  test("@astrojs/netlify: its build output served by vigie; the publish folder is outDir", () => {
    const root = site({
      "astro.config.mjs": 'import netlify from "@astrojs/netlify";\nexport default { adapter: netlify() };\n',
      ".netlify/v1/config.json": "{}",
      "dist/index.html": "<html></html>",
    });
    const rendering = renderingOf(root);
    assert.equal(rendering.serve, "output");
    assert.equal(rendering.outputKind, "netlify");
    assert.equal(rendering.staticDir, join(root, "dist"));
    assert.equal(
      rendering.serveNote,
      "adapter netlify: its build output (.netlify/ and the publish folder) served offline by vigie as Netlify serves it",
    );
  });

  test("an adapter vigie does not know: the dev server, and the note says why", () => {
    const root = site({ "astro.config.mjs": 'import deno from "@deno/astro-adapter";\nexport default { adapter: deno() };\n' });
    const rendering = renderingOf(root);
    assert.equal(rendering.serve, "dev");
    assert.equal(rendering.serveNote, "adapter @deno/astro-adapter is not one vigie knows: pages checked on the dev server");
  });
});
