// What the validator reports: findings that name the page or file, the tool that saw
// them and what to do, and the verdict they add up to.

import type { SiteFacts } from "../../astro/site.ts";

export type Severity = "fail" | "warn";

export type Verdict = "PASS" | "WARN" | "FAIL";

export interface Finding {
  severity: Severity;
  /** The tool that saw it, e.g. blog_browser_crawl. */
  tool: string;
  /**
   * The rule broken, the id `accept` entries of vigie.config.json match: an axe rule id
   * (image-alt), a lint rule (frontmatter), or the check's own (broken-link,
   * hreflang-alternate, page-error, failed-request, http-status, mermaid, build-error,
   * build-warning, type-error, perf-budget, perf-<cause> such as perf-lcp-lazy).
   */
  rule?: string;
  /** Set when a dependency's markup causes it, not the site's sources: "@astrojs/starlight's markup". */
  origin?: string;
  /** The element it is about, as a CSS selector (axe's target) or a link's element. */
  target?: string;
  /** Internal: the accepted selectors every violating element matched (tested in the page); not reported. */
  matches?: string[];
  /** The page (site path) it concerns, when there is one. */
  page?: string;
  /** The source file, `file:line[:column]`, when known. */
  file?: string;
  /** The viewport the fault was seen in when it is not the desktop one ("phone 390×844"). */
  viewport?: string;
  message: string;
  /** What to do about it. */
  fix: string;
  /**
   * The host this machine cannot reach that explains it (a build or a render that fetched it):
   * not the site's fault, so listed in the report's `notJudged`, not counted.
   */
  unreachable?: string;
}

export interface StepRecord {
  name: string;
  tool: string;
  status: "ok" | "warn" | "fail" | "skipped" | "error";
  ms: number;
  /** One line on what the step saw. */
  summary: string;
}

export interface PerfFigure {
  page: string;
  server: "dev" | "production";
  loadMs: number;
  ttfbMs: number;
  lcpMs: number;
  cls: number;
  transferKb: number;
  requests: number;
  verdict: "pass" | "over_budget" | "not_judged";
  /** Loads measured (more when the page was over budget and measured again). */
  runs?: number;
  /** Lowest–highest over the loads: "load 120–180 ms, LCP 300–420 ms". */
  spread?: string;
  /** Against the perf baseline: the page's verdict, and per metric the shift and its interval. */
  baseline?: {
    verdict: "regressed" | "improved" | "unchanged" | "inconclusive";
    metrics: Record<
      string,
      { verdict: string; estimate: number; low: number; high: number; p: number; cv: number; before: number[]; now: number[] }
    >;
  };
}

export interface ValidationReport {
  verdict: Verdict;
  /** Set when the harness itself could not run: the verdict is then FAIL and the exit code 2. */
  harnessError?: { message: string; hint: string };
  project: string;
  startedAt: string;
  durationS: number;
  baseUrl?: string;
  shard?: { index: number; count: number };
  steps: StepRecord[];
  findings: Finding[];
  /** Pages the crawl checked, each with its outcome: the JUnit report's test cases. */
  pages: { path: string; status: number; ok: boolean; summary: string }[];
  perf: PerfFigure[];
  /**
   * Screenshots of failing pages (JPEG), relative to the project root; `outlined`, the elements the
   * picture outlines (selectors, "astro-island (Name)").
   */
  screenshots: { page: string; file: string; outlined?: string[] }[];
  /** What vigie read of the site: base, trailingSlash, locales, sitemap, Starlight, collections. */
  site?: SiteFacts;
  /** Findings that vigie.config.json accepts, with its reason: listed, not counted in the verdict. */
  accepted?: AcceptedFinding[];
  /** Findings this machine's network explains (a host it cannot reach): listed, not counted. */
  notJudged?: Finding[];
}

export interface AcceptedFinding extends Finding {
  reason: string;
}

export function verdictOf(findings: Finding[]): Verdict {
  if (findings.some((finding) => finding.severity === "fail")) return "FAIL";
  if (findings.length > 0) return "WARN";
  return "PASS";
}

/** 0 PASS, 0 WARN (1 with strict), 1 FAIL, 2 when the harness could not run. */
export function exitCodeOf(report: Pick<ValidationReport, "verdict" | "harnessError">, strict = false): number {
  if (report.harnessError) return 2;
  if (report.verdict === "FAIL") return 1;
  if (report.verdict === "WARN") return strict ? 1 : 0;
  return 0;
}
