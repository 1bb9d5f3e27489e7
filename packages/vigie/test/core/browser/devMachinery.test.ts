// The dev server's own work is not the site's: Vite's `504 Outdated Optimize Dep` while it
// re-optimises dependencies, the failed dynamic imports that follow, and the dev toolbar's
// modules. The classifier over recorded findings, then real Chromium on a stand-in for a cold
// dev server (a page whose dependencies answer 504 until Vite has re-optimised them): the page
// is checked again once, clean, and says why; a real fault on such a page stays a fault.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { checkJsErrors } from "../../../src/core/browser/load/jsErrors.ts";
import { REOPTIMISED, setMachineryApart } from "../../../src/core/browser/page/devMachinery.ts";
import type { PageFindings } from "../../../src/core/browser/page/findings.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { html } from "../../support/pages.ts";

const ORIGIN = "http://127.0.0.1:4321";

const findings = (extra: Partial<PageFindings>): PageFindings => ({
  url: `${ORIGIN}/`,
  status: 200,
  errors: [],
  warnings: [],
  failedRequests: [],
  mermaid: [],
  ...extra,
});

const dev = (outdated: string[] = []) => ({ viteClient: true, outdated: new Set(outdated) });

describe("setMachineryApart", () => {
  test("a 504 of an outdated optimisation and the failed import after it are the dev server's, and ask for a reload", () => {
    const deps = `${ORIGIN}/node_modules/.vite/deps/preact.js?v=1a2b3c4d`;
    const sorted = setMachineryApart(
      findings({
        failedRequests: [{ url: deps, status: 504, type: "script" }],
        errors: [{ message: `Uncaught TypeError: Failed to fetch dynamically imported module: ${deps}`, count: 1, frames: [] }],
      }),
      dev([deps]),
    );
    assert.deepEqual(sorted.findings.failedRequests, []);
    assert.deepEqual(sorted.findings.errors, []);
    assert.equal(sorted.machinery, 2);
    assert.equal(sorted.reoptimised, true);
  });

  test("the dev toolbar's modules are the dev server's, whatever failed, with no reload", () => {
    const sorted = setMachineryApart(
      findings({
        failedRequests: [
          { url: `${ORIGIN}/@id/astro/runtime/client/dev-toolbar/entrypoint.js`, reason: "net::ERR_ABORTED", type: "script" },
          { url: `${ORIGIN}/node_modules/astro/dist/runtime/client/dev-toolbar/apps/audit/index.js`, status: 404, type: "script" },
        ],
        errors: [
          {
            message: "Uncaught TypeError: x is undefined",
            at: "/node_modules/astro/dist/runtime/client/dev-toolbar/toolbar.js:12:3",
            count: 1,
            frames: [],
          },
        ],
      }),
      dev(),
    );
    assert.equal(sorted.machinery, 3);
    assert.equal(sorted.reoptimised, false);
    assert.deepEqual(sorted.findings.errors, []);
  });

  test("the site's own faults stay, on a dev server too", () => {
    const own = findings({
      failedRequests: [{ url: `${ORIGIN}/images/missing.png`, status: 404, type: "image" }],
      errors: [
        { message: "Uncaught Error: the counter broke", at: "/src/components/Counter.tsx:4:9", count: 1, frames: [] },
        { message: `Uncaught TypeError: Failed to fetch dynamically imported module: ${ORIGIN}/src/lib/gone.ts`, count: 1, frames: [] },
      ],
    });
    const sorted = setMachineryApart(own, dev());
    assert.deepEqual(sorted.findings, own);
    assert.equal(sorted.reoptimised, false);
  });

  test("a page no dev server served keeps its 504s and failed imports", () => {
    const built = findings({
      failedRequests: [{ url: `${ORIGIN}/_astro/client.js`, status: 504, type: "script" }],
      errors: [{ message: `Uncaught TypeError: Failed to fetch dynamically imported module: ${ORIGIN}/_astro/x.js`, count: 1, frames: [] }],
    });
    const sorted = setMachineryApart(built, { viteClient: false, outdated: new Set([`${ORIGIN}/_astro/client.js`]) });
    assert.deepEqual(sorted.findings, built);
    assert.equal(sorted.reoptimised, false);
  });
});

/**
 * A stand-in for a cold dev server: Vite's client, the dev toolbar's entry and an optimised
 * dependency that answer `504 Outdated Optimize Dep` until the first 504 has been sent (Vite
 * has then re-optimised: the page loaded again gets them).
 */
let server: Server;
let url = "";
let reoptimised = false;
const session = new BrowserSession({ idleMs: 5_000 });

const page = (island: string) =>
  html(`<main><h1>Docs</h1><p id="out"></p></main>
<script type="module" src="/@vite/client"></script>
<script type="module">import("/@id/astro/runtime/client/dev-toolbar/entrypoint.js");</script>
<script type="module">${island}</script>`);

before(async () => {
  server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    const module = (body: string) => response.writeHead(200, { "content-type": "text/javascript" }).end(body);
    if (path === "/@vite/client") return module("export {};\n");
    if (path === "/@id/astro/runtime/client/dev-toolbar/entrypoint.js" || path === "/node_modules/.vite/deps/preact.js") {
      if (!reoptimised) {
        // Vite answers the modules of the optimisation it is replacing so, until the page reloads.
        setTimeout(() => {
          reoptimised = true;
        }, 200);
        return response.writeHead(504, "Outdated Optimize Dep", { "content-type": "text/plain" }).end();
      }
      return module("export const h = () => 'hydrated';\n");
    }
    if (path === "/clean/")
      return response
        .writeHead(200, { "content-type": "text/html" })
        .end(
          page(
            `const { h } = await import("/node_modules/.vite/deps/preact.js?v=1a2b"); document.getElementById("out").textContent = h();`,
          ),
        );
    if (path === "/broken/")
      return response
        .writeHead(200, { "content-type": "text/html" })
        .end(page(`await import("/node_modules/.vite/deps/preact.js?v=1a2b"); throw new Error("the island broke");`));
    response.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  url = `http://127.0.0.1:${address.port}`;
});

after(async () => {
  await session.close();
  server.closeAllConnections();
  server.close();
});

test("a page that met a re-optimisation is checked again once Vite settled: clean, and says why", async () => {
  reoptimised = false;
  const seen = await checkJsErrors(session, `${url}/clean/`);
  assert.deepEqual(seen.errors, [], JSON.stringify(seen.errors));
  assert.deepEqual(seen.failedRequests, [], JSON.stringify(seen.failedRequests));
  assert.equal(seen.reloaded, REOPTIMISED);
});

test("a warm dev server: no reload, nothing to say", async () => {
  const seen = await checkJsErrors(session, `${url}/clean/`);
  assert.deepEqual(seen.errors, []);
  assert.equal(seen.reloaded, undefined);
});

test("the site's own fault on a page that met a re-optimisation stays a fault", async () => {
  reoptimised = false;
  const seen = await checkJsErrors(session, `${url}/broken/`);
  assert.equal(seen.errors.length, 1, JSON.stringify(seen.errors));
  assert.match(seen.errors[0]?.message ?? "", /the island broke/);
  assert.deepEqual(seen.failedRequests, []);
  assert.equal(seen.reloaded, REOPTIMISED);
});
