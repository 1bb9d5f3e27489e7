// A page's second look, on a phone: run only for a page that shows something only a narrow
// screen shows (viewports.ts says why), in a context of the phone's profile. What the phone
// saw that the desktop did not is added to the page's findings, each marked with its viewport.
import type { Page } from "playwright-core";
import { withTimeout } from "../../wait.ts";
import { checkPageAsSite } from "./devMachinery.ts";
import type { CheckOptions, PageFindings } from "./findings.ts";

/** The phone's check of a page: read as a reader reads it, no navigation, no actions. */
export async function checkOnPhone(page: Page, desktop: PageFindings, options: CheckOptions, timeoutMs: number): Promise<PageFindings> {
  const started = Date.now();
  const reason = desktop.narrow?.[0] ?? "the page shows something only on narrow screens";
  const phone = await withTimeout(
    checkPageAsSite(page, desktop.url, {
      read: true,
      ...(options.warnings ? { warnings: true } : {}),
      ...(options.navigationTimeoutMs ? { navigationTimeoutMs: options.navigationTimeoutMs } : {}),
      ...(options.settleTimeoutMs ? { settleTimeoutMs: options.settleTimeoutMs } : {}),
      ...(options.network ? { network: options.network } : {}),
    }),
    timeoutMs,
    async () => {
      await page.close().catch(() => undefined);
    },
  ).catch((error: Error) => error);
  const ms = Date.now() - started;
  if (phone instanceof Error) return { ...desktop, phone: { reason, ms, incomplete: phone.message.split("\n")[0] ?? "failed" } };
  return mergePhone(desktop, phone, reason, ms);
}

/**
 * The desktop's findings with what only the phone saw: its errors (by message and place), its
 * failed requests (by URL), and the faults of islands the desktop did not hydrate (a media
 * query it does not match), each marked `viewport: "phone"`.
 */
export function mergePhone(desktop: PageFindings, phone: PageFindings, reason: string, ms: number): PageFindings {
  const errorKey = (error: { message: string; at?: string }) => `${error.message}\u0000${error.at ?? ""}`;
  const known = new Set(desktop.errors.map(errorKey));
  const errors = [
    ...desktop.errors,
    ...phone.errors.filter((error) => !known.has(errorKey(error))).map((error) => ({ ...error, viewport: "phone" })),
  ];
  const urls = new Set(desktop.failedRequests.map((failed) => failed.url));
  const failedRequests = [
    ...desktop.failedRequests,
    ...phone.failedRequests.filter((failed) => !urls.has(failed.url)).map((failed) => ({ ...failed, viewport: "phone" })),
  ];
  const islands = desktop.islands?.map((island, index) => {
    const there = phone.islands?.[index];
    if (island.hydrated || island.fault || !there || there.component !== island.component) return island;
    // Checked on the phone: what it was there, no longer "not checked".
    const { note: _note, ...rest } = island;
    if (there.hydrated) return { ...rest, hydrated: true, viewport: "phone" };
    if (there.fault) return { ...rest, fault: there.fault, viewport: "phone", ...(there.unsure ? { unsure: there.unsure } : {}) };
    if (there.note?.includes("threw")) return { ...rest, note: "did not hydrate on the phone: its code threw", viewport: "phone" };
    return island;
  });
  const status = phone.status >= 400 && desktop.status < 400 ? { phoneStatus: phone.status } : {};
  return {
    ...desktop,
    errors,
    failedRequests,
    ...(islands ? { islands } : {}),
    phone: { reason, ms, ...(phone.incomplete ? { incomplete: phone.incomplete } : {}), ...status },
  };
}
