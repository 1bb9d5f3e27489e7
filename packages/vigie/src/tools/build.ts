import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { type Answer, VigieError, writeReport } from "../core/answer.ts";
import { readSite } from "../core/astro/site.ts";
import { runBuild } from "../core/build/build.ts";
import type { BuildIssue } from "../core/build/output.ts";
import { checkDevSiteLinks, checkSiteLinks } from "../core/checks/links.ts";
import { LINTERS, type Linter, lint } from "../core/checks/lint.ts";
import { resolveBaseUrl } from "../core/devServer/target.ts";
import type { BrokenLink } from "../core/links/links.ts";
import type { LintProblem } from "../core/lint/problem.ts";
import { runCheck } from "../core/typecheck/typecheck.ts";
import { lines, more } from "./answers.ts";
import { defineTool, portArgument, type ToolDefinition } from "./define.ts";

function issueSummary(issue: BuildIssue): Answer {
  return {
    message: issue.message,
    notJudged: issue.unreachable ? `this machine cannot reach ${issue.host} (${issue.cause ?? "no connection"})` : undefined,
    file: issue.file,
    line: issue.line,
    column: issue.column,
    route: issue.route,
    component: issue.component,
    details: issue.details && !issue.code?.endsWith("Error") ? issue.details : undefined,
  };
}

/** Warnings grouped by code (or message), with their count. */
function groupWarnings(warnings: BuildIssue[]): Answer[] {
  const groups = new Map<string, { first: BuildIssue; count: number }>();
  for (const warning of warnings) {
    const key = warning.code ?? warning.message;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { first: warning, count: 1 });
  }
  return [...groups.values()].map(({ first, count }) => ({
    ...issueSummary(first),
    count: count > 1 ? count : undefined,
  }));
}

function buildHint(issue: BuildIssue | undefined, timedOut: boolean, report: string): string | undefined {
  if (timedOut) return `Raise timeoutS, or read ${report} to see where the build stalled.`;
  if (!issue) return undefined;
  const where = issue.file ? `${issue.file}${issue.line ? `:${issue.line}` : ""}` : undefined;
  if (issue.unreachable)
    return `Not the site's fault: ${where ?? issue.route ?? "the build"} fetched ${issue.host}, which this machine cannot reach. Nothing to fix if the machines that build the site reach it; the dev server (blog_dev_start) shows the pages here.`;
  if (issue.route && /is not defined/.test(issue.message) && issue.file?.endsWith(".mdx"))
    return `The page ${issue.route} throws while rendering: at ${where} a {…} in prose is read as code; escape it (\\{…\\} or inline code).`;
  if (issue.route)
    return `The page ${issue.route} throws while rendering${where ? ` (${where})` : ""}${issue.component ? `, in ${issue.component}` : ""}.`;
  if (/Could not parse expression/.test(issue.message))
    return `At ${where}, braces in prose are read as code: escape them (\\{…\\}, inline code or {'{'}).`;
  return where
    ? `Fix ${where}, then build again; blog_build_lint finds most content faults without a build.`
    : `Read ${report} for the full log.`;
}

const run = defineTool({
  exportName: "run",
  group: "build",
  title: "Production build",
  readOnly: false,
  idempotent: true,
  description:
    "Production build with a timeout that kills the whole process tree. Answers success, durationS, pageCount, errors with their source file and line, warnings, and the full log's path.",
  args: (z) => ({
    timeoutS: z.number().int().min(1).max(1800).describe("default 120").optional(),
  }),
  answer: (z) => ({
    success: z.boolean(),
    durationS: z.number(),
    pageCount: z.number().int(),
    distBytes: z.number(),
    errors: z.array(z.looseObject({ message: z.string().optional(), file: z.string().optional(), line: z.number().optional() })),
    warnings: z.array(z.looseObject({})),
    warningCount: z.number().int(),
    outputTail: lines(z),
  }),
  // The output's tail gets what room the errors and warnings leave, its last lines.
  lists: { errors: 3, warnings: 3, outputTail: { show: 20, keep: "last" }, "errors.details": 3, "warnings.details": 3 },
  limits: { "errors.message": 220, "warnings.message": 160 },
  run: async (args, context) => {
    const result = await runBuild(readSite(context.project), {
      timeoutMs: args.timeoutS ? args.timeoutS * 1000 : undefined,
      signal: context.signal,
    });
    const answer: Answer = {
      success: result.success,
      durationS: result.durationS,
      pageCount: result.pageCount,
      distBytes: result.distBytes,
      errors: result.errors.map(issueSummary),
      warnings: groupWarnings(result.warnings),
      warningCount: result.warnings.length,
      hint: result.success
        ? undefined
        : buildHint(
            result.errors.find((error) => error.file && !error.unreachable) ??
              result.errors.find((error) => !error.unreachable) ??
              result.errors[0],
            result.timedOut,
            result.report,
          ),
      outputTail: result.outputTail,
    };
    return { answer, files: { report: result.report } };
  },
});

function problemSummary(problem: LintProblem): Answer {
  return {
    file: problem.file,
    line: problem.line,
    column: problem.column,
    rule: problem.rule,
    message: problem.message,
    hint: problem.hint,
  };
}

const lintTool = defineTool({
  exportName: "lint",
  group: "build",
  title: "Lint the content",
  readOnly: true,
  idempotent: true,
  description:
    "Content checks without a build: frontmatter vs schema, FR/EN pairs, braces in MDX prose, missing images, duplicate slugs, Mermaid syntax by mermaid's parser. Answers the problems with file, line, rule and hint.",
  args: (z) => ({
    linter: z
      .enum(["all", ...LINTERS])
      .describe("default all")
      .optional(),
    path: z.string().min(1).describe("only this file or folder").optional(),
  }),
  answer: (z) => {
    const linter = z.looseObject({
      success: z.boolean().optional(),
      count: z.number().int().optional(),
      problems: z.array(z.looseObject({})).optional(),
      more: more(z),
    });
    return { success: z.boolean(), fileCount: z.number().int(), content: linter, mermaid: linter, notes: lines(z), durationMs: z.number() };
  },
  lists: { "content.problems": 6, "mermaid.problems": 4, notes: 5 },
  limits: {
    "content.problems.message": 200,
    "content.problems.hint": 160,
    "mermaid.problems.message": 200,
    "mermaid.problems.hint": 160,
    notes: 160,
  },
  run: async (args, context) => {
    const { project } = context;
    if (args.path) {
      const target = resolve(project.root, args.path);
      if (relative(project.root, target).startsWith("..") || !existsSync(target)) {
        throw new VigieError(
          `path "${args.path}" is not a file or folder of the project`,
          'Give a path relative to the project root, e.g. "src/content/articles/en".',
          {
            argument: "path",
          },
        );
      }
    }
    const linters: readonly Linter[] = !args.linter || args.linter === "all" ? LINTERS : [args.linter];
    const result = await lint(readSite(project), { linters, only: args.path ? [args.path] : undefined, signal: context.signal });
    const all = [...(result.content?.problems ?? []), ...(result.mermaid?.problems ?? [])];
    const report = writeReport(project, "lint.json", result);
    const answer: Answer = { success: all.length === 0, fileCount: result.files };
    if (result.content) {
      answer.content = {
        success: result.content.success,
        count: result.content.problems.length,
        problems: result.content.problems.map(problemSummary),
      };
    }
    if (result.mermaid) {
      answer.mermaid = {
        success: result.mermaid.success,
        diagrams: result.mermaid.diagrams,
        count: result.mermaid.problems.length,
        problems: result.mermaid.problems.map(problemSummary),
      };
    }
    const notes = [...(result.content?.notes ?? []), ...(result.mermaid?.notes ?? [])];
    if (notes.length > 0) answer.notes = notes;
    answer.durationMs = result.durationMs;
    return { answer, files: { report } };
  },
});

const check = defineTool({
  exportName: "check",
  group: "build",
  title: "astro check",
  readOnly: true,
  idempotent: true,
  description:
    "TypeScript and Astro diagnostics (astro check, 20-60 s). Answers errors, warnings, hints and the first diagnostics [{file,line,message}].",
  args: (z) => ({
    timeoutS: z.number().int().min(10).max(1800).describe("default 300").optional(),
  }),
  answer: (z) => ({
    success: z.boolean(),
    errors: z.number().int(),
    warnings: z.number().int(),
    hints: z.number().int(),
    fileCount: z.number().int(),
    diagnostics: z.array(z.looseObject({})),
    durationS: z.number(),
    keptFrom: z.string().optional(),
  }),
  lists: { diagnostics: 8 },
  limits: { "diagnostics.message": 180 },
  run: async (args, context) => {
    const result = await runCheck(context.project, { timeoutMs: args.timeoutS ? args.timeoutS * 1000 : undefined, signal: context.signal });
    const answer: Answer = {
      success: result.success,
      errors: result.errors,
      warnings: result.warnings,
      hints: result.hints,
      fileCount: result.files,
      diagnostics: result.diagnostics,
      durationS: result.durationS,
      // Nothing the check reads has changed since this run: its result, without running it again.
      keptFrom: result.cached ? `${result.cached.at} (${result.cached.durationS} s)` : undefined,
    };
    return { answer, files: { report: result.report } };
  },
});

/** Broken links as the link tool lists them. */
const brokenItems = (broken: BrokenLink[]): Answer[] =>
  broken.map((link) => ({
    from: link.from,
    to: link.to,
    reason: link.reason,
    source: link.source,
    pages: link.pages > 1 ? link.pages : undefined,
  }));

const links = defineTool({
  exportName: "links",
  group: "build",
  title: "Check built links",
  readOnly: true,
  idempotent: true,
  description:
    "Checks every internal link, asset, #fragment and hreflang alternate of the build resolves. Answers broken [{from,to,reason,source}].",
  args: (z) => ({
    pages: z.array(z.string().startsWith("/")).min(1).max(20).describe("on the dev server instead").optional(),
    port: portArgument(z, "the dev server's"),
  }),
  answer: (z) => ({
    success: z.boolean(),
    pages: z.number().int(),
    checked: z.number().int(),
    broken: z.array(z.looseObject({ from: z.string().optional(), to: z.string().optional(), reason: z.string().optional() })),
    stale: z.string(),
  }),
  lists: { broken: 8 },
  limits: { "broken.to": 160, "broken.reason": 160 },
  run: async (args, context) => {
    const site = readSite(context.project);
    if (args.pages) {
      const origin = resolveBaseUrl(context.project, args);
      const result = await checkDevSiteLinks(site, origin, args.pages, { signal: context.signal });
      return {
        answer: { success: result.broken.length === 0, pages: result.pages, checked: result.checked, broken: brokenItems(result.broken) },
      };
    }
    const result = await checkSiteLinks(site);
    const answer: Answer = {
      success: result.broken.length === 0,
      pages: result.pages,
      checked: result.checked,
      broken: brokenItems(result.broken),
      external: result.external,
      stale: result.stale && `${result.stale}: run blog_build_run to check the current sources`,
    };
    return { answer, files: { report: result.report } };
  },
});

/** blog_build_*: the production build, content lint, astro check and link check. */
export const buildTools: ToolDefinition[] = [run, lintTool, check, links] as ToolDefinition[];
