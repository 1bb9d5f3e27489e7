// What listens to a page's events while it is checked: uncaught exceptions and console
// messages (each distinct error once, with its count and frames), requests in flight, failed
// requests and responses >= 400, and the main frame's navigations.
import type { Frame, Page, Request, Response } from "playwright-core";
import { clip } from "../../answer.ts";
import { parseStack, type StackFrame } from "../../source/stacks.ts";
import { isHydrationError } from "./faults.ts";
import type { CheckOptions, FailedRequest, PageError } from "./findings.ts";
import { hostOf } from "./network.ts";

const MAX_MESSAGE = 300;

/** Uncaught exceptions and console messages: each distinct error once, with its count and stack frames. */
function recordMessages(options: CheckOptions) {
  /** By message and place: the same error from the same place is counted, not repeated. */
  const errors = new Map<string, PageError>();
  const warnings: string[] = [];
  /** "Failed to load resource" console lines: kept only when their request was not seen. */
  const resourceErrors: { text: string; url: string }[] = [];
  /** The navigation the check made last ("/a/ → /b/") and the action it started last, when it did: later errors came after them. */
  const phase: { after?: string; action?: number } = {};
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
        ...(phase.action ? { afterStep: phase.action } : {}),
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
    // Console styling ("%c" and its CSS arguments, as Svelte writes its warnings) is not the message.
    const raw = message.text();
    const text = raw.includes("%c")
      ? raw.replace(/%c/g, "").replace(/(?:\s+(?:font-weight|color|font-style): [\w#-]+;?)+\s*\S*$/, "")
      : raw;
    // A framework's hydration mismatch warning (Svelte's, Vue's) is a fault, whether warnings are kept or not.
    const type = message.type() === "warning" && isHydrationError({ message: text }) ? "error" : message.type();
    if (type !== "error" && !(options.warnings && type === "warning")) return;
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
function recordNetwork(page: Page, action: () => number | undefined) {
  const failed = new Map<string, FailedRequest>();
  /** The hosts that answered a request (any status): this machine reaches them. */
  const answered = new Set<string>();
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
    if (mainDocumentGivenUp(page, request, reason)) return;
    if (reason === "net::ERR_ABORTED" && !request.isNavigationRequest()) aborted.set(request.url(), issuedIn.get(request) ?? navigations);
    const at = action();
    if (!failed.has(request.url()))
      failed.set(request.url(), { url: request.url(), reason, type: request.resourceType(), ...(at ? { afterStep: at } : {}) });
  };
  const onResponse = (response: Response) => {
    const host = hostOf(response.url());
    if (host) answered.add(host);
    if (response.status() < 400) return;
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      documents.add(response.url());
      return;
    }
    const at = action();
    failed.set(response.url(), {
      url: response.url(),
      status: response.status(),
      type: request.resourceType(),
      ...(at ? { afterStep: at } : {}),
    });
  };
  /** The failed requests, but those the page cancelled by reloading. */
  const failedRequests = () => withoutRepeats(failed, aborted, navigations, documents);
  return {
    documents,
    answered,
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

/**
 * A document of the main frame the browser gave up (a page that answered an error, a navigation
 * another one replaced, a download): the page's own load says it failed, another page is checked on its own.
 */
const mainDocumentGivenUp = (page: Page, request: Request, reason: string) =>
  reason === "net::ERR_ABORTED" && request.isNavigationRequest() && request.frame() === page.mainFrame();

/** The failed requests, but those the page cancelled by reloading and the error documents said by their status. */
function withoutRepeats(failed: Map<string, FailedRequest>, aborted: Map<string, number>, navigations: number, documents: Set<string>) {
  // A request aborted before the page navigated again (Vite reloads a page when it
  // discovers dependencies) was cancelled by the reload, not broken.
  for (const [url, at] of aborted) {
    if (at < navigations && failed.get(url)?.reason === "net::ERR_ABORTED") failed.delete(url);
  }
  // A page that answered an error status: its status is the fault, the browser's failure of that same document says it again.
  for (const [url, entry] of failed) {
    if (entry.type === "document" && entry.status === undefined && documents.has(url)) failed.delete(url);
  }
  return failed;
}

/** Starts collecting events on a page; `stop()` detaches and returns what was seen. */
export function collect(page: Page, options: CheckOptions) {
  const messages = recordMessages(options);
  const network = recordNetwork(page, () => messages.phase.action);
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
    /** From now on, faults came after this action (1-based). */
    acting(n: number) {
      messages.phase.action = n;
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
      return {
        errors: [...messages.errors.values()],
        warnings: messages.warnings,
        failedRequests: [...failed.values()],
        answered: [...network.answered],
      };
    },
  };
}

export type Collector = ReturnType<typeof collect>;
