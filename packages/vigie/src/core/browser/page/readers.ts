// What a check reads from a page once it has loaded: whether it has settled (its work after
// the load has run, the network is quiet, its diagrams are drawn), its failed Mermaid
// diagrams, the dev error page, the icons it declares, and its elements' classes and ids.
import type { Page } from "playwright-core";
import { clip } from "../../answer.ts";
import { waitUntil } from "../../wait.ts";
import type { DevErrorPage, FailedRequest, MermaidFailure } from "./findings.ts";
import type { Collector } from "./recorders.ts";

/**
 * How long the network must stay quiet, by default, once the page's work after its load has
 * run: a built page's own requests have started by then; a dev server also pushes errors to
 * the page over its websocket after the load (Vite's overlay), which takes longer.
 */
export const QUIET_MS = 50;
export const DEV_QUIET_MS = 150;

/** How long reading a page (scrolling, waiting for islands) may take at most. */
export const READ_TIMEOUT_MS = 5000;

/**
 * In the page, after its load: two frames and an idle callback, so that what the page does
 * once loaded (load handlers, frames, visibility observers, `client:idle` islands, idle work)
 * has run and started its requests. At most `capMs` (a busy page gets no idle time). Says
 * whether the page is served by a dev server (it loads Vite's client).
 */
export async function afterLoad(page: Page, capMs = 250): Promise<{ dev: boolean }> {
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

/** Waits until no request is in flight and none came for `quietMs`; false when `deadline` came first. */
export async function waitForQuiet(collector: Collector, quietMs: number, deadline: number): Promise<boolean> {
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

export async function waitForDiagrams(page: Page, deadline: number): Promise<boolean> {
  const drawn = async () => !(await diagramsPending(page));
  return (await waitUntil(drawn, { timeoutMs: deadline - Date.now(), intervalMs: 50 })) ?? false;
}

/** Mermaid diagrams that ended as errors: mermaid's error SVG, or a host marked as failed. */
export async function mermaidFailures(page: Page): Promise<MermaidFailure[]> {
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
export async function devErrorPage(page: Page, status: number): Promise<{ error: DevErrorPage; own: boolean } | undefined> {
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
export function ownDevError(status: number, url: string, failedRequests: FailedRequest[], devError: { own: boolean }): boolean {
  const origin = new URL(url).origin;
  return (
    status >= 500 || devError.own || failedRequests.some((failed) => (failed.status ?? 0) >= 500 && failed.url.startsWith(`${origin}/`))
  );
}

/** The icons the page declares (`<link rel="icon">`), as absolute URLs. */
export async function declaredIcons(page: Page): Promise<Set<string>> {
  const hrefs = await page
    .evaluate(() => [...document.querySelectorAll('link[rel~="icon" i]')].map((link) => (link as HTMLLinkElement).href))
    .catch(() => [] as string[]);
  return new Set(hrefs);
}

/**
 * The browser asks for /favicon.ico by itself when a page declares no icon, and only on the
 * first page it loads from an origin: a fault of the page only when the page declares it.
 */
export function isUndeclaredFavicon(url: string, declared: Set<string>): boolean {
  try {
    return new URL(url).pathname === "/favicon.ico" && !declared.has(url);
  } catch {
    return false;
  }
}

/** The classes and ids of the page's elements (those drawn by its scripts too), or undefined when it cannot be read. */
export async function elementTokens(page: Page): Promise<string[] | undefined> {
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
