// The perf rules, from measures written by hand: each cause names its element and the fix; a
// page with nothing wrong gives none.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clsCauses, inpCauses, lcpCauses, perfCauses, positionAt, thirdPartyCauses } from "../../../src/core/browser/perf/perfCauses.ts";
import type { ElementFacts, VitalsFacts } from "../../../src/core/browser/perf/vitals.ts";

const hero: ElementFacts = {
  selector: "article > figure > img",
  tag: "img",
  src: "http://127.0.0.1:4321/_astro/dev-loop.Bx1_2kQ.webp",
  loading: "eager",
  fetchpriority: "high",
  sized: true,
  naturalWidth: 760,
  renderedWidth: 760,
  astroImage: true,
  aboveFold: true,
};

const facts = (over: Partial<VitalsFacts> = {}): VitalsFacts => ({
  url: "http://127.0.0.1:4321/en/articles/x/",
  lcp: {
    ms: 420,
    element: hero,
    url: hero.src,
    phases: { ttfbMs: 20, loadDelayMs: 30, loadMs: 200, renderDelayMs: 20 },
    preloaded: false,
    kb: 80,
    devicePixelRatio: 1,
  },
  cls: 0,
  shifts: [],
  renderBlocking: [{ url: "http://127.0.0.1:4321/_astro/index.css", ms: 12, endMs: 40, kb: 4 }],
  fonts: [],
  thirdParty: { requests: 0, kb: 0, percentOfRequests: 0, percentOfKb: 0, origins: [] },
  ...over,
});

const lcpWith = (element: Partial<ElementFacts>, phases: Partial<NonNullable<VitalsFacts["lcp"]>["phases"]> = {}) => {
  const base = facts();
  const lcp = base.lcp as NonNullable<VitalsFacts["lcp"]>;
  return facts({ lcp: { ...lcp, element: { ...hero, ...element }, phases: { ...lcp.phases, ...phases } } });
};

describe("perf causes", () => {
  test("a clean page: no cause", () => {
    assert.deepEqual(perfCauses(facts()), []);
  });

  test("an LCP image lazy-loaded: perf-lcp-lazy, with Astro's priority as the fix", () => {
    const [cause] = lcpCauses(lcpWith({ loading: "lazy", fetchpriority: "" }, { loadDelayMs: 600 }));
    assert.equal(cause?.rule, "perf-lcp-lazy");
    assert.equal(cause?.selector, hero.selector);
    assert.match(cause?.message ?? "", /dev-loop/);
    assert.match(cause?.fix ?? "", /<Image priority>/);
    assert.equal(cause?.ref?.image, hero.src);
    const plain = lcpCauses(lcpWith({ loading: "lazy", astroImage: false }))[0];
    assert.match(plain?.fix ?? "", /remove loading="lazy"/);
  });

  test("an LCP image discovered late, not preloaded: perf-lcp-late-image", () => {
    assert.equal(lcpCauses(lcpWith({ fetchpriority: "" }, { loadDelayMs: 400 }))[0]?.rule, "perf-lcp-late-image");
    assert.deepEqual(lcpCauses(lcpWith({ fetchpriority: "high" }, { loadDelayMs: 400 })), []);
  });

  test("an LCP image served much wider than its box: perf-lcp-oversized", () => {
    const [cause] = lcpCauses(lcpWith({ naturalWidth: 2400, renderedWidth: 760 }));
    assert.equal(cause?.rule, "perf-lcp-oversized");
    assert.match(cause?.message ?? "", /2400 px wide for a 760 px box/);
    const retina = lcpWith({ naturalWidth: 1520, renderedWidth: 760 });
    assert.deepEqual(lcpCauses({ ...retina, lcp: { ...(retina.lcp as NonNullable<VitalsFacts["lcp"]>), devicePixelRatio: 2 } }), []);
  });

  test("a slow render-blocking stylesheet: perf-render-blocking", () => {
    const [cause] = lcpCauses(facts({ renderBlocking: [{ url: "http://127.0.0.1:4321/_astro/big.css", ms: 650, endMs: 700, kb: 300 }] }));
    assert.equal(cause?.rule, "perf-render-blocking");
    assert.match(cause?.message ?? "", /big\.css 650 ms/);
  });

  test("a shift pushed by an image without dimensions: perf-cls-unsized-image names the image", () => {
    const image: ElementFacts = { selector: "main > img", tag: "img", src: "http://x/perf/noise.png", sized: false };
    const [cause] = clsCauses(
      facts({
        cls: 0.2,
        shifts: [{ value: 0.2, atMs: 300, moved: { selector: "main > p", tag: "p", text: "Text" }, pushedBy: { ...image, kind: "image" } }],
      }),
    );
    assert.equal(cause?.rule, "perf-cls-unsized-image");
    assert.equal(cause?.selector, "main > img");
    assert.equal(cause?.ref?.image, image.src);
  });

  test("a shift pushed by a hydrated island: perf-cls-injected names the island", () => {
    const island = { url: "/_astro/Banner.B1x2c3d4.js", name: "Banner", hydrated: true };
    const [cause] = clsCauses(
      facts({
        shifts: [
          {
            value: 0.1,
            atMs: 500,
            moved: { selector: "main > p", tag: "p" },
            pushedBy: { selector: "astro-island", tag: "astro-island", kind: "island", island },
          },
          { value: 0.05, atMs: 510, pushedBy: { selector: "astro-island", tag: "astro-island", kind: "island", island } },
        ],
      }),
    );
    assert.equal(cause?.rule, "perf-cls-injected");
    assert.match(cause?.message ?? "", /island Banner/);
    assert.equal(cause?.ref?.island, island.url);
    assert.equal(
      clsCauses(facts({ shifts: [{ value: 0.001, atMs: 1, pushedBy: { selector: "x", tag: "img", kind: "image" } }] })).length,
      0,
    );
  });

  test("text that moved as a font arrived: perf-font-swap", () => {
    const [cause] = clsCauses(
      facts({
        fonts: [{ url: "http://x/fonts/inter.woff2", ms: 200, endMs: 480, kb: 40 }],
        shifts: [{ value: 0.05, atMs: 500, moved: { selector: "h1", tag: "h1", text: "Title" } }],
      }),
    );
    assert.equal(cause?.rule, "perf-font-swap");
    assert.match(cause?.message ?? "", /inter\.woff2/);
  });

  test("a slow interaction: perf-inp-slow with the script behind it", () => {
    const script = { url: "http://x/_astro/page.js", fn: "busyLoop", char: 120, ms: 300 };
    const base = facts();
    const [cause] = inpCauses({
      ...base,
      inp: {
        ms: 320,
        element: { selector: "#busy", tag: "button", text: "Busy" },
        inputDelayMs: 1,
        processingMs: 305,
        presentationMs: 14,
        longTasksMs: [318],
        scripts: [script],
      },
    });
    assert.equal(cause?.rule, "perf-inp-slow");
    assert.equal(cause?.selector, "#busy");
    assert.match(cause?.message ?? "", /busyLoop/);
    assert.deepEqual(cause?.ref?.script, script);
    assert.deepEqual(
      inpCauses({ ...base, inp: { ms: 80, inputDelayMs: 0, processingMs: 70, presentationMs: 10, longTasksMs: [], scripts: [] } }),
      [],
    );
  });

  test("third parties over their share: perf-third-party", () => {
    const third = { requests: 4, kb: 400, percentOfRequests: 20, percentOfKb: 60, origins: ["https://cdn.example"] };
    assert.equal(thirdPartyCauses(facts({ thirdParty: third }))[0]?.rule, "perf-third-party");
    assert.deepEqual(thirdPartyCauses(facts({ thirdParty: { ...third, percentOfKb: 5 } })), []);
  });

  test("a character offset as line and column", () => {
    assert.deepEqual(positionAt("ab\ncd\nef", 4), { line: 2, column: 2 });
    assert.deepEqual(positionAt("abc", 0), { line: 1, column: 1 });
  });
});
