// The dev server pushes every error to every open page (Vite's error overlay): a page check
// counts an overlay only when the error is the page's own (it answered 5xx, a request of its
// own did, or the error's file is one of its modules), and the accessibility audit never
// audits the overlay. Real Chromium, hand-written pages with a stand-in for the overlay.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { auditA11y } from "../../../src/core/browser/a11y/a11y.ts";
import { checkJsErrors } from "../../../src/core/browser/load/jsErrors.ts";
import { pageSummary } from "../../../src/core/browser/page/faultView.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { html, type PageServer, startPageServer } from "../../support/pages.ts";

const session = new BrowserSession({ idleMs: 5_000 });
let server: PageServer;
const ROOT = "/home/someone/site";

/**
 * What the dev server's websocket does: shortly after the load, an overlay for an error at
 * `file`, in low-contrast text. The page loads Vite's client, as every page of a dev server does.
 */
const overlay = (file: string) => `<script type="module" src="/@vite/client"></script><script>
customElements.define("vite-error-overlay", class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: "open" }).innerHTML =
      '<div style="background:#fff"><h2 id="name">Error</h2><p id="message-content" style="color:#ddd">the clock is broken</p><p id="file" style="color:#eee">${file}</p></div>';
  }
});
setTimeout(() => document.body.appendChild(document.createElement("vite-error-overlay")), 100);
</script>`;

before(async () => {
  server = await startPageServer();
  server.routes.set("/@vite/client", { type: "text/javascript", body: "export {};\n" });
  // Another page's error, pushed to this clean page.
  server.routes.set("/clean/", { body: html(`<main><h1>Clean</h1></main>${overlay(`${ROOT}/src/pages/later.astro:3:7`)}`) });
  // An error with no file at all.
  server.routes.set("/no-file/", { body: html(`<main><h1>Clean</h1></main>${overlay("")}`) });
  // The page's own module failed.
  server.routes.set("/src/components/Clock.ts", { type: "text/javascript", body: "export const clock = 1;\n" });
  server.routes.set("/own/", {
    body: html(
      `<main><h1>Own</h1></main><script type="module" src="/src/components/Clock.ts"></script>${overlay(`${ROOT}/src/components/Clock.ts:2:1`)}`,
    ),
  });
  // The page's own render failed.
  server.routes.set("/later/", { status: 500, body: html(`<main><h1>Error</h1></main>${overlay(`${ROOT}/src/pages/later.astro:3:7`)}`) });
});

after(async () => {
  await session.close();
  await server?.close();
});

test("another page's error pushed to a clean page is not that page's fault", async () => {
  for (const path of ["/clean/", "/no-file/"]) {
    const findings = await checkJsErrors(session, `${server.url}${path}`);
    assert.equal(findings.devError, undefined, `${path}: ${JSON.stringify(findings)}`);
    assert.equal(pageSummary(findings), "clean: no error, no failed request", path);
  }
});

test("an error in one of the page's own modules, or a page that answered 500: the dev error page is the page's", async () => {
  const own = await checkJsErrors(session, `${server.url}/own/`);
  assert.deepEqual(own.devError, { name: "Error", message: "the clock is broken", file: `${ROOT}/src/components/Clock.ts:2:1` });
  const failed = await checkJsErrors(session, `${server.url}/later/`);
  assert.equal(failed.status, 500);
  assert.equal(failed.devError?.message, "the clock is broken");
});

test("the accessibility audit leaves the overlay out", async () => {
  const result = await auditA11y(session, `${server.url}/clean/`);
  assert.deepEqual(
    result.violations.filter((violation) => /vite-error-overlay/.test(violation.target)),
    [],
    JSON.stringify(result.violations),
  );
});
