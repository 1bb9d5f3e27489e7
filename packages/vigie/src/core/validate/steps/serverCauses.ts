// The causes of the 5xx answers a crawl met (pages, and the requests pages made), asked of the
// server the pages came from: the production server's output, or the dev server's log.
import { readAstroSettings } from "../../astro/astroConfig.ts";
import type { CrawlPage } from "../../browser/crawl.ts";
import { type FailureCause, failureCauses } from "../../production/pageCauses.ts";
import { devLog } from "../../production/serverErrors.ts";
import type { ValidateContext } from "../context.ts";

export type { FailureCause };

/** The cause of each 5xx URL of the crawl (at most `limit`, one at a time), by URL. */
export async function serverCauses(
  ctx: ValidateContext,
  pagesUrl: string,
  pages: CrawlPage[],
  log: (() => string) | undefined,
  limit = 20,
): Promise<Map<string, FailureCause>> {
  const { routes, staticDir } = ctx.rendering;
  const read = log ?? (ctx.dev?.started && pagesUrl === ctx.dev.url ? devLog(ctx.project) : undefined);
  return failureCauses(ctx.project, pagesUrl, pages, {
    ...(read ? { log: read } : {}),
    base: ctx.site.base,
    routes,
    outDirs: [staticDir, readAstroSettings(ctx.project).outDir],
    limit,
  });
}
