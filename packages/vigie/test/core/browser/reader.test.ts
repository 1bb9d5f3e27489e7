// A page check reads the page as a reader does, on small hand-written pages in a real
// Chromium: islands below the fold hydrate once scrolled to, idle islands are waited for,
// a media island the viewport does not match is said to be unchecked, an island's error
// names the island, and the browser's own favicon request is never the page's fault.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { crawlSite } from "../../../src/core/browser/load/crawl.ts";
import { checkJsErrors } from "../../../src/core/browser/load/jsErrors.ts";
import { pageFaults } from "../../../src/core/browser/page/faults.ts";
import { faultText, pageSummary } from "../../../src/core/browser/page/faultView.ts";
import type { CheckOptions } from "../../../src/core/browser/page/findings.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { html, type PageServer, startPageServer } from "../../support/pages.ts";

const session = new BrowserSession({ idleMs: 5_000 });
let server: PageServer;
let root: string;

/**
 * A stand-in for Astro's `<astro-island>`: the same attributes, the same directives (load,
 * idle, visible, media), the component's module imported then called, and `ssr` removed
 * once it has hydrated.
 */
const ISLAND_RUNTIME = `<script>
customElements.define("astro-island", class extends HTMLElement {
  connectedCallback() {
    const start = async () => {
      const module = await import(this.getAttribute("component-url"));
      module.default(this);
      this.removeAttribute("ssr");
    };
    const directive = this.getAttribute("client");
    const opts = JSON.parse(this.getAttribute("opts"));
    if (directive === "load") start();
    else if (directive === "idle") requestIdleCallback(start);
    else if (directive === "media") { if (matchMedia(opts.value).matches) start(); }
    else if (directive === "visible") {
      const seen = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) { seen.disconnect(); start(); }
      });
      seen.observe(this);
    }
  }
});
</script>`;

const island = (name: string, directive: string, value = "") =>
  `<astro-island uid="${name}" component-url="/src/components/${name}.tsx" component-export="default" renderer-url="/@id/@astrojs/react/client.js" props="{}" ssr client="${directive}" opts='{"name":"${name}","value":"${value}"}'><p>${name}</p></astro-island>`;

/** A stand-in for `<ClientRouter />`: in-site clicks fetch the page and swap its body, then `astro:page-load`. */
const ROUTER = `<meta name="astro-view-transitions-enabled" content="true"><script>
document.addEventListener("click", async (event) => {
  const anchor = event.target.closest("a");
  if (!anchor || new URL(anchor.href).origin !== location.origin) return;
  event.preventDefault();
  const text = await (await fetch(anchor.href)).text();
  history.pushState({}, "", anchor.href);
  document.body.replaceWith(new DOMParser().parseFromString(text, "text/html").body);
  document.dispatchEvent(new Event("astro:page-load"));
});
document.addEventListener("astro:page-load", () => {
  if (location.pathname === "/two/") throw new Error("second page failed on purpose");
});
</script>`;

const module = (body: string) => ({ type: "text/javascript", body: `export default function (element) { ${body} }` });
const below = (content: string) => `<div style="height: 3000px">tall</div>${content}`;

before(async () => {
  server = await startPageServer();
  root = mkdtempSync(join(tmpdir(), "vigie-reader-"));
  mkdirSync(join(root, "src", "components"), { recursive: true });
  for (const name of ["Fine", "Idle", "Wide", "Thrower", "Mismatch"]) writeFileSync(join(root, "src", "components", `${name}.tsx`), "x\n");
  server.routes.set("/src/components/Fine.tsx", module("element.dataset.ok = '1';"));
  server.routes.set("/src/components/Idle.tsx", module("element.dataset.ok = '1';"));
  server.routes.set("/src/components/Wide.tsx", module("element.dataset.ok = '1';"));
  server.routes.set("/src/components/Thrower.tsx", module('throw new Error("visible island failed on purpose");'));
  server.routes.set(
    "/src/components/Mismatch.tsx",
    module(
      'console.error("Minified React error #418; visit https://react.dev/errors/418?args[]=text for the full message or use the non-minified dev environment for full errors and additional helpful warnings.");',
    ),
  );
  server.routes.set("/clean/", { body: html(`${ISLAND_RUNTIME}${island("Idle", "idle")}${below(island("Fine", "visible"))}`) });
  server.routes.set("/visible-throws/", { body: html(`${ISLAND_RUNTIME}${below(island("Thrower", "visible"))}`) });
  server.routes.set("/media/", { body: html(`${ISLAND_RUNTIME}${island("Wide", "media", "(max-width: 400px)")}`) });
  server.routes.set("/mismatch/", { body: html(`${ISLAND_RUNTIME}${island("Mismatch", "load")}`) });
  server.routes.set("/never/", { body: html(`${ISLAND_RUNTIME}${island("Missing", "load")}`) });
  server.routes.set("/one/", { body: html(`${ROUTER}<a href="/two/">two</a>`) });
  server.routes.set("/two/", { body: html(`${ROUTER}<p>two</p>`) });
  // A link the router lets the browser load in full (Astro's data-astro-reload; a page without the router).
  server.routes.set("/full/", {
    body: html(
      `${ROUTER.replace('const anchor = event.target.closest("a");', 'const anchor = event.target.closest("a:not([data-astro-reload])");')}<a href="/plain/" data-astro-reload>plain</a>`,
    ),
  });
  server.routes.set("/plain/", { body: html("<p>plain</p>") });
  // A page that reloads itself in place on the first click, as a dev server's page does when it re-optimised its dependencies.
  const reloadOnce = `<script>document.addEventListener("click", (event) => { if (sessionStorage.getItem("reloaded")) return; sessionStorage.setItem("reloaded", "1"); event.preventDefault(); event.stopImmediatePropagation(); location.reload(); }, true);</script>`;
  server.routes.set("/reloads/", { body: html(`${reloadOnce}${ROUTER}<a href="/dest/">dest</a>`) });
  server.routes.set("/dest/", { body: html(`${ROUTER}<p>dest</p>`) });
  // Below the fold, what reacts to the reader's scrolling: an element observed for visibility
  // (not an island) that then asks for a file that is missing, and a scroll listener that throws.
  server.routes.set("/observed/", {
    body: html(
      `${below('<p id="late">late</p>')}<script>new IntersectionObserver((entries, seen) => { if (entries.some((entry) => entry.isIntersecting)) { seen.disconnect(); fetch("/missing-when-seen.json"); } }).observe(document.getElementById("late"));</script>`,
    ),
  });
  // Far below the fold: further than the distance at which Chromium loads a lazy image by itself.
  server.routes.set("/lazy/", {
    body: html('<div style="height: 9000px">tall</div><img loading="lazy" src="/missing-lazy.png" alt="late" width="10" height="10">'),
  });
  server.routes.set("/scroll-listener/", {
    body: html(
      `${below("<p>end</p>")}<script>addEventListener("scroll", () => { if (scrollY > 1000) throw new Error("scroll handler failed on purpose"); });</script>`,
    ),
  });
  // A tall page with nothing that reacts to scrolling: it is not scrolled (it would say so).
  server.routes.set("/still/", {
    body: html(
      `${below("<p>end</p>")}<script>setInterval(() => { if (scrollY > 0) console.error("the page was scrolled"); }, 5);</script>`,
    ),
  });
  // No <link rel="icon">: Chromium asks for /favicon.ico itself (a 404 here).
  server.routes.set("/bare/", {
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title></head><body><p>bare</p></body></html>`,
  });
});

after(async () => {
  await session.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const check = (path: string, options: CheckOptions = {}) =>
  checkJsErrors(session, `${server.url}${path}`, { sourceRoot: root, ...options });

describe("a page read as a reader reads it", () => {
  test("idle and below-the-fold visible islands hydrate: the page is clean and its islands are listed", async () => {
    const findings = await check("/clean/");
    assert.equal(pageSummary(findings), "clean: no error, no failed request", JSON.stringify(findings));
    assert.deepEqual(
      findings.islands?.map(({ component, framework, directive, hydrated }) => ({ component, framework, directive, hydrated })),
      [
        { component: "Idle", framework: "react", directive: "idle", hydrated: true },
        { component: "Fine", framework: "react", directive: "visible", hydrated: true },
      ],
    );
  });

  test("a visible island below the fold that throws: an error naming the island and its component's file", async () => {
    const findings = await check("/visible-throws/");
    const [fault] = pageFaults(findings).filter((one) => one.kind === "error");
    assert.ok(fault, JSON.stringify(findings));
    assert.match(fault.message, /visible island failed on purpose/);
    assert.equal(fault.island, "Thrower");
    assert.match(JSON.stringify(fault.located), /src\/components\/Thrower\.tsx/);
  });

  test("a media island the viewport does not match: not a fault, said to be unchecked", async () => {
    const findings = await check("/media/");
    assert.equal(pageSummary(findings), "clean: no error, no failed request");
    assert.match(findings.islands?.[0]?.note ?? "", /\(max-width: 400px\) does not match the 1280×720 viewport/);
  });

  test("a hydration mismatch is told as such, React's code decoded, with the island's file", async () => {
    const findings = await check("/mismatch/");
    const [fault] = pageFaults(findings);
    assert.equal(fault?.kind, "hydration", JSON.stringify(findings));
    assert.match(fault?.message ?? "", /React error #418: Hydration failed because the server rendered HTML didn't match the client/);
    assert.equal(fault?.island, "Mismatch");
    assert.match(pageSummary(findings), /1 hydration mismatch/);
  });

  test("an island that never hydrates is a fault with its reason and its component's file", async () => {
    const findings = await check("/never/");
    const island = pageFaults(findings).find((one) => one.kind === "island");
    assert.ok(island, JSON.stringify(findings));
    assert.match(island.message, /island Missing \(react, client:load\)/);
  });
});

describe("scrolling only where something reacts to it", () => {
  test("an element observed for visibility below the fold is scrolled to: its missing file is found", async () => {
    const findings = await check("/observed/");
    assert.deepEqual(
      findings.failedRequests.map(({ url, status }) => ({ path: new URL(url).pathname, status })),
      [{ path: "/missing-when-seen.json", status: 404 }],
      JSON.stringify(findings),
    );
  });

  test("a lazy image below the fold is brought into view: its 404 is found", async () => {
    const findings = await check("/lazy/");
    assert.deepEqual(
      findings.failedRequests.map(({ url, status }) => ({ path: new URL(url).pathname, status })),
      [{ path: "/missing-lazy.png", status: 404 }],
      JSON.stringify(findings),
    );
  });

  test("a scroll listener is scrolled for: its error is found", async () => {
    const findings = await check("/scroll-listener/");
    assert.match(findings.errors.map(({ message }) => message).join("\n"), /scroll handler failed on purpose/, JSON.stringify(findings));
  });

  test("a tall page on which nothing reacts to scrolling is not scrolled", async () => {
    const findings = await check("/still/");
    assert.equal(pageSummary(findings), "clean: no error, no failed request", JSON.stringify(findings));
  });
});

describe("in-site navigations (a site with <ClientRouter />)", () => {
  test("an error after a navigation is told as such, from → to; the page alone is clean", async () => {
    assert.equal(pageSummary(await check("/one/")), "clean: no error, no failed request");
    const findings = await check("/one/", { follow: ["/two/"] });
    assert.deepEqual(findings.navigations, [{ from: "/one/", to: "/two/", swapped: true }]);
    const [fault] = pageFaults(findings);
    assert.ok(fault, JSON.stringify(findings));
    assert.equal(fault.after, "/one/ → /two/");
    assert.match(faultText(fault), /^after \/one\/ → \/two\/: Uncaught second page failed on purpose/);
  });

  test("a link the router leaves to the browser loads the next page in full: a navigation, not a fault", async () => {
    const findings = await check("/full/", { follow: ["/plain/"] });
    assert.deepEqual(findings.navigations, [{ from: "/full/", to: "/plain/", swapped: false }], JSON.stringify(findings));
    assert.equal(pageSummary(findings), "clean: no error, no failed request", JSON.stringify(findings));
  });

  test("a page that reloads itself in place as the link is clicked: the link is followed once more", async () => {
    const findings = await check("/reloads/", { follow: ["/dest/"] });
    assert.deepEqual(findings.navigations, [{ from: "/reloads/", to: "/dest/", swapped: true }], JSON.stringify(findings));
    assert.equal(pageSummary(findings), "clean: no error, no failed request", JSON.stringify(findings));
  });

  test("a crawl follows the first in-site link of the first page of each kind", async () => {
    const result = await crawlSite(session, server.url, { paths: ["/one/"], sourceRoot: root });
    const [page] = result.pages;
    assert.ok(page);
    assert.deepEqual(page.navigations, [{ from: "/one/", to: "/two/", swapped: true }]);
    const [fault] = pageFaults(page);
    assert.ok(fault, JSON.stringify(page));
    assert.match(faultText(fault), /after \/one\/ → \/two\//);
  });
});

describe("the browser's own favicon request", () => {
  test("is not a fault of a page that declares no icon, whichever page came before", async () => {
    for (const path of ["/bare/", "/bare/", "/clean/", "/bare/"]) {
      const findings = await check(path);
      assert.deepEqual(findings.failedRequests, [], `${path}: ${JSON.stringify(findings.failedRequests)}`);
      assert.deepEqual(findings.errors, [], `${path}: ${JSON.stringify(findings.errors)}`);
    }
  });
});
