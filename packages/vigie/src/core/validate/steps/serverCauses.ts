// The causes of the 5xx answers a crawl met (pages, and the requests pages made): asked again
// of the server while its log is read, so each failure names Astro's error and its source.
import { readAstroSettings } from "../../astro/astroConfig.ts";
import { routeOf } from "../../astro/rendering.ts";
import type { CrawlPage } from "../../browser/crawl.ts";
import { askServerError, devLog, type ServerErrorCause } from "../../production/serverErrors.ts";
import type { ValidateContext } from "../context.ts";

/** What is known of one failing URL: the error it logged, or only the route's source file. */
export type FailureCause = ServerErrorCause | { source: string };

/** A page the browser got no answer for: an empty 5xx body gives Chromium's own error page, and no status. */
const noAnswer = (page: CrawlPage) => page.status === 0;

/** The URLs (same server) that answered 5xx: the pages, then the requests they made. */
function failingUrls(pages: CrawlPage[], pagesUrl: string): string[] {
  const urls = new Set<string>();
  for (const page of pages) {
    if (page.status >= 500 || noAnswer(page)) urls.add(`${pagesUrl}${page.path}`);
    for (const failed of page.failedRequests)
      if ((failed.status ?? 0) >= 500 && failed.url.startsWith(`${pagesUrl}/`)) urls.add(failed.url.split("#")[0] as string);
  }
  return [...urls];
}

/** The cause of each 5xx URL of the crawl (at most `limit`, one at a time), by URL. */
export async function serverCauses(
  ctx: ValidateContext,
  pagesUrl: string,
  pages: CrawlPage[],
  log: (() => string) | undefined,
  limit = 20,
): Promise<Map<string, FailureCause>> {
  const causes = new Map<string, FailureCause>();
  const urls = failingUrls(pages, pagesUrl).slice(0, limit);
  if (urls.length === 0) return causes;
  const { routes, staticDir } = ctx.rendering;
  const read = log ?? (ctx.dev?.started && pagesUrl === ctx.dev.url ? devLog(ctx.project) : undefined);
  for (const url of urls) {
    const cause = read
      ? await askServerError(ctx.project, url, read, {
          base: ctx.site.base,
          routes,
          outDirs: [staticDir, readAstroSettings(ctx.project).outDir],
        })
      : undefined;
    const route = routes ? routeOf(routes, ctx.site.base, new URL(url).pathname) : undefined;
    if (cause) causes.set(url, cause);
    else if (route && !pages.some((page) => noAnswer(page) && `${pagesUrl}${page.path}` === url))
      causes.set(url, { source: route.component });
  }
  return causes;
}
