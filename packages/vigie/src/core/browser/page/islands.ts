// Astro islands as a reader meets them: the page is scrolled to its end in steps (so
// `client:visible` islands hydrate and lazy images load), `client:idle` islands are waited
// for, and each `<astro-island>` is then read back: its component, framework, directive,
// props size, and whether it hydrated (Astro removes its `ssr` attribute once it has).
import type { Page } from "playwright-core";
import { clip } from "../../answer.ts";
import { waitUntil } from "../../wait.ts";
import { isHydrationError } from "./faults.ts";
import type { Island, PageError } from "./findings.ts";
import { candidatesOf, type MessageIslands, messageIslands } from "./hydration.ts";

/** What the page says of its islands, read in the page. */
export interface RawIsland {
  url: string;
  renderer: string;
  directive: string;
  opts: string;
  propsBytes: number;
  ssr: boolean;
  /** Inside another island that has not hydrated (it waits for its parent). */
  nested: boolean;
  media: boolean | undefined;
}

const FRAMEWORKS = ["preact", "react", "vue", "svelte", "solid"];

function frameworkOf(renderer: string, url: string, optsValue: unknown): string | undefined {
  const named = FRAMEWORKS.find((name) => renderer.includes(`/${name}`) || renderer.includes(`@astrojs/${name}`));
  if (named) return named;
  if (typeof optsValue === "string" && FRAMEWORKS.includes(optsValue)) return optsValue;
  if (/\.vue(?:\?|$)/.test(url)) return "vue";
  if (/\.svelte(?:\?|$)/.test(url)) return "svelte";
  return undefined;
}

const pathOf = (url: string) => {
  try {
    return new URL(url, "http://x").pathname;
  } catch {
    return url;
  }
};

/** In the page: every island, as the page holds it now. */
async function rawIslands(page: Page): Promise<RawIsland[]> {
  return page
    .evaluate(() =>
      [...document.querySelectorAll("astro-island")].map((node) => {
        let media: boolean | undefined;
        const directive = node.getAttribute("client") ?? "";
        const opts = node.getAttribute("opts") ?? "{}";
        if (directive === "media") {
          try {
            media = matchMedia(String(JSON.parse(opts).value)).matches;
          } catch {
            media = undefined;
          }
        }
        return {
          url: node.getAttribute("component-url") ?? "",
          renderer: node.getAttribute("renderer-url") ?? "",
          directive,
          opts,
          propsBytes: (node.getAttribute("props") ?? "").length,
          ssr: node.hasAttribute("ssr"),
          nested: Boolean(node.parentElement?.closest("astro-island[ssr]")),
          media,
        };
      }),
    )
    .catch(() => []);
}

/** Are there islands that should hydrate (load, idle, visible) and have not yet? */
async function pendingIslands(page: Page): Promise<number> {
  return page
    .evaluate(
      () => document.querySelectorAll('astro-island[ssr]:is([client="load"], [client="idle"], [client="visible"], [client="only"])').length,
    )
    .catch(() => 0);
}

/** No island hydrated for this long: the others are not going to. */
const STALLED_MS = 1000;

/** Elements observed for visibility that the watch remembers; past that, the page is scrolled through. */
const MAX_TARGETS = 200;

/**
 * Run in every page before its own scripts (an init script of each context the session makes):
 * counts what can react to the reader's scrolling, so that a page with none of it is not
 * scrolled. Elements given to an IntersectionObserver (lazy content, `client:visible`, reveal
 * effects, remembered up to MAX_TARGETS) and scroll or wheel listeners on the window or the
 * document are counted. Only
 * IntersectionObserver's `observe` and `addEventListener` are wrapped, each calling the
 * browser's own.
 */
export const SCROLL_WATCH = `(() => {
  const key = Symbol.for("vigie.scrollWatch");
  if (window[key]) return;
  const state = { observed: 0, listeners: 0, targets: [] };
  Object.defineProperty(window, key, { value: state });
  const scrolling = new Set(["scroll", "scrollend", "wheel"]);
  const IO = window.IntersectionObserver;
  if (IO) {
    const observe = IO.prototype.observe;
    IO.prototype.observe = function (target) {
      state.observed += 1;
      if (state.targets.length < ${MAX_TARGETS} && target instanceof Element) state.targets.push(new WeakRef(target));
      return observe.apply(this, arguments);
    };
    IO.prototype.observe.toString = () => observe.toString();
  }
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  proto.addEventListener = function (type, listener) {
    if ((this === window || this === document) && scrolling.has(String(type))) state.listeners += 1;
    return add.apply(this, arguments);
  };
  proto.addEventListener.toString = () => add.toString();
})();`;

export interface ReadOptions {
  /** Longest pause after each scroll step (two frames, when they come sooner). Default 60 ms. */
  stepMs?: number;
  /** Most scroll steps. Default 40. */
  maxSteps?: number;
}

/**
 * Does what a reader does, where something on the page reacts to it (as SCROLL_WATCH counted):
 * with a scroll listener, or without the watch, it scrolls to the end in steps of 80 % of the
 * viewport; otherwise it brings into view, top to bottom, each element that waits to be seen
 * (a lazy image or frame, an element observed for visibility such as a `client:visible`
 * island), and leaves a page with none alone. Then it waits for `client:idle`/`client:load`
 * islands until `deadline`, and scrolls back to the top. Never throws.
 */
export async function readPage(page: Page, deadline: number, options: ReadOptions = {}): Promise<void> {
  const stepMs = options.stepMs ?? 60;
  const maxSteps = options.maxSteps ?? 40;
  const scrolled = await page
    .evaluate(
      async ({ stepMs, maxSteps, until }) => {
        const watch = (
          window as unknown as Record<symbol, { observed: number; listeners: number; targets: WeakRef<Element>[] } | undefined>
        )[Symbol.for("vigie.scrollWatch")];
        const waiting = [
          ...(watch?.targets ?? []).map((target) => target.deref()),
          ...document.querySelectorAll('[loading="lazy" i], astro-island[ssr][client="visible"]'),
        ].filter((element): element is Element => element?.isConnected === true);
        const stepwise =
          !watch || watch.listeners > 0 || watch.observed > watch.targets.length || window.onscroll !== null || window.onwheel !== null;
        if (!stepwise && waiting.length === 0) return false;
        // Two frames (the scroll is laid out, visibility observers are told), or stepMs if frames lag.
        const pause = () =>
          new Promise((resolve) => {
            setTimeout(resolve, stepMs);
            requestAnimationFrame(() => requestAnimationFrame(resolve));
          });
        const root = document.scrollingElement ?? document.documentElement;
        if (stepwise) {
          for (let step = 0; step < maxSteps && Date.now() < until; step += 1) {
            if (window.scrollY + window.innerHeight >= root.scrollHeight - 1) break;
            window.scrollBy(0, Math.max(200, Math.floor(window.innerHeight * 0.8)));
            await pause();
          }
        } else {
          const top = (element: Element) => element.getBoundingClientRect().top + window.scrollY;
          let steps = 0;
          for (const element of [...new Set(waiting)].sort((a, b) => top(a) - top(b))) {
            if (steps >= maxSteps || Date.now() >= until) break;
            const box = element.getBoundingClientRect();
            if (box.bottom > 0 && box.top < window.innerHeight && box.right > 0 && box.left < window.innerWidth) continue;
            element.scrollIntoView({ block: "center" });
            steps += 1;
            await pause();
          }
        }
        // Islands out of the document's own scroll (a scrolled box): brought into view one by one.
        for (const island of document.querySelectorAll('astro-island[ssr][client="visible"]')) {
          if (Date.now() >= until) break;
          island.scrollIntoView({ block: "center" });
          await pause();
        }
        return true;
      },
      { stepMs, maxSteps, until: Date.now() + Math.max(0, deadline - Date.now()) },
    )
    .catch(() => true);
  // Waits while islands still hydrate: until none is pending, or none has hydrated for
  // STALLED_MS (an island whose code threw never will).
  let pending = await pendingIslands(page);
  let changed = Date.now();
  if (pending > 0) {
    await waitUntil(
      async () => {
        const now = await pendingIslands(page);
        if (now !== pending) [pending, changed] = [now, Date.now()];
        return now === 0 || Date.now() - changed >= STALLED_MS;
      },
      { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: 50 },
    );
  }
  if (scrolled) await page.evaluate(() => window.scrollTo(0, 0)).catch(() => undefined);
}

/** The page's islands as the check found them, and what the hydration watch noted of its messages. */
export interface IslandsSnapshot {
  raw: RawIsland[];
  viewport: { width: number; height: number } | null;
  notes: MessageIslands[];
}

/** Reads the page's islands and the watch's notes, as the page is now (before the check navigates away from it). */
export async function snapshotIslands(page: Page): Promise<IslandsSnapshot> {
  const [raw, notes] = await Promise.all([rawIslands(page), messageIslands(page)]);
  return { raw, viewport: page.viewportSize(), notes };
}

/** The page's islands, each hydrated or with why not; the errors raised in an island's code are given its name. */
export async function readIslands(page: Page, errors: PageError[]): Promise<Island[]> {
  return judgeIslands(await snapshotIslands(page), errors);
}

/**
 * The islands of a snapshot, each hydrated or with why not. An error is given the island whose
 * module its stack names, or that Astro names ("Error hydrating"), else the one island the
 * hydration watch saw it come from (`notes`: also those read later, after a navigation); a
 * hydration mismatch the watch cannot tie to one island names the islands it may come from.
 */
export function judgeIslands(snapshot: IslandsSnapshot, errors: PageError[], laterNotes: MessageIslands[] = []): Island[] {
  const { raw, viewport } = snapshot;
  const notes = [...snapshot.notes, ...laterNotes];
  const islands = raw.map((island) => {
    let opts: { name?: unknown; value?: unknown } = {};
    try {
      opts = JSON.parse(island.opts) as typeof opts;
    } catch {}
    const file = pathOf(island.url).split("/").pop() ?? island.url;
    const component = typeof opts.name === "string" && opts.name ? opts.name : file.replace(/\..*$/, "") || "unnamed";
    const framework = frameworkOf(island.renderer, island.url, opts.value);
    const modulePath = pathOf(island.url);
    const raised = errors.filter(
      (error) =>
        error.frames.some((frame) => pathOf(frame.url) === modulePath) ||
        (island.url !== "" && error.message.includes(`Error hydrating ${island.url}`)),
    );
    for (const error of raised) error.island ??= component;
    const base: Island = {
      component: clip(component, 80),
      ...(framework ? { framework } : {}),
      directive: island.directive,
      ...(island.directive === "media" && typeof opts.value === "string" ? { media: clip(opts.value, 80) } : {}),
      propsBytes: island.propsBytes,
      url: clip(island.url, 200),
      hydrated: !island.ssr,
    };
    if (!island.ssr || island.nested) return base;
    if (island.directive === "media" && island.media === false) {
      const size = viewport ? `${viewport.width}×${viewport.height}` : "this";
      return {
        ...base,
        note: `not hydrated: its media query ${base.media ?? ""} does not match the ${size} viewport, so it was not checked`,
      };
    }
    // An island whose code threw is told by its error, which names it.
    if (raised.length) return { ...base, note: "did not hydrate: its code threw" };
    const why = island.directive === "visible" ? "did not hydrate although scrolled into view" : "did not hydrate before the check ended";
    return { ...base, fault: why };
  });
  attribute(errors, notes, islands);
  // An error of the page that names no island may be what stopped one from hydrating: vigie cannot tell.
  const unexplained = errors.some((error) => !error.island && !error.after);
  for (const island of islands) {
    if (!island.fault) continue;
    if (errors.some((error) => error.island === island.component)) {
      delete island.fault;
      island.note = "did not hydrate: its code threw";
    } else if (unexplained) island.unsure = "an error of the page that names no island may have stopped it";
  }
  return islands;
}

/**
 * Gives each error that names no island the island the watch saw it come from, when there is
 * one; a hydration mismatch that could come from several keeps their names (`islands`), and
 * on a page with one island (of one name) it is that island's.
 */
function attribute(errors: PageError[], notes: MessageIslands[], islands: Island[]): void {
  const names = [...new Set(islands.map((island) => island.component))];
  for (const error of errors) {
    if (error.island) continue;
    // Only a mismatch: another error of the page thrown while an island hydrates is not that island's.
    if (!isHydrationError(error)) continue;
    const candidates = candidatesOf(error, notes);
    if (candidates.length === 1) error.island = candidates[0];
    else if (candidates.length > 1) error.islands = candidates.slice(0, 6);
    else if (names.length === 1) error.island = names[0];
    else if (names.length > 1) error.islands = names.slice(0, 6);
  }
}
