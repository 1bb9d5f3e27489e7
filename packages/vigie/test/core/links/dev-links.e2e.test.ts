// The link check on the dev server, on a built copy of the blog with its real dev server: the
// clean pages have no broken link; after an edit to an article, its page rendered by the dev
// server has exactly the missing page and the missing #fragment, with their source lines, while
// a link to a page made since the build (in no build) holds because the dev server answers it.
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readSite, type Site } from "../../../src/core/astro/site.ts";
import { startDevServer, stopDevServer } from "../../../src/core/devServer/index.ts";
import { checkDevLinks } from "../../../src/core/links/devLinks.ts";
import { appendBlock } from "../../support/articles.ts";
import { type BlogCopy, buildBlog, copyBlog } from "../../support/blog.ts";
import { freePort, killEverythingIn, waitFor } from "../devServer/helpers.ts";

const ARTICLE = "src/content/articles/en/orphan-dev-servers.mdx";
const ARTICLE_PAGE = "/en/articles/orphan-dev-servers/";
const FRESH = "src/pages/fresh.astro";
const MISSING_PAGE = "/en/articles/no-such-page/";
const MISSING_ID = "/en/articles/checking-links-in-a-build/#no-such-id";

describe("checkDevLinks on the blog's dev server", { timeout: 600_000 }, () => {
  let copy: BlogCopy;
  let site: Site;
  let origin = "";
  const get = (path: string) => fetch(`${origin}${path}`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined);

  before(async () => {
    copy = copyBlog("dev-links");
    await buildBlog(copy.root);
    site = readSite(copy);
    const started = await startDevServer(site, { port: await freePort(), timeoutMs: 120_000 });
    if (started.kind !== "started") throw new Error(`the dev server did not start: ${JSON.stringify(started)}`);
    origin = `http://127.0.0.1:${started.port}`;
  });

  after(async () => {
    try {
      await stopDevServer(copy);
    } finally {
      killEverythingIn(copy);
      copy.remove();
    }
  });

  test("the clean pages: links checked, none broken", async () => {
    const result = await checkDevLinks(site, origin, ["/", "/en/", ARTICLE_PAGE, "/articles/serveurs-de-dev-orphelins/"]);
    assert.equal(result.pages, 4, JSON.stringify(result));
    assert.ok(result.checked > 20, `checked: ${result.checked}`);
    assert.deepEqual(result.broken, []);
    console.log(`clean: ${result.checked} links on ${result.pages} pages, ${result.durationMs} ms`);
  });

  test("an edited article: the missing page and #fragment with their source lines; a page made since the build holds", async () => {
    const original = readFileSync(join(copy.root, ARTICLE), "utf8");
    try {
      // The new page first, so that the dev server knows its route before the article links to it.
      writeFileSync(join(copy.root, FRESH), "<html><body><h1>Fresh</h1></body></html>\n");
      await waitFor("the dev server to serve /fresh/", async () => ((await get("/fresh/"))?.status === 200 ? true : undefined));
      const lines = new Map([
        [MISSING_PAGE, appendBlock(copy.root, ARTICLE, `See [a missing article](${MISSING_PAGE}).`)],
        [MISSING_ID, appendBlock(copy.root, ARTICLE, `See [a missing section](${MISSING_ID}).`)],
      ]);
      appendBlock(copy.root, ARTICLE, "See [the fresh page](/fresh/).");
      await waitFor("the dev server to render the new links", async () => {
        const html = await (await get(ARTICLE_PAGE))?.text();
        return html?.includes('href="/fresh/"') && html.includes("no-such-page") && html.includes("no-such-id") ? true : undefined;
      });
      const result = await checkDevLinks(site, origin, [ARTICLE_PAGE]);
      assert.deepEqual(result.broken.map((link) => link.to).sort(), [...lines.keys()].sort(), JSON.stringify(result.broken));
      for (const link of result.broken) {
        assert.equal(link.from, ARTICLE_PAGE);
        assert.equal(link.source, `${ARTICLE}:${lines.get(link.to)}`);
        assert.equal(link.pages, 1);
      }
      const reasons = Object.fromEntries(result.broken.map((link) => [link.to, link.reason]));
      assert.equal(reasons[MISSING_PAGE], `${MISSING_PAGE} not found (the dev server answered 404)`);
      assert.equal(reasons[MISSING_ID], 'no id="no-such-id" on /en/articles/checking-links-in-a-build/');
      console.log(`edited: ${result.checked} links, ${result.durationMs} ms`);
    } finally {
      writeFileSync(join(copy.root, ARTICLE), original);
      rmSync(join(copy.root, FRESH), { force: true });
    }
  });
});
