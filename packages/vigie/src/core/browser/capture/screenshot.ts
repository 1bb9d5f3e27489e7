// screenshot: a settled page (viewport or full page, or one element) captured as PNG or JPEG,
// the elements a check is about outlined first.
import type { Page } from "playwright-core";
import type { Action } from "../../actions.ts";
import { StepError } from "../../nextStep.ts";
import type { PageFindings } from "../page/findings.ts";
import type { ViewportName } from "../page/viewports.ts";

export const KEEP_SCREENSHOTS = 50;

export interface ShotOptions {
  viewport?: ViewportName;
  fullPage?: boolean;
  /** CSS selector of one element to capture. */
  selector?: string;
  /** Actions run after the load, before the shot. */
  actions?: Action[];
  /** A saved login (storage-state file). */
  storageState?: string;
}

export interface ShotResult {
  file: string;
  width: number;
  height: number;
  bytes: number;
  findings: PageFindings;
}

/** What to outline on a page: CSS selectors, and the names of islands that failed. */
export interface Outline {
  selectors: string[];
  islands: string[];
}

/** Captures a settled page as PNG bytes, or JPEG ones (animations stopped, caret hidden). */
export async function capture(page: Page, options: ShotOptions & { jpeg?: boolean }): Promise<Buffer> {
  const format = options.jpeg ? ({ type: "jpeg", quality: 70 } as const) : ({ type: "png" } as const);
  const common = { ...format, animations: "disabled", caret: "hide", timeout: 15_000 } as const;
  if (options.selector) {
    const element = page.locator(options.selector).first();
    if ((await element.count()) === 0) {
      throw new StepError(
        `selector ${JSON.stringify(options.selector)} matched nothing on the page`,
        "selector-missed",
        "Check the selector against the page's HTML, or omit it to capture the page.",
        { argument: "selector" },
      );
    }
    return element.screenshot(common);
  }
  return page.screenshot({ ...common, fullPage: options.fullPage ?? false });
}

/** A page that did not answer 2xx is not compared with its baseline: an error page says nothing of the page. */
export function refuseErrorPage(findings: PageFindings, what: string): void {
  const { status } = findings;
  if (status >= 200 && status < 300) return;
  throw new StepError(
    `${findings.url} answered ${status ? `HTTP ${status}` : "nothing"}: no ${what} of an error page`,
    "error-page",
    "Fix the page first, or pass the path of a page that answers 200.",
    { status },
  );
}

/**
 * Outlines the elements in the page and scrolls the first into the middle of the viewport (the
 * top of the page when there is none); the selectors that matched something.
 */
export async function outlineElements(page: Page, { selectors, islands }: Outline): Promise<string[]> {
  return page.evaluate(
    ({ selectors, islands }) => {
      const mark = (element: Element) => {
        const style = (element as HTMLElement).style;
        if (!style) return;
        style.setProperty("outline", "4px solid #e11d48", "important");
        style.setProperty("outline-offset", "2px", "important");
        // An island's element has no box of its own: its first child shows where it is.
        if (getComputedStyle(element).display === "contents") for (const child of element.children) mark(child);
      };
      const found: Element[] = [];
      const matched: string[] = [];
      for (const selector of selectors) {
        let elements: Element[] = [];
        try {
          elements = [...document.querySelectorAll(selector)];
        } catch {
          // axe's targets inside frames or shadow roots are not selectors of this document.
        }
        if (elements.length) matched.push(selector);
        found.push(...elements);
      }
      for (const island of document.querySelectorAll("astro-island")) {
        let name = "";
        try {
          name = (JSON.parse(island.getAttribute("opts") ?? "{}") as { name?: string }).name ?? "";
        } catch {}
        const file = (island.getAttribute("component-url") ?? "").split("/").pop()?.replace(/\..*$/, "") ?? "";
        const hit = islands.find((component) => component === name || component === file);
        if (hit) {
          found.push(island);
          matched.push(`astro-island (${hit})`);
        }
      }
      for (const element of found) mark(element);
      const first = found.map((element) => (getComputedStyle(element).display === "contents" ? element.firstElementChild : element))[0];
      if (first) first.scrollIntoView({ block: "center", inline: "nearest" });
      else window.scrollTo(0, 0);
      return matched;
    },
    { selectors, islands },
  );
}
