// Loads a page and collects what breaks it for a reader: uncaught exceptions, unhandled
// rejections, console errors, failed requests AND sub-resource responses >= 400 (a
// missing image fires no `requestfailed`), Mermaid diagrams drawn as errors, and
// Astro's dev error page. Waits for the page to settle, and never hangs.
import type { Page, Response } from "playwright-core";
import type { ActionsOutcome } from "../../actions.ts";
import { clip } from "../../answer.ts";
import { type RunHooks, runActions } from "./actions.ts";
import type { CheckOptions, Navigation, PageError, PageFindings } from "./findings.ts";
import { messageIslands, restorePlaces, restoreWarningPlaces } from "./hydration.ts";
import { type IslandsSnapshot, judgeIslands, readPage, snapshotIslands } from "./islands.ts";
import { navigate } from "./navigate.ts";
import { blockOtherHosts, hostOf } from "./network.ts";
import {
  afterLoad,
  DEV_QUIET_MS,
  declaredIcons,
  devErrorPage,
  elementTokens,
  isUndeclaredFavicon,
  mermaidFailures,
  ownDevError,
  QUIET_MS,
  READ_TIMEOUT_MS,
  waitForDiagrams,
  waitForQuiet,
} from "./readers.ts";
import { type Collector, collect } from "./recorders.ts";
import { narrowScreenReasons } from "./viewports.ts";

/** How long the page may take to settle after each action. */
const ACTION_SETTLE_MS = 3000;

/** The document as it loaded: its status, where the server redirected it, or why it did not load. */
interface Loaded {
  /** 0 when it never answered. */
  status: number;
  redirectedTo?: string;
  incomplete?: string;
}

/** What the check did on the page once it settled: the actions it ran, the tokens it listed, the navigations it made. */
interface Acted {
  actions?: ActionsOutcome;
  tokens?: string[];
  navigations: Navigation[];
  /** The page's islands, read before any navigation took the check to another page. */
  islands?: IslandsSnapshot;
  narrow?: string[];
}

/**
 * Opens `url` in `page` and returns every fault seen until the page settled (load, a
 * short network quiet, diagrams drawn), within the timeouts.
 */
export async function checkPage(page: Page, url: string, options: CheckOptions = {}): Promise<PageFindings> {
  if (options.network?.policy !== "offline") return checkLoaded(page, url, options);
  const unblock = await blockOtherHosts(page, hostOf(url));
  try {
    return await checkLoaded(page, url, options);
  } finally {
    await unblock();
  }
}

async function checkLoaded(page: Page, url: string, options: CheckOptions): Promise<PageFindings> {
  // The document this page still holds (the last page checked) is left first: on a dev server
  // its HMR client may reload it as the server tells it to, and interrupt the navigation.
  if (/^https?:/.test(page.url())) await page.goto("about:blank", { timeout: 5000 }).catch(() => undefined);
  const collector = collect(page, options);
  const settleTimeout = options.settleTimeoutMs ?? 8000;
  const loaded = await load(page, url, options);
  /** How long the network must stay quiet: set once the page is loaded (longer on a dev server). */
  let quietMs = options.quietMs ?? QUIET_MS;
  let incomplete = loaded.incomplete;
  if (!incomplete) ({ quietMs, incomplete } = await settle(page, collector, options, settleTimeout));
  const answered = loaded.status > 0 && loaded.status < 400;
  const acted: Acted = incomplete ? { navigations: [] } : await act(page, collector, options, { quietMs, settleTimeout, answered });
  return conclude(page, url, collector, options, { ...loaded, ...(incomplete ? { incomplete } : {}) }, acted);
}

/** Goes to `url`: the document's status and where it ended, or why it did not load. */
async function load(page: Page, url: string, options: CheckOptions): Promise<Loaded> {
  const timeout = options.navigationTimeoutMs ?? 15_000;
  // The document's answer, as soon as it comes: a page that answered but never finished loading did answer.
  let answered = 0;
  const onResponse = (response: Response) => {
    const request = response.request();
    if (!request.isNavigationRequest() || request.frame() !== page.mainFrame() || (response.status() >= 300 && response.status() < 400))
      return;
    answered = response.status();
    options.onAnswered?.(answered);
  };
  page.on("response", onResponse);
  try {
    const response = await page
      .goto(url, { waitUntil: "load", timeout })
      // A navigation the page's own script started meanwhile (a reload) is not the page's fault: once more.
      .catch((error: Error) =>
        /interrupted by another navigation/.test(error.message) ? page.goto(url, { waitUntil: "load", timeout }) : Promise.reject(error),
      );
    const landed = response ? new URL(response.url()) : undefined;
    const redirected = landed && landed.pathname !== new URL(url).pathname;
    return { status: response?.status() ?? 0, ...(redirected ? { redirectedTo: `${landed.pathname}${landed.search}` } : {}) };
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "navigation failed";
    return {
      status: answered,
      incomplete: /Timeout/i.test(message) ? `the page did not finish loading within ${timeout / 1000} s` : clip(message, 200),
    };
  } finally {
    page.off("response", onResponse);
  }
}

/**
 * Waits for the loaded page to settle: its work after the load has run, its diagrams are drawn
 * and the network is quiet, within `settleTimeout`. The page may reload itself once settled
 * (a dev server that optimised dependencies): it settles again after each reload, within the
 * same deadline. Says how long the network must stay quiet on it, and what was still pending.
 */
async function settle(
  page: Page,
  collector: Collector,
  options: CheckOptions,
  settleTimeout: number,
): Promise<{ quietMs: number; incomplete?: string }> {
  const deadline = Date.now() + settleTimeout;
  let quietMs = options.quietMs ?? QUIET_MS;
  for (let seen = -1; seen !== collector.navigations(); ) {
    seen = collector.navigations();
    if (seen > 1) await page.waitForLoadState("load", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
    const { dev } = await afterLoad(page, Math.min(250, Math.max(1, deadline - Date.now())));
    quietMs = options.quietMs ?? (dev ? DEV_QUIET_MS : QUIET_MS);
    if (!(await waitForDiagrams(page, deadline)))
      return { quietMs, incomplete: `diagrams were still being drawn after ${settleTimeout / 1000} s` };
    if (!(await waitForQuiet(collector, quietMs, deadline)))
      return { quietMs, incomplete: `the network was still busy after ${settleTimeout / 1000} s` };
  }
  return { quietMs };
}

/**
 * Once the page settled, what the check was asked to do there, in order: read it as a reader
 * does, run the actions, list its classes and ids (the page as the check left it, before it
 * goes on to other pages), and follow in-site links. Actions and links only on a page that
 * answered (`answered`: a status below 400).
 */
async function act(
  page: Page,
  collector: Collector,
  options: CheckOptions,
  { quietMs, settleTimeout, answered }: { quietMs: number; settleTimeout: number; answered: boolean },
): Promise<Acted> {
  if (options.read && !page.isClosed()) {
    const deadline = Date.now() + Math.min(settleTimeout, READ_TIMEOUT_MS);
    await readPage(page, deadline);
    // What scrolling started (islands' modules, lazy images) settles too.
    await waitForQuiet(collector, quietMs, Math.max(deadline, Date.now() + 1000));
  }
  const actions =
    options.actions?.length && !page.isClosed() && answered
      ? await runActions(page, options.actions, actionHooks(page, collector, quietMs))
      : undefined;
  const tokens = options.tokens && !page.isClosed() ? await elementTokens(page) : undefined;
  // The islands of this page, read before a navigation leaves it: never another page's.
  const islands = options.read && !page.isClosed() ? await snapshotIslands(page) : undefined;
  const narrow = options.narrow && answered && !page.isClosed() ? await narrowScreenReasons(page) : undefined;
  const navigations = options.follow && !page.isClosed() && answered ? await navigate(page, collector, options, options.follow) : [];
  return {
    ...(actions ? { actions } : {}),
    ...(tokens ? { tokens } : {}),
    ...(islands ? { islands } : {}),
    ...(narrow?.length ? { narrow } : {}),
    navigations,
  };
}

/** Faults from the start of action `n` on are that action's; after each, the page settles. */
function actionHooks(page: Page, collector: Collector, quietMs: number): RunHooks {
  return {
    mark: (n) => collector.acting(n),
    settle: async () => {
      // Events the action caused reach us before this round trip returns; then its requests settle.
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)))).catch(() => undefined);
      await waitForQuiet(collector, quietMs, Date.now() + ACTION_SETTLE_MS);
    },
  };
}

/** Reads the page as the check leaves it (diagrams, dev error page, title, islands), stops listening, and puts the findings together. */
async function conclude(
  page: Page,
  url: string,
  collector: Collector,
  options: CheckOptions,
  { status, redirectedTo, incomplete }: Loaded,
  { actions, tokens, navigations, islands: snapshot, narrow }: Acted,
): Promise<PageFindings> {
  // Read side by side: one round trip to the page rather than five.
  const [mermaid, overlay, title, icons, laterNotes] = await Promise.all([
    mermaidFailures(page),
    devErrorPage(page, status),
    page.title().catch(() => undefined),
    declaredIcons(page),
    // What the watch noted of the page's messages since the islands were read (or ever).
    messageIslands(page),
  ]);
  const seen = collector.stop((failed) => isUndeclaredFavicon(failed, icons));
  options.network?.reached(seen.answered);
  const devError = overlay && ownDevError(status, url, seen.failedRequests, overlay) ? overlay.error : undefined;
  const errors = mermaid.length ? withoutDiagramEchoes(seen.errors) : seen.errors;
  // Without a snapshot (the check stopped early), the islands are read now, unless the page never
  // answered: the document in the page may then still be the one checked before.
  const read = snapshot ?? (options.read && status > 0 && !page.isClosed() ? await snapshotIslands(page) : undefined);
  // Console errors written through the watch get back the place of the code that wrote them.
  restorePlaces(errors, [...(read?.notes ?? []), ...laterNotes]);
  const islands = read ? judgeIslands(read, errors, laterNotes) : [];
  return {
    url,
    status,
    ...(title ? { title: clip(title, 120) } : {}),
    errors,
    ...(islands.length ? { islands } : {}),
    ...(navigations.length ? { navigations } : {}),
    warnings: restoreWarningPlaces(seen.warnings, [...(read?.notes ?? []), ...laterNotes]),
    failedRequests: seen.failedRequests,
    mermaid,
    ...(devError ? { devError } : {}),
    ...(incomplete ? { incomplete } : {}),
    ...(redirectedTo ? { redirectedTo } : {}),
    ...(actions ? { actions } : {}),
    ...(tokens ? { tokens } : {}),
    ...(narrow ? { narrow: narrow.slice(0, 3) } : {}),
  };
}

/**
 * A failed diagram also surfaces as a console error or mermaid's opaque "Object" page error;
 * the diagram finding says it better, so those are not repeated.
 */
function withoutDiagramEchoes(errors: PageError[]): PageError[] {
  return errors.filter(
    ({ message, at }) =>
      !/^Uncaught (Object|\[object Object\])$/.test(message) &&
      !/mermaid|Parse error on line|Lexical error|Syntax error in text/i.test(`${message} ${at ?? ""}`),
  );
}
