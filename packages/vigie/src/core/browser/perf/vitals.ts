// What a load of a page says about why it is slow or shifts: web-vitals' attribution build
// (LCP and its phases, CLS and its shifts, INP and the scripts behind it), injected before
// the page's own scripts, plus the facts its rules need that only the page knows (is the LCP
// image lazy, preloaded, larger than its box; what sits above a shifted element: an image
// without dimensions, an island that hydrated), and the page's resources (render-blocking,
// third-party, fonts).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Page } from "playwright-core";

/** An element as the rules see it. */
export interface ElementFacts {
  selector: string;
  tag: string;
  text?: string;
  /** An image's URL (currentSrc). */
  src?: string;
  loading?: string;
  fetchpriority?: string;
  /** width and height attributes, or a CSS aspect ratio: the box is known before the image loads. */
  sized?: boolean;
  naturalWidth?: number;
  renderedWidth?: number;
  /** Served by astro:assets (`/_astro/…`, `/_image?…`): Astro's <Image>/<Picture>. */
  astroImage?: boolean;
  /** In the first viewport at load. */
  aboveFold?: boolean;
  /** The astro-island it is in. */
  island?: IslandFacts;
}

export interface IslandFacts {
  /** The island's component-url. */
  url: string;
  /** Its component's name (opts.name). */
  name: string;
  hydrated: boolean;
}

export interface LcpFacts {
  ms: number;
  element?: ElementFacts;
  /** The LCP resource's URL (an image), as web-vitals names it. */
  url?: string;
  phases: { ttfbMs: number; loadDelayMs: number; loadMs: number; renderDelayMs: number };
  /** A <link rel=preload> names the image. */
  preloaded: boolean;
  /** Bytes of the LCP image on the wire, when known. */
  kb?: number;
  devicePixelRatio: number;
}

export interface ShiftFacts {
  value: number;
  atMs: number;
  /** The element that moved most. */
  moved?: ElementFacts;
  /** The nearest element above it that can push content down: an image without dimensions, a hydrated island. */
  pushedBy?: ElementFacts & { kind: "image" | "island" };
}

export interface ScriptFacts {
  url: string;
  fn?: string;
  /** Character offset of the function in the script. */
  char?: number;
  ms: number;
}

export interface InpFacts {
  ms: number;
  element?: ElementFacts;
  inputDelayMs: number;
  processingMs: number;
  presentationMs: number;
  /** Long animation frames behind the interaction, their durations. */
  longTasksMs: number[];
  scripts: ScriptFacts[];
}

export interface ResourceFacts {
  url: string;
  ms: number;
  endMs: number;
  kb: number;
}

export interface VitalsFacts {
  url: string;
  lcp?: LcpFacts;
  cls: number;
  shifts: ShiftFacts[];
  inp?: InpFacts;
  renderBlocking: ResourceFacts[];
  fonts: ResourceFacts[];
  thirdParty: { requests: number; kb: number; percentOfRequests: number; percentOfKb: number; origins: string[] };
}

let library: string | undefined;

/** web-vitals' attribution build, as a script (an IIFE defining `webVitals`). */
function webVitalsSource(): string {
  if (library === undefined) {
    const umd = createRequire(import.meta.url).resolve("web-vitals/attribution");
    library = readFileSync(join(dirname(umd), "web-vitals.attribution.iife.js"), "utf8");
  }
  return library;
}

/** The page side: describes elements when web-vitals reports, keeps the latest report of each metric. */
const COLLECT = `
  const state = { lcp: undefined, cls: 0, shifts: [], inp: undefined };
  Object.defineProperty(window, "__vigieVitals", { value: state });
  const round = (n) => Math.round((n || 0) * 10) / 10;
  const selectorOf = (el) => {
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && parts.length < 4; node = node.parentElement) {
      if (node.id) { parts.unshift("#" + CSS.escape(node.id)); break; }
      let part = node.tagName.toLowerCase();
      const cls = [...node.classList].filter((c) => !/^astro-|^[a-z0-9]{8}$/i.test(c)).slice(0, 2);
      if (cls.length) part += "." + cls.map((c) => CSS.escape(c)).join(".");
      const parent = node.parentElement;
      if (parent) {
        const same = [...parent.children].filter((c) => c.tagName === node.tagName);
        if (same.length > 1 && !cls.length) part += ":nth-of-type(" + (same.indexOf(node) + 1) + ")";
      }
      parts.unshift(part);
      if (node.tagName === "BODY" || node.tagName === "MAIN") break;
    }
    return parts.join(" > ");
  };
  const islandOf = (el) => {
    const island = el && el.closest ? el.closest("astro-island") : null;
    if (!island) return undefined;
    let name = "";
    try { name = JSON.parse(island.getAttribute("opts") || "{}").name || ""; } catch {}
    return { url: island.getAttribute("component-url") || "", name, hydrated: !island.hasAttribute("ssr") };
  };
  const sizedImage = (img) =>
    (img.hasAttribute("width") && img.hasAttribute("height")) || getComputedStyle(img).aspectRatio !== "auto";
  const describe = (node) => {
    const el = node && node.nodeType === 3 ? node.parentElement : node;
    if (!el || el.nodeType !== 1) return undefined;
    const rect = el.getBoundingClientRect();
    const facts = { selector: selectorOf(el), tag: el.tagName.toLowerCase(), aboveFold: rect.top + scrollY < innerHeight };
    if (el.tagName === "IMG") {
      facts.src = el.currentSrc || el.src;
      facts.loading = el.getAttribute("loading") || "";
      facts.fetchpriority = el.getAttribute("fetchpriority") || "";
      facts.sized = sizedImage(el);
      facts.naturalWidth = el.naturalWidth;
      facts.renderedWidth = Math.round(rect.width);
      facts.astroImage = /\\/_astro\\/|\\/_image\\?|\\/@fs\\//.test(facts.src);
    } else {
      const text = (el.textContent || "").trim().replace(/\\s+/g, " ");
      if (text) facts.text = text.slice(0, 60);
    }
    const island = islandOf(el);
    if (island) facts.island = island;
    return facts;
  };
  const pushedBy = (el, top) => {
    let best;
    let bestBottom = -Infinity;
    for (const candidate of document.querySelectorAll("img, astro-island")) {
      if (candidate === el) continue;
      const isImage = candidate.tagName === "IMG";
      if (isImage ? sizedImage(candidate) : candidate.hasAttribute("ssr")) continue;
      const inside = !isImage && candidate.contains(el);
      const before = candidate.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING;
      if (!inside && !before) continue;
      const bottom = candidate.getBoundingClientRect().bottom;
      if (!inside && bottom > top + 2) continue;
      const rank = inside ? Infinity : bottom;
      if (rank > bestBottom) { bestBottom = rank; best = candidate; }
    }
    if (!best) return undefined;
    return { ...describe(best), kind: best.tagName === "IMG" ? "image" : "island", island: islandOf(best) };
  };
  const vitals = webVitals;
  vitals.onLCP((metric) => {
    const a = metric.attribution;
    const element = a.lcpEntry && a.lcpEntry.element;
    const url = a.url || "";
    const preloaded = Boolean(url) && [...document.querySelectorAll('link[rel="preload"][as="image"]')].some((link) => {
      const href = link.href || "";
      return href === url || (link.getAttribute("imagesrcset") || "").includes(new URL(url, location.href).pathname);
    });
    const resource = a.lcpResourceEntry;
    state.lcp = {
      ms: round(metric.value),
      element: describe(element),
      url: url || undefined,
      phases: { ttfbMs: round(a.timeToFirstByte), loadDelayMs: round(a.resourceLoadDelay), loadMs: round(a.resourceLoadDuration), renderDelayMs: round(a.elementRenderDelay) },
      preloaded,
      kb: resource ? round((resource.transferSize || resource.encodedBodySize || 0) / 1024) : undefined,
      devicePixelRatio: devicePixelRatio,
    };
  }, { reportAllChanges: true });
  vitals.onCLS((metric) => {
    state.cls = Math.round(metric.value * 1000) / 1000;
    state.shifts = metric.entries.filter((entry) => entry.value >= 0.001).slice(0, 10).map((entry) => {
      const sources = [...(entry.sources || [])].filter((s) => s.node);
      // Source rects are clipped to the viewport: the one most visible before the shift moved the most a reader saw.
      const area = (r) => r.width * r.height;
      const moved = sources.sort((x, y) => area(y.previousRect) - area(x.previousRect))[0];
      const node = moved && (moved.node.nodeType === 3 ? moved.node.parentElement : moved.node);
      return {
        value: Math.round(entry.value * 10000) / 10000,
        atMs: round(entry.startTime),
        moved: describe(node),
        pushedBy: node ? pushedBy(node, node.getBoundingClientRect().top) : undefined,
      };
    });
  }, { reportAllChanges: true });
  vitals.onINP((metric) => {
    const a = metric.attribution;
    const first = a.processedEventEntries && a.processedEventEntries[0];
    const scripts = (a.longAnimationFrameEntries || []).flatMap((frame) => [...(frame.scripts || [])]);
    state.inp = {
      ms: round(metric.value),
      element: describe((first && first.target) || (a.interactionTarget ? document.querySelector(a.interactionTarget) : null)),
      inputDelayMs: round(a.inputDelay),
      processingMs: round(a.processingDuration),
      presentationMs: round(a.presentationDelay),
      longTasksMs: (a.longAnimationFrameEntries || []).map((frame) => round(frame.duration)),
      scripts: scripts.sort((x, y) => y.duration - x.duration).slice(0, 3).map((s) => ({
        url: s.sourceURL || "", fn: s.sourceFunctionName || undefined, char: s.sourceCharPosition >= 0 ? s.sourceCharPosition : undefined, ms: round(s.duration),
      })),
    };
  }, { reportAllChanges: true, durationThreshold: 16 });
`;

/** The init script: web-vitals and the collector, in their own scope (the page's globals untouched). */
export function vitalsScript(): string {
  return `(() => {\n${webVitalsSource()}\n${COLLECT}\n})();`;
}

/** Reads what the page collected, and its resources. */
export async function readVitals(page: Page): Promise<VitalsFacts> {
  return page.evaluate(() => {
    const state = (window as unknown as { __vigieVitals?: Omit<VitalsFacts, "url" | "renderBlocking" | "fonts" | "thirdParty"> })
      .__vigieVitals ?? { cls: 0, shifts: [] };
    const round = (n: number) => Math.round(n * 10) / 10;
    const resources = performance.getEntriesByType("resource") as (PerformanceResourceTiming & { renderBlockingStatus?: string })[];
    const kb = (entry: PerformanceResourceTiming) => round((entry.transferSize || entry.encodedBodySize || 0) / 1024);
    const fact = (entry: PerformanceResourceTiming) => ({
      url: entry.name,
      ms: round(entry.responseEnd - entry.startTime),
      endMs: round(entry.responseEnd),
      kb: kb(entry),
    });
    const third = resources.filter((entry) => {
      try {
        return new URL(entry.name).origin !== location.origin;
      } catch {
        return false;
      }
    });
    const totalKb = resources.reduce((sum, entry) => sum + kb(entry), 0);
    const thirdKb = third.reduce((sum, entry) => sum + kb(entry), 0);
    return {
      url: location.href,
      ...(state.lcp ? { lcp: state.lcp } : {}),
      cls: state.cls,
      shifts: state.shifts,
      ...(state.inp ? { inp: state.inp } : {}),
      renderBlocking: resources.filter((entry) => entry.renderBlockingStatus === "blocking").map(fact),
      fonts: resources.filter((entry) => /\.(woff2?|ttf|otf)(\?|$)/.test(entry.name)).map(fact),
      thirdParty: {
        requests: third.length,
        kb: round(thirdKb),
        percentOfRequests: resources.length ? Math.round((third.length / resources.length) * 100) : 0,
        percentOfKb: totalKb ? Math.round((thirdKb / totalKb) * 100) : 0,
        origins: [...new Set(third.map((entry) => new URL(entry.name).origin))].slice(0, 5),
      },
    };
  });
}
