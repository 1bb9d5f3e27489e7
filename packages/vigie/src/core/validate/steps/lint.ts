// Content lint: frontmatter, translations, MDX expressions, images, Mermaid.
import { lint } from "../../checks/lint.ts";
import type { LintProblem } from "../../lint/problem.ts";
import { enabled, firstShard, loc, type Step, type ValidateContext } from "./context.ts";
import type { Finding } from "./findings.ts";

/** A lint problem is a finding of the file and line; a missing translation only warns. */
export function lintFindings(ctx: ValidateContext, problems: LintProblem[]): Finding[] {
  return problems.map(
    (problem): Finding => ({
      severity: problem.rule === "translation" ? "warn" : "fail",
      tool: ctx.tool("build_lint"),
      rule: problem.rule,
      file: loc(problem.file, problem.line, problem.column),
      message: `${problem.rule}: ${problem.message}`,
      fix: problem.hint,
    }),
  );
}

export const lintStep: Step = {
  name: "lint",
  tool: "build_lint",
  after: [],
  skip(ctx) {
    if (!firstShard(ctx)) return "done by shard 1";
    if (!enabled(ctx, "lint")) return "disabled in vigie.config.json";
    // --changed reports only the changed content files' problems: with none, there is nothing to report.
    return ctx.options.changes?.files?.length === 0 ? "no content file changed" : undefined;
  },
  async run(ctx) {
    const only = ctx.options.changes?.files;
    const result = await lint(ctx.site, { signal: ctx.options.signal, ...(only ? { only } : {}) });
    const problems = [...(result.content?.problems ?? []), ...(result.mermaid?.problems ?? [])];
    const findings = lintFindings(ctx, problems);
    return {
      status: problems.some((p) => p.rule !== "translation") ? "fail" : problems.length ? "warn" : "ok",
      summary: `${result.files} files${only ? ` (${only.length} changed)` : ""}, ${problems.length} problem${problems.length === 1 ? "" : "s"}`,
      findings,
    };
  },
};
