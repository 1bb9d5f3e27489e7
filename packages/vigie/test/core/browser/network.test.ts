// This machine's network is not the site's fault. In a real Chromium whose resolver maps
// `cdn.vigie.test` to a local server and `down.vigie.test` to a closed port: requests that
// never reach a host are set aside and the crawl names the host once; an HTTP 404 from another
// host and a host name that does not exist while another host answered (a typo) stay
// findings; `network: offline` blocks other hosts; "judge" judges everything.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { crawlSite } from "../../../src/core/browser/load/crawl.ts";
import { hasFaults, type PageFindings } from "../../../src/core/browser/page/findings.ts";
import { NetworkView, unreachedNote } from "../../../src/core/browser/page/network.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { freePort } from "../../../src/core/process/group.ts";
import { type PageServer, startPageServer } from "../../support/pages.ts";

const html = (body: string) =>
  `<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1>${body}</main></body></html>`;

describe("requests to other hosts, judged by what this machine can reach", () => {
  let server: PageServer;
  let session: BrowserSession;

  before(async () => {
    server = await startPageServer();
    const closed = await freePort();
    session = new BrowserSession({
      args: [`--host-resolver-rules=MAP cdn.vigie.test 127.0.0.1:${server.port}, MAP down.vigie.test 127.0.0.1:${closed}`],
    });
    server.routes.set("/unreached/", {
      body: html(
        '<img src="http://down.vigie.test/photo.png" alt="p"><script>fetch("http://down.vigie.test/api/stars").then((r) => r.json())</script>',
      ),
    });
    server.routes.set("/mixed/", {
      body: html('<img src="http://cdn.vigie.test/missing.png" alt="m"><img src="http://imgaes.invalid/typo.png" alt="t">'),
    });
    server.routes.set("/cdn/", { body: html('<img src="http://cdn.vigie.test/logo.png" alt="l">') });
    server.routes.set("/logo.png", { body: "png", type: "image/png" });
  });

  after(async () => {
    await session?.close();
    await server?.close();
  });

  const crawl = (paths: string[], networkPolicy?: "auto" | "judge" | "ignore" | "offline") =>
    crawlSite(session, server.url, { paths, navigate: false, phone: false, ...(networkPolicy ? { networkPolicy } : {}) });
  const page = (pages: PageFindings[], path: string) => pages.find((p) => new URL(p.url).pathname === path) as PageFindings;

  test("a host this machine cannot reach: no fault, the host named once; a 404 and a typo'd host stay findings", async () => {
    const result = await crawl(["/unreached/", "/mixed/"]);
    const unreached = page(result.pages, "/unreached/");
    assert.equal(hasFaults(unreached), false, JSON.stringify(unreached));
    assert.deepEqual(
      result.unreached?.map(({ host, requests, pages }) => [host, requests, pages]),
      [["down.vigie.test", 2, 1]],
    );
    assert.equal(unreachedNote(result.unreached ?? []), "not judged: this machine cannot reach down.vigie.test (2 requests on 1 page)");
    // The 404 is the other host's answer; the name that does not exist is a typo (cdn.vigie.test answered).
    const mixed = page(result.pages, "/mixed/");
    assert.deepEqual(mixed.failedRequests.map((failed) => [failed.url, failed.status ?? failed.reason]).sort(), [
      ["http://cdn.vigie.test/missing.png", 404],
      ["http://imgaes.invalid/typo.png", "net::ERR_NAME_NOT_RESOLVED"],
    ]);
  });

  test('"judge": every failure is a finding; "offline": other hosts are blocked, and said so', async () => {
    const judged = await crawl(["/unreached/"], "judge");
    assert.equal(page(judged.pages, "/unreached/").failedRequests.length, 2);
    assert.equal(judged.unreached, undefined);
    const offline = await crawl(["/cdn/"], "offline");
    const cdn = page(offline.pages, "/cdn/");
    assert.equal(hasFaults(cdn), false, JSON.stringify(cdn));
    assert.equal(
      unreachedNote(offline.unreached ?? [], offline.network),
      "not judged: blocked (network: offline) cdn.vigie.test (1 request on 1 page)",
    );
    // And the same page, online: the logo loads.
    const online = await crawl(["/cdn/"]);
    assert.equal(hasFaults(page(online.pages, "/cdn/")), false);
    assert.equal(online.unreached, undefined);
  });
});

describe("a name that does not resolve, judged by whether this machine resolves public names", () => {
  const typo = (): PageFindings => ({
    url: "http://127.0.0.1:4321/",
    status: 200,
    errors: [],
    warnings: [],
    mermaid: [],
    failedRequests: [{ url: "https://images.unsplash.com/photo.jpg", reason: "net::ERR_NAME_NOT_RESOLVED", type: "image" }],
  });

  test("no public name resolves here (a sandbox): set aside", async () => {
    const pages = [typo()];
    const unreached = await new NetworkView("auto", async () => false).judge(pages, "127.0.0.1");
    assert.equal(pages[0]?.failedRequests.length, 0);
    assert.deepEqual(
      unreached.map((u) => u.host),
      ["images.unsplash.com"],
    );
  });

  test("public names resolve here: a name that does not exist is the URL's fault", async () => {
    const pages = [typo()];
    const unreached = await new NetworkView("auto", async () => true).judge(pages, "127.0.0.1");
    assert.equal(pages[0]?.failedRequests.length, 1);
    assert.deepEqual(unreached, []);
  });

  test('"ignore" sets every network failure aside; the site\'s own host and loopback are never set aside', async () => {
    const pages = [typo()];
    pages[0]?.failedRequests.push(
      { url: "http://127.0.0.1:9/api", reason: "net::ERR_CONNECTION_REFUSED", type: "fetch" },
      { url: "https://example.org/x.js", reason: "net::ERR_CONNECTION_REFUSED", type: "script" },
    );
    await new NetworkView("ignore", async () => true).judge(pages, "example.org");
    assert.deepEqual(
      pages[0]?.failedRequests.map((failed) => failed.url),
      ["http://127.0.0.1:9/api", "https://example.org/x.js"],
    );
  });

  test("before the judgement, a page whose only faults may be set aside is not counted as failing (a crawl's progress)", () => {
    const view = new NetworkView("auto", async () => false);
    assert.equal(view.mayExplainAll(typo(), "127.0.0.1"), true);
    const fetched = { ...typo(), errors: [{ message: "Uncaught (in promise) TypeError: Failed to fetch", count: 1, frames: [] }] };
    fetched.failedRequests[0] = { url: "https://api.github.com/repos/x", reason: "net::ERR_NAME_NOT_RESOLVED", type: "fetch" };
    assert.equal(view.mayExplainAll(fetched, "127.0.0.1"), true);
    assert.equal(
      view.mayExplainAll({ ...typo(), errors: [{ message: "Uncaught TypeError: x is undefined", count: 1, frames: [] }] }, "127.0.0.1"),
      false,
    );
    assert.equal(view.mayExplainAll({ ...typo(), status: 500 }, "127.0.0.1"), false);
    assert.equal(view.mayExplainAll(typo(), "images.unsplash.com"), false, "the site's own host is never set aside");
    assert.equal(new NetworkView("judge").mayExplainAll(typo(), "127.0.0.1"), false);
  });
});
