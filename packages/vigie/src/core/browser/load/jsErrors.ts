import { withTimeout } from "../../wait.ts";
import { checkPageAsSite } from "../page/devMachinery.ts";
import type { CheckOptions, PageFindings } from "../page/findings.ts";
import { locateFindings } from "../page/locate.ts";
import { checkOnPhone } from "../page/phone.ts";
import { withState } from "../page/state.ts";
import { PHONE } from "../page/viewports.ts";
import type { BrowserSession } from "../session/session.ts";

export interface JsErrorsOptions extends CheckOptions {
  timeoutMs?: number;
  /**
   * The project's root: each failed diagram, failed request and error with a stack is then
   * given the source file and line it comes from (or why that cannot be known).
   */
  sourceRoot?: string;
  /** Also check on a phone a page that shows something only a narrow screen shows. Default true. */
  phone?: boolean;
}

/** js_errors: one page in a clean warm page, every runtime fault, each pointing at its source when asked. */
export async function checkJsErrors(session: BrowserSession, url: string, options: JsErrorsOptions = {}): Promise<PageFindings> {
  const timeoutMs = options.timeoutMs ?? 45_000;
  const desktop = await session.withCleanPage(async (page) => {
    return withTimeout(checkPageAsSite(page, url, { read: true, narrow: options.phone !== false, ...options }), timeoutMs, async () => {
      await page.close().catch(() => undefined);
    });
  }, withState(options.storageState));
  const answered = desktop.status > 0 && desktop.status < 400;
  // A page that shows something only on narrow screens: looked at again on a phone.
  const findings =
    desktop.narrow?.length && answered
      ? await session.withCleanPage((page) => checkOnPhone(page, desktop, options, timeoutMs), withState(options.storageState, PHONE))
      : desktop;
  return options.sourceRoot ? locateInTime(findings, options.sourceRoot) : findings;
}

const LOCATE_TIMEOUT_MS = 10_000;

/**
 * One page's findings located in the sources under `root`. Locating needs no page (sources, and
 * the scripts' maps fetched again); it gives up rather than delay the answer.
 */
export function locateInTime(findings: PageFindings, root: string): Promise<PageFindings> {
  return withTimeout(locateFindings(findings, root), LOCATE_TIMEOUT_MS, async () => undefined).catch(() => findings);
}
