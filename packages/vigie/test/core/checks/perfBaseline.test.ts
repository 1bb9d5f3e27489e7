// The perf baseline on hand-made samples: a page unchanged, a page 150 ms slower with a new
// render-blocking script (named with its source line), a spread too wide to tell; the machine's
// changes; the file written, read back, and refused with a clear reason when it is not one.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type BaselinePage,
  comparePage,
  machineChanges,
  machineNow,
  readPerfBaseline,
  shiftText,
  whatChanged,
  writePerfBaseline,
} from "../../../src/core/checks/perfBaseline.ts";

function page(load: number[], causes: Record<string, string> = {}, lcpElement = "main > img"): BaselinePage {
  return {
    samples: {
      loadMs: load,
      lcpMs: load.map((value) => value + 20),
      cls: load.map(() => 0),
      ttfbMs: load.map(() => 5),
      transferKb: load.map(() => 120),
      requests: load.map(() => 12),
    },
    causes,
    lcpElement,
  };
}

const BEFORE = page([210, 190, 205, 230, 198, 215]);

test("the same timings again: unchanged, nothing to add", () => {
  const comparison = comparePage(BEFORE, page([200, 212, 195, 225, 208, 190]));
  assert.equal(comparison.verdict, "unchanged");
  assert.equal(comparison.wantsMore, false);
  assert.deepEqual(whatChanged(BEFORE, page([200]), comparison), []);
});

test("150 ms slower with a new render-blocking script: regressed, the shift, its interval and the script's line", () => {
  const now = page([360, 345, 372, 351, 366, 349], { "perf-render-blocking script[src='/slow.js']": "src/layouts/BaseLayout.astro:12" });
  const comparison = comparePage(BEFORE, now);
  assert.equal(comparison.verdict, "regressed");
  const load = comparison.metrics.loadMs;
  assert.ok(load && load.estimate > 130 && load.estimate < 170, JSON.stringify(load));
  assert.ok(load.low > 50 && load.high < 200, JSON.stringify(load));
  assert.match(
    shiftText("loadMs", load, BEFORE.samples.loadMs, now.samples.loadMs),
    /^load \+\d+ ms \(95 % interval \+\d+ to \+\d+ ms; median 208 → 356 ms over 6 and 6 loads; p 0\.\d+\)$/,
  );
  assert.deepEqual(whatChanged(BEFORE, now, comparison), [
    "new: perf-render-blocking script[src='/slow.js'] (src/layouts/BaseLayout.astro:12)",
  ]);
});

test("a spread too wide to tell: inconclusive, and more loads wanted", () => {
  const comparison = comparePage(BEFORE, page([150, 420, 180, 390, 160, 400]));
  assert.equal(comparison.verdict, "inconclusive");
  assert.equal(comparison.wantsMore, true);
});

test("the LCP element that changed and the bytes that grew are said", () => {
  const now = {
    ...page([205, 195, 210, 220, 200, 212], {}, "h1"),
    samples: { ...page([205, 195, 210, 220, 200, 212]).samples, transferKb: [400, 401, 399, 400, 402, 400] },
  };
  const said = whatChanged(BEFORE, now, comparePage(BEFORE, now));
  assert.deepEqual(said, ["the LCP element changed: main > img → h1", "transfer +280 kB"]);
});

test("the machine: what changed is said, an alike machine says nothing", () => {
  const here = machineNow("131.0.6778.85");
  assert.deepEqual(machineChanges(here, { ...here, loadAverage: here.loadAverage + 3 }), []);
  assert.deepEqual(machineChanges(here, { ...here, cores: here.cores * 2, chromium: "132.0.1" }), [
    `${here.cores} → ${here.cores * 2} cores`,
    "Chromium 131.0.6778.85 → 132.0.1",
  ]);
});

test("the file: written and read back; missing, not JSON, or not a baseline: refused with what to do", () => {
  const dir = mkdtempSync(join(tmpdir(), "vigie-perf-baseline-"));
  try {
    const file = join(dir, "perf-baseline.json");
    assert.match(
      String((readPerfBaseline(file) as { error: string }).error),
      /no perf baseline at .* \(a run with --perf-baseline .* writes one\)/,
    );
    writePerfBaseline(file, machineNow(), { "/": BEFORE });
    const read = readPerfBaseline(file);
    assert.ok(!("error" in read), JSON.stringify(read));
    assert.deepEqual(read.pages["/"], BEFORE);
    writeFileSync(file, "{ not json");
    assert.match(String((readPerfBaseline(file) as { error: string }).error), /is not JSON/);
    writeFileSync(file, JSON.stringify({ pages: {} }));
    assert.match(String((readPerfBaseline(file) as { error: string }).error), /is not a vigie perf baseline/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
