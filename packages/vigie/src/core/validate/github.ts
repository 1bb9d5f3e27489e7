// The validation report where GitHub shows findings: a SARIF 2.1.0 log (code scanning), workflow
// annotations on the lines of the sources (`::error file=…,line=…::`), and the job summary.
import { existsSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { AcceptedFinding, Finding, ValidationReport } from "./steps/findings.ts";

/** A finding's source, `file:line[:column]`, read apart; the file as written when it has no line. */
export function sourcePosition(file: string | undefined): { path: string; line?: number; column?: number } | undefined {
  if (!file) return undefined;
  const match = /^(.+?):(\d+)(?::(\d+))?$/.exec(file);
  if (!match?.[1]) return { path: file };
  return { path: match[1], line: Number(match[2]), ...(match[3] ? { column: Number(match[3]) } : {}) };
}

/**
 * The project's folder inside its git repository ("" at the root, "site/" below it): GitHub places
 * annotations and code-scanning results by paths from the repository's root.
 */
export function repositoryPrefix(root: string): string {
  let dir = root;
  for (;;) {
    if (existsSync(join(dir, ".git"))) {
      const rel = relative(dir, root).split(sep).join("/");
      return rel ? `${rel}/` : "";
    }
    const parent = dirname(dir);
    if (parent === dir) return "";
    dir = parent;
  }
}

/** The rule a finding breaks: its own id, else the tool that saw it. */
const ruleOf = (finding: Finding) => finding.rule ?? finding.tool;

// ---------------------------------------------------------------------------------------------
// SARIF 2.1.0 (docs.oasis-open.org/sarif/sarif/v2.1.0), as GitHub's code scanning reads it.

export interface SarifOptions {
  /** vigie's version, the driver's. */
  version: string;
  /** The project's folder from the repository's root (repositoryPrefix). */
  prefix?: string;
  /**
   * Where a finding whose source is not known is placed (the site's Astro config, from the
   * project's root): GitHub's code scanning refuses a whole log with a result that has no location.
   * Without it such a result has none.
   */
  siteFile?: string;
}

/** The location of a finding: its source, else the site's file (said in the message), else none. */
function locationOf(finding: Finding, prefix: string, siteFile: string | undefined) {
  const at = sourcePosition(finding.file) ?? (siteFile ? { path: siteFile, line: 1 } : undefined);
  if (!at) return undefined;
  const region = at.line ? { region: { startLine: at.line, ...(at.column ? { startColumn: at.column } : {}) } } : {};
  return { physicalLocation: { artifactLocation: { uri: encodeURI(`${prefix}${at.path}`), uriBaseId: "%SRCROOT%" }, ...region } };
}

function sarifResult(finding: Finding, rules: Map<string, number>, options: SarifOptions, accepted?: string) {
  const rule = ruleOf(finding);
  const location = locationOf(finding, options.prefix ?? "", options.siteFile);
  const placed = !finding.file && location ? " (its source is not known: placed on the site's config)" : "";
  return {
    ruleId: rule,
    ruleIndex: rules.get(rule) ?? 0,
    level: finding.severity === "fail" ? "error" : "warning",
    message: { text: `${finding.message}${finding.page ? ` (page ${finding.page})` : ""}${placed}\nWhat to do: ${finding.fix}` },
    ...(location ? { locations: [location] } : {}),
    ...(accepted ? { suppressions: [{ kind: "external", status: "accepted", justification: accepted }] } : {}),
    properties: {
      tool: finding.tool,
      ...(finding.page ? { page: finding.page } : {}),
      ...(finding.target ? { target: finding.target } : {}),
      ...(finding.origin ? { origin: finding.origin } : {}),
      fix: finding.fix,
    },
  };
}

/** The report as one SARIF 2.1.0 log: one result per finding (accepted ones suppressed), its rule, level and source. */
export function toSarif(report: ValidationReport, options: SarifOptions): object {
  const prefix = options.prefix ?? "";
  const all: (Finding | AcceptedFinding)[] = [...report.findings, ...(report.accepted ?? [])];
  const rules = new Map<string, number>();
  const ruleList: object[] = [];
  for (const finding of all) {
    const rule = ruleOf(finding);
    if (rules.has(rule)) continue;
    rules.set(rule, ruleList.length);
    ruleList.push({
      id: rule,
      shortDescription: { text: `${rule} (${finding.tool})` },
      defaultConfiguration: { level: finding.severity === "fail" ? "error" : "warning" },
      properties: { tool: finding.tool },
    });
  }
  // The repository's root as %SRCROOT%: the project's folder under it, climbed back from the prefix.
  const up = prefix.split("/").filter(Boolean).length;
  const srcRoot = pathToFileURL(join(report.project, ...Array<string>(up).fill(".."), "/")).href;
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "vigie", version: options.version, semanticVersion: options.version, rules: ruleList } },
        originalUriBaseIds: { "%SRCROOT%": { uri: srcRoot.endsWith("/") ? srcRoot : `${srcRoot}/` } },
        invocations: [
          {
            executionSuccessful: !report.harnessError,
            startTimeUtc: report.startedAt,
            ...(report.harnessError
              ? {
                  toolExecutionNotifications: [
                    { level: "error", message: { text: `${report.harnessError.message} ${report.harnessError.hint}` } },
                  ],
                }
              : {}),
          },
        ],
        results: [
          ...report.findings.map((finding) => sarifResult(finding, rules, options)),
          ...(report.accepted ?? []).map((finding) => sarifResult(finding, rules, options, finding.reason)),
        ],
        properties: { verdict: report.verdict, durationS: report.durationS },
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Workflow commands (docs.github.com: "Workflow commands for GitHub Actions").

/** A command's message: `%`, carriage returns and line feeds escaped. */
export const escapeData = (text: string) => text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");

/** A command's property value: as data, and `:` and `,` too. */
export const escapeProperty = (text: string) => escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");

/** GitHub shows at most this many error annotations, and as many warnings, of one step. */
export const ANNOTATIONS_SHOWN = 10;

/** One workflow command for a finding: `::error file=…,line=…,title=…::message`. */
export function annotation(finding: Finding, prefix = ""): string {
  const at = sourcePosition(finding.file);
  const properties = [
    ...(at ? [`file=${escapeProperty(`${prefix}${at.path}`)}`] : []),
    ...(at?.line ? [`line=${at.line}`] : []),
    ...(at?.column ? [`col=${at.column}`] : []),
    `title=${escapeProperty(`vigie: ${ruleOf(finding)}${finding.page ? ` on ${finding.page}` : ""}`)}`,
  ];
  const command = finding.severity === "fail" ? "error" : "warning";
  return `::${command} ${properties.join(",")}::${escapeData(`${finding.message}\nWhat to do: ${finding.fix}`)}`;
}

/** The annotations of the report's findings, 10 errors and 10 warnings at most (what GitHub shows), then a line on the rest. */
export function annotations(report: ValidationReport, prefix = ""): string[] {
  const lines: string[] = [];
  if (report.harnessError)
    return [`::error title=vigie could not run::${escapeData(`${report.harnessError.message}\n${report.harnessError.hint}`)}`];
  const fails = report.findings.filter((f) => f.severity === "fail");
  const warns = report.findings.filter((f) => f.severity !== "fail");
  for (const finding of [...fails.slice(0, ANNOTATIONS_SHOWN), ...warns.slice(0, ANNOTATIONS_SHOWN)])
    lines.push(annotation(finding, prefix));
  const moreFails = Math.max(0, fails.length - ANNOTATIONS_SHOWN);
  const moreWarns = Math.max(0, warns.length - ANNOTATIONS_SHOWN);
  if (moreFails || moreWarns) {
    const more = [
      moreFails ? `${moreFails} more failure${moreFails === 1 ? "" : "s"}` : "",
      moreWarns ? `${moreWarns} more warning${moreWarns === 1 ? "" : "s"}` : "",
    ]
      .filter(Boolean)
      .join(" and ");
    lines.push(`vigie: ${more} not annotated (GitHub shows ${ANNOTATIONS_SHOWN} of each per step): every finding is in the job summary.`);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// The job summary (GITHUB_STEP_SUMMARY): Markdown, 1 MiB at most per step.

/** At most this many findings in the summary's table. */
const SUMMARY_ROWS = 200;

const cell = (text: string) => text.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replace(/\r?\n/g, "<br>").slice(0, 600);

/** The verdict, the counts and the table of findings, as GitHub's job summary shows Markdown. */
export function jobSummary(report: ValidationReport, files: string[] = []): string {
  const icon = { PASS: "✅", WARN: "⚠️", FAIL: "❌" }[report.verdict];
  const lines = [`## ${icon} vigie validate: ${report.verdict}`, ""];
  if (report.harnessError) {
    lines.push(`vigie could not run: ${report.harnessError.message}`, "", `What to do: ${report.harnessError.hint}`, "");
    return `${lines.join("\n")}\n`;
  }
  const fails = report.findings.filter((f) => f.severity === "fail").length;
  const warns = report.findings.length - fails;
  lines.push(
    `${fails} failure${fails === 1 ? "" : "s"}, ${warns} warning${warns === 1 ? "" : "s"}, ${report.pages.length} page${report.pages.length === 1 ? "" : "s"} checked in ${report.durationS} s${report.shard ? ` (shard ${report.shard.index}/${report.shard.count})` : ""}.`,
    "",
  );
  if (report.findings.length) {
    lines.push("| | page | source | rule | finding | what to do |", "|---|---|---|---|---|---|");
    for (const finding of report.findings.slice(0, SUMMARY_ROWS))
      lines.push(
        `| ${finding.severity === "fail" ? "FAIL" : "WARN"} | ${cell(finding.page ?? "")} | ${finding.file ? `\`${cell(finding.file)}\`` : ""} | ${cell(ruleOf(finding))} | ${cell(finding.message)} | ${cell(finding.fix)} |`,
      );
    if (report.findings.length > SUMMARY_ROWS) lines.push("", `…and ${report.findings.length - SUMMARY_ROWS} more: see the reports.`);
    lines.push("");
  }
  if (report.accepted?.length)
    lines.push(
      `${report.accepted.length} finding${report.accepted.length === 1 ? "" : "s"} accepted in vigie.config.json (not counted).`,
      "",
    );
  if (report.notJudged?.length)
    lines.push(
      `${report.notJudged.length} finding${report.notJudged.length === 1 ? "" : "s"} not judged: this machine cannot reach ${[...new Set(report.notJudged.map((finding) => finding.unreachable))].join(", ")} (not counted).`,
      "",
    );
  if (files.length) lines.push(`Reports: ${files.map((file) => `\`${file}\``).join(", ")}.`, "");
  return `${lines.join("\n")}\n`;
}
