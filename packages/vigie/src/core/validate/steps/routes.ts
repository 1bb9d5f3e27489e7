// HTTP on the critical routes of the server under test (the home and each locale's home).

import { sleep } from "../../wait.ts";
import { firstShard, givenUrl, type Step, type ValidateContext } from "../context.ts";
import type { Finding } from "../findings.ts";

/** The server the routes are asked of: the one given, else the dev server. */
const liveUrl = (ctx: ValidateContext) => givenUrl(ctx) ?? ctx.dev?.url;

/** How often, and how far apart, a dev server's 5xx or silence is asked again before it is a finding. */
export const DEV_RETRIES = 2;
export const DEV_RETRY_MS = 2_000;

async function askRoute(ctx: ValidateContext, url: string, route: string): Promise<{ finding?: Finding; retried: number }> {
  // A dev server may be restarting (the build and astro sync rewrite .astro/, which it watches)
  // or re-optimising its dependencies: a 5xx or no answer from it is asked again before it counts.
  const retries = givenUrl(ctx) ? 0 : DEV_RETRIES;
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${url}${route}`, { redirect: "manual", signal: AbortSignal.timeout(30_000) }).catch(
      (error: Error) => error,
    );
    const finding = routeFinding(ctx, route, response instanceof Error ? response : response.status);
    const transient = response instanceof Error || response.status >= 500;
    if (!finding || !transient || attempt >= retries) return { ...(finding ? { finding } : {}), retried: attempt };
    await sleep(DEV_RETRY_MS, ctx.options.signal ? { signal: ctx.options.signal } : {});
  }
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
    const askedAgain: string[] = [];
    for (const route of ctx.critical) {
      const { finding, retried } = await askRoute(ctx, url, route);
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
