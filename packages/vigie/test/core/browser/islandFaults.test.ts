// Which island a fault belongs to, and the screens it shows on, on small hand-written pages in
// a real Chromium: a hydration mismatch on a page with several islands names its island, as
// React (after its render), Vue (after an await) and Svelte (a warning, then a new render)
// report one; two islands that could have sent it are both named and the finding is a warning;
// a page with something only a narrow screen shows is checked again on a phone, the others
// are not; and an island's findings never outlive its page.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { VigieError } from "../../../src/core/answer.ts";
import { crawlSite } from "../../../src/core/browser/load/crawl.ts";
import { checkJsErrors } from "../../../src/core/browser/load/jsErrors.ts";
import { pageFaults } from "../../../src/core/browser/page/faults.ts";
import { faultText } from "../../../src/core/browser/page/faultView.ts";
import { differsOnPhone, mediaMatches } from "../../../src/core/browser/page/viewports.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { checksPhone, loadConfig } from "../../../src/core/config.ts";
import { projectAt } from "../../../src/core/project.ts";
import { type PageServer, startPageServer } from "../../support/pages.ts";

const session = new BrowserSession({ idleMs: 5_000 });
let server: PageServer;
let root: string;

/**
 * A stand-in for Astro's `<astro-island>` as Astro writes it: `hydrate` an instance field that
 * imports nothing itself, awaits the renderer's function, then removes `ssr` and dispatches
 * `astro:hydrate`; the renderer is the component module's `hydrate` export.
 */
const ISLAND_RUNTIME = `<script>
class AstroIsland extends HTMLElement {
  hydrate = async () => {
    if (!this.hydrator || !this.isConnected) return;
    await this.hydrator(this)(this.Component, {}, {}, { client: this.getAttribute("client") });
    this.removeAttribute("ssr");
    this.dispatchEvent(new CustomEvent("astro:hydrate"));
  };
  async connectedCallback() {
    const opts = JSON.parse(this.getAttribute("opts"));
    const directive = this.getAttribute("client");
    if (directive === "media" && !matchMedia(opts.value).matches) return;
    const module = await import(this.getAttribute("component-url"));
    this.Component = module.default;
    this.hydrator = module.hydrator;
    try { await this.hydrate(); } catch (error) { console.error("[astro-island] Error hydrating " + this.getAttribute("component-url"), error); }
  }
}
customElements.get("astro-island") || customElements.define("astro-island", AstroIsland);
</script>`;

const island = (name: string, directive = "load", value = "") =>
  `<astro-island uid="${name}" component-url="/src/components/${name}.js" component-export="default" renderer-url="/_astro/client.js" props="{}" ssr client="${directive}" opts='{"name":"${name}","value":"${value}"}'><p>${name} from the server</p></astro-island>`;

/** A page as sites write it, for phones too (a viewport meta). */
const html = (body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>page</title><link rel="icon" href="data:,"></head><body>${body}</body></html>`;

const REACT_418 =
  "Minified React error #418; visit https://react.dev/errors/418?args[]=text for the full message or use the non-minified dev environment for full errors and additional helpful warnings.";

/**
 * The frameworks' own code, which reports a mismatch (its stack names this module, not the
 * island's): React reports after its render, Vue tells after patching, Svelte warns then renders again.
 */
const FRAMEWORK = `export const renderLater = (elements, text) => setTimeout(() => {
  for (const element of elements) element.innerHTML = "<p>rendered in the browser</p>";
  if (text) reportError(new Error(text));
}, 30);
export const error = (text) => console.error(text);
export const warn = (text) => console.warn(text);`;

const framework = (body: string) => `import { renderLater, error, warn } from "/_astro/framework.js";\n${body}`;

/** Component modules: each exports the renderer's function (`hydrator`) as a framework does it. */
const MODULES: Record<string, string> = {
  // React: hydration is scheduled; the render finds the mismatch, renders the island again, then reports it.
  ReactFine: framework("export const hydrator = () => () => { renderLater([]); };"),
  ReactMismatch: framework(`export const hydrator = (element) => () => { renderLater([element], ${JSON.stringify(REACT_418)}); };`),
  // Vue: an await before it mounts; the mismatch is patched, then told.
  VueFine: framework("export const hydrator = () => async () => { await Promise.resolve(); };"),
  VueMismatch: framework(
    'export const hydrator = (element) => async () => { await Promise.resolve(); element.firstElementChild.textContent = "rendered in the browser"; error("Hydration completed but contains mismatches."); };',
  ),
  // Svelte: the warning first, then the island rendered again.
  SvelteMismatch: framework(
    'export const hydrator = (element) => () => { warn("[svelte] hydration_mismatch\\nHydration failed because the initial UI does not match what was rendered on the server"); element.innerHTML = "<p>rendered in the browser</p>"; };',
  ),
  // Two islands that each render again in the same turn, one of which reports a mismatch.
  TwinA: framework(
    `export const hydrator = (element) => () => { renderLater([element, document.querySelector('[uid="TwinB"]')], ${JSON.stringify(REACT_418)}); };`,
  ),
  TwinB: framework("export const hydrator = () => () => {};"),
  // Shown only on narrow screens, and throws there.
  PhoneOnly: 'export const hydrator = () => () => { throw new Error("phone island failed on purpose"); };',
};

const NARROW_CSS = "<style>.menu { display: none } @media (max-width: 640px) { .menu { display: block } }</style>";

before(async () => {
  server = await startPageServer();
  root = mkdtempSync(join(tmpdir(), "vigie-island-faults-"));
  mkdirSync(join(root, "src", "components"), { recursive: true });
  server.routes.set("/_astro/framework.js", { type: "text/javascript", body: FRAMEWORK });
  server.routes.set("/console.js", {
    type: "text/javascript",
    body: 'console.error("written from a script");\nconsole.warn("warned from a script");',
  });
  server.routes.set("/console/", { body: html('<script src="/console.js"></script>') });
  for (const [name, body] of Object.entries(MODULES)) {
    writeFileSync(join(root, "src", "components", `${name}.js`), `${body}\nexport default function ${name}() {}\n`);
    server.routes.set(`/src/components/${name}.js`, { type: "text/javascript", body: `${body}\nexport default function ${name}() {}\n` });
  }
  const page = (...islands: string[]) => ({ body: html(`${ISLAND_RUNTIME}${islands.join("")}`) });
  server.routes.set("/react/", page(island("ReactFine"), island("ReactMismatch"), island("VueFine")));
  server.routes.set("/vue/", page(island("ReactFine"), island("VueMismatch"), island("VueFine")));
  server.routes.set("/svelte/", page(island("VueFine"), island("SvelteMismatch"), island("ReactFine")));
  server.routes.set("/twins/", page(island("TwinA"), island("TwinB")));
  server.routes.set("/phone-island/", page(island("ReactFine"), island("PhoneOnly", "media", "(max-width: 640px)")));
  server.routes.set("/phone-css/", { body: html(`${NARROW_CSS}<nav class="menu"><a href="/">menu</a></nav><p>content</p>`) });
  server.routes.set("/desktop-only/", { body: html("<style>@media print { p { display: none } }</style><p>content</p>") });
  server.routes.set("/swap-from/", {
    body: html(
      `<meta name="astro-view-transitions-enabled" content="true"><script>
document.addEventListener("click", async (event) => {
  const anchor = event.target.closest("a");
  if (!anchor) return;
  event.preventDefault();
  history.pushState({}, "", anchor.href);
  document.body.innerHTML = "<p>no island here</p>";
  document.dispatchEvent(new Event("astro:page-load"));
});
</script>${ISLAND_RUNTIME}${island("ReactFine")}<a href="/swap-to/">next</a>`,
    ),
  });
});

after(async () => {
  await session.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const check = (path: string) => checkJsErrors(session, `${server.url}${path}`, { sourceRoot: root });

describe("a hydration mismatch on a page with several islands names its island", () => {
  for (const [path, name, text] of [
    ["/react/", "ReactMismatch", /React error #418: Hydration failed/],
    ["/vue/", "VueMismatch", /Hydration completed but contains mismatches/],
    ["/svelte/", "SvelteMismatch", /hydration_mismatch/],
  ] as const) {
    test(`${name}: the finding names it and its file`, async () => {
      const findings = await check(path);
      const faults = pageFaults(findings);
      const mismatch = faults.find((fault) => fault.kind === "hydration");
      assert.ok(mismatch, JSON.stringify(findings));
      assert.match(mismatch.message, text);
      assert.equal(mismatch.island, name, JSON.stringify(findings));
      assert.equal(mismatch.unsure, undefined);
      assert.match(JSON.stringify(mismatch.located), new RegExp(`src/components/${name}\\.js`));
      assert.equal(faults.length, 1, JSON.stringify(faults));
    });
  }

  test("two islands that may have sent it: both named, and vigie says it cannot tell (a warning)", async () => {
    const findings = await check("/twins/");
    const [mismatch] = pageFaults(findings);
    assert.equal(mismatch?.kind, "hydration", JSON.stringify(findings));
    assert.equal(mismatch.island, undefined);
    assert.match(faultText(mismatch), /in one of the islands TwinA, TwinB \(vigie cannot tell which\)/);
    assert.ok(mismatch.unsure);
  });
});

describe("the screens readers use", () => {
  test("media queries: on the phone, on the desktop, or vigie cannot tell", () => {
    assert.equal(mediaMatches("(max-width: 640px)", { width: 390, height: 844, touch: true }), true);
    assert.equal(mediaMatches("screen and (min-width: 48em)", { width: 390, height: 844, touch: true }), false);
    assert.equal(mediaMatches("(width <= 640px)", { width: 1280, height: 800, touch: false }), false);
    assert.equal(differsOnPhone("(max-width: 640px)"), true);
    assert.equal(differsOnPhone("(min-width: 2000px)"), false);
    assert.equal(differsOnPhone("print"), false);
    assert.equal(differsOnPhone("(prefers-reduced-motion: reduce)"), false);
    assert.equal(differsOnPhone("(hover: none)"), true);
    assert.equal(differsOnPhone("(min-resolution: 2dppx)"), true);
  });

  test("a client:media island that throws on narrow screens: found on the phone, said so", async () => {
    const result = await crawlSite(session, server.url, { paths: ["/phone-island/"], sourceRoot: root });
    const [page] = result.pages;
    assert.ok(page?.phone, JSON.stringify(page));
    assert.match(page.phone.reason, /client:media island PhoneOnly under \(max-width: 640px\)/);
    const fault = pageFaults(page).find((one) => /phone island failed on purpose/.test(one.message));
    assert.ok(fault, JSON.stringify(page));
    assert.equal(fault.viewport, "phone 390×844");
    assert.match(faultText(fault), /^\(phone 390×844\) /);
    assert.match(JSON.stringify(fault.located), /src\/components\/PhoneOnly\.js/);
    // Checked on the phone: no longer said to be unchecked.
    assert.deepEqual(
      page.islands?.map(({ component, note, viewport }) => ({ component, note, viewport })),
      [
        { component: "ReactFine", note: undefined, viewport: undefined },
        { component: "PhoneOnly", note: "did not hydrate on the phone: its code threw", viewport: "phone" },
      ],
    );
  });

  test("stylesheet rules that show an element on narrow screens: the page is checked on a phone; a page without is not", async () => {
    const result = await crawlSite(session, server.url, { paths: ["/phone-css/", "/desktop-only/"] });
    const byPath = new Map(result.pages.map((page) => [page.path, page]));
    assert.match(byPath.get("/phone-css/")?.phone?.reason ?? "", /\.menu \{display: block\} under \(max-width: 640px\)/);
    assert.equal(byPath.get("/desktop-only/")?.phone, undefined, JSON.stringify(byPath.get("/desktop-only/")));
    assert.deepEqual(
      pageFaults(byPath.get("/phone-css/") ?? { url: "", status: 0, errors: [], warnings: [], failedRequests: [], mermaid: [] }),
      [],
    );
  });

  test("responsive stylesheets on every page: one page per template on the phone; a client:media island's page always", async () => {
    for (const slug of ["a", "b", "c"])
      server.routes.set(`/notes/${slug}/`, { body: html(`${NARROW_CSS}<nav class="menu"><a href="/">menu</a></nav><p>note ${slug}</p>`) });
    const islandPage = server.routes.get("/phone-island/");
    if (islandPage) server.routes.set("/notes/island/", islandPage);
    const result = await crawlSite(session, server.url, {
      paths: ["/notes/a/", "/notes/b/", "/notes/c/", "/notes/island/"],
      concurrency: 1,
    });
    const phoned = result.pages.filter((one) => one.phone).map((one) => one.path);
    assert.deepEqual(phoned, ["/notes/a/", "/notes/island/"], JSON.stringify(result.pages.map((one) => [one.path, one.narrow, one.phone])));
  });

  test("vigie.config.json's viewports: phone by default, turned off by naming desktop alone, a clear error otherwise", () => {
    const load = (viewports: unknown) => {
      const dir = mkdtempSync(join(tmpdir(), "vigie-viewports-"));
      try {
        writeFileSync(join(dir, "package.json"), "{}");
        writeFileSync(join(dir, "vigie.config.json"), JSON.stringify(viewports === undefined ? {} : { viewports }));
        return checksPhone(loadConfig(projectAt(dir)));
      } catch (error) {
        const { message, hint } = error as VigieError;
        return `${message} | ${hint}`;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    assert.equal(load(undefined), true);
    assert.equal(load(["desktop", "phone"]), true);
    assert.equal(load(["desktop"]), false);
    assert.match(String(load(["tablet"])), /^vigie\.config\.json: viewports\.0: a viewport is "desktop" or "phone" \| Fix viewports\.0/);
    assert.match(String(load(["phone"])), /viewports: every page is checked on "desktop"/);
    assert.match(String(load([])), /viewports: name at least "desktop"/);
  });

  test("phone: false leaves every page to the desktop", async () => {
    const result = await crawlSite(session, server.url, { paths: ["/phone-island/"], phone: false });
    assert.equal(result.pages[0]?.phone, undefined);
    assert.deepEqual(pageFaults(result.pages[0] ?? { url: "", status: 0, errors: [], warnings: [], failedRequests: [], mermaid: [] }), []);
  });
});

describe("the watch in the page", () => {
  test("a console error and warning written through it keep the place of the code that wrote them", async () => {
    const findings = await checkJsErrors(session, `${server.url}/console/`, { warnings: true });
    assert.deepEqual(
      findings.errors.map(({ message, at, frames }) => ({ message, at, url: frames[0]?.url.replace(server.url, "") })),
      [{ message: "written from a script", at: "/console.js:1", url: "/console.js" }],
    );
    assert.deepEqual(findings.warnings, ["warned from a script (/console.js:2)"]);
  });
});

describe("one page's findings stay on it", () => {
  test("after a navigation that swaps the page, its islands are those of the page checked", async () => {
    const findings = await checkJsErrors(session, `${server.url}/swap-from/`, { follow: ["/swap-to/"] });
    assert.deepEqual(
      findings.islands?.map(({ component, hydrated }) => ({ component, hydrated })),
      [{ component: "ReactFine", hydrated: true }],
    );
    assert.deepEqual(pageFaults(findings), [], JSON.stringify(findings));
  });
});
