// A reader's actions on a loaded page, run in order: click, hover, focus, fill, select, press,
// scroll to, wait for, follow a link. Targets are written the way an agent describes them:
// "ROLE NAME" (Playwright's getByRole: "button Next", "tab Deux"), "text=..." (getByText),
// or a CSS selector ("css=..." forces one). A step that cannot run ends the run at once with
// what was looked for and the page's closest candidates (names of its buttons, links and
// inputs): a short answer, never a long timeout.
import type { Locator, Page } from "playwright-core";
import { clip, VigieError } from "../answer.ts";

/** The verbs, each with the form its step takes. */
const TARGET_VERBS = ["click", "hover", "focus", "scrollTo", "waitFor", "follow"] as const;
const VALUE_VERBS = ["fill", "select"] as const;
export const VERBS = [...TARGET_VERBS, ...VALUE_VERBS, "press"] as const;
export type Verb = (typeof VERBS)[number];

/** One step, parsed: its verb, its target (absent for a press on the focused element), its value (fill, select) or key (press). */
export interface Step {
  verb: Verb;
  target?: string;
  value?: string;
}

/** What accepted steps look like, for an error's hint. */
export const STEPS_ACCEPTED =
  'Each step is one object with one verb: {"click"|"hover"|"focus"|"scrollTo"|"waitFor"|"follow": TARGET}, {"fill"|"select": TARGET, "value": "text"}, {"press": "Enter"} (on the focused element) or {"press": "Enter", "on": TARGET}. TARGET: "ROLE NAME" such as "button Next" or "link About", "text=Some text", or a CSS selector ("css=..." forces one).';

export const MAX_STEPS = 20;

/**
 * The ARIA roles a target may start with ("button Next"); anything else is a CSS selector.
 * Tag-like roles (button, link...) are read as roles: "css=button" means the CSS tag.
 */
const ROLES = new Set([
  "alert",
  "button",
  "checkbox",
  "combobox",
  "dialog",
  "gridcell",
  "heading",
  "img",
  "link",
  "listbox",
  "listitem",
  "menu",
  "menubar",
  "menuitem",
  "menuitemcheckbox",
  "menuitemradio",
  "navigation",
  "option",
  "radio",
  "region",
  "row",
  "search",
  "searchbox",
  "slider",
  "spinbutton",
  "switch",
  "tab",
  "tablist",
  "tabpanel",
  "textbox",
  "tree",
  "treeitem",
]);

function invalid(index: number, why: string): VigieError {
  return new VigieError(`actions[${index}]: ${why}`, STEPS_ACCEPTED, { argument: "actions" });
}

const text = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0 && value.length <= 300;

/** Checks the steps as given (tool arguments, a flow of vigie.config.json); throws a VigieError naming the first bad one. */
export function parseSteps(raw: unknown): Step[] {
  if (!Array.isArray(raw)) throw invalid(0, "actions must be a list of steps");
  if (raw.length > MAX_STEPS) throw new VigieError(`actions: ${raw.length} steps, at most ${MAX_STEPS}`, STEPS_ACCEPTED);
  return raw.map((item, index): Step => {
    if (!item || typeof item !== "object" || Array.isArray(item)) throw invalid(index, `a step is an object, got ${JSON.stringify(item)}`);
    const keys = Object.keys(item);
    const verbs = keys.filter((key) => (VERBS as readonly string[]).includes(key));
    if (verbs.length !== 1) {
      const unknown = keys.filter((key) => !(VERBS as readonly string[]).includes(key) && key !== "value" && key !== "on");
      throw invalid(
        index,
        verbs.length
          ? `one verb per step, got ${verbs.join(" and ")}`
          : `no verb${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}; verbs: ${VERBS.join(", ")}`,
      );
    }
    const verb = verbs[0] as Verb;
    const record = item as Record<string, unknown>;
    const main = record[verb];
    const extra = keys.filter((key) => key !== verb);
    if (!text(main)) throw invalid(index, `${verb} takes a non-empty string (at most 300 characters)`);
    if (verb === "press") {
      if (extra.some((key) => key !== "on")) throw invalid(index, `press takes only "on" beside the key, got ${extra.join(", ")}`);
      if (record.on !== undefined && !text(record.on)) throw invalid(index, `"on" is a TARGET string`);
      return { verb, value: main, ...(record.on !== undefined ? { target: record.on as string } : {}) };
    }
    if ((VALUE_VERBS as readonly string[]).includes(verb)) {
      if (extra.some((key) => key !== "value"))
        throw invalid(index, `${verb} takes only "value" beside its target, got ${extra.join(", ")}`);
      if (typeof record.value !== "string" || record.value.length > 1000) throw invalid(index, `${verb} needs "value", a string`);
      return { verb, target: main, value: record.value };
    }
    if (extra.length) throw invalid(index, `${verb} takes its target only, got also ${extra.join(", ")}`);
    return { verb, target: main };
  });
}

/** A step in a few words, as answers name it: `press "ArrowRight"`, `click "button Next"`. */
export function stepLabel(step: Step): string {
  const target = step.target ? ` ${JSON.stringify(clip(step.target, 60))}` : "";
  if (step.verb === "press") return `press ${JSON.stringify(step.value)}${step.target ? ` on${target}` : ""}`;
  if (step.value !== undefined) return `${step.verb}${target} with ${JSON.stringify(clip(step.value, 40))}`;
  return `${step.verb}${target}`;
}

/** The locator a target names: a role and its accessible name, a text, or a CSS selector. */
export function locate(page: Page, target: string): Locator {
  if (target.startsWith("css=")) return page.locator(target.slice(4)).first();
  if (target.startsWith("text=")) return page.getByText(target.slice(5).trim()).first();
  const [first = "", ...rest] = target.trim().split(/\s+/);
  if (ROLES.has(first)) {
    const name = rest.join(" ");
    return page.getByRole(first as Parameters<Page["getByRole"]>[0], name ? { name } : {}).first();
  }
  return page.locator(target).first();
}

export interface StepFailure {
  /** 1-based. */
  step: number;
  action: string;
  reason: string;
  /** The page's closest named controls: what the target may have meant. */
  candidates?: string[];
}

export interface ActionsOutcome {
  /** Steps that ran to their end. */
  ran: number;
  of: number;
  failed?: StepFailure;
}

export interface RunHooks {
  /** Called before step `n` (1-based) starts: what the page does from then on happened after it. */
  mark: (step: number) => void;
  /** After each step: lets the page react (handlers, requests) before the next one. */
  settle: () => Promise<void>;
}

/** How long a step waits for its target. Short: a wrong target is an answer, not a wait. */
const FIND_MS = 2500;
/** How long waitFor and follow wait for what they wait for. */
const WAIT_MS = 6000;

/** The page's named controls (buttons, links, inputs, tabs...), as "role name", closest to `wanted` first. */
export async function candidates(page: Page, wanted: string, max = 8): Promise<string[]> {
  const found = await page
    .evaluate(() => {
      const seen = new Set<string>();
      const out: string[] = [];
      const roleOf = (el: Element): string => {
        const explicit = el.getAttribute("role");
        if (explicit) return explicit.split(/\s+/)[0] ?? explicit;
        const tag = el.tagName.toLowerCase();
        if (tag === "a") return "link";
        if (tag === "button" || tag === "summary") return "button";
        if (tag === "select") return "combobox";
        if (tag === "textarea") return "textbox";
        if (tag === "input") {
          const type = (el.getAttribute("type") ?? "text").toLowerCase();
          if (["button", "submit", "reset", "image"].includes(type)) return "button";
          if (type === "checkbox" || type === "radio") return type;
          if (type === "search") return "searchbox";
          return "textbox";
        }
        return tag;
      };
      const nameOf = (el: Element): string => {
        const labelled = el.getAttribute("aria-labelledby");
        const byIds = labelled
          ?.split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? "")
          .join(" ");
        const input = el as HTMLInputElement;
        const label = input.labels?.[0]?.textContent;
        return (
          el.getAttribute("aria-label") ||
          byIds ||
          label ||
          (el.tagName === "INPUT" ? (input.value && ["button", "submit"].includes(input.type) ? input.value : "") : "") ||
          el.textContent ||
          el.getAttribute("placeholder") ||
          el.getAttribute("title") ||
          ""
        )
          .replace(/\s+/g, " ")
          .trim();
      };
      const selector =
        'a[href], button, summary, input:not([type="hidden"]), select, textarea, [role=button], [role=link], [role=tab], [role=menuitem], [role=checkbox], [role=radio], [role=switch], [role=option], [role=combobox], [role=textbox], [role=searchbox]';
      for (const el of document.querySelectorAll(selector)) {
        if (el.closest('[hidden], [aria-hidden="true"]')) continue;
        const entry = `${roleOf(el)} ${nameOf(el).slice(0, 40)}`.trim();
        if (seen.has(entry)) continue;
        seen.add(entry);
        out.push(entry);
        if (out.length >= 300) break;
      }
      return out;
    })
    .catch(() => [] as string[]);
  const words = wanted
    .toLowerCase()
    .replace(/^(css|text)=/, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1);
  const role = wanted.trim().split(/\s+/)[0] ?? "";
  const score = (entry: string) => {
    const lower = entry.toLowerCase();
    const sameRole = lower.startsWith(`${role.toLowerCase()} `) || lower === role.toLowerCase() ? 1 : 0;
    return words.filter((word) => lower.includes(word)).length * 2 + sameRole;
  };
  return found
    .map((entry, index) => ({ entry, index, score: score(entry) }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, max)
    .map(({ entry }) => entry);
}

/** The first line of a Playwright error, without its call log. */
const firstLine = (error: unknown) => clip(((error as Error)?.message ?? String(error)).split("\n")[0] ?? "failed", 160);

/** Waits for the target to be there; false when it never is (within FIND_MS, or `ms`). */
async function present(locator: Locator, ms = FIND_MS): Promise<boolean> {
  return locator
    .waitFor({ state: "attached", timeout: ms })
    .then(() => true)
    .catch(() => false);
}

/** Runs one step; returns why it could not run, or undefined. */
async function runStep(page: Page, step: Step): Promise<{ reason: string; missing?: boolean } | undefined> {
  const options = { timeout: FIND_MS };
  if (step.verb === "press" && !step.target) {
    await page.keyboard.press(step.value as string);
    return undefined;
  }
  const locator = locate(page, step.target as string);
  const waitMs = step.verb === "waitFor" ? WAIT_MS : FIND_MS;
  if (step.verb === "waitFor") {
    const shown = await locator
      .waitFor({ state: "visible", timeout: waitMs })
      .then(() => true)
      .catch(() => false);
    if (shown) return undefined;
    return (await locator.count().catch(() => 0))
      ? { reason: `found but still hidden after ${waitMs / 1000} s` }
      : { reason: `did not appear within ${waitMs / 1000} s`, missing: true };
  }
  if (!(await present(locator))) return { reason: "nothing on the page matches it", missing: true };
  try {
    switch (step.verb) {
      case "click":
        await locator.click(options);
        break;
      case "hover":
        await locator.hover(options);
        break;
      case "focus":
        await locator.focus(options);
        break;
      case "scrollTo":
        await locator.scrollIntoViewIfNeeded(options);
        break;
      case "fill":
        await locator.fill(step.value as string, options);
        break;
      case "select":
        await locator.selectOption(step.value as string, options);
        break;
      case "press":
        await locator.press(step.value as string, options);
        break;
      case "follow": {
        const before = page.url();
        await locator.click(options);
        // A load, or a swap by the site's router: either way the URL changes.
        const changed = await page
          .waitForURL((url) => url.href !== before, { timeout: WAIT_MS, waitUntil: "load" })
          .then(() => true)
          .catch(() => false);
        if (!changed) return { reason: `clicked, but the page stayed on ${new URL(before).pathname} for ${WAIT_MS / 1000} s` };
        break;
      }
    }
  } catch (error) {
    return { reason: `found but could not ${step.verb} it: ${firstLine(error)}` };
  }
  return undefined;
}

/**
 * Runs the steps in order on a loaded page. `hooks.mark` is called before each step, so what
 * the page does from then on is that step's; `hooks.settle` after it. Stops at the first step
 * that cannot run, with what was looked for and the page's closest candidates.
 */
export async function runActions(page: Page, steps: Step[], hooks: RunHooks): Promise<ActionsOutcome> {
  for (const [index, step] of steps.entries()) {
    hooks.mark(index + 1);
    let failure: { reason: string; missing?: boolean } | undefined;
    try {
      failure = await runStep(page, step);
    } catch (error) {
      // A key Playwright does not know ("Unknown key"), a page that closed.
      failure = { reason: firstLine(error) };
    }
    if (failure) {
      const near = failure.missing && step.target ? await candidates(page, step.target) : [];
      return {
        ran: index,
        of: steps.length,
        failed: { step: index + 1, action: stepLabel(step), reason: failure.reason, ...(near.length ? { candidates: near } : {}) },
      };
    }
    await hooks.settle();
  }
  return { ran: steps.length, of: steps.length };
}
