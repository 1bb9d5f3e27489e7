// A picture of the first failing pages of the crawl, for the HTML report: each page as a reader
// sees it, scrolled to the first element a finding is about (an accessibility violation's
// target, an island that failed), every such element outlined. JPEG, to keep the report small.
import { writeFileSync } from "node:fs";
import type { Page } from "playwright-core";
import type { CrawlPage } from "../../browser/crawl.ts";
import { checkPage } from "../../browser/watch.ts";
import { relativePath, statePath } from "../../project.ts";
import { withTimeout } from "../../wait.ts";
import type { ValidateContext } from "../context.ts";
import type { ValidationReport } from "../findings.ts";

/** At most this many failing pages get a picture. */
const SHOTS = 4;

/** What to outline on a page: CSS selectors, and the names of islands that failed. */
export interface Outline {
  selectors: string[];
  islands: string[];
}

/** The elements a page's findings are about: its reported accessibility violations' targets, its failed islands. */
export function outlineOf(page: CrawlPage, reported: (impact: string) => boolean): Outline {
  return {
    selectors: [...new Set((page.a11y ?? []).filter((violation) => reported(violation.impact)).map((violation) => violation.target))],
    islands: [...new Set((page.islands ?? []).filter((island) => island.fault !== undefined).map((island) => island.component))],
  };
}

/**
 * Outlines the elements in the page and scrolls the first into the middle of the viewport (the
 * top of the page when there is none); the selectors that matched something.
 */
async function outline(page: Page, { selectors, islands }: Outline): Promise<string[]> {
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

async function shoot(ctx: ValidateContext, url: string, marks: Outline): Promise<{ jpeg: Buffer; outlined: string[] }> {
  return ctx.options.session.withPage(async (browserPage) =>
    withTimeout(
      (async () => {
        await checkPage(browserPage, url);
        const outlined = await outline(browserPage, marks).catch(() => []);
        const jpeg = await browserPage.screenshot({ type: "jpeg", quality: 70, animations: "disabled", caret: "hide", timeout: 15_000 });
        return { jpeg, outlined };
      })(),
      45_000,
      () => browserPage.close(),
    ),
  );
}

/**
 * Screenshots of the first failing pages (those `failing` names), those with an element to outline
 * first, saved under the state folder; a page that cannot be pictured is left out.
 */
export async function screenshotFailing(
  ctx: ValidateContext,
  pagesUrl: string,
  pages: CrawlPage[],
  failing: ReadonlySet<string>,
  reported: (impact: string) => boolean,
): Promise<ValidationReport["screenshots"]> {
  const shots: ValidationReport["screenshots"] = [];
  // A page that did not answer 2xx would picture an error page: its findings say enough.
  const pictured = pages
    .filter((page) => failing.has(page.path) && page.status >= 200 && page.status < 300)
    .map((page) => ({ page, marks: outlineOf(page, reported) }));
  // Pages with an element to outline first: their picture shows the fault itself.
  const marked = ({ marks }: (typeof pictured)[number]) => (marks.selectors.length + marks.islands.length > 0 ? 0 : 1);
  pictured.sort((a, b) => marked(a) - marked(b));
  for (const { page, marks } of pictured.slice(0, SHOTS)) {
    const name = `${page.path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "home"}.jpg`;
    const shot = await shoot(ctx, `${pagesUrl}${page.path}`, marks)
      .then(({ jpeg, outlined }) => {
        const path = statePath(ctx.project, "reports", "screenshots", name);
        writeFileSync(path, jpeg);
        return { file: relativePath(ctx.project, path), outlined };
      })
      .catch(() => undefined);
    if (shot) shots.push({ page: page.path, file: shot.file, ...(shot.outlined.length ? { outlined: shot.outlined } : {}) });
  }
  return shots;
}
