// astro check: the site's type errors. It needs no server and no browser: it runs beside
// the build and the browser steps.

import { warmTypeErrors } from "../../changes/dev.ts";
import { type CheckResult, CheckUnavailableError, runCheck } from "../../typecheck/typecheck.ts";
import { enabled, firstShard, loc, type Step, type ValidateContext } from "./context.ts";
import type { Finding } from "./findings.ts";

/** Places listed in one grouped finding's message. */
const PLACES = 5;

/**
 * Each type error is a warning at its file and line; errors of one kind (the same code and
 * message) are one warning at the first, listing the others. Warnings and hints are not findings.
 */
export function checkFindings(ctx: ValidateContext, diagnostics: CheckResult["diagnostics"]): Finding[] {
  const tool = ctx.tool("build_check");
  const groups = new Map<string, CheckResult["diagnostics"]>();
  for (const diagnostic of diagnostics) {
    if (diagnostic.severity !== "error") continue;
    const key = `${diagnostic.code ?? ""}\u0000${diagnostic.message}`;
    groups.set(key, [...(groups.get(key) ?? []), diagnostic]);
  }
  return [...groups.values()].map(([first, ...others]): Finding => {
    const more = others.length
      ? ` (also at ${others
          .slice(0, PLACES)
          .map((other) => loc(other.file, other.line, other.column))
          .join(", ")}${others.length > PLACES ? ` and ${others.length - PLACES} more` : ""})`
      : "";
    const diagnostic = first as CheckResult["diagnostics"][number];
    return {
      severity: "warn",
      tool,
      rule: "type-error",
      file: loc(diagnostic.file, diagnostic.line, diagnostic.column),
      message: `type error${others.length ? `, ${others.length + 1} times` : ""}: ${diagnostic.message}${more}`,
      fix: `Fix the types; run ${tool} to see every diagnostic.`,
    };
  });
}

/** " (kept from the run of 12:04:31, 48.1 s: nothing it reads has changed)" for a result from the cache. */
export const keptFrom = (result: CheckResult) =>
  result.cached
    ? ` (kept from the run of ${result.cached.at.slice(11, 19)} UTC, ${result.cached.durationS} s: nothing it reads has changed)`
    : "";

export const checkStep: Step = {
  name: "astro check",
  tool: "build_check",
  after: [],
  skip(ctx) {
    if (!firstShard(ctx)) return "done by shard 1";
    if (!enabled(ctx, "check")) return "disabled in vigie.config.json";
    const scope = ctx.options.changes?.check;
    return scope && !scope.run ? scope.why : undefined;
  },
  async run(ctx) {
    // Under --changed, when no change can alter the types .astro/ holds, the check reads them as
    // they are: the build writes the same ones beside it.
    const noSync = ctx.options.changes?.check?.sync === false;
    // The dev server vigie runs keeps Astro's checker warm: only the changed files are asked.
    const warm = ctx.options.changes?.check?.warm;
    if (warm?.length) {
      const answer = await warmTypeErrors(ctx.project, warm, ctx.options.signal);
      if ("errors" in answer) {
        const diagnostics = answer.errors.map((error) => ({ ...error, column: 1, severity: "error" as const }));
        return {
          status: diagnostics.length ? "warn" : "ok",
          summary: `${diagnostics.length} errors in the ${warm.length} changed files (the dev server's warm checker)`,
          findings: checkFindings(ctx, diagnostics),
        };
      }
    }
    const result = await runCheck(ctx.project, { signal: ctx.options.signal, noSync }).catch((error: Error) => error);
    if (result instanceof CheckUnavailableError) {
      // Not the site's fault: say why, and how to enable it.
      return { status: "skipped", summary: `not run: ${result.message}. ${result.hint}` };
    }
    if (result instanceof Error) throw result;
    const findings = checkFindings(ctx, result.diagnostics);
    return {
      status: result.errors ? "warn" : "ok",
      summary: `${result.errors} errors, ${result.warnings} warnings${noSync ? " (on the types in .astro/)" : ""}${keptFrom(result)}`,
      findings,
    };
  },
};
