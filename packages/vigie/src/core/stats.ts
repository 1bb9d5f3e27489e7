// Two sets of timings compared as a rank test does, so that noise is not called a change:
// the Mann-Whitney U test (is one set shifted against the other?) and the Hodges-Lehmann
// estimate of the shift with its confidence interval (by how much?). No assumption on the
// shape of the timings (they are skewed, with long tails on a busy machine).

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The coefficient of variation (standard deviation over mean); 0 for a constant set. */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  if (mean === 0) return 0;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1);
  return Math.sqrt(variance) / Math.abs(mean);
}

/** The standard normal's cumulative distribution (Abramowitz and Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export interface RankTest {
  /** U of the second set: how often one of its values is above one of the first's (ties count half). */
  u: number;
  /** Two-sided p-value: the chance of a difference this large between two sets of the same timings. */
  p: number;
}

/**
 * The Mann-Whitney U test of `b` against `a`. Exact (by counting every arrangement) for small
 * sets without ties; otherwise the normal approximation with the ties' correction and a
 * continuity correction.
 */
export function mannWhitney(a: readonly number[], b: readonly number[]): RankTest {
  const n1 = a.length;
  const n2 = b.length;
  if (n1 === 0 || n2 === 0) return { u: Number.NaN, p: 1 };
  let u = 0;
  for (const y of b) for (const x of a) u += y > x ? 1 : y === x ? 0.5 : 0;
  const all = [...a, ...b];
  const ties = tieGroups(all);
  if (ties.length === 0 && n1 * n2 <= 400) return { u, p: exactP(n1, n2, u) };
  const n = n1 + n2;
  const mean = (n1 * n2) / 2;
  const tieTerm = ties.reduce((sum, t) => sum + (t ** 3 - t), 0) / (n * (n - 1));
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm);
  if (variance <= 0) return { u, p: 1 };
  const z = (Math.abs(u - mean) - 0.5) / Math.sqrt(variance);
  return { u, p: Math.min(1, 2 * (1 - normalCdf(Math.max(0, z)))) };
}

/** The sizes of the groups of equal values (of two or more). */
function tieGroups(values: number[]): number[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.values()].filter((count) => count > 1);
}

/** The exact two-sided p-value of U for sets of n1 and n2 values without ties. */
function exactP(n1: number, n2: number, u: number): number {
  // counts[k]: the arrangements of the two sets whose U is k, built up one value at a time.
  let table: number[][] = [[1]];
  for (let i = 1; i <= n1 + n2; i += 1) {
    const next: number[][] = [];
    for (let m = 0; m <= Math.min(i, n1); m += 1) {
      if (i - m > n2) {
        next[m] = [];
        continue;
      }
      // The i-th value (the largest so far) from a adds nothing to U; from b, it is above the m of a.
      const withA = m > 0 ? (table[m - 1] ?? []) : [];
      const withB = i - m > 0 ? shift(table[m] ?? [], m) : [];
      next[m] = add(withA, withB);
    }
    table = next;
  }
  const counts = table[n1] ?? [];
  const total = counts.reduce((sum, count) => sum + count, 0);
  const mean = (n1 * n2) / 2;
  const distance = Math.abs(u - mean);
  let extreme = 0;
  for (const [k, count] of counts.entries()) if (Math.abs(k - mean) >= distance - 1e-9) extreme += count;
  return Math.min(1, extreme / total);
}

const shift = (counts: number[], by: number) => [...new Array<number>(by).fill(0), ...counts];
function add(x: number[], y: number[]): number[] {
  const sum = new Array<number>(Math.max(x.length, y.length)).fill(0);
  for (const [k, v] of x.entries()) sum[k] = (sum[k] ?? 0) + v;
  for (const [k, v] of y.entries()) sum[k] = (sum[k] ?? 0) + v;
  return sum;
}

export interface Shift {
  /** The Hodges-Lehmann estimate: the median of every difference b - a. */
  estimate: number;
  /** Its confidence interval (95 % by default), from the differences' order statistics. */
  low: number;
  high: number;
}

/** By how much `b` is shifted against `a`, with its interval. */
export function hodgesLehmann(a: readonly number[], b: readonly number[], confidence = 0.95): Shift {
  const differences: number[] = [];
  for (const y of b) for (const x of a) differences.push(y - x);
  differences.sort((x, y) => x - y);
  const n1 = a.length;
  const n2 = b.length;
  const z = quantile(1 - (1 - confidence) / 2);
  const count = differences.length;
  const k = Math.max(0, Math.floor((n1 * n2) / 2 - z * Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12)));
  return {
    estimate: median(differences),
    low: differences[Math.min(k, count - 1)] ?? Number.NaN,
    high: differences[Math.max(0, count - 1 - k)] ?? Number.NaN,
  };
}

/** The standard normal's quantile (Acklam's rational approximation, relative error < 1.2e-9). */
function quantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const poly = (coefficients: number[], x: number) => coefficients.reduce((sum, coefficient) => sum * x + coefficient, 0);
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - 0.02425) return -quantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

export type Verdict = "regressed" | "improved" | "unchanged" | "inconclusive";

export interface Comparison extends Shift {
  verdict: Verdict;
  p: number;
  /** The smallest change that counts: the larger of the relative and the absolute minimum. */
  threshold: number;
  /** The spread of each set, as coefficients of variation. */
  cv: { baseline: number; current: number };
  /** More samples could decide it: inconclusive, or the shift's interval straddles the threshold. */
  wantsMore: boolean;
  /** Why it is inconclusive, when it is. */
  why?: string;
}

export interface CompareOptions {
  /** A change counts from this share of the baseline's median (0.1: +10 %). */
  relative: number;
  /** ...and from this much at least, in the metric's unit (50 ms). */
  absolute: number;
  /** The test's level; default 0.05. */
  alpha?: number;
  /** Fewer samples than this on either side: inconclusive. Default 3. */
  minSamples?: number;
}

/**
 * `current` against `baseline` (larger is worse): regressed or improved when the rank test
 * says the sets differ and the shift is past the threshold; unchanged when the shift's whole
 * interval is within the threshold; inconclusive otherwise.
 */
export function compareSamples(baseline: readonly number[], current: readonly number[], options: CompareOptions): Comparison {
  const alpha = options.alpha ?? 0.05;
  const minSamples = options.minSamples ?? 3;
  const threshold = Math.max(options.relative * Math.abs(median(baseline)), options.absolute);
  const cv = { baseline: coefficientOfVariation(baseline), current: coefficientOfVariation(current) };
  if (baseline.length < minSamples || current.length < minSamples) {
    const why = `too few samples (${baseline.length} and ${current.length}; at least ${minSamples} each)`;
    return { verdict: "inconclusive", p: 1, threshold, cv, estimate: Number.NaN, low: Number.NaN, high: Number.NaN, wantsMore: true, why };
  }
  const { p } = mannWhitney(baseline, current);
  const shiftOf = hodgesLehmann(baseline, current, 1 - alpha);
  const straddles = (shiftOf.low < threshold && shiftOf.high > threshold) || (shiftOf.low < -threshold && shiftOf.high > -threshold);
  const base = { p, threshold, cv, ...shiftOf };
  if (p < alpha && shiftOf.estimate > threshold) return { ...base, verdict: "regressed", wantsMore: straddles };
  if (p < alpha && shiftOf.estimate < -threshold) return { ...base, verdict: "improved", wantsMore: straddles };
  if (shiftOf.low >= -threshold && shiftOf.high <= threshold) return { ...base, verdict: "unchanged", wantsMore: false };
  return {
    ...base,
    verdict: "inconclusive",
    wantsMore: true,
    why: `the shift's interval (${round(shiftOf.low)} to ${round(shiftOf.high)}) is wider than the threshold ${round(threshold)} tells apart (spread ${Math.round(cv.current * 100)} %)`,
  };
}

const round = (value: number) => Math.round(value * 10) / 10;
