// screenshot: a PNG of a page (viewport or full page, desktop or mobile, or one element)
// under .opencode/screenshots/, named from the path; the answer is a path, not the image.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Action } from "../actions.ts";
import { StepError } from "../nextStep.ts";
import { type Project, relativePath, statePath } from "../project.ts";
import type { PageFindings } from "./findings.ts";
import { pngSize, pruneOldest, slugForPath, timestamp } from "./names.ts";
import type { BrowserSession } from "./session.ts";
import { withState } from "./state.ts";
import { VIEWPORTS, type ViewportName } from "./viewports.ts";
import { checkPage } from "./watch.ts";

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

/** Captures a settled page as PNG bytes (animations stopped, caret hidden). */
export async function capture(page: Page, options: ShotOptions): Promise<Buffer> {
  const common = { animations: "disabled", caret: "hide", timeout: 15_000 } as const;
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

export async function takeScreenshot(
  project: Project,
  session: BrowserSession,
  url: string,
  path: string,
  options: ShotOptions = {},
): Promise<ShotResult> {
  const viewport = options.viewport ?? "desktop";
  return session.withPage(
    async (page) => {
      const findings = await checkPage(page, url, options.actions?.length ? { actions: options.actions } : {});
      const png = await capture(page, options);
      const dir = join(project.stateDir, "screenshots");
      const file = statePath(project, "screenshots", `${slugForPath(path)}-${viewport}-${timestamp()}.png`);
      writeFileSync(file, png);
      pruneOldest(dir, KEEP_SCREENSHOTS);
      return { file: relativePath(project, file), ...pngSize(png), bytes: png.length, findings };
    },
    withState(options.storageState, VIEWPORTS[viewport]),
  );
}
