// HTTP on the critical routes of the server under test (the home and each locale's home).
import { checkRoutes, DEV_RETRIES } from "../../checks/routes.ts";
import type { HttpGetResult } from "../../devServer/http.ts";
import { firstShard, givenUrl, type Step, type ValidateContext } from "./context.ts";
import type { Finding } from "./findings.ts";

/** The server the routes are asked of: the one given, else the dev server. */
const liveUrl = (ctx: ValidateContext) => givenUrl(ctx) ?? ctx.dev?.url;

/** A critical route that answered 4xx or 5xx, or not at all, is a failure; any other status none. */
export function routeFinding(ctx: ValidateContext, route: string, response: number | Error | HttpGetResult): Finding | undefined {
  const answer = typeof response === "number" ? { status: response } : response;
  if (!(answer instanceof Error) && answer.status < 400) return undefined;
  // Astro's dev error page: the error, and what the server logged for it.
  const error = !(answer instanceof Error) && "errorName" in answer && answer.errorName ? answer : undefined;
  const said = error ? ` (${error.errorName}${error.errorMessage ? `: ${error.errorMessage}` : ""})` : "";
  return {
    severity: "fail",
    tool: ctx.tool("dev_http_get"),
    rule: "http-status",
    page: route,
    ...(error?.errorFile ? { file: error.errorFile } : {}),
    message: answer instanceof Error ? `no answer: ${answer.message}` : `HTTP ${answer.status}${said}`,
    fix: `Open the route with ${ctx.tool("dev_http_get")} and read ${ctx.tool("dev_logs")} for the server's error.`,
  };
}

export const routesStep: Step = {
  name: "critical routes",
  tool: "dev_http_get",
  // Astro's build and check sync .astro/, which restarts the dev server: ask once they are done
  // (a check that reads .astro/ as it is, under --changed, writes nothing there).
  after: ["dev server", "lint", "build"],
  alsoAfter: (ctx) => (ctx.options.changes?.check?.sync === false ? [] : ["astro check"]),
  skip: (ctx) => (!liveUrl(ctx) ? "no server to ask" : firstShard(ctx) ? undefined : "done by shard 1"),
  async run(ctx) {
    const url = liveUrl(ctx) as string;
    const findings: Finding[] = [];
    const askedAgain: string[] = [];
    // A dev server may be restarting (the build and astro sync rewrite .astro/, which it watches):
    // its 5xx or silence is asked again before it counts; a given server's is not.
    const retries = givenUrl(ctx) ? 0 : DEV_RETRIES;
    const answers = await checkRoutes(ctx.project, url, ctx.critical, {
      retries,
      ...(ctx.options.signal ? { signal: ctx.options.signal } : {}),
    });
    for (const { route, answer, retried } of answers) {
      const finding = routeFinding(ctx, route, answer);
      if (finding) findings.push(finding);
      else if (retried) askedAgain.push(route);
    }
    const answered = ctx.critical.length - findings.length;
    const again = askedAgain.length ? ` (${askedAgain.join(", ")} answered once asked again: the dev server was settling)` : "";
    return {
      status: findings.length ? "fail" : "ok",
      summary: `${answered}/${ctx.critical.length} routes answer${again}`,
      findings,
    };
  },
};
