// Loads a page and collects what breaks it for a reader: uncaught exceptions, unhandled
// rejections, console errors, failed requests AND sub-resource responses >= 400 (a
// missing image fires no `requestfailed`), Mermaid diagrams drawn as errors, and
// Astro's dev error page. Waits for the page to settle, and never hangs.
import type { Frame, Page, Request, Response } from "playwright-core";
import { clip } from "../answer.ts";
import type { Located } from "../source/located.ts";
import { parseStack, type StackFrame } from "../source/stacks.ts";
import { waitUntil } from "../wait.ts";
import { type ActionsOutcome, runActions, type Step } from "./actions.ts";
import { type Island, readIslands, readPage } from "./islands.ts";

export interface FailedRequest {
  url: string;
  /** HTTP status for a response >= 400, absent for a network failure. */
  status?: number;
  /** Network error text (net::ERR_...), for a request that got no response. */
  reason?: string;
  type: string;
  /** Where the page's sources reference it, once located (js_errors). */
  located?: Located;
  /** It failed after this step of the check's actions (1-based). */
  afterStep?: number;
}

export interface MermaidFailure {
  /** 1-based index of the diagram on the page. */
  diagram: number;
  message: string;
  /** The diagram's text as the page holds it (for finding it in the sources). */
  code?: string;
  /** Where the sources write it, once located (js_errors). */
  located?: Located;
}

export interface DevErrorPage {
  name: string;
  message: string;
  file?: string;
}

/** One distinct uncaught exception, unhandled rejection or console error of a page. */
export interface PageError {
  /** "Uncaught TypeError: x is undefined", or the console line's text. */
  message: string;
  /** Where the browser says it came from, as it names it ("/_astro/x.js:1:234"); absent when it says nothing. */
  at?: string;
  /** How many times the same message came from the same place. */
  count: number;
  /** Its stack frames, top first (at most 4); empty when it has none. */
  frames: StackFrame[];
  /** Its source once located (js_errors, a crawl with a source root). */
  located?: Located;
  /** The island whose component's code raised it, when a frame is in that component's module. */
  island?: string;
  /** Raised after an in-site navigation the check made: "/from/ → /to/". */
  after?: string;
  /** Raised (first) after this step of the check's actions (1-based). */
  afterStep?: number;
}

/** An in-site navigation the check made after the page was read (a link clicked, as a reader does). */
export interface Navigation {
  from: string;
  to: string;
  /** True when the site swapped the page without a load (Astro's `<ClientRouter />`). */
  swapped: boolean;
  /** Why it did not happen or did not finish. */
  failed?: string;
}

export interface PageFindings {
  url: string;
  /** HTTP status of the document (0 when it never answered). */
  status: number;
  title?: string;
  /** Uncaught exceptions, unhandled rejections and console errors, each once with its count. */
  errors: PageError[];
  warnings: string[];
  failedRequests: FailedRequest[];
  mermaid: MermaidFailure[];
  devError?: DevErrorPage;
  /** The page's Astro islands, when it has any and the check read the page as a reader does. */
  islands?: Island[];
  /** The in-site navigations made after the page was read, when asked. */
  navigations?: Navigation[];
  /** Set when a wait ran out: what was still pending. */
  incomplete?: string;
  /** The path the document ended on when the server redirected it elsewhere. */
  redirectedTo?: string;
  /** The actions run after the load, when asked: how many ran, and the step that could not. */
  actions?: ActionsOutcome;
  /** The classes (".a") and ids ("#b") of the page's elements once it settled, when asked. */
  tokens?: string[];
}

export interface CheckOptions {
  /** Keep console warnings too. */
  warnings?: boolean;
  /** Navigation timeout. Default 15 s. */
  navigationTimeoutMs?: number;
  /** How long the network must stay quiet once the page's work after its load has run (afterLoad). Default 50 ms. */
  quietMs?: number;
  /** Cap on waiting for the network and for diagrams after load. Default 8 s. */
  settleTimeoutMs?: number;
  /**
   * Read the page as a reader does once it has settled: scroll to its end in steps (lazy
   * images, `client:visible` islands), wait for `client:idle` islands, and list the islands.
   */
  read?: boolean;
  /**
   * In-site paths to go to after the page was read, one after the other, by clicking a link as
   * a reader does (with `<ClientRouter />` the site swaps the page without a load); "first": the
   * page's first in-site link, only on a site with `<ClientRouter />`.
   */
  follow?: string[] | "first";
  /** A saved login (Playwright's storage-state file) the check's context opens with, when the file exists. */
  storageState?: string;
  /** A reader's actions, run in order once the page was read (before `follow`); faults after one say so. */
  actions?: Step[];
  /** Also list the classes and ids of the page's elements once it settled (`tokens`: what a stylesheet change can reach). */
  tokens?: boolean;
  /** Called before the first navigation, while the page is still the one loaded (a crawl reads its links). */
  beforeNavigating?: (page: Page) => Promise<void>;
}

const MAX_MESSAGE = 300;

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** Uncaught exceptions and console messages: each distinct error once, with its count and stack frames. */
function recordMessages(options: CheckOptions) {
  /** By message and place: the same error from the same place is counted, not repeated. */
  const errors = new Map<string, PageError>();
  const warnings: string[] = [];
  /** "Failed to load resource" console lines: kept only when their request was not seen. */
  const resourceErrors: { text: string; url: string }[] = [];
  /** The navigation the check made last ("/a/ → /b/"), when it made one: later errors came after it. */
  const phase: { after?: string; step?: number } = {};
  const add = (message: string, at: string | undefined, frames: StackFrame[]) => {
    const after = phase.after;
    const key = `${message}\u0000${at ?? ""}\u0000${after ?? ""}`;
    const seen = errors.get(key);
    if (seen) seen.count += 1;
    else
      errors.set(key, {
        message: clip(message, MAX_MESSAGE),
        ...(at ? { at: clip(at, 200) } : {}),
        count: 1,
        frames: frames.slice(0, 4),
        ...(after ? { after } : {}),
        ...(phase.step ? { afterStep: phase.step } : {}),
      });
  };

  const onPageError = (error: Error) => {
    // The first line: Svelte appends its component stack ("\n\n\tin $effect\n\tin X.svelte") to the message.
    const text = (error.message || String(error)).split("\n")[0]?.trim() || String(error);
    const frame = error.stack
      ?.split("\n")
      .find((line) => /^\s+at /.test(line))
      ?.trim()
      .replace(/^at (?:[^(]* \((.*)\)|(.*))$/, "$1$2")
      .replace(/https?:\/\/[^/\s)]+/, "");
    add(`Uncaught ${error.name && error.name !== "Error" ? `${error.name}: ` : ""}${text}`, frame, parseStack(error.stack));
  };
  const onConsole = (message: {
    type(): string;
    text(): string;
    location(): { url: string; lineNumber: number; columnNumber: number };
  }) => {
    const type = message.type();
    if (type !== "error" && !(options.warnings && type === "warning")) return;
    const text = message.text();
    const location = message.location();
    if (type === "error" && /^Failed to load resource/.test(text)) {
      resourceErrors.push({ text, url: location.url });
      return;
    }
    const at = location.url ? `${location.url.replace(/^https?:\/\/[^/]+/, "")}:${location.lineNumber + 1}` : undefined;
    if (type === "warning") {
      warnings.push(clip(`${text}${at ? ` (${at})` : ""}`, MAX_MESSAGE));
      return;
    }
    // console.error(error) prints the error's stack: its frames say more than the caller's line.
    const stack = parseStack(text);
    const here = location.url ? [{ url: location.url, line: location.lineNumber + 1, column: location.columnNumber + 1 }] : [];
    add(stack.length ? (text.split("\n")[0] ?? text) : text, at, stack.length ? stack : here);
  };
  return { errors, warnings, resourceErrors, phase, add, onPageError, onConsole };
}

/** Requests in flight, failed requests and responses >= 400, and the main frame's navigations. */
function recordNetwork(page: Page, step: () => number | undefined) {
  const failed = new Map<string, FailedRequest>();
  /** Documents of the main frame: their status is the page's status, not a failed request. */
  const documents = new Set<string>();
  const inflight = new Set<Request>();
  let lastActivity = Date.now();
  /** Main-frame navigations so far: 1 after the first load, more when the page reloads. */
  let navigations = 0;
  /** The main-frame navigation (document) each request was issued in. */
  const issuedIn = new WeakMap<Request, number>();
  /** Requests the page itself cancelled by navigating again (a dev server's reload), by URL. */
  const aborted = new Map<string, number>();

  const onRequest = (request: Request) => {
    issuedIn.set(request, navigations);
    inflight.add(request);
    lastActivity = Date.now();
  };
  const onDone = (request: Request) => {
    inflight.delete(request);
    lastActivity = Date.now();
  };
  const onNavigated = (frame: Frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  };
  const onFailed = (request: Request) => {
    onDone(request);
    // A prefetch the page dropped (`<ClientRouter />` prefetches on hover, and a click cancels it).
    if (request.headers()["sec-purpose"]?.includes("prefetch") && request.failure()?.errorText === "net::ERR_ABORTED") return;
    const reason = request.failure()?.errorText ?? "failed";
    if (reason === "net::ERR_ABORTED" && !request.isNavigationRequest()) aborted.set(request.url(), issuedIn.get(request) ?? navigations);
    const at = step();
    if (!failed.has(request.url()))
      failed.set(request.url(), { url: request.url(), reason, type: request.resourceType(), ...(at ? { afterStep: at } : {}) });
  };
  const onResponse = (response: Response) => {
    if (response.status() < 400) return;
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      documents.add(response.url());
      return;
    }
    const at = step();
    failed.set(response.url(), {
      url: response.url(),
      status: response.status(),
      type: request.resourceType(),
      ...(at ? { afterStep: at } : {}),
    });
  };
  /** The failed requests, but those the page cancelled by reloading. */
  const failedRequests = () => {
    // A request aborted before the page navigated again (Vite reloads a page when it
    // discovers dependencies) was cancelled by the reload, not broken.
    for (const [url, at] of aborted) {
      if (at < navigations && failed.get(url)?.reason === "net::ERR_ABORTED") failed.delete(url);
    }
    return failed;
  };
  return {
    documents,
    failedRequests,
    inflight: () => inflight.size,
    navigations: () => navigations,
    quietFor: () => Date.now() - lastActivity,
    onRequest,
    onDone,
    onNavigated,
    onFailed,
    onResponse,
  };
}

/** Starts collecting events on a page; `stop()` detaches and returns what was seen. */
function collect(page: Page, options: CheckOptions) {
  const messages = recordMessages(options);
  const network = recordNetwork(page, () => messages.phase.step);
  /** Attaches (page.on) or detaches (page.off) every listener. */
  const listen = (toggle: Page["on"]) => {
    toggle("pageerror", messages.onPageError);
    toggle("console", messages.onConsole);
    toggle("request", network.onRequest);
    toggle("requestfinished", network.onDone);
    toggle("requestfailed", network.onFailed);
    toggle("response", network.onResponse);
    toggle("framenavigated", network.onNavigated);
  };
  listen(page.on.bind(page));

  return {
    /** From now on, errors came after this navigation. */
    navigated(label: string) {
      messages.phase.after = label;
    },
    /** From now on, faults came after this step of the actions. */
    step(n: number) {
      messages.phase.step = n;
    },
    inflight: network.inflight,
    navigations: network.navigations,
    quietFor: network.quietFor,
    /** Detaches; `ignored` says which failed URLs are not the page's (the browser's own favicon request). */
    stop(ignored: (url: string) => boolean = () => false) {
      listen(page.off.bind(page));
      const failed = network.failedRequests();
      for (const url of failed.keys()) if (ignored(url)) failed.delete(url);
      // A "Failed to load resource" console line already has its request above; keep
      // only those whose request we did not see.
      for (const { text, url } of messages.resourceErrors) {
        if (!failed.has(url) && !network.documents.has(url) && !ignored(url)) messages.add(text, url || undefined, []);
      }
      return { errors: [...messages.errors.values()], warnings: messages.warnings, failedRequests: [...failed.values()] };
    },
  };
}

/**
 * How long the network must stay quiet, by default, once the page's work after its load has
 * run: a built page's own requests have started by then; a dev server also pushes errors to
 * the page over its websocket after the load (Vite's overlay), which takes longer.
 */
const QUIET_MS = 50;
const DEV_QUIET_MS = 150;

/**
 * In the page, after its load: two frames and an idle callback, so that what the page does
 * once loaded (load handlers, frames, visibility observers, `client:idle` islands, idle work)
 * has run and started its requests. At most `capMs` (a busy page gets no idle time). Says
 * whether the page is served by a dev server (it loads Vite's client).
 */
async function afterLoad(page: Page, capMs = 250): Promise<{ dev: boolean }> {
  const dev = await page
    .evaluate(
      (capMs) =>
        new Promise<boolean>((resolve) => {
          const dev = () => document.querySelector('script[src*="/@vite/client"]') !== null;
          setTimeout(() => resolve(dev()), capMs);
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              if (typeof requestIdleCallback === "function") requestIdleCallback(() => resolve(dev()), { timeout: capMs });
              else setTimeout(() => resolve(dev()), 0);
            }),
          );
        }),
      capMs,
    )
    .catch(() => false);
  return { dev };
}

async function waitForQuiet(collector: ReturnType<typeof collect>, quietMs: number, deadline: number): Promise<boolean> {
  const quiet = () => collector.inflight() === 0 && collector.quietFor() >= quietMs;
  return (await waitUntil(quiet, { timeoutMs: deadline - Date.now(), intervalMs: 25 })) ?? false;
}

/** In the page: are diagrams still being drawn? (A page flag, or mermaid nodes not yet processed.) */
async function diagramsPending(page: Page): Promise<boolean> {
  return page
    .evaluate(() => {
      if (document.documentElement.dataset.mermaid === "pending") return true;
      return [...document.querySelectorAll(".mermaid")].some(
        (node) => !node.hasAttribute("data-processed") && !node.querySelector("svg") && node.closest("[data-mermaid-state]") === null,
      );
    })
    .catch(() => false);
}

async function waitForDiagrams(page: Page, deadline: number): Promise<boolean> {
  const drawn = async () => !(await diagramsPending(page));
  return (await waitUntil(drawn, { timeoutMs: deadline - Date.now(), intervalMs: 50 })) ?? false;
}

/** Mermaid diagrams that ended as errors: mermaid's error SVG, or a host marked as failed. */
async function mermaidFailures(page: Page): Promise<MermaidFailure[]> {
  return page
    .evaluate(() => {
      const hosts = [...document.querySelectorAll(".mermaid, [data-mermaid-state], [data-mermaid-source]")].filter(
        (node, _index, all) => !all.some((other) => other !== node && other.contains(node)),
      );
      const failures: { diagram: number; message: string; code?: string }[] = [];
      hosts.forEach((host, index) => {
        const errorSvg = host.querySelector('svg[aria-roledescription="error"]');
        const marked = host.getAttribute("data-mermaid-state") === "error";
        if (!errorSvg && !marked) return;
        const svgText = errorSvg ? [...errorSvg.querySelectorAll("text")].map((node) => node.textContent).join(" ") : "";
        const text = (host.querySelector(".mermaid-error, [role=alert]")?.textContent ?? svgText).replace(/\s+/g, " ").trim();
        // The diagram's own text, where the host keeps it (the blog's hosts keep it in a <pre>).
        const code =
          host.querySelector("pre, code")?.textContent ??
          (host.querySelector("svg, .mermaid-error, [role=alert]") ? undefined : host.textContent);
        failures.push({
          diagram: index + 1,
          message: (text || "Syntax error in text").slice(0, 300),
          ...(code?.trim() ? { code: code.slice(0, 5000) } : {}),
        });
      });
      // Error SVGs mermaid left outside any host (mermaid.render's temporary element),
      // when no host told of the failure already.
      if (failures.length === 0) {
        for (const svg of document.querySelectorAll('body > div[id^="d"] > svg[aria-roledescription="error"]')) {
          const text = [...svg.querySelectorAll("text")].map((node) => node.textContent).join(" ");
          failures.push({ diagram: 0, message: text.replace(/\s+/g, " ").trim().slice(0, 300) || "Syntax error in text" });
        }
      }
      return failures;
    })
    .catch(() => []);
}

/**
 * Astro's / Vite's dev error overlay, read from its shadow DOM. The dev server pushes each
 * error to every open page: `own` says whether the error's file is one of this page's
 * modules (a script it loaded, or a component Astro marked in its elements).
 */
async function devErrorPage(page: Page, status: number): Promise<{ error: DevErrorPage; own: boolean } | undefined> {
  const found = await page
    .evaluate(() => {
      const overlay = document.querySelector("vite-error-overlay") as (Element & { shadowRoot: ShadowRoot | null }) | null;
      const root = overlay?.shadowRoot;
      const text = (selector: string) => root?.querySelector(selector)?.textContent?.replace(/\s+/g, " ").trim() || undefined;
      const file = text("#file, .file, #file-link");
      const path = file?.match(/(\/[^\s:?]+\.\w+)/)?.[1];
      const modules = [
        ...performance.getEntriesByType("resource").map((entry) => {
          try {
            return decodeURIComponent(new URL(entry.name).pathname).replace(/^\/@fs(?=\/)/, "");
          } catch {
            return "";
          }
        }),
        ...[...document.querySelectorAll("[data-astro-source-file]")].map(
          (element) => element.getAttribute("data-astro-source-file") ?? "",
        ),
      ];
      return {
        overlay: Boolean(overlay),
        title: document.title,
        message: text("#message-content, .message-body, .message, #message"),
        name: text("#name, .error-name, #title"),
        file,
        own: Boolean(path && modules.some((module) => module.length > 1 && module.includes(".") && path.endsWith(module))),
      };
    })
    .catch(() => undefined);
  if (!found || (!found.overlay && status < 500)) return undefined;
  const name = found.name || found.title || `HTTP ${status}`;
  const error = {
    name: clip(name, 80),
    message: clip(found.message ?? "the dev server answered with its error page", 400),
    ...(found.file ? { file: clip(found.file, 200) } : {}),
  };
  return { error, own: found.own };
}

/**
 * Whether the dev error page a check read is this page's: the page answered 5xx, one of its
 * own requests did (a module of its own that failed to compile), or the error's file is one of
 * its modules. Otherwise the overlay is another page's error, pushed to every open page.
 */
function ownDevError(status: number, url: string, failedRequests: FailedRequest[], devError: { own: boolean }): boolean {
  const origin = new URL(url).origin;
  return (
    status >= 500 || devError.own || failedRequests.some((failed) => (failed.status ?? 0) >= 500 && failed.url.startsWith(`${origin}/`))
  );
}

/** Most navigations one check makes, and how long each may take. */
const MAX_NAVIGATIONS = 5;
const NAVIGATION_TIMEOUT_MS = 8000;

/**
 * After the page was read: goes to each path by clicking a link to it (one made for the
 * purpose when the page has none: `<ClientRouter />` handles every in-site anchor), waits
 * for the new page (`astro:page-load` when the site swaps pages, else the load), and reads
 * it. Errors from then on are marked as coming after that navigation.
 */
async function navigate(
  page: Page,
  collector: ReturnType<typeof collect>,
  options: CheckOptions,
  follow: string[] | "first",
): Promise<Navigation[]> {
  const swaps = await page
    .evaluate(() => document.querySelector('meta[name="astro-view-transitions-enabled"]') !== null)
    .catch(() => false);
  let paths: string[];
  if (follow === "first") {
    if (!swaps) return [];
    const here = new URL(page.url()).pathname;
    const first = await page
      .evaluate((here) => {
        for (const anchor of document.querySelectorAll<HTMLAnchorElement>("a[href]")) {
          const url = new URL(anchor.href, location.href);
          if (url.origin === location.origin && url.pathname !== here && !anchor.hasAttribute("download") && !/\.\w+$/.test(url.pathname))
            return url.pathname;
        }
        return undefined;
      }, here)
      .catch(() => undefined);
    paths = first ? [first] : [];
  } else paths = follow.slice(0, MAX_NAVIGATIONS);
  if (paths.length && options.beforeNavigating) await options.beforeNavigating(page).catch(() => undefined);
  const navigations: Navigation[] = [];
  for (const to of paths) {
    const from = new URL(page.url()).pathname;
    collector.navigated(`${from} → ${to}`);
    const failed = await page
      .evaluate(
        async ({ to, swaps, timeoutMs }) => {
          const loaded = swaps
            ? new Promise<boolean>((resolve) => {
                document.addEventListener("astro:page-load", () => resolve(true), { once: true });
                setTimeout(() => resolve(false), timeoutMs);
              })
            : undefined;
          let anchor = [...document.querySelectorAll<HTMLAnchorElement>("a[href]")].find(
            (link) => new URL(link.href, location.href).pathname === to && link.target !== "_blank",
          );
          if (!anchor) {
            anchor = document.createElement("a");
            anchor.href = to;
            anchor.hidden = true;
            document.body.append(anchor);
          }
          anchor.click();
          if (loaded && !(await loaded)) return "the new page did not finish loading (no astro:page-load)";
          return undefined;
        },
        { to, swaps, timeoutMs: NAVIGATION_TIMEOUT_MS },
      )
      // Without <ClientRouter />, the click loads a new document and ends this evaluation.
      .catch((error: Error) => (swaps ? clip(error.message.split("\n")[0] ?? "failed", 120) : undefined));
    if (!swaps) await page.waitForLoadState("load", { timeout: NAVIGATION_TIMEOUT_MS }).catch(() => undefined);
    const quietMs = options.quietMs ?? ((await afterLoad(page)).dev ? DEV_QUIET_MS : QUIET_MS);
    const deadline = Date.now() + NAVIGATION_TIMEOUT_MS;
    await waitForQuiet(collector, quietMs, deadline);
    if (options.read) {
      await readPage(page, Math.min(deadline, Date.now() + READ_TIMEOUT_MS));
      await waitForQuiet(collector, quietMs, Math.max(deadline, Date.now() + 1000));
    }
    const landed = new URL(page.url()).pathname;
    const wrong = landed !== to ? `ended on ${landed}` : undefined;
    navigations.push({ from, to, swapped: swaps, ...(failed || wrong ? { failed: failed ?? wrong } : {}) });
  }
  return navigations;
}

/** How long the page may take to settle after each action. */
const ACTION_SETTLE_MS = 3000;

/** How long reading a page (scrolling, waiting for islands) may take at most. */
const READ_TIMEOUT_MS = 5000;

/** The icons the page declares (`<link rel="icon">`), as absolute URLs. */
async function declaredIcons(page: Page): Promise<Set<string>> {
  const hrefs = await page
    .evaluate(() => [...document.querySelectorAll('link[rel~="icon" i]')].map((link) => (link as HTMLLinkElement).href))
    .catch(() => [] as string[]);
  return new Set(hrefs);
}

/**
 * The browser asks for /favicon.ico by itself when a page declares no icon, and only on the
 * first page it loads from an origin: a fault of the page only when the page declares it.
 */
function isUndeclaredFavicon(url: string, declared: Set<string>): boolean {
  try {
    return new URL(url).pathname === "/favicon.ico" && !declared.has(url);
  } catch {
    return false;
  }
}

/**
 * Opens `url` in `page` and returns every fault seen until the page settled (load, a
 * short network quiet, diagrams drawn), within the timeouts.
 */
export async function checkPage(page: Page, url: string, options: CheckOptions = {}): Promise<PageFindings> {
  const collector = collect(page, options);
  const settleTimeout = options.settleTimeoutMs ?? 8000;
  let status = 0;
  let incomplete: string | undefined;
  let redirectedTo: string | undefined;
  try {
    const response = await page.goto(url, { waitUntil: "load", timeout: options.navigationTimeoutMs ?? 15_000 });
    status = response?.status() ?? 0;
    const landed = response ? new URL(response.url()) : undefined;
    if (landed && landed.pathname !== new URL(url).pathname) redirectedTo = `${landed.pathname}${landed.search}`;
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "navigation failed";
    incomplete = /Timeout/i.test(message)
      ? `the page did not finish loading within ${(options.navigationTimeoutMs ?? 15_000) / 1000} s`
      : clip(message, 200);
  }
  /** How long the network must stay quiet: set once the page is loaded (longer on a dev server). */
  let quietMs = options.quietMs ?? QUIET_MS;
  if (!incomplete) {
    const deadline = Date.now() + settleTimeout;
    // The page may reload itself once settled (a dev server that optimised dependencies):
    // settle again after each reload, within the same deadline.
    for (let seen = -1; seen !== collector.navigations() && !incomplete; ) {
      seen = collector.navigations();
      if (seen > 1) await page.waitForLoadState("load", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
      const { dev } = await afterLoad(page, Math.min(250, Math.max(1, deadline - Date.now())));
      quietMs = options.quietMs ?? (dev ? DEV_QUIET_MS : QUIET_MS);
      if (!(await waitForDiagrams(page, deadline))) incomplete = `diagrams were still being drawn after ${settleTimeout / 1000} s`;
      else if (!(await waitForQuiet(collector, quietMs, deadline)))
        incomplete = `the network was still busy after ${settleTimeout / 1000} s`;
    }
  }
  if (options.read && !incomplete && !page.isClosed()) {
    const deadline = Date.now() + Math.min(settleTimeout, READ_TIMEOUT_MS);
    await readPage(page, deadline);
    // What scrolling started (islands' modules, lazy images) settles too.
    await waitForQuiet(collector, quietMs, Math.max(deadline, Date.now() + 1000));
  }
  const actions =
    options.actions?.length && !incomplete && !page.isClosed() && status > 0 && status < 400
      ? await runActions(page, options.actions, {
          mark: (n) => collector.step(n),
          settle: async () => {
            // Events the step caused reach us before this round trip returns; then its requests settle.
            await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)))).catch(() => undefined);
            await waitForQuiet(collector, quietMs, Date.now() + ACTION_SETTLE_MS);
          },
        })
      : undefined;
  // The page as the check left it, before it goes on to other pages.
  const tokens = options.tokens && !incomplete && !page.isClosed() ? await elementTokens(page) : undefined;
  const navigations =
    options.follow && !incomplete && !page.isClosed() && status > 0 && status < 400
      ? await navigate(page, collector, options, options.follow)
      : [];
  // Read side by side: one round trip to the page rather than four.
  const [mermaid, overlay, title, icons] = await Promise.all([
    mermaidFailures(page),
    devErrorPage(page, status),
    page.title().catch(() => undefined),
    declaredIcons(page),
  ]);
  const seen = collector.stop((failed) => isUndeclaredFavicon(failed, icons));
  const devError = overlay && ownDevError(status, url, seen.failedRequests, overlay) ? overlay.error : undefined;
  // A failed diagram also surfaces as a console error or mermaid's opaque "Object" page
  // error; the diagram finding says it better, so those are not repeated.
  const errors = mermaid.length
    ? seen.errors.filter(
        ({ message, at }) =>
          !/^Uncaught (Object|\[object Object\])$/.test(message) &&
          !/mermaid|Parse error on line|Lexical error|Syntax error in text/i.test(`${message} ${at ?? ""}`),
      )
    : seen.errors;
  const islands = options.read ? await readIslands(page, errors) : [];
  return {
    url,
    status,
    ...(title ? { title: clip(title, 120) } : {}),
    errors,
    ...(islands.length ? { islands } : {}),
    ...(navigations.length ? { navigations } : {}),
    warnings: seen.warnings,
    failedRequests: seen.failedRequests,
    mermaid,
    ...(devError ? { devError } : {}),
    ...(incomplete ? { incomplete } : {}),
    ...(redirectedTo ? { redirectedTo } : {}),
    ...(actions ? { actions } : {}),
    ...(tokens ? { tokens } : {}),
  };
}

/** The classes and ids of the page's elements (those drawn by its scripts too), or undefined when it cannot be read. */
async function elementTokens(page: Page): Promise<string[] | undefined> {
  return page
    .evaluate(() => {
      const tokens = new Set<string>();
      for (const element of document.querySelectorAll("[class], [id]")) {
        for (const name of element.classList) tokens.add(`.${name}`);
        if (element.id) tokens.add(`#${element.id}`);
      }
      return [...tokens].sort();
    })
    .catch(() => undefined);
}

/** True when a reader would see something broken on the page. */
export function hasFaults(findings: PageFindings): boolean {
  return (
    findings.status >= 400 ||
    findings.status === 0 ||
    findings.errors.length > 0 ||
    findings.failedRequests.length > 0 ||
    findings.mermaid.length > 0 ||
    findings.devError !== undefined ||
    (findings.islands?.some((island) => island.fault !== undefined) ?? false) ||
    (findings.navigations?.some((navigation) => navigation.failed !== undefined) ?? false) ||
    findings.actions?.failed !== undefined
  );
}

export { sameOrigin };
