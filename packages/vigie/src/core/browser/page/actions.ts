// A reader's actions on a loaded page, run in order: click, hover, focus, fill, select, press,
// scroll to, wait for, follow a link. Targets are written the way an agent describes them:
// "ROLE NAME" (Playwright's getByRole: "button Next", "tab Deux"), "text=..." (getByText),
// or a CSS selector ("css=..." forces one). An action that cannot run ends the run at once with
// what was looked for and the page's closest candidates (names of its buttons, links and
// inputs): a short answer, never a long timeout.
import type { Locator, Page } from "playwright-core";
import { type Action, type ActionsOutcome, actionLabel } from "../../actions.ts";
import { clip } from "../../answer.ts";

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

export interface RunHooks {
  /** Called before action `n` (1-based) starts: what the page does from then on happened after it. */
  mark: (action: number) => void;
  /** After each action: lets the page react (handlers, requests) before the next one. */
  settle: () => Promise<void>;
}

/** How long an action waits for its target. Short: a wrong target is an answer, not a wait. */
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

/** Runs one action; returns why it could not run, or undefined. */
async function runAction(page: Page, action: Action): Promise<{ reason: string; missing?: boolean } | undefined> {
  const options = { timeout: FIND_MS };
  if (action.verb === "press" && !action.target) {
    await page.keyboard.press(action.value as string);
    return undefined;
  }
  const locator = locate(page, action.target as string);
  const waitMs = action.verb === "waitFor" ? WAIT_MS : FIND_MS;
  if (action.verb === "waitFor") {
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
    switch (action.verb) {
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
        await locator.fill(action.value as string, options);
        break;
      case "select":
        await locator.selectOption(action.value as string, options);
        break;
      case "press":
        await locator.press(action.value as string, options);
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
    return { reason: `found but could not ${action.verb} it: ${firstLine(error)}` };
  }
  return undefined;
}

/**
 * Runs the actions in order on a loaded page. `hooks.mark` is called before each action, so
 * what the page does from then on is that action's; `hooks.settle` after it. Stops at the first
 * action that cannot run, with what was looked for and the page's closest candidates.
 */
export async function runActions(page: Page, actions: Action[], hooks: RunHooks): Promise<ActionsOutcome> {
  for (const [index, action] of actions.entries()) {
    hooks.mark(index + 1);
    let failure: { reason: string; missing?: boolean } | undefined;
    try {
      failure = await runAction(page, action);
    } catch (error) {
      // A key Playwright does not know ("Unknown key"), a page that closed.
      failure = { reason: firstLine(error) };
    }
    if (failure) {
      const near = failure.missing && action.target ? await candidates(page, action.target) : [];
      return {
        ran: index,
        of: actions.length,
        failed: { step: index + 1, action: actionLabel(action), reason: failure.reason, ...(near.length ? { candidates: near } : {}) },
      };
    }
    await hooks.settle();
  }
  return { ran: actions.length, of: actions.length };
}
