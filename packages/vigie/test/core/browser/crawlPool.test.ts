// The crawl's workers on the core's pool: pages found as links are followed by the workers left
// idle, each page is loaded once, and the page limit holds. Real Chromium, hand-written pages.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { crawlSite } from "../../../src/core/browser/load/crawl.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { html, type PageServer, startPageServer } from "../../support/pages.ts";

const session = new BrowserSession({ idleMs: 5_000 });
let server: PageServer;

/** A tree of pages: "/" links to /p0/../p3/, each of them to four pages of its own. */
const tree = ["/", ...[0, 1, 2, 3].flatMap((i) => [`/p${i}/`, ...[0, 1, 2, 3].map((j) => `/p${i}/q${j}/`)])];

before(async () => {
  server = await startPageServer();
  for (const path of tree) {
    const children = tree.filter((other) => other !== path && other.startsWith(path) && other.slice(path.length).split("/").length === 2);
    server.routes.set(path, { body: html(`<main>${children.map((child) => `<a href="${child}">${child}</a>`).join(" ")}</main>`) });
  }
});

after(async () => {
  await session.close();
  await server?.close();
});

test("links found along the way are loaded by four workers, each page once", async () => {
  const result = await crawlSite(session, server.url, { concurrency: 4, navigate: false });
  assert.equal(result.source, "links");
  assert.deepEqual(
    result.pages.map((page) => page.path),
    [...tree].sort(),
  );
  assert.ok(
    result.pages.every((page) => page.status === 200),
    JSON.stringify(result.pages.map((page) => page.status)),
  );
});

test("the page limit holds with four workers", async () => {
  const result = await crawlSite(session, server.url, { concurrency: 4, navigate: false, maxPages: 7 });
  assert.equal(result.pages.length, 7);
  assert.equal(new Set(result.pages.map((page) => page.path)).size, 7);
});
