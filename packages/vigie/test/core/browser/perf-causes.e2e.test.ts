// Perf that says why, on a built copy of the blog with pages that are slow or shift in one known
// way each: a large hero image lazy-loaded above the fold, an image without dimensions above the
// text, a button whose click handler is busy for 300 ms, an image four times wider than its box. Each cause names the element and the
// source file; the blog's own article (its first figure with `priority`) and home give none.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parseActions } from "../../../src/core/actions.ts";
import { readSite } from "../../../src/core/astro/site.ts";
import { measurePerf } from "../../../src/core/browser/perf/perf.ts";
import { locateCauses } from "../../../src/core/browser/perf/perfCauses.ts";
import { BrowserSession } from "../../../src/core/browser/session/session.ts";
import { runBuild } from "../../../src/core/build/build.ts";
import type { Located } from "../../../src/core/source/located.ts";
import { type BlogCopy, copyBlog, type Served, serveBlog } from "../../support/blog.ts";
import { addPerfFaultPages } from "../../support/perfFaults.ts";

const session = new BrowserSession({ idleMs: 5_000 });
const BUDGETS = { loadMs: 100_000 };

describe("perf causes on a built copy of the blog", { timeout: 600_000 }, () => {
  let copy: BlogCopy;
  let preview: Served;

  before(async () => {
    copy = copyBlog("perf-causes");
    addPerfFaultPages(copy.root);
    // The build for checking (hidden source maps): the inline script's line is found.
    const build = await runBuild(readSite(copy));
    assert.ok(build.success, JSON.stringify(build.errors));
    preview = await serveBlog(copy.root, "preview");
  });

  after(async () => {
    await session.close();
    await preview?.stop();
    copy?.remove();
  });

  const measure = async (path: string, actions?: unknown[]) => {
    const url = `${preview.url}${path}`;
    const result = await measurePerf(session, url, { runs: 3, budgets: BUDGETS, ...(actions ? { actions: parseActions(actions) } : {}) });
    await locateCauses(result.causes, copy.root, url);
    return result;
  };
  const sourceOf = (cause: { located?: Located } | undefined): string =>
    cause?.located && "source" in cause.located ? cause.located.source : "";

  test("a large hero lazy-loaded above the fold: the image and its line", async () => {
    const result = await measure("/perf/lazy-hero/");
    const cause = result.causes.find((c) => c.rule === "perf-lcp-lazy");
    assert.ok(cause, JSON.stringify({ causes: result.causes, lcp: result.vitals?.lcp, samples: result.samples }));
    assert.match(cause.selector ?? "", /img/);
    assert.match(cause.message, /dev-loop/);
    assert.match(sourceOf(cause), /^src\/pages\/perf\/lazy-hero\.astro:\d+$/);
    assert.match(cause.fix, /priority/);
    assert.ok(result.vitals?.lcp?.phases.loadDelayMs !== undefined);
  });

  test("an image without dimensions above the text: the image and its line", async () => {
    const result = await measure("/perf/unsized/");
    const cause = result.causes.find((c) => c.rule === "perf-cls-unsized-image");
    assert.ok(cause, JSON.stringify({ causes: result.causes, shifts: result.vitals?.shifts }));
    assert.match(cause.message, /noise\.png/);
    assert.match(sourceOf(cause), /^src\/pages\/perf\/unsized\.astro:\d+$/);
  });

  test("an image four times wider than its box: oversized, the image and its line", async () => {
    const result = await measure("/perf/oversized/");
    const cause = result.causes.find((c) => c.rule === "perf-lcp-oversized");
    assert.ok(cause, JSON.stringify({ causes: result.causes, lcp: result.vitals?.lcp }));
    assert.match(cause.message, /wide\.png\) is 2400 px wide for a \d+ px box/);
    assert.match(sourceOf(cause), /^src\/pages\/perf\/oversized\.astro:\d+$/);
    assert.equal(result.causes.filter((c) => c.rule === "perf-lcp-lazy").length, 0);
  });

  test("a click handler busy for 300 ms: INP, the long task and the script's source", async () => {
    const result = await measure("/perf/busy-click/", [{ click: "button Busy" }]);
    assert.equal(result.actions?.ran, 1);
    const cause = result.causes.find((c) => c.rule === "perf-inp-slow");
    assert.ok(cause, JSON.stringify({ causes: result.causes, inp: result.vitals?.inp }));
    assert.match(cause.selector ?? "", /#busy/);
    assert.ok((result.vitals?.inp?.ms ?? 0) >= 250);
    assert.match(sourceOf(cause), /^src\/pages\/perf\/busy-click\.astro:\d+$/, JSON.stringify(cause));
  });

  test("the blog's own pages give no cause", async () => {
    for (const path of ["/", "/en/articles/orphan-dev-servers/", "/articles/serveurs-de-dev-orphelins/"]) {
      const result = await measure(path);
      assert.deepEqual(
        result.causes.map((c) => `${c.rule} ${c.selector}`),
        [],
        path,
      );
    }
  });
});
