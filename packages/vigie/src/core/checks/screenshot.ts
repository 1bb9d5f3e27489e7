// The screenshot check as browser_screenshot and validate's pictures of failing pages both take
// it: the page loaded in a clean page of the warm browser (the config's saved login, the desktop
// viewport unless told), the reader's actions run, the elements a finding is about outlined and
// the first scrolled into view, then captured; bounded in time. Errors are returned, not thrown.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  capture,
  KEEP_SCREENSHOTS,
  type Outline,
  outlineElements,
  type ShotOptions,
  type ShotResult,
} from "../browser/capture/screenshot.ts";
import type { PageFindings } from "../browser/page/findings.ts";
import { jpegSize, pngSize, pruneOldest, slugForPath, timestamp } from "../browser/page/names.ts";
import { withState } from "../browser/page/state.ts";
import { VIEWPORTS } from "../browser/page/viewports.ts";
import { checkPage } from "../browser/page/watch.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import { type Project, relativePath, statePath } from "../project.ts";
import { withTimeout } from "../wait.ts";

export interface PageShotOptions extends ShotOptions {
  /** Elements to outline (and scroll to) before the shot. */
  outline?: Outline;
  /** JPEG (smaller, for a report) rather than PNG. */
  jpeg?: boolean;
  /** How long the load, the actions and the shot may take; default 45 s. */
  timeoutMs?: number;
}

export interface PageShot {
  image: Buffer;
  width: number;
  height: number;
  /** What the load saw (its status and faults, how the actions went). */
  findings: PageFindings;
  /** The outlined selectors that matched something. */
  outlined: string[];
}

export async function screenshotPage(session: BrowserSession, url: string, options: PageShotOptions = {}): Promise<PageShot | Error> {
  const viewport = VIEWPORTS[options.viewport ?? "desktop"];
  return session
    .withPage(
      (page) =>
        withTimeout(
          (async () => {
            const findings = await checkPage(page, url, options.actions?.length ? { actions: options.actions } : {});
            const outlined = options.outline ? await outlineElements(page, options.outline).catch(() => []) : [];
            const image = await capture(page, options);
            return { image, ...(options.jpeg ? jpegSize(image) : pngSize(image)), findings, outlined };
          })(),
          options.timeoutMs ?? 45_000,
          () => page.close(),
        ),
      withState(options.storageState, viewport),
    )
    .catch((error: Error) => error);
}

/** A PNG of the page saved under the state folder's screenshots/, named from its path (the oldest pruned past KEEP_SCREENSHOTS). */
export async function saveScreenshot(
  project: Project,
  session: BrowserSession,
  url: string,
  path: string,
  options: ShotOptions = {},
): Promise<ShotResult | Error> {
  const shot = await screenshotPage(session, url, options);
  if (shot instanceof Error) return shot;
  const file = statePath(project, "screenshots", `${slugForPath(path)}-${options.viewport ?? "desktop"}-${timestamp()}.png`);
  writeFileSync(file, shot.image);
  pruneOldest(join(project.stateDir, "screenshots"), KEEP_SCREENSHOTS);
  return { file: relativePath(project, file), width: shot.width, height: shot.height, bytes: shot.image.length, findings: shot.findings };
}
