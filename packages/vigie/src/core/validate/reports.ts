// The validation report as text (terminal), JSON, JUnit XML and one self-contained HTML
// page; and the merge of shard reports into one verdict.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_PREFIX } from "../config.ts";
import { stripAnsi } from "../process/output.ts";
import { type Finding, type ValidationReport, verdictOf } from "./steps/findings.ts";

const where = (finding: Finding) => [finding.page, finding.file].filter(Boolean).join(" ") || "(site)";

/** Pages named after a finding said once for several pages. */
const PAGES_SHOWN = 4;

/**
 * The findings with the pages each is on: a finding that reads the same on several pages (the
 * same rule, message, source and fix: a layout's fault) is said once, at its first page.
 */
export function onPages(findings: Finding[]): { finding: Finding; pages: string[] }[] {
  const groups = new Map<string, { finding: Finding; pages: string[] }>();
  const ordered: { finding: Finding; pages: string[] }[] = [];
  for (const finding of findings) {
    if (!finding.page) {
      ordered.push({ finding, pages: [] });
      continue;
    }
    const key = JSON.stringify([
      finding.severity,
      finding.tool,
      finding.rule,
      finding.message,
      finding.file,
      finding.fix,
      finding.viewport,
    ]);
    const group = groups.get(key);
    if (group) group.pages.push(finding.page);
    else {
      const made = { finding, pages: [finding.page] };
      groups.set(key, made);
      ordered.push(made);
    }
  }
  return ordered;
}

export function toText(report: ValidationReport): string {
  const lines: string[] = [];
  if (report.harnessError) {
    lines.push(`vigie could not run: ${report.harnessError.message}`, `  what to do: ${report.harnessError.hint}`);
    return `${lines.join("\n")}\n`;
  }
  const fails = report.findings.filter((f) => f.severity === "fail").length;
  const warns = report.findings.length - fails;
  lines.push(
    `${report.verdict}${report.findings.length ? ` — ${fails} failure${fails === 1 ? "" : "s"}, ${warns} warning${warns === 1 ? "" : "s"}` : " — no finding"} (${report.durationS} s${report.shard ? `, shard ${report.shard.index}/${report.shard.count}` : ""})`,
  );
  for (const { finding, pages } of onPages(report.findings)) {
    const others = pages.slice(1);
    const also = others.length
      ? ` (and ${others.length} more page${others.length === 1 ? "" : "s"}: ${others.slice(0, PAGES_SHOWN).join(", ")}${others.length > PAGES_SHOWN ? ", …" : ""})`
      : "";
    lines.push(
      `${finding.severity === "fail" ? "FAIL" : "WARN"} ${where(finding)}${also} [${finding.tool}]`,
      `  ${finding.message}`,
      `  → ${finding.fix}`,
    );
  }
  if (report.accepted?.length) {
    lines.push("", `accepted in vigie.config.json (${report.accepted.length}, not counted):`);
    for (const finding of report.accepted) lines.push(`  ${where(finding)} [${finding.tool}] ${finding.rule}: ${finding.reason}`);
  }
  if (report.notJudged?.length) {
    lines.push("", `not judged: this machine's network (${report.notJudged.length}, not counted):`);
    for (const finding of report.notJudged) lines.push(`  ${where(finding)} [${finding.tool}] ${finding.message}`);
  }
  lines.push("", "steps:");
  for (const step of report.steps)
    lines.push(`  ${step.status.padEnd(7)} ${step.name.padEnd(16)} ${(step.ms / 1000).toFixed(1).padStart(5)} s  ${step.summary}`);
  if (report.perf.length) {
    lines.push("", "perf (medians):");
    for (const p of report.perf)
      lines.push(
        `  ${p.page}: load ${p.loadMs} ms, TTFB ${p.ttfbMs} ms, LCP ${p.lcpMs} ms, CLS ${p.cls}, ${p.transferKb} kB in ${p.requests} requests (${p.verdict === "not_judged" ? "dev server, not judged" : p.verdict}${p.spread ? `; ${p.runs ?? ""} loads, ${p.spread}` : ""})`,
      );
  }
  return `${lines.join("\n")}\n`;
}

const XML_ESCAPES: Record<string, string> = {
  "<": "&lt;",
  ">": "&gt;",
  "&": "&amp;",
  '"': "&quot;",
  "'": "&apos;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

/**
 * Every character outside XML 1.0's Char production: C0 controls but tab, newline and
 * carriage return, lone surrogates, U+FFFE and U+FFFF. One of them makes the whole file
 * unreadable to a CI's JUnit parser.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Text for an XML attribute (or, with `attribute` false, element content): terminal colours
 * dropped, other forbidden characters shown as U+FFFD, markup escaped. In attributes tabs and
 * line breaks are written as references, which a parser would otherwise turn into spaces.
 */
const xml = (text: string, attribute = true) =>
  stripAnsi(text)
    .replace(NOT_XML_CHAR, "\uFFFD")
    .replace(attribute ? /[<>&"'\t\n\r]/g : /[<>&\r]/g, (c) => XML_ESCAPES[c] ?? c);

/** JUnit XML: one test suite per check, one test case per page (or per file) it judged. */
export function toJUnit(report: ValidationReport): string {
  const suites = new Map<string, { name: string; failure?: string; skipped?: boolean }[]>();
  const add = (suite: string, name: string, failure?: string) => {
    const cases = suites.get(suite) ?? [];
    const existing = cases.find((c) => c.name === name);
    if (existing) existing.failure = [existing.failure, failure].filter(Boolean).join("\n") || undefined;
    else cases.push({ name, ...(failure ? { failure } : {}) });
    suites.set(suite, cases);
  };
  for (const step of report.steps) {
    if (step.status === "skipped") suites.set(step.tool, [...(suites.get(step.tool) ?? []), { name: step.name, skipped: true }]);
    else add(step.tool, step.name);
  }
  // The pages go in the crawl's suite, named with the project's prefix like the steps.
  const crawlSuite = report.steps.find((step) => step.name === "crawl")?.tool ?? `${DEFAULT_PREFIX}_browser_crawl`;
  for (const page of report.pages) add(crawlSuite, page.path);
  for (const finding of report.findings) {
    const text = `${finding.severity.toUpperCase()}: ${finding.message}\nfix: ${finding.fix}`;
    if (finding.severity === "fail") add(finding.tool, finding.page ?? finding.file ?? finding.tool, text);
  }
  const body = [...suites]
    .map(([suite, cases]) => {
      const failures = cases.filter((c) => c.failure).length;
      const skipped = cases.filter((c) => c.skipped).length;
      const items = cases
        .map(
          (c) =>
            `    <testcase classname="${xml(suite)}" name="${xml(c.name)}">${c.failure ? `<failure message="${xml(c.failure.split("\n")[0] ?? "")}">${xml(c.failure, false)}</failure>` : c.skipped ? "<skipped/>" : ""}</testcase>`,
        )
        .join("\n");
      return `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}">\n${items}\n  </testsuite>`;
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="vigie validate" time="${report.durationS}">\n${body}\n</testsuites>\n`;
}

const html = (text: string) => text.replace(/[<>&"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;" })[c] ?? c);

/** The image type of a screenshot file, for its data: URL. */
const imageType = (file: string) => (/\.jpe?g$/i.test(file) ? "image/jpeg" : "image/png");

/**
 * One failing page: its screenshot (inlined as a data: URL, so the report opens from the file
 * with no server), the elements it outlines, and the page's findings beside it.
 */
function failingPage(report: ValidationReport, root: string, shot: ValidationReport["screenshots"][number]): string {
  const path = join(root, shot.file);
  if (!existsSync(path)) return "";
  const image = `data:${imageType(shot.file)};base64,${readFileSync(path).toString("base64")}`;
  const findings = report.findings
    .filter((f) => f.page === shot.page)
    .map(
      (f) =>
        `<li class="${f.severity}"><b>${f.severity.toUpperCase()}</b> ${f.rule ? `<code>${html(f.rule)}</code> ` : ""}${html(f.message)}${f.file ? `<br><small>at <code>${html(f.file)}</code></small>` : ""}<br><small>→ ${html(f.fix)}</small></li>`,
    )
    .join("");
  const outlined = shot.outlined?.length
    ? `<p><small>Outlined in red: ${shot.outlined.map((target) => `<code>${html(target)}</code>`).join(", ")}</small></p>`
    : "";
  return `<section class="page"><figure><img alt="Screenshot of ${html(shot.page)}${shot.outlined?.length ? ", the failing element outlined" : ""}" src="${image}"><figcaption>${html(shot.page)}</figcaption></figure><div><h3>${html(shot.page)}</h3>${outlined}<ul>${findings}</ul></div></section>`;
}

/** A message, its end folded away past FOLD characters. */
const FOLD = 300;
function folded(message: string): string {
  if (message.length <= FOLD) return html(message);
  const cut = message.lastIndexOf(" ", FOLD) > FOLD / 2 ? message.lastIndexOf(" ", FOLD) : FOLD;
  return `<details><summary>${html(message.slice(0, cut))} …</summary>${html(message.slice(cut))}</details>`;
}

/** The findings the verdict does not count: those accepted in the config, and what this machine's network explains. */
function notCounted(report: ValidationReport): string {
  const table = <T extends Finding>(title: string, items: T[] | undefined, said: (finding: T) => string) =>
    items?.length
      ? `<h3>${html(title)} (${items.length})</h3><table class="aside"><tr><th>where</th><th>tool</th><th>what</th></tr>${items
          .map((f) => `<tr><td>${html(where(f))}</td><td><code>${html(f.tool)}</code></td><td>${folded(said(f))}</td></tr>`)
          .join("")}</table>`
      : "";
  const accepted = table("Accepted in vigie.config.json", report.accepted, (f) => `${f.rule ?? ""}: ${f.reason}`);
  const network = table("Not judged: this machine's network", report.notJudged, (f) => f.message);
  return accepted || network ? `<h2>Not counted in the verdict</h2>\n${accepted}${network}` : "";
}

/** One self-contained HTML page: verdict, findings, screenshots of failing pages beside their findings, perf. */
export function toHtml(report: ValidationReport, root: string): string {
  const colour = { PASS: "#1e7a3c", WARN: "#a05a00", FAIL: "#b42318" }[report.verdict];
  const shots = report.screenshots.map((shot) => failingPage(report, root, shot)).join("\n");
  // Failures first, then warnings, each in the order found; a long message folds.
  const rank = { fail: 0, warn: 1 } as Record<string, number>;
  const findings = [...report.findings]
    .sort((a, b) => (rank[a.severity] ?? 2) - (rank[b.severity] ?? 2))
    .map(
      (f) =>
        `<tr class="${f.severity}"><td>${f.severity.toUpperCase()}</td><td>${html(where(f))}</td><td><code>${html(f.tool)}</code></td><td>${folded(f.message)}<br><small>→ ${html(f.fix)}</small></td></tr>`,
    )
    .join("");
  const steps = report.steps
    .map((s) => `<tr><td>${html(s.name)}</td><td>${s.status}</td><td>${(s.ms / 1000).toFixed(1)} s</td><td>${html(s.summary)}</td></tr>`)
    .join("");
  const perf = report.perf
    .map(
      (p) =>
        `<tr><td>${html(p.page)}</td><td>${p.loadMs}</td><td>${p.ttfbMs}</td><td>${p.lcpMs}</td><td>${p.cls}</td><td>${p.transferKb}</td><td>${p.requests}</td><td>${p.verdict}${p.spread ? ` <small>(${html(p.spread)})</small>` : ""}</td></tr>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>vigie: ${report.verdict}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1.5rem;color:#1b2430}
h1{margin:0}.verdict{display:inline-block;padding:.2rem .8rem;border-radius:6px;color:#fff;background:${colour}}
table{border-collapse:collapse;width:100%;margin:1rem 0;table-layout:fixed}td,th{border:1px solid #d9dde3;padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
table.findings th:nth-child(1){width:5.5rem}table.findings th:nth-child(2){width:24%}table.findings th:nth-child(3){width:11rem}
table.aside th:nth-child(1){width:30%}table.aside th:nth-child(2){width:11rem}
details summary{cursor:pointer}
tr.fail td:first-child{color:#b42318;font-weight:700}tr.warn td:first-child{color:#a05a00;font-weight:700}
small{color:#4a5565}section.page{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1rem;align-items:start;margin:1rem 0;padding-top:1rem;border-top:1px solid #d9dde3}
figure{margin:0}figure img{width:100%;border:1px solid #d9dde3}section.page h3{margin:0 0 .5rem;word-break:break-all}
section.page ul{padding-left:1.2rem}section.page li{margin-bottom:.6rem;overflow-wrap:anywhere}li.fail b{color:#b42318}li.warn b{color:#a05a00}
@media (max-width:48rem){section.page{grid-template-columns:1fr}body{padding:.75rem}
table.findings,table.findings tbody,table.findings tr,table.findings td{display:block;width:auto}table.findings tr:first-child{display:none}
table.findings tr{border:1px solid #d9dde3;margin-bottom:.5rem}table.findings td{border:0}}
</style></head><body>
<h1>vigie validate <span class="verdict">${report.verdict}</span></h1>
<p>${html(report.project)} · ${html(report.startedAt)} · ${report.durationS} s${report.shard ? ` · shard ${report.shard.index}/${report.shard.count}` : ""}${report.harnessError ? ` · could not run: ${html(report.harnessError.message)} (${html(report.harnessError.hint)})` : ""}</p>
<h2>Findings (${report.findings.length})</h2>
${findings ? `<table class="findings"><tr><th>severity</th><th>where</th><th>tool</th><th>what, and what to do</th></tr>${findings}</table>` : "<p>None: every check passed.</p>"}
${notCounted(report)}
${shots ? `<h2>Failing pages</h2>\n${shots}` : ""}
${perf ? `<h2>Performance (medians)</h2><table><tr><th>page</th><th>load ms</th><th>TTFB ms</th><th>LCP ms</th><th>CLS</th><th>kB</th><th>requests</th><th>budget</th></tr>${perf}</table>` : ""}
<h2>Steps</h2><table><tr><th>step</th><th>status</th><th>time</th><th>summary</th></tr>${steps}</table>
<h2>Pages (${report.pages.length})</h2><p>${report.pages.filter((p) => p.ok).length} ok, ${report.pages.filter((p) => !p.ok).length} failing.</p>
</body></html>
`;
}

/** Joins shard reports: every finding and page once, the steps of each shard, one verdict. */
export function mergeReports(reports: ValidationReport[]): ValidationReport {
  const first = reports[0];
  if (!first) throw new Error("no report to merge");
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const finding of reports.flatMap((r) => r.findings)) {
    const key = JSON.stringify([finding.tool, finding.page, finding.file, finding.message]);
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(finding);
  }
  const pages = new Map(reports.flatMap((r) => r.pages).map((page) => [page.path, page]));
  const harnessError = reports.find((r) => r.harnessError)?.harnessError;
  return {
    verdict: harnessError ? "FAIL" : verdictOf(findings),
    ...(harnessError ? { harnessError } : {}),
    project: first.project,
    startedAt: reports.map((r) => r.startedAt).sort()[0] ?? first.startedAt,
    durationS: Math.max(...reports.map((r) => r.durationS)),
    steps: reports.flatMap((r) =>
      r.steps.map((step) => (r.shard ? { ...step, name: `${step.name} (shard ${r.shard.index}/${r.shard.count})` } : step)),
    ),
    findings,
    pages: [...pages.values()].sort((a, b) => a.path.localeCompare(b.path)),
    perf: reports.flatMap((r) => r.perf),
    screenshots: reports.flatMap((r) => r.screenshots),
    ...(first.site ? { site: first.site } : {}),
    ...(reports.some((r) => r.accepted?.length) ? { accepted: reports.flatMap((r) => r.accepted ?? []) } : {}),
    ...(reports.some((r) => r.notJudged?.length) ? { notJudged: reports.flatMap((r) => r.notJudged ?? []) } : {}),
  };
}
