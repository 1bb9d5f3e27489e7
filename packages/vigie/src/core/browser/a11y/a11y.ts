// a11y: axe-core in the page, violations grouped by rule.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import type { Action, ActionsOutcome } from "../../actions.ts";
import { clip } from "../../answer.ts";
import type { SourceFiles } from "../../source/files.ts";
import { locateImage } from "../../source/images.ts";
import { type Located, unknown } from "../../source/located.ts";
import { withState } from "../page/state.ts";
import { checkPage } from "../page/watch.ts";
import type { BrowserSession } from "../session/session.ts";

let axeSource: string | undefined;
function axe(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}

export type Impact = "minor" | "moderate" | "serious" | "critical";
const SEVERITY: Record<Impact, number> = { critical: 0, serious: 1, moderate: 2, minor: 3 };

export interface Violation {
  id: string;
  impact: Impact;
  help: string;
  count: number;
  target: string;
  helpUrl: string;
  /** Custom elements around the violating elements (site-search, starlight-theme-select...): whose markup it is. */
  within?: string[];
  /** The selectors given to the audit that every violating element matches. */
  matches?: string[];
  /** The `src` of each violating image (image-alt, input-image-alt), at most 5: what the sources are searched for. */
  srcs?: string[];
  /** Where the sources write each of `srcs`, same order, once located (crawl with a source root). */
  sources?: Located[];
  /**
   * The component that wrote the first violating element that says so: "/abs/src/components/X.astro:12".
   * Astro marks the elements of `.astro` templates with `data-astro-source-file` and `-loc` on the dev
   * server when its dev toolbar is on; Markdown content and built pages carry no such mark.
   */
  component?: string;
}

/** Rules about images, whose violating elements are found back in the sources by their `src`. */
const IMAGE_RULES = ["image-alt", "input-image-alt"];

export interface A11yResult {
  url: string;
  violations: Violation[];
  passes: number;
  incomplete: number;
  /** Whether the page marks its elements with their component (Astro's dev server, dev toolbar on). */
  annotated: boolean;
  /** The actions run before the audit, when asked. */
  actions?: ActionsOutcome;
}

const AXE_DOCS = "https://dequeuniversity.com/rules/axe/4.11";

/**
 * The checks the crawl runs on every page, in one quick pass without axe-core (whose
 * 500 kB script would double a crawl's time): what a page's content usually breaks, with
 * axe's rule ids and impacts. The full axe audit runs on one page of each kind.
 */
export async function quickContentAudit(page: Page): Promise<Violation[]> {
  const found = await page.evaluate((imageRules) => {
    const hidden = (element: Element) => element.closest('[aria-hidden="true"], [hidden]') !== null;
    const named = (element: Element) =>
      Boolean(
        element.getAttribute("aria-label")?.trim() ||
          element.getAttribute("aria-labelledby")?.trim() ||
          element.getAttribute("title")?.trim(),
      );
    const text = (element: Element) =>
      Boolean(element.textContent?.trim()) ||
      [...element.querySelectorAll("img[alt]")].some((img) => img.getAttribute("alt")?.trim()) ||
      named(element);
    const selector = (element: Element) => {
      const id = element.id ? `#${CSS.escape(element.id)}` : "";
      const src = element.getAttribute("src")
        ? `[src="${element.getAttribute("src")}"]`
        : element.getAttribute("href")
          ? `[href="${element.getAttribute("href")}"]`
          : "";
      return `${element.tagName.toLowerCase()}${id || src}`;
    };
    const rules: { id: string; impact: string; help: string; nodes: Element[] }[] = [
      {
        id: "image-alt",
        impact: "critical",
        help: "Images must have alternative text",
        nodes: [...document.querySelectorAll("img:not([alt])")].filter(
          (img) => !hidden(img) && !["presentation", "none"].includes(img.getAttribute("role") ?? "") && !named(img),
        ),
      },
      {
        id: "input-image-alt",
        impact: "critical",
        help: "Image buttons must have alternative text",
        nodes: [...document.querySelectorAll('input[type="image"]:not([alt])')].filter((input) => !named(input)),
      },
      {
        id: "link-name",
        impact: "serious",
        help: "Links must have discernible text",
        nodes: [...document.querySelectorAll("a[href]")].filter((a) => !hidden(a) && !text(a)),
      },
      {
        id: "button-name",
        impact: "critical",
        help: "Buttons must have discernible text",
        nodes: [...document.querySelectorAll("button, [role=button]")].filter((b) => !hidden(b) && !text(b)),
      },
      {
        id: "svg-img-alt",
        impact: "serious",
        help: "<svg> elements with an img role must have an alternative text",
        nodes: [...document.querySelectorAll('svg[role="img"]')].filter(
          (svg) => !named(svg) && !svg.querySelector("title")?.textContent?.trim(),
        ),
      },
    ];
    return rules
      .filter((rule) => rule.nodes.length > 0)
      .map((rule) => ({
        id: rule.id,
        impact: rule.impact,
        help: rule.help,
        count: rule.nodes.length,
        target: selector(rule.nodes[0] as Element),
        ...srcsOf(rule.id, rule.nodes),
      }));
    function srcsOf(id: string, nodes: Element[]): { srcs?: string[] } {
      if (!imageRules.includes(id)) return {};
      const srcs = nodes.flatMap((node) => (node.getAttribute("src") ? [node.getAttribute("src") as string] : [])).slice(0, 5);
      return srcs.length ? { srcs } : {};
    }
  }, IMAGE_RULES);
  return found.map((violation) => ({ ...violation, impact: violation.impact as Impact, helpUrl: `${AXE_DOCS}/${violation.id}` }));
}

/**
 * Runs axe-core in a page that is already loaded; violations sorted by impact. Each
 * violation says which custom elements hold its elements, and which of `selectors`
 * (the config's accepted ones) all its elements match.
 */
export async function runAxe(page: Page, tags?: string[], selectors: string[] = []): Promise<Omit<A11yResult, "url">> {
  await page.addScriptTag({ content: axe() });
  const only = tags?.length ? { type: "tag", values: tags } : undefined;
  const raw = await page.evaluate(
    async ({ only, selectors, imageRules }) => {
      type AxeResult = { id: string; impact: string | null; help: string; helpUrl: string; nodes: { target: unknown[] }[] };
      const runner = (
        window as unknown as {
          axe: {
            run: (context: object, options: object) => Promise<{ violations: AxeResult[]; passes: unknown[]; incomplete: unknown[] }>;
          };
        }
      ).axe;
      // Vite's error overlay is the dev server's, not the site's.
      const result = await runner.run({ exclude: [["vite-error-overlay"]] }, only ? { runOnly: only } : {});
      const elementOf = (target: unknown[]): Element | null => {
        if (target.length !== 1 || typeof target[0] !== "string") return null;
        try {
          return document.querySelector(target[0]);
        } catch {
          return null;
        }
      };
      const customAncestors = (element: Element) => {
        const tags: string[] = [];
        for (let at: Element | null = element; at; at = at.parentElement) if (at.localName.includes("-")) tags.push(at.localName);
        return tags;
      };
      const componentOf = (elements: Element[]) => {
        for (const element of elements) {
          const file = element.getAttribute("data-astro-source-file") ?? element.getAttribute("data-vigie-source-file");
          const loc = element.getAttribute("data-astro-source-loc") ?? element.getAttribute("data-vigie-source-loc");
          if (file) return `${file}:${(loc ?? "").split(":")[0] || 1}`;
        }
        return undefined;
      };
      const matchesSelector = (element: Element, selector: string) => {
        try {
          return element.matches(selector);
        } catch {
          return false;
        }
      };
      return {
        violations: result.violations.map((v) => {
          const elements = v.nodes.map((node) => elementOf(node.target));
          const found = elements.filter((element): element is Element => element !== null);
          const complete = found.length === elements.length && found.length > 0;
          const within = [...new Set(found.flatMap(customAncestors))];
          const matches = complete ? selectors.filter((selector) => found.every((element) => matchesSelector(element, selector))) : [];
          const srcs = imageRules.includes(v.id)
            ? found.flatMap((element) => (element.getAttribute("src") ? [element.getAttribute("src") as string] : [])).slice(0, 5)
            : [];
          const component = componentOf(found);
          return {
            id: v.id,
            impact: (v.impact ?? "minor") as string,
            help: v.help,
            helpUrl: v.helpUrl,
            count: v.nodes.length,
            target: (v.nodes[0]?.target ?? []).map((part) => (Array.isArray(part) ? part.join(" >>> ") : String(part))).join(" "),
            ...(within.length ? { within } : {}),
            ...(matches.length ? { matches } : {}),
            ...(srcs.length ? { srcs } : {}),
            ...(component ? { component } : {}),
          };
        }),
        passes: result.passes.length,
        incomplete: result.incomplete.length,
        annotated: document.querySelector("[data-astro-source-file], [data-vigie-source-file]") !== null,
      };
    },
    { only, selectors, imageRules: IMAGE_RULES },
  );
  const violations = (raw.violations as Violation[]).sort((a, b) => SEVERITY[a.impact] - SEVERITY[b.impact] || b.count - a.count);
  return { violations, passes: raw.passes, incomplete: raw.incomplete, annotated: raw.annotated };
}

/**
 * Astro's dev toolbar (its audit app) removes the elements' source marks once the page has
 * loaded: keep a copy of each under data-vigie-source-file/-loc as it is removed.
 */
const KEEP_SOURCE_MARKS = `new MutationObserver((records) => {
  for (const record of records) {
    const element = record.target;
    if (record.oldValue !== null && !element.hasAttribute(record.attributeName))
      element.setAttribute(record.attributeName.replace("data-astro-", "data-vigie-"), record.oldValue);
  }
}).observe(document, { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: ["data-astro-source-file", "data-astro-source-loc"] });`;

export async function auditA11y(
  session: BrowserSession,
  url: string,
  options: { tags?: string[]; actions?: Action[]; storageState?: string; selectors?: string[] } = {},
): Promise<A11yResult> {
  return session.withPage(async (page) => {
    await page.addInitScript(KEEP_SOURCE_MARKS);
    // After actions, the audit sees the page as they left it (a menu opened, a dialog shown).
    const findings = await checkPage(page, url, options.actions?.length ? { actions: options.actions } : {});
    return { url, ...(await runAxe(page, options.tags, options.selectors)), ...(findings.actions ? { actions: findings.actions } : {}) };
  }, withState(options.storageState));
}

/** Fills each image violation's `sources` (where the sources write its `src`s), in place. */
export function locateViolationImages(violations: Violation[], files: SourceFiles, pageUrl: string): void {
  for (const violation of violations) {
    if (!IMAGE_RULES.includes(violation.id) || !violation.srcs?.length) continue;
    violation.sources = violation.srcs.map((src) => {
      if (!files.hasSources()) return unknown("the project has no src/");
      try {
        return locateImage(files, src, pageUrl);
      } catch (error) {
        return unknown(clip(`could not be located: ${(error as Error).message}`, 120));
      }
    });
  }
}
