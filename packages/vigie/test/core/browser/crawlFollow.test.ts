// A crawl of a site with a sitemap: the sitemap's pages are loaded as listed (the link check
// reads their links in the build), and the links of the pages rendered on demand (the paths
// given besides the sitemap's) are followed, so that a missing page they link to is loaded and
// named with the page that links to it. Real Chromium, hand-written pages.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { crawlSite } from "../../../src/core/browser/load/crawl.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { html, type PageServer, startPageServer } from "../../support/pages.ts";

const session = new BrowserSession({ idleMs: 5_000 });
let server: PageServer;

before(async () => {
  server = await startPageServer();
  server.routes.set("/sitemap.xml", {
    type: "application/xml",
    body: '<?xml version="1.0"?><urlset><url><loc>https://example.com/a/</loc></url></urlset>',
  });
  server.routes.set("/a/", { body: html('<main><a href="/b/">b</a></main>') });
  server.routes.set("/b/", { body: html("<main>b</main>") });
  server.routes.set("/live/", { body: html('<main><a href="/gone/">gone</a></main>') });
});

after(async () => {
  await session.close();
  await server?.close();
});

test("with a sitemap, the links of the on-demand pages are followed; the sitemap's pages' are not", async () => {
  const result = await crawlSite(session, server.url, { alsoPaths: ["/live/"], navigate: false });
  assert.equal(result.source, "sitemap");
  assert.deepEqual(
    result.pages.map(({ path, status, linkedFrom }) => ({ path, status, ...(linkedFrom ? { linkedFrom } : {}) })),
    [
      { path: "/a/", status: 200 },
      { path: "/gone/", status: 404, linkedFrom: "/live/" },
      { path: "/live/", status: 200 },
    ],
  );
});
