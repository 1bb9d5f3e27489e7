// js_errors' warm page: consecutive checks share one page (its renderer and compiled scripts
// stay warm), and none sees what an earlier one left: cookies, localStorage, sessionStorage,
// IndexedDB, Cache Storage, service workers, history, or a cached file changed since.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { checkJsErrors } from "../../../src/core/browser/load/jsErrors.ts";
import { BrowserSession, reusableWithoutAsking } from "../../../src/core/browser/session/session.ts";
import { type StaticServer, serveStatic } from "../../../src/core/staticServer.ts";

/** Writes every kind of state a page can leave behind, then tells what it found before writing. */
const STATEFUL = `<!doctype html><title>stateful</title><script type="module">
const found = {
  cookie: document.cookie,
  localStorage: localStorage.length,
  sessionStorage: sessionStorage.length,
  indexedDB: (await indexedDB.databases()).length,
  caches: (await caches.keys()).length,
  serviceWorkers: (await navigator.serviceWorker.getRegistrations()).length,
};
document.cookie = "seen=1; max-age=3600; path=/";
localStorage.setItem("seen", "1");
sessionStorage.setItem("seen", "1");
await new Promise((resolve) => { const open = indexedDB.open("seen"); open.onsuccess = resolve; open.onerror = resolve; });
await (await caches.open("seen")).put("/cached", new Response("x"));
const registration = await navigator.serviceWorker.register("/sw.js");
await navigator.serviceWorker.ready;
window.found = found;
window.written = Boolean(registration);
</script>`;

const FOUND_NOTHING = { cookie: "", localStorage: 0, sessionStorage: 0, indexedDB: 0, caches: 0, serviceWorkers: 0 };

async function visit(page: Page, url: string): Promise<unknown> {
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { written?: boolean }).written === true, undefined, { timeout: 15_000 });
  return page.evaluate(() => (window as unknown as { found: unknown }).found);
}

describe("js_errors' warm page between checks", () => {
  let dir: string;
  let server: StaticServer;
  let other: Server;
  let otherUrl: string;
  let otherBody = "<title>first</title>";
  const session = new BrowserSession({ idleMs: 30_000 });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "vigie-clean-page-"));
    writeFileSync(join(dir, "index.html"), STATEFUL);
    mkdirSync(join(dir, "other"));
    writeFileSync(join(dir, "other", "index.html"), STATEFUL);
    writeFileSync(join(dir, "sw.js"), "self.addEventListener('fetch', () => {});");
    writeFileSync(join(dir, "changing.html"), '<title>first</title><script src="/changing.js"></script>');
    writeFileSync(join(dir, "changing.js"), "document.title += ' one';");
    server = await serveStatic(dir);
    // A server vigie does not run, which lets browsers keep its page for an hour.
    other = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html", "cache-control": "max-age=3600" }).end(otherBody);
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const address = other.address();
    otherUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
  });

  after(async () => {
    await session.close();
    await server?.close();
    other?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("a check finds nothing an earlier check on the same page left, on the same origin or another page of it", async () => {
    const pages = new Set<Page>();
    const first = await session.withCleanPage(async (page) => {
      pages.add(page);
      return visit(page, `${server.url}/`);
    });
    assert.deepEqual(first, FOUND_NOTHING);
    for (const path of ["/", "/other/", "/"]) {
      const found = await session.withCleanPage(async (page) => {
        pages.add(page);
        return visit(page, `${server.url}${path}`);
      });
      assert.deepEqual(found, FOUND_NOTHING, `on ${path}, after a check that wrote everything`);
      // The blank page the warm page waited on is the one entry left before this check's.
      assert.equal(await session.withCleanPage((page) => page.evaluate(() => history.length)), 1);
    }
    // A check right after another takes the second warm page while the first is wiped: two at most, each used again.
    assert.ok(pages.size <= 2, `${pages.size} pages for 4 checks: the warm pages were not used again`);
    assert.equal(session.launches, 1);
  });

  test("a check that went on to another origin: what it wrote on the first one is gone too", async () => {
    const away = server.url.replace("127.0.0.1", "localhost");
    assert.notEqual(away, server.url);
    await session.withCleanPage(async (page) => {
      await visit(page, `${server.url}/`);
      await page.goto(`${away}/changing.html`);
    });
    assert.deepEqual(await session.withCleanPage((page) => visit(page, `${server.url}/`)), FOUND_NOTHING);
  });

  test("a file changed on disk between two checks is what the second check gets", async () => {
    const title = () =>
      session.withCleanPage(async (page) => {
        await page.goto(`${server.url}/changing.html`);
        return page.title();
      });
    assert.equal(await title(), "first one");
    // Same sizes: only the content tells them apart.
    writeFileSync(join(dir, "changing.html"), '<title>other</title><script src="/changing.js"></script>');
    assert.equal(await title(), "other one");
    writeFileSync(join(dir, "changing.js"), "document.title += ' two';");
    assert.equal(await title(), "other two");
  });

  test("a page of another server that allows caching is asked for again at the next check", async () => {
    const title = () =>
      session.withCleanPage(async (page) => {
        await page.goto(otherUrl);
        return page.title();
      });
    assert.equal(await title(), "first");
    otherBody = "<title>fixed</title>";
    assert.equal(await title(), "fixed");
  });

  test("js_errors' findings are each check's own", async () => {
    writeFileSync(join(dir, "throws.html"), "<title>throws</title><script>throw new Error('broken here')</script>");
    writeFileSync(join(dir, "clean.html"), "<title>clean</title><p>fine</p>");
    const broken = await checkJsErrors(session, `${server.url}/throws.html`);
    assert.deepEqual(
      broken.errors.map((error) => error.message),
      ["Uncaught broken here"],
    );
    const clean = await checkJsErrors(session, `${server.url}/clean.html`);
    assert.deepEqual([clean.status, clean.errors, clean.failedRequests], [200, [], []]);
    writeFileSync(join(dir, "throws.html"), "<title>throws</title><script>console.log('fixed')</script>");
    const fixed = await checkJsErrors(session, `${server.url}/throws.html`);
    assert.deepEqual(fixed.errors, [], "the fix is seen at once");
  });
});

test("which responses Chromium could give again without asking the server", () => {
  assert.equal(reusableWithoutAsking(200, { "cache-control": "no-cache", etag: '"x"' }), false);
  assert.equal(reusableWithoutAsking(200, { "cache-control": "max-age=0, must-revalidate" }), false);
  assert.equal(reusableWithoutAsking(200, { "cache-control": "no-store" }), false);
  assert.equal(reusableWithoutAsking(200, {}), false);
  assert.equal(reusableWithoutAsking(200, { "cache-control": "max-age=60" }), true);
  assert.equal(reusableWithoutAsking(200, { "cache-control": "public, max-age=31536000, immutable" }), true);
  assert.equal(reusableWithoutAsking(200, { "last-modified": "Thu, 01 Jan 2026 00:00:00 GMT" }), true, "a heuristic lifetime");
  assert.equal(reusableWithoutAsking(200, { expires: "Thu, 01 Jan 2099 00:00:00 GMT", date: "Thu, 01 Jan 2026 00:00:00 GMT" }), true);
  assert.equal(reusableWithoutAsking(200, { expires: "0" }), false);
  assert.equal(reusableWithoutAsking(301, {}), true, "a permanent redirect");
  assert.equal(reusableWithoutAsking(200, { "cache-control": "no-cache" }, true), true, "a prefetch is reused once unasked");
});
