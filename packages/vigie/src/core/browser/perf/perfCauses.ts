// Why a page is slow or shifts, from what one load measured (vitals.ts): rules that turn the
// LCP's element and phases, the shifts and what pushed them, the slowest interaction and the
// page's resources into causes, each naming the element and the one change that fixes it.
// The rules are pure; `locateCauses` then finds each cause's file and line in the sources.

import { clip } from "../../answer.ts";
import { SourceFiles } from "../../source/files.ts";
import { locateImage } from "../../source/images.ts";
import { type Located, unknown } from "../../source/located.ts";
import { cachedFetcher, type FetchText } from "../../source/sourceMaps.ts";
import { locateStack } from "../../source/stacks.ts";
import { locateIsland } from "../page/locate.ts";
import type { ElementFacts, ScriptFacts, VitalsFacts } from "./vitals.ts";

export type PerfRule =
  | "perf-lcp-lazy"
  | "perf-lcp-late-image"
  | "perf-lcp-oversized"
  | "perf-render-blocking"
  | "perf-font-swap"
  | "perf-cls-unsized-image"
  | "perf-cls-injected"
  | "perf-third-party"
  | "perf-inp-slow";

export interface PerfCause {
  rule: PerfRule;
  metric: "lcp" | "cls" | "inp" | "load";
  /** The element to change (a CSS selector). */
  selector?: string;
  message: string;
  fix: string;
  /** What finds it in the sources: an image URL, an island's component URL, a script position. */
  ref?: { image?: string; island?: string; script?: ScriptFacts };
  /** Where it is written ("src/x.mdx:12"), or why that is not known. */
  located?: Located;
}

/** Thresholds: a cause is named only when it costs something a reader would notice. */
export const LIMITS = {
  /** LCP image requested this late after the first byte: it was discovered late. */
  lateImageMs: 150,
  /** Served this many times wider than its box (device pixels)… */
  oversizedRatio: 1.5,
  /** …and at least this many pixels wider. */
  oversizedPx: 300,
  /** A render-blocking resource this slow. */
  blockingMs: 300,
  /** A layout shift this large. */
  shift: 0.005,
  /** A font that arrived this shortly before a shift of text. */
  fontSwapMs: 300,
  /** An interaction this slow (INP "needs improvement" from 200 ms). */
  inpMs: 200,
  /** Third-party share of bytes, in percent, or this many third-party requests. */
  thirdPartyPercent: 30,
  thirdPartyRequests: 10,
} as const;

const fileName = (url: string | undefined) =>
  url
    ? clip(
        url
          .replace(/[?#].*$/, "")
          .split("/")
          .pop() || url,
        60,
      )
    : "";

/** How the element is said in a message: its selector, and its image file or text. */
function said(element: ElementFacts | undefined): string {
  if (!element) return "an element";
  const what = element.src ? ` (${fileName(element.src)})` : element.text ? ` ("${clip(element.text, 40)}")` : "";
  return `${element.selector}${what}`;
}

const eagerFix = (element: ElementFacts) =>
  element.astroImage
    ? 'load it eagerly: <Image priority> (loading="eager", fetchpriority="high") on the first image'
    : 'remove loading="lazy" and add fetchpriority="high"';

/** The LCP's causes: a lazy, late or oversized image; a slow render-blocking resource. */
export function lcpCauses(facts: VitalsFacts): PerfCause[] {
  const lcp = facts.lcp;
  const causes: PerfCause[] = [];
  const element = lcp?.element;
  if (lcp && element?.tag === "img") {
    const image = element.src || lcp.url;
    const ref = image ? { image } : undefined;
    if (element.loading === "lazy") {
      causes.push({
        rule: "perf-lcp-lazy",
        metric: "lcp",
        selector: element.selector,
        message: `LCP image ${said(element)} is lazy-loaded above the fold: requested after layout (LCP ${lcp.ms} ms, load delay ${lcp.phases.loadDelayMs} ms)`,
        fix: eagerFix(element),
        ...(ref ? { ref } : {}),
      });
    } else if (!lcp.preloaded && element.fetchpriority !== "high" && lcp.phases.loadDelayMs >= LIMITS.lateImageMs) {
      causes.push({
        rule: "perf-lcp-late-image",
        metric: "lcp",
        selector: element.selector,
        message: `LCP image ${said(element)} is requested ${lcp.phases.loadDelayMs} ms after the first byte: not preloaded nor high priority`,
        fix: element.astroImage
          ? "give it <Image priority>, or preload it (<link rel=preload as=image>)"
          : 'add fetchpriority="high", or preload it (<link rel=preload as=image>)',
        ...(ref ? { ref } : {}),
      });
    }
    const box = (element.renderedWidth ?? 0) * lcp.devicePixelRatio;
    const natural = element.naturalWidth ?? 0;
    if (box > 0 && natural > box * LIMITS.oversizedRatio && natural - box >= LIMITS.oversizedPx) {
      causes.push({
        rule: "perf-lcp-oversized",
        metric: "lcp",
        selector: element.selector,
        message: `LCP image ${said(element)} is ${natural} px wide for a ${Math.round(box)} px box${lcp.kb ? ` (${lcp.kb} KB)` : ""}`,
        fix: element.astroImage
          ? "give the <Image> the width it is shown at, and widths/sizes for other screens"
          : "serve it at its box's size (Astro's <Image> with width, widths and sizes)",
        ...(ref ? { ref } : {}),
      });
    }
  }
  const slowest = [...facts.renderBlocking].sort((a, b) => b.ms - a.ms)[0];
  if (slowest && slowest.ms >= LIMITS.blockingMs) {
    const total = facts.renderBlocking.reduce((sum, entry) => sum + entry.ms, 0);
    const font = /\.(woff2?|ttf|otf)(\?|$)/.test(slowest.url);
    causes.push({
      rule: "perf-render-blocking",
      metric: "lcp",
      message: `${facts.renderBlocking.length} render-blocking resource(s), ${Math.round(total)} ms; slowest ${fileName(slowest.url)} ${slowest.ms} ms${lcp ? ` (LCP render delay ${lcp.phases.renderDelayMs} ms)` : ""}`,
      fix: font
        ? "preload the font and give it font-display: swap or optional"
        : "inline the CSS the first screen needs and load the rest without blocking (media or a preload)",
    });
  }
  return causes;
}

/** The shifts' causes: an image without dimensions, an island that inserted content, a font swap. */
export function clsCauses(facts: VitalsFacts): PerfCause[] {
  const causes = new Map<string, PerfCause>();
  for (const shift of facts.shifts) {
    if (shift.value < LIMITS.shift) continue;
    const by = shift.pushedBy;
    const moved = shift.moved ? ` moving ${said(shift.moved)}` : "";
    let cause: PerfCause | undefined;
    if (by?.kind === "image" && !by.sized) {
      cause = {
        rule: "perf-cls-unsized-image",
        metric: "cls",
        selector: by.selector,
        message: `image ${said(by)} has no width/height: its load shifted the page ${shift.value}${moved}`,
        fix: "give it width and height (Astro's <Image> sets them from the file), or a CSS aspect-ratio",
        ...(by.src ? { ref: { image: by.src } } : {}),
      };
    } else if (by?.kind === "island" && by.island?.hydrated) {
      const name = by.island.name || fileName(by.island.url);
      cause = {
        rule: "perf-cls-injected",
        metric: "cls",
        selector: by.selector,
        message: `island ${name} inserted content after hydration: shift ${shift.value}${moved}`,
        fix: "render that content on the server, or reserve its space (min-height) in the island's HTML",
        ref: { island: by.island.url },
      };
    } else if (shift.moved?.text) {
      const font = facts.fonts.find((entry) => entry.endMs <= shift.atMs + 50 && shift.atMs - entry.endMs <= LIMITS.fontSwapMs);
      if (font) {
        cause = {
          rule: "perf-font-swap",
          metric: "cls",
          selector: shift.moved.selector,
          message: `font ${fileName(font.url)} arrived at ${font.endMs} ms and re-laid the text: shift ${shift.value}${moved}`,
          fix: "preload the font and use font-display: optional, or a fallback font with size-adjust",
        };
      }
    }
    if (cause && !causes.has(`${cause.rule} ${cause.selector}`)) causes.set(`${cause.rule} ${cause.selector}`, cause);
  }
  return [...causes.values()];
}

/** The slowest interaction's cause: the handler's long work, with its script. */
export function inpCauses(facts: VitalsFacts): PerfCause[] {
  const inp = facts.inp;
  if (!inp || inp.ms < LIMITS.inpMs) return [];
  const script = inp.scripts[0];
  const where = script ? ` in ${script.fn ? `${script.fn} ` : ""}(${fileName(script.url)}, ${script.ms} ms)` : "";
  const ref = { ...(script?.url ? { script } : {}), ...(inp.element?.island ? { island: inp.element.island.url } : {}) };
  return [
    {
      rule: "perf-inp-slow",
      metric: "inp",
      ...(inp.element ? { selector: inp.element.selector } : {}),
      message: `interaction with ${said(inp.element)}: INP ${inp.ms} ms (input delay ${inp.inputDelayMs}, processing ${inp.processingMs}, presentation ${inp.presentationMs})${where}`,
      fix: "split the handler's work (await a yield between chunks: scheduler.yield() or setTimeout) or move it off the main thread",
      ...(Object.keys(ref).length ? { ref } : {}),
    },
  ];
}

/** Third-party requests over their share. */
export function thirdPartyCauses(facts: VitalsFacts): PerfCause[] {
  const third = facts.thirdParty;
  if (third.percentOfKb < LIMITS.thirdPartyPercent && third.requests < LIMITS.thirdPartyRequests) return [];
  return [
    {
      rule: "perf-third-party",
      metric: "load",
      message: `${third.requests} third-party request(s), ${third.kb} KB (${third.percentOfKb}% of bytes) from ${third.origins.join(", ")}`,
      fix: "self-host what the page needs, load the rest after the page (defer, on interaction)",
    },
  ];
}

/** Every cause one load shows, LCP first. */
export function perfCauses(facts: VitalsFacts): PerfCause[] {
  return [...lcpCauses(facts), ...clsCauses(facts), ...inpCauses(facts), ...thirdPartyCauses(facts)];
}

/** Line and column (1-based) of a character offset in a text. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/**
 * A script's position (a character offset, as long animation frames give it) in the sources: in
 * a module, the offset in its text; in the page, the offset in one of its inline scripts (which
 * one is not said: the first that locates wins).
 */
async function locateScript(files: SourceFiles, script: ScriptFacts, pageUrl: string, fetchText: FetchText): Promise<Located | undefined> {
  const url = new URL(script.url, pageUrl).href;
  const text = await fetchText(url);
  if (text === undefined || script.char === undefined) return undefined;
  const frames =
    url.split("#")[0] === pageUrl.split("#")[0]
      ? [...text.matchAll(/<script\b[^>]*>/gi)].map((match) => positionAt(text, (match.index ?? 0) + match[0].length + (script.char ?? 0)))
      : [positionAt(text, script.char)];
  let first: Located | undefined;
  for (const { line, column } of frames.slice(0, 10)) {
    const located = await locateStack(files, [{ url: script.url, line, column }], pageUrl, fetchText);
    if ("source" in located) return located;
    first ??= located;
  }
  return first;
}

/** Fills each cause's `located`, in place; never throws. */
export async function locateCauses(
  causes: PerfCause[],
  root: string,
  pageUrl: string,
  fetchText: FetchText = cachedFetcher(),
): Promise<PerfCause[]> {
  const files = new SourceFiles(root);
  for (const cause of causes) {
    const ref = cause.ref;
    if (!ref) continue;
    try {
      if (!files.hasSources()) {
        cause.located = unknown("the project has no src/");
        continue;
      }
      let located: Located | undefined;
      if (ref.image) located = locateImage(files, ref.image, pageUrl);
      if (ref.script?.url && ref.script.char !== undefined) located = await locateScript(files, ref.script, pageUrl, fetchText);
      if (ref.island && (!located || !("source" in located))) located = await locateIsland(files, ref.island, pageUrl, fetchText);
      if (located) cause.located = located;
    } catch (error) {
      cause.located = unknown(`could not be located: ${(error as Error).message}`.slice(0, 120));
    }
  }
  return causes;
}
