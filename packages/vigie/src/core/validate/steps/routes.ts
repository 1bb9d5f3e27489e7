// HTTP on the critical routes of the server under test (the home and each locale's home).
import { firstShard, givenUrl, type Step, type ValidateContext } from "../context.ts";
import type { Finding } from "../findings.ts";

/** The server the routes are asked of: the one given, else the dev server. */
const liveUrl = (ctx: ValidateContext) => givenUrl(ctx) ?? ctx.dev?.url;

async function askRoute(ctx: ValidateContext, url: string, route: string): Promise<Finding | undefined> {
  const response = await fetch(`${url}${route}`, { redirect: "manual", signal: AbortSignal.timeout(30_000) }).catch(
    (error: Error) => error,
  );
  return routeFinding(ctx, route, response instanceof Error ? response : response.status);
}

/** A critical route that answered 4xx or 5xx, or not at all, is a failure; any other status none. */
export function routeFinding(ctx: ValidateContext, route: string, response: number | Error): Finding | undefined {
  const status = response instanceof Error ? 0 : response;
  if (status !== 0 && status < 400) return undefined;
  return {
    severity: "fail",
    tool: ctx.tool("dev_http_get"),
    rule: "http-status",
    page: route,
    message: response instanceof Error ? `no answer: ${response.message}` : `HTTP ${status}`,
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
    for (const route of ctx.critical) {
      const finding = await askRoute(ctx, url, route);
      if (finding) findings.push(finding);
    }
    const answered = ctx.critical.length - findings.length;
    return { status: findings.length ? "fail" : "ok", summary: `${answered}/${ctx.critical.length} routes answer`, findings };
  },
};
