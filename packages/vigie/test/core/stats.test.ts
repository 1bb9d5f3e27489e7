// The rank test and the shift's estimate on hand-made samples: values checked against
// published tables and by hand (ties, all equal, a clear shift, too few samples).
import assert from "node:assert/strict";
import { test } from "node:test";
import { coefficientOfVariation, compareSamples, hodgesLehmann, mannWhitney, median, normalCdf } from "../../src/core/stats.ts";

const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);

test("median, spread and the normal distribution", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(coefficientOfVariation([5, 5, 5]), 0);
  near(coefficientOfVariation([90, 100, 110]), 0.1, 1e-9, "cv");
  near(normalCdf(1.959964), 0.975, 1e-6, "Φ(1.96)");
  near(normalCdf(-1), 0.158655, 1e-6, "Φ(-1)");
});

test("Mann-Whitney, exact for small sets without ties", () => {
  // Every b above every a: U = n1·n2; the exact two-sided p for 4 and 4 is 2/70.
  const apart = mannWhitney([1, 2, 3, 4], [5, 6, 7, 8]);
  assert.equal(apart.u, 16);
  near(apart.p, 2 / 70, 1e-12, "p of complete separation");
  // Interleaved: U at its mean, p = 1.
  assert.equal(mannWhitney([1, 3, 5, 7], [2, 4, 6, 8]).p > 0.6, true);
  // Symmetric: swapping the sets gives the same p.
  near(mannWhitney([5, 6, 7, 8], [1, 2, 3, 4]).p, apart.p, 1e-12, "swapped");
  // 3 and 3, separated: 2/20.
  near(mannWhitney([1, 2, 3], [4, 5, 6]).p, 0.1, 1e-12, "3 and 3");
});

test("Mann-Whitney with ties: the normal approximation with the ties' correction", () => {
  const tied = mannWhitney([10, 10, 12, 12, 14, 14, 16, 16], [10, 12, 12, 14, 14, 16, 16, 18]);
  assert.ok(tied.p > 0.3 && tied.p <= 1, `p ${tied.p}`);
  // All equal: no evidence of any difference.
  assert.equal(mannWhitney([100, 100, 100], [100, 100, 100]).p, 1);
  // A large clear shift with ties is still found.
  const shifted = mannWhitney([100, 100, 101, 101, 102, 102, 103, 103, 104, 104], [150, 150, 151, 151, 152, 152, 153, 153, 154, 154]);
  assert.ok(shifted.p < 0.001, `p ${shifted.p}`);
});

test("Hodges-Lehmann: the median difference and an interval around it", () => {
  const shift = hodgesLehmann([100, 102, 98, 101, 99, 100, 103, 97], [150, 152, 148, 151, 149, 150, 153, 147]);
  assert.equal(shift.estimate, 50);
  assert.ok(shift.low <= 50 && shift.high >= 50 && shift.low > 40 && shift.high < 60, JSON.stringify(shift));
  const none = hodgesLehmann([5, 5, 5], [5, 5, 5]);
  assert.deepEqual([none.estimate, none.low, none.high], [0, 0, 0]);
});

test("compare: regressed, improved, unchanged, inconclusive, too few", () => {
  const base = [100, 104, 98, 102, 101, 99, 103, 97, 100, 102];
  const options = { relative: 0.1, absolute: 20 };
  const slower = compareSamples(
    base,
    base.map((value) => value + 150),
    options,
  );
  assert.equal(slower.verdict, "regressed");
  assert.equal(slower.threshold, 20);
  near(slower.estimate, 150, 1e-9, "shift");
  assert.equal(
    compareSamples(
      base,
      base.map((value) => value - 60),
      options,
    ).verdict,
    "improved",
  );
  const same = compareSamples(base, [101, 99, 103, 100, 98, 102, 100, 104, 97, 101], options);
  assert.equal(same.verdict, "unchanged", JSON.stringify(same));
  assert.equal(same.wantsMore, false);
  // A wide spread: the shift may be anything from nothing to a lot.
  const noisy = compareSamples([100, 400, 120, 900, 110], [130, 150, 800, 140, 1000], options);
  assert.equal(noisy.verdict, "inconclusive", JSON.stringify(noisy));
  assert.equal(noisy.wantsMore, true);
  assert.match(noisy.why ?? "", /interval/);
  const few = compareSamples([100, 101], [200, 201], options);
  assert.equal(few.verdict, "inconclusive");
  assert.match(few.why ?? "", /too few samples/);
  // A shift below the threshold, however sure, is not a regression.
  const small = compareSamples(
    base,
    base.map((value) => value + 5),
    options,
  );
  assert.notEqual(small.verdict, "regressed");
});
