// In-site navigations a check makes once the page was read, as a reader does: a click on a
// link (with `<ClientRouter />` the site swaps the page without a load), then the new page
// settles and is read. Errors from then on are marked as coming after that navigation.
import type { Page } from "playwright-core";
import { clip } from "../../answer.ts";
import { waitUntil } from "../../wait.ts";
import type { CheckOptions, Navigation } from "./findings.ts";
import { readPage } from "./islands.ts";
import { afterLoad, DEV_QUIET_MS, QUIET_MS, READ_TIMEOUT_MS, waitForQuiet } from "./readers.ts";
import type { Collector } from "./recorders.ts";

/** What an evaluation ended by a new document says. */
const LOADED_ANEW = /Execution context was destroyed|navigat/i;

/** Most navigations one check makes, and how long each may take. */
const MAX_NAVIGATIONS = 5;
const NAVIGATION_TIMEOUT_MS = 8000;

/** Waits (within NAVIGATION_TIMEOUT_MS) until the document the click led to has loaded: not the one clicked in, which may linger a moment. */
async function newDocumentLoaded(page: Page): Promise<void> {
  const loaded = () =>
    page
      .evaluate(() => !(window as unknown as { __vigieClicked?: boolean }).__vigieClicked && document.readyState === "complete")
      .catch(() => false);
  await waitUntil(loaded, { timeoutMs: NAVIGATION_TIMEOUT_MS, intervalMs: 50 });
}

/**
 * Clicks a link to `to` (one made for the purpose when the page has none) and waits for the new
 * page: its `astro:page-load` when the site swaps pages, else its load. Says whether a new
 * document was loaded where the router was expected to swap, and what failed.
 */
async function clickTo(page: Page, to: string, swaps: boolean): Promise<{ failed?: string; loadedAnew: boolean }> {
  let loadedAnew = false;
  const failed = await page
    .evaluate(
      async ({ to, swaps, timeoutMs }) => {
        const loaded = swaps
          ? new Promise<boolean>((resolve) => {
              document.addEventListener("astro:page-load", () => resolve(true), { once: true });
              setTimeout(() => resolve(false), timeoutMs);
            })
          : undefined;
        let anchor = [...document.querySelectorAll<HTMLAnchorElement>("a[href]")].find(
          (link) => new URL(link.href, location.href).pathname === to && link.target !== "_blank",
        );
        if (!anchor) {
          anchor = document.createElement("a");
          anchor.href = to;
          anchor.hidden = true;
          document.body.append(anchor);
        }
        Object.assign(window, { __vigieClicked: true });
        anchor.click();
        if (loaded && !(await loaded)) return "the new page did not finish loading (no astro:page-load)";
        return undefined;
      },
      { to, swaps, timeoutMs: NAVIGATION_TIMEOUT_MS },
    )
    // A click that loads a new document ends this evaluation: always without <ClientRouter />,
    // and with it when the router lets the browser load the page (a link with
    // data-astro-reload, a page without the router): a navigation all the same.
    .catch((error: Error) => {
      if (!swaps || LOADED_ANEW.test(error.message)) {
        loadedAnew = swaps;
        return undefined;
      }
      return clip(error.message.split("\n")[0] ?? "failed", 120);
    });
  if (!swaps || loadedAnew) await newDocumentLoaded(page);
  return { ...(failed ? { failed } : {}), loadedAnew };
}

/**
 * After the page was read: goes to each path by clicking a link to it (one made for the
 * purpose when the page has none: `<ClientRouter />` handles every in-site anchor), waits
 * for the new page (`astro:page-load` when the site swaps pages, else the load), and reads
 * it. Errors from then on are marked as coming after that navigation.
 */
export async function navigate(page: Page, collector: Collector, options: CheckOptions, follow: string[] | "first"): Promise<Navigation[]> {
  const swaps = await page
    .evaluate(() => document.querySelector('meta[name="astro-view-transitions-enabled"]') !== null)
    .catch(() => false);
  let paths: string[];
  if (follow === "first") {
    if (!swaps) return [];
    const here = new URL(page.url()).pathname;
    const first = await page
      .evaluate((here) => {
        for (const anchor of document.querySelectorAll<HTMLAnchorElement>("a[href]")) {
          const url = new URL(anchor.href, location.href);
          if (url.origin === location.origin && url.pathname !== here && !anchor.hasAttribute("download") && !/\.\w+$/.test(url.pathname))
            return url.pathname;
        }
        return undefined;
      }, here)
      .catch(() => undefined);
    paths = first ? [first] : [];
  } else paths = follow.slice(0, MAX_NAVIGATIONS);
  if (paths.length && options.beforeNavigating) await options.beforeNavigating(page).catch(() => undefined);
  const navigations: Navigation[] = [];
  for (const to of paths) {
    const from = new URL(page.url()).pathname;
    collector.navigated(`${from} → ${to}`);
    let { failed, loadedAnew } = await clickTo(page, to, swaps);
    // The page reloaded itself in place meanwhile (a dev server that re-optimised its dependencies): once more.
    if (loadedAnew && new URL(page.url()).pathname === from && to !== from) ({ failed, loadedAnew } = await clickTo(page, to, swaps));
    const quietMs = options.quietMs ?? ((await afterLoad(page)).dev ? DEV_QUIET_MS : QUIET_MS);
    const deadline = Date.now() + NAVIGATION_TIMEOUT_MS;
    await waitForQuiet(collector, quietMs, deadline);
    if (options.read) {
      await readPage(page, Math.min(deadline, Date.now() + READ_TIMEOUT_MS));
      await waitForQuiet(collector, quietMs, Math.max(deadline, Date.now() + 1000));
    }
    const landed = new URL(page.url()).pathname;
    const wrong = landed !== to ? `ended on ${landed}` : undefined;
    navigations.push({ from, to, swapped: swaps && !loadedAnew, ...(failed || wrong ? { failed: failed ?? wrong } : {}) });
  }
  return navigations;
}
