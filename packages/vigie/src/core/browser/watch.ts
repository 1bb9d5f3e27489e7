// Loads a page and collects what breaks it for a reader: uncaught exceptions, unhandled
// rejections, console errors, failed requests AND sub-resource responses >= 400 (a
// missing image fires no `requestfailed`), Mermaid diagrams drawn as errors, and
// Astro's dev error page. Waits for the page to settle, and never hangs.
import type { Frame, Page, Request, Response } from "playwright-core";
import { clip } from "../answer.ts";
import type { Located } from "../source/located.ts";
import { parseStack, type StackFrame } from "../source/stacks.ts";
import { waitUntil } from "../wait.ts";

export interface FailedRequest {
  url: string;
  /** HTTP status for a response >= 400, absent for a network failure. */
  status?: number;
  /** Network error text (net::ERR_...), for a request that got no response. */
  reason?: string;
  type: string;
  /** Where the page's sources reference it, once located (js_errors). */
  located?: Located;
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

export interface PageFindings {
  url: string;
  /** HTTP status of the document (0 when it never answered). */
  status: number;
  title?: string;
  /** Uncaught exceptions, unhandled rejections and console errors. */
  errors: string[];
  /** The stack frames (top first, at most 4) of each of `errors`, same order; absent when none has any. */
  errorFrames?: StackFrame[][];
  /** The source of each of `errors`, same order, once located (js_errors). */
  errorSources?: Located[];
  warnings: string[];
  failedRequests: FailedRequest[];
  mermaid: MermaidFailure[];
  devError?: DevErrorPage;
  /** Set when a wait ran out: what was still pending. */
  incomplete?: string;
}

export interface CheckOptions {
  /** Keep console warnings too. */
  warnings?: boolean;
  /** Navigation timeout. Default 15 s. */
  navigationTimeoutMs?: number;
  /** How long the network must stay quiet after load. Default 150 ms. */
  quietMs?: number;
  /** Cap on waiting for the network and for diagrams after load. Default 8 s. */
  settleTimeoutMs?: number;
}

const MAX_MESSAGE = 300;

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** Uncaught exceptions and console messages, with the stack frames of each error text. */
function recordMessages(options: CheckOptions) {
  const errors: string[] = [];
  const warnings: string[] = [];
  /** "Failed to load resource" console lines: kept only when their request was not seen. */
  const resourceErrors: { text: string; url: string }[] = [];
  /** Stack frames of each error text, the first time it was seen. */
  const frames = new Map<string, StackFrame[]>();
  const remember = (text: string, stack: StackFrame[]) => {
    if (stack.length > 0 && !frames.has(text)) frames.set(text, stack.slice(0, 4));
  };

  const onPageError = (error: Error) => {
    const text = error.message || String(error);
    const frame = error.stack
      ?.split("\n")
      .find((line) => /^\s+at /.test(line))
      ?.trim();
    const message = clip(
      frame
        ? `Uncaught ${error.name && error.name !== "Error" ? `${error.name}: ` : ""}${text} (${frame.replace(/^at /, "")})`
        : `Uncaught ${text}`,
      MAX_MESSAGE,
    );
    errors.push(message);
    remember(message, parseStack(error.stack));
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
    const where = location.url ? ` (${location.url.replace(/^https?:\/\/[^/]+/, "")}:${location.lineNumber + 1})` : "";
    const line = clip(`${text}${where}`, MAX_MESSAGE);
    (type === "error" ? errors : warnings).push(line);
    if (type === "error" && location.url) {
      remember(line, [{ url: location.url, line: location.lineNumber + 1, column: location.columnNumber + 1 }]);
    }
  };
  return { errors, warnings, resourceErrors, frames, onPageError, onConsole };
}

/** Requests in flight, failed requests and responses >= 400, and the main frame's navigations. */
function recordNetwork(page: Page) {
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
    const reason = request.failure()?.errorText ?? "failed";
    if (reason === "net::ERR_ABORTED" && !request.isNavigationRequest()) aborted.set(request.url(), issuedIn.get(request) ?? navigations);
    if (!failed.has(request.url())) failed.set(request.url(), { url: request.url(), reason, type: request.resourceType() });
  };
  const onResponse = (response: Response) => {
    if (response.status() < 400) return;
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      documents.add(response.url());
      return;
    }
    failed.set(response.url(), { url: response.url(), status: response.status(), type: request.resourceType() });
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
  const network = recordNetwork(page);
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
    inflight: network.inflight,
    navigations: network.navigations,
    quietFor: network.quietFor,
    stop() {
      listen(page.off.bind(page));
      const failed = network.failedRequests();
      const { errors, warnings, frames } = messages;
      // A "Failed to load resource" console line already has its request above; keep
      // only those whose request we did not see.
      for (const { text, url } of messages.resourceErrors) {
        if (!failed.has(url) && !network.documents.has(url)) errors.push(clip(`${text}${url ? ` (${url})` : ""}`, MAX_MESSAGE));
      }
      return { errors, warnings, failedRequests: [...failed.values()], frames };
    },
  };
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

/** Astro's / Vite's dev error overlay, read from its shadow DOM. */
async function devErrorPage(page: Page, status: number): Promise<DevErrorPage | undefined> {
  const found = await page
    .evaluate(() => {
      const overlay = document.querySelector("vite-error-overlay") as (Element & { shadowRoot: ShadowRoot | null }) | null;
      const root = overlay?.shadowRoot;
      const text = (selector: string) => root?.querySelector(selector)?.textContent?.replace(/\s+/g, " ").trim() || undefined;
      return {
        overlay: Boolean(overlay),
        title: document.title,
        message: text("#message-content, .message-body, .message, #message"),
        name: text("#name, .error-name, #title"),
        file: text("#file, .file, #file-link"),
      };
    })
    .catch(() => undefined);
  if (!found || (!found.overlay && status < 500)) return undefined;
  const name = found.name || found.title || `HTTP ${status}`;
  return {
    name: clip(name, 80),
    message: clip(found.message ?? "the dev server answered with its error page", 400),
    ...(found.file ? { file: clip(found.file, 200) } : {}),
  };
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
  try {
    const response = await page.goto(url, { waitUntil: "load", timeout: options.navigationTimeoutMs ?? 15_000 });
    status = response?.status() ?? 0;
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "navigation failed";
    incomplete = /Timeout/i.test(message)
      ? `the page did not finish loading within ${(options.navigationTimeoutMs ?? 15_000) / 1000} s`
      : clip(message, 200);
  }
  if (!incomplete) {
    const deadline = Date.now() + settleTimeout;
    // The page may reload itself once settled (a dev server that optimised dependencies):
    // settle again after each reload, within the same deadline.
    for (let seen = -1; seen !== collector.navigations() && !incomplete; ) {
      seen = collector.navigations();
      if (seen > 1) await page.waitForLoadState("load", { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
      if (!(await waitForDiagrams(page, deadline))) incomplete = `diagrams were still being drawn after ${settleTimeout / 1000} s`;
      else if (!(await waitForQuiet(collector, options.quietMs ?? 150, deadline)))
        incomplete = `the network was still busy after ${settleTimeout / 1000} s`;
    }
  }
  const mermaid = await mermaidFailures(page);
  const devError = await devErrorPage(page, status);
  const title = await page.title().catch(() => undefined);
  const seen = collector.stop();
  seen.errors = countRepeats(seen.errors);
  // A failed diagram also surfaces as a console error or mermaid's opaque "Object" page
  // error; the diagram finding says it better, so those are not repeated.
  const errors = mermaid.length
    ? seen.errors.filter(
        (error) =>
          !/^Uncaught (Object|\[object Object\])$/.test(error) &&
          !/mermaid|Parse error on line|Lexical error|Syntax error in text/i.test(error),
      )
    : seen.errors;
  const errorFrames = errors.map((error) => seen.frames.get(error.replace(/ \(×\d+\)$/, "")) ?? []);
  return {
    url,
    status,
    ...(title ? { title: clip(title, 120) } : {}),
    errors,
    ...(errorFrames.some((frames) => frames.length > 0) ? { errorFrames } : {}),
    warnings: seen.warnings,
    failedRequests: seen.failedRequests,
    mermaid,
    ...(devError ? { devError } : {}),
    ...(incomplete ? { incomplete } : {}),
  };
}

/** Identical messages once, with how many times they came: "message (×2)". */
function countRepeats(messages: string[]): string[] {
  const counts = new Map<string, number>();
  for (const message of messages) counts.set(message, (counts.get(message) ?? 0) + 1);
  return [...counts].map(([message, count]) => (count > 1 ? `${message} (×${count})` : message));
}

/** True when a reader would see something broken on the page. */
export function hasFaults(findings: PageFindings): boolean {
  return (
    findings.status >= 400 ||
    findings.status === 0 ||
    findings.errors.length > 0 ||
    findings.failedRequests.length > 0 ||
    findings.mermaid.length > 0 ||
    findings.devError !== undefined
  );
}

export { sameOrigin };
