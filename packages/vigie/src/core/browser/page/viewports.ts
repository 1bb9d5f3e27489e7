// The screens pages are checked on: the desktop, and a phone (Playwright's iPhone 13-like
// profile: 390×844, touch, device scale 3) for pages that show something only a narrow screen
// shows: a `client:media` island whose query matches there, or stylesheet rules under a width
// media query that hide or show elements of the page.
import type { BrowserContextOptions, Page } from "playwright-core";

export type ViewportName = "desktop" | "mobile";

export const VIEWPORTS: Record<ViewportName, BrowserContextOptions> = {
  desktop: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 },
  mobile: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
};

/** The phone a page check also uses where a page needs it. */
export const PHONE: BrowserContextOptions = {
  viewport: { width: 390, height: 844 },
  screen: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

/** What a media query is tested against. */
interface Screen {
  width: number;
  height: number;
  /** A mouse (hover, fine pointer) or a finger. */
  touch: boolean;
}

const DESKTOP_SCREEN: Screen = { width: 1280, height: 800, touch: false };
const PHONE_SCREEN: Screen = { width: 390, height: 844, touch: true };

/** A length in CSS pixels (px, em and rem at 16 px); undefined for another unit. */
function pixels(value: string): number | undefined {
  const match = value.trim().match(/^(-?\d*\.?\d+)(px|em|rem)?$/);
  if (!match) return undefined;
  const n = Number(match[1]);
  return match[2] === "em" || match[2] === "rem" ? n * 16 : match[2] === "px" || n === 0 ? n : undefined;
}

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  "<": (a, b) => a < b,
  "<=": (a, b) => a <= b,
  ">": (a, b) => a > b,
  ">=": (a, b) => a >= b,
  "=": (a, b) => a === b,
};

/** One `(feature)` of a media query on a screen; undefined when vigie does not know it. */
function feature(text: string, screen: Screen): boolean | undefined {
  const body = text.trim().toLowerCase();
  // Range syntax: (width <= 640px), (640px < width), (400px <= width <= 700px).
  const range = body.match(/^(?:([\d.]+\w*)\s*(<=|<|>=|>|=)\s*)?(width|height)\s*(?:(<=|<|>=|>|=)\s*([\d.]+\w*))?$/);
  if (range && (range[1] || range[5])) {
    const size = range[3] === "width" ? screen.width : screen.height;
    let result = true;
    if (range[1] && range[2]) {
      const left = pixels(range[1]);
      const compare = COMPARE[range[2]];
      if (left === undefined || !compare) return undefined;
      result &&= compare(left, size);
    }
    if (range[4] && range[5]) {
      const right = pixels(range[5]);
      const compare = COMPARE[range[4]];
      if (right === undefined || !compare) return undefined;
      result &&= compare(size, right);
    }
    return result;
  }
  const [name = "", value = ""] = body.split(":").map((part) => part.trim());
  const limit = pixels(value);
  switch (name) {
    case "max-width":
      return limit === undefined ? undefined : screen.width <= limit;
    case "min-width":
      return limit === undefined ? undefined : screen.width >= limit;
    case "max-height":
      return limit === undefined ? undefined : screen.height <= limit;
    case "min-height":
      return limit === undefined ? undefined : screen.height >= limit;
    case "orientation":
      return value === "portrait" ? screen.height >= screen.width : value === "landscape" ? screen.width > screen.height : undefined;
    case "hover":
    case "any-hover":
      return value === "none" ? screen.touch : value === "hover" ? !screen.touch : undefined;
    case "pointer":
    case "any-pointer":
      return value === "coarse" ? screen.touch : value === "fine" ? !screen.touch : value === "none" ? false : undefined;
    default:
      // prefers-color-scheme, prefers-reduced-motion...: the same on both screens.
      return name.startsWith("prefers-") || name === "color" || name === "monochrome" ? true : undefined;
  }
}

/** One media query (no comma) on a screen; undefined when vigie cannot tell. */
function single(query: string, screen: Screen): boolean | undefined {
  let text = query.trim().toLowerCase();
  const negated = /^not\s/.test(text);
  text = text.replace(/^(not|only)\s+/, "");
  let result: boolean | undefined = true;
  for (const part of text.split(/\s+and\s+/)) {
    const inner = part.trim();
    let value: boolean | undefined;
    if (/^\(.*\)$/.test(inner)) {
      const body = inner.slice(1, -1).trim();
      value = /^not\s/.test(body) ? invert(feature(body.slice(4).replace(/^\(|\)$/g, ""), screen)) : feature(body, screen);
    } else if (inner === "screen" || inner === "all") value = true;
    else if (inner === "print") value = false;
    else value = undefined;
    if (value === false) return negated;
    if (value === undefined) result = undefined;
  }
  return result === undefined ? undefined : negated ? !result : result;
}

const invert = (value: boolean | undefined) => (value === undefined ? undefined : !value);

/** Does a media query list match on a screen? Undefined when vigie cannot tell. */
export function mediaMatches(query: string, screen: Screen): boolean | undefined {
  let unknown = false;
  for (const part of query.split(",")) {
    const value = single(part, screen);
    if (value === true) return true;
    if (value === undefined) unknown = true;
  }
  return unknown ? undefined : false;
}

/** True when the query may match differently on the phone than on the desktop (also when vigie cannot tell). */
export function differsOnPhone(query: string): boolean {
  const desktop = mediaMatches(query, DESKTOP_SCREEN);
  const phone = mediaMatches(query, PHONE_SCREEN);
  return desktop === undefined || phone === undefined || desktop !== phone;
}

/** Only media queries that speak of the screen's size or input are read. */
const SCREEN_FEATURE = /width|height|orientation|hover|pointer/i;

/** Most media queries read from one page. */
const MAX_QUERIES = 40;

/**
 * Why the page needs a check on a phone: its `client:media` islands and the stylesheet rules
 * under a width media query that set `display` on an element of the page, whose query matches
 * differently there; empty when none. Never throws.
 */
export async function narrowScreenReasons(page: Page): Promise<string[]> {
  const found = await page
    .evaluate(
      ({ max, pattern }) => {
        const screenFeature = new RegExp(pattern, "i");
        const reasons: { query: string; what: string }[] = [];
        for (const island of document.querySelectorAll('astro-island[client="media"]')) {
          try {
            const opts = JSON.parse(island.getAttribute("opts") ?? "{}") as { name?: string; value?: string };
            if (typeof opts.value === "string") reasons.push({ query: opts.value, what: `client:media island ${opts.name ?? "unnamed"}` });
          } catch {}
        }
        const seen = new Set<string>();
        const visit = (rules: CSSRuleList, media: string | undefined) => {
          for (const rule of rules) {
            if (reasons.length >= max) return;
            if (rule instanceof CSSMediaRule) {
              const query = rule.conditionText || rule.media.mediaText;
              visit(rule.cssRules, screenFeature.test(query) ? query : media);
            } else if (rule instanceof CSSStyleRule && media && !seen.has(`${media}\u0000${rule.selectorText}`)) {
              if (!rule.style.getPropertyValue("display")) continue;
              seen.add(`${media}\u0000${rule.selectorText}`);
              try {
                if (document.querySelector(rule.selectorText))
                  reasons.push({ query: media, what: `${rule.selectorText} {display: ${rule.style.getPropertyValue("display")}}` });
              } catch {}
            } else if ("cssRules" in rule && rule.cssRules instanceof CSSRuleList) visit(rule.cssRules, media);
          }
        };
        for (const sheet of document.styleSheets) {
          const media = sheet.media.mediaText;
          try {
            visit(sheet.cssRules, media && screenFeature.test(media) ? media : undefined);
          } catch {
            // A stylesheet of another origin cannot be read.
          }
        }
        return reasons;
      },
      { max: MAX_QUERIES, pattern: SCREEN_FEATURE.source },
    )
    .catch(() => [] as { query: string; what: string }[]);
  return found.filter(({ query }) => differsOnPhone(query)).map(({ query, what }) => `${what} under ${query}`);
}
