// What a dev server does on a page for its own sake, set apart from the site's faults: Vite
// answering `504 Outdated Optimize Dep` while it re-optimises dependencies (a cold start, a
// dependency found late), the "Failed to fetch dynamically imported module" that follows, and
// Astro's dev toolbar's own modules. None of it is the site's, and none of it is on the
// deployed site. A page that met a re-optimisation is loaded again once Vite has settled, and
// the second look is the page's: its answer says it was reloaded, and why.
import type { Page, Request, Response } from "playwright-core";
import type { CheckOptions, FailedRequest, PageError, PageFindings } from "./findings.ts";
import { checkPage } from "./watch.ts";

/** Why a page was checked a second time. */
export const REOPTIMISED = "dev server re-optimised dependencies";

/** The dev toolbar's modules, however Vite serves them (by id, from node_modules, optimised). */
const TOOLBAR =
  /\/(?:@id\/astro\/runtime\/client\/dev-toolbar\/|node_modules\/astro\/dist\/runtime\/client\/dev-toolbar\/|node_modules\/\.vite\/deps\/astro_runtime_client_dev-toolbar)/;

/** Vite's optimised dependencies. */
const OPTIMISED_DEPS = /\/node_modules\/\.vite\/deps\//;

/** A module the page imported on the fly that did not load (Chromium's words, Firefox's, Safari's). */
const DYNAMIC_IMPORT =
  /(?:Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed)(?::\s*(\S+))?/i;

/** What the check saw of the dev server itself while it ran. */
export interface DevSignals {
  /** The page loaded Vite's client: it comes from a dev server. */
  viteClient: boolean;
  /** URLs Vite answered 504 (its answer to a module of an outdated optimisation). */
  outdated: Set<string>;
}

export interface SortedFindings {
  /** The page's findings without the dev server's own. */
  findings: PageFindings;
  /** How many findings were the dev server's. */
  machinery: number;
  /** Vite re-optimised its dependencies while the page loaded: the page is worth loading again. */
  reoptimised: boolean;
}

const isToolbar = (url: string | undefined) => url !== undefined && TOOLBAR.test(url);

/** A failed request that is the dev server's own: a toolbar module, or a module of an outdated optimisation. */
function machineryRequest(failed: FailedRequest, signals: DevSignals): { machinery: boolean; reoptimised: boolean } {
  const outdated = failed.status === 504 || signals.outdated.has(failed.url);
  if (outdated) return { machinery: true, reoptimised: true };
  // A dependency's module cancelled while Vite swapped its optimisation.
  if (OPTIMISED_DEPS.test(failed.url) && failed.reason === "net::ERR_ABORTED" && signals.outdated.size > 0)
    return { machinery: true, reoptimised: true };
  return { machinery: isToolbar(failed.url), reoptimised: false };
}

/**
 * An error that is the dev server's own: raised in a toolbar module, Chromium's line for a 504
 * of an outdated optimisation, or a module imported on the fly that failed because of one (of
 * the toolbar, of Vite's optimised dependencies, or while Vite answered 504s on this page).
 */
function machineryError(error: PageError, signals: DevSignals): { machinery: boolean; reoptimised: boolean } {
  if (/\(Outdated Optimize Dep\)/i.test(error.message)) return { machinery: true, reoptimised: true };
  const dynamic = DYNAMIC_IMPORT.exec(error.message);
  if (dynamic) {
    const url = dynamic[1];
    if (isToolbar(url)) return { machinery: true, reoptimised: false };
    if ((url && (OPTIMISED_DEPS.test(url) || signals.outdated.has(url))) || signals.outdated.size > 0)
      return { machinery: true, reoptimised: true };
    return { machinery: false, reoptimised: false };
  }
  // Raised in a toolbar module.
  return { machinery: isToolbar(error.at ?? error.frames[0]?.url), reoptimised: false };
}

/**
 * The page's findings with the dev server's own set apart. Only on a page a dev server served
 * (it loaded Vite's client): elsewhere a 504 or a failed import is the site's.
 */
export function setMachineryApart(findings: PageFindings, signals: DevSignals): SortedFindings {
  if (!signals.viteClient) return { findings, machinery: 0, reoptimised: false };
  let machinery = 0;
  let reoptimised = false;
  const keep = <T>(items: T[], judge: (item: T) => { machinery: boolean; reoptimised: boolean }) =>
    items.filter((item) => {
      const judged = judge(item);
      reoptimised ||= judged.reoptimised;
      if (judged.machinery) machinery += 1;
      return !judged.machinery;
    });
  const failedRequests = keep(findings.failedRequests, (failed) => machineryRequest(failed, signals));
  const errors = keep(findings.errors, (error) => machineryError(error, signals));
  return { findings: { ...findings, errors, failedRequests }, machinery, reoptimised };
}

/** Listens, while `work` runs, for what the dev server itself does on the page. */
async function watching<T>(page: Page, work: () => Promise<T>): Promise<{ result: T; signals: DevSignals }> {
  const signals: DevSignals = { viteClient: false, outdated: new Set() };
  const onRequest = (request: Request) => {
    if (/\/@vite\/client(?:\?|$)/.test(request.url())) signals.viteClient = true;
  };
  const onResponse = (response: Response) => {
    if (response.status() === 504) signals.outdated.add(response.url());
  };
  page.on("request", onRequest);
  page.on("response", onResponse);
  try {
    return { result: await work(), signals };
  } finally {
    page.off("request", onRequest);
    page.off("response", onResponse);
  }
}

/** How long the page must stay still (no request, no navigation) before it is loaded again. */
const STILL_MS = 500;
/** The longest wait for Vite to settle. */
const SETTLE_CAP_MS = 5000;

/**
 * Waits for the dev server to settle after a re-optimisation: Vite reloads the open pages once
 * it has written the new dependencies, so the page is waited on until it stays still (no
 * request, no navigation) for a moment, within a cap.
 */
async function untilStill(page: Page): Promise<void> {
  let last = Date.now();
  let inflight = 0;
  const active = () => {
    last = Date.now();
  };
  const started = () => {
    inflight += 1;
    active();
  };
  const ended = () => {
    inflight = Math.max(0, inflight - 1);
    active();
  };
  page.on("request", started);
  page.on("requestfinished", ended);
  page.on("requestfailed", ended);
  page.on("framenavigated", active);
  try {
    const deadline = Date.now() + SETTLE_CAP_MS;
    while (Date.now() < deadline && !page.isClosed() && (inflight > 0 || Date.now() - last < STILL_MS))
      await new Promise((done) => setTimeout(done, 50));
  } finally {
    page.off("request", started);
    page.off("requestfinished", ended);
    page.off("requestfailed", ended);
    page.off("framenavigated", active);
  }
}

/**
 * Checks the page as `checkPage` does, with the dev server's own requests and errors set apart.
 * When Vite re-optimised its dependencies while the page loaded, the page is loaded and checked
 * again once Vite settled, and that second check is the page's (`reloaded` says why).
 */
export async function checkPageAsSite(page: Page, url: string, options: CheckOptions = {}): Promise<PageFindings> {
  const first = await watching(page, () => checkPage(page, url, options));
  const sorted = setMachineryApart(first.result, first.signals);
  if (!sorted.reoptimised || page.isClosed()) return sorted.findings;
  await untilStill(page);
  if (page.isClosed()) return sorted.findings;
  const second = await watching(page, () => checkPage(page, url, options));
  return { ...setMachineryApart(second.result, second.signals).findings, reloaded: REOPTIMISED };
}
