// A picture of the first failing pages of the crawl, for the HTML report, taken by the check
// service's screenshot check: each page as a reader sees it, scrolled to the first element a
// finding is about (an accessibility violation's target, an island that failed), every such
// element outlined. JPEG, to keep the report small.
import { writeFileSync } from "node:fs";
import type { Outline } from "../../browser/capture/screenshot.ts";
import type { CrawlPage } from "../../browser/load/crawl.ts";
import { screenshotPage } from "../../checks/screenshot.ts";
import { storageStateOf } from "../../config.ts";
import { relativePath, statePath } from "../../project.ts";
import type { ValidateContext } from "./context.ts";
import type { ValidationReport } from "./findings.ts";

/** At most this many failing pages get a picture. */
const SHOTS = 4;

/** The elements a page's findings are about: its reported accessibility violations' targets, its failed islands. */
export function outlineOf(page: CrawlPage, reported: (impact: string) => boolean): Outline {
  return {
    selectors: [...new Set((page.a11y ?? []).filter((violation) => reported(violation.impact)).map((violation) => violation.target))],
    islands: [...new Set((page.islands ?? []).filter((island) => island.fault !== undefined).map((island) => island.component))],
  };
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
  const storageState = storageStateOf(ctx.project, ctx.config);
  for (const { page, marks } of pictured.slice(0, SHOTS)) {
    const name = `${page.path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "home"}.jpg`;
    // The screenshot check browser_screenshot takes, as a JPEG with the elements outlined.
    const shot = await screenshotPage(ctx.options.session, `${pagesUrl}${page.path}`, {
      outline: marks,
      jpeg: true,
      ...(storageState ? { storageState } : {}),
    });
    if (shot instanceof Error) continue;
    const path = statePath(ctx.project, "reports", "screenshots", name);
    writeFileSync(path, shot.image);
    shots.push({ page: page.path, file: relativePath(ctx.project, path), ...(shot.outlined.length ? { outlined: shot.outlined } : {}) });
  }
  return shots;
}
