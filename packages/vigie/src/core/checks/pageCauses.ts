// The causes of the 5xx answers a set of checked pages met (the pages themselves, the
// requests they made), asked again of the server while its log is read, and those causes
// put on the pages' faults: a 5xx page or request then names Astro's error and its source.
// Shared by validate's crawl step and the crawl tool.

import { clip } from "../answer.ts";
import { routeOf, type SiteRoute } from "../astro/rendering.ts";
import { type PageFault, pageFaults } from "../browser/page/faults.ts";
import type { NetworkPolicy, PageFindings } from "../browser/page/findings.ts";
import { unreachableHere } from "../browser/page/network.ts";
import type { Project } from "../project.ts";
import { askServerError, describeCause, type ServerErrorCause } from "./serverErrors.ts";

/** What is known of one failing URL: the error it logged, or only the route's source file. */
export type FailureCause = ServerErrorCause | { source: string };

/** A checked page: its findings and its path on the server that was checked. */
export type CheckedPage = PageFindings & { path: string };

/** A page the browser got no answer for: an empty 5xx body gives Chromium's own error page, and no status. */
const noAnswer = (page: CheckedPage) => page.status === 0;

/** The URLs (same server) that answered 5xx: the pages, then the requests they made. */
export function failingUrls(pages: CheckedPage[], pagesUrl: string): string[] {
  const urls = new Set<string>();
  for (const page of pages) {
    if (page.status >= 500 || noAnswer(page)) urls.add(`${pagesUrl}${page.path}`);
    for (const failed of page.failedRequests)
      if ((failed.status ?? 0) >= 500 && failed.url.startsWith(`${pagesUrl}/`)) urls.add(failed.url.split("#")[0] as string);
  }
  return [...urls];
}

export interface CauseOptions {
  /** The server's output as one growing text; without it, only the route's source file is known. */
  log?: () => string;
  /** The site's base ("/docs/"). */
  base: string;
  /** The project's routes (from the last build): a failing URL's source file. */
  routes?: SiteRoute[];
  /** The build's folders: stack frames in them are not sources. */
  outDirs?: string[];
  /** At most this many URLs are asked again, one at a time. Default 20. */
  limit?: number;
  /** How a render that failed on a request to a host this machine cannot reach is judged (network.ts). */
  network?: NetworkPolicy;
}

/** The cause of each 5xx URL the pages met, by URL. */
export async function failureCauses(
  project: Project,
  pagesUrl: string,
  pages: CheckedPage[],
  options: CauseOptions,
): Promise<Map<string, FailureCause>> {
  const causes = new Map<string, FailureCause>();
  const urls = failingUrls(pages, pagesUrl).slice(0, options.limit ?? 20);
  const { log, base, routes, outDirs } = options;
  for (const url of urls) {
    const cause = log ? await askServerError(project, url, log, { base, routes, outDirs }) : undefined;
    if (cause?.network) cause.network.unreachable = await unreachableHere(cause.network.reach, options.network);
    const route = routes ? routeOf(routes, base, new URL(url).pathname) : undefined;
    if (cause) causes.set(url, cause);
    else if (route && !pages.some((page) => noAnswer(page) && `${pagesUrl}${page.path}` === url))
      causes.set(url, { source: route.component });
  }
  return causes;
}

/** ": Error: boom", the source and the status of a 5xx answer's cause, when known. */
function causeOf(
  causes: Map<string, FailureCause>,
  url: string,
): {
  text: string;
  serverError?: { serverError: string };
  source?: string;
  status?: number;
  unreached?: Pick<PageFault, "unsure" | "unreachedHost">;
} {
  const cause = causes.get(url);
  if (!cause) return { text: "" };
  const network = "network" in cause && cause.network?.unreachable ? cause.network : undefined;
  return {
    ...(network
      ? {
          unreached: {
            unsure: `not judged: its render fetched ${network.host}, which this machine cannot reach (${network.cause})`,
            unreachedHost: network.host,
          },
        }
      : {}),
    text: "name" in cause ? `: ${cause.name}: ${cause.message}` : "",
    ...("name" in cause ? { serverError: { serverError: `${cause.name}: ${cause.message}` } } : {}),
    ...(cause.source ? { source: cause.source } : {}),
    ...("status" in cause && cause.status ? { status: cause.status } : {}),
  };
}

/**
 * A page's faults with what its server said: a 5xx page or request carries Astro's error and
 * its source (which the dev error page then need not repeat); an empty 5xx body (Chromium's
 * own error page, no status) its real status and none of that error page's noise.
 */
export function faultsWithCauses(page: CheckedPage, pagesUrl: string, causes: Map<string, FailureCause>): PageFault[] {
  const pageCause = causeOf(causes, `${pagesUrl}${page.path}`);
  const emptyError = page.status === 0 && pageCause.status !== undefined;
  const requests = new Map(page.failedRequests.map((failed) => [failed.url, failed]));
  const located = (source: string | undefined, otherwise?: PageFault["located"]) =>
    source ? { located: { source } } : otherwise ? { located: otherwise } : {};
  return pageFaults(page).flatMap((fault): PageFault[] => {
    if (fault.kind === "status") {
      const status = page.status || pageCause.status;
      const message = `${status ? `HTTP ${status}` : "no answer"}${pageCause.text}`;
      return [{ ...fault, message, status: status ?? 0, ...pageCause.serverError, ...located(pageCause.source), ...pageCause.unreached }];
    }
    if (emptyError && fault.kind === "error" && `${fault.message} ${fault.at ?? ""}`.includes("chrome-error://")) return [];
    // The dev error page says no more than the error its server logged (often less: its overlay comes later).
    if (fault.kind === "dev-error" && pageCause.serverError) return [];
    if (fault.kind === "request" && fault.url) {
      const failed = requests.get(fault.url);
      if (emptyError && failed?.type === "document" && fault.url === `${pagesUrl}${page.path}`) return [];
      if ((failed?.status ?? 0) < 500) return [fault];
      const cause = causeOf(causes, fault.url.split("#")[0] as string);
      return [{ ...fault, message: `${fault.message}${cause.text}`, ...cause.serverError, ...located(cause.source, fault.located) }];
    }
    return [fault];
  });
}

/**
 * The fault to name first for a failing page: its server's error (the page's own 5xx, else a
 * request's) when one is known, else the first a reader meets beyond the status.
 */
export function firstFault(faults: PageFault[]): PageFault | undefined {
  return (
    faults.find((fault) => fault.kind === "status" && fault.serverError) ??
    faults.find((fault) => fault.serverError) ??
    faults.find((fault) => fault.kind !== "status") ??
    faults[0]
  );
}

/** The causes the server logged, one line each: "/x/: Error: boom (src/x.astro:4)". */
export function causeLines(causes: Map<string, FailureCause>): string[] {
  return [...causes].flatMap(([failing, cause]) =>
    "name" in cause ? [clip(`${new URL(failing).pathname}: ${describeCause(cause)}`, 240)] : [],
  );
}
