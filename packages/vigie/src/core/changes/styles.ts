// A change made only to stylesheets: which of their rules changed, and which elements those
// rules can apply to. A page whose output changed only by its stylesheets, and none of whose
// elements a changed rule can apply to (by the classes and ids it had when it was last
// checked, and those its new HTML has), renders as it did: its last verdict stands.
// Everything is conservative: what cannot be told for sure (a changed custom property, a
// @font-face, a selector with no class or id, nested rules) makes every such page count.

/** One rule of a stylesheet: where it sits (its at-rules), its selector and its declarations. */
interface StyleRule {
  /** The at-rules around it, the selector and the declarations, normalized: its identity. */
  key: string;
  selector: string;
  /** Why a change of it reaches every element (an at-rule vigie does not follow, a custom property, nesting). */
  everywhere?: string;
}

/** What changed in the stylesheets, as the pages are judged by it. */
export interface StyleChange {
  /** Set when a changed rule can apply to any element: every page counts. */
  everywhere?: string;
  /** Each changed selector, as the classes and ids (".a", "#b") an element needs for it to apply; alternatives of one rule apart. */
  needs: string[][];
  /** How many rules changed (added, removed, edited or moved). */
  rules: number;
}

/** At-rules whose rules are followed one by one; a change to any other reaches every element. */
const GROUPING = /^@(media|supports|layer|container|scope|document|-moz-document)\b/i;

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** Splits CSS into top-level items, skipping comments and honouring strings: `prelude {body}` or `prelude;`. */
function items(css: string): { prelude: string; body?: string }[] {
  const found: { prelude: string; body?: string }[] = [];
  let start = 0;
  let depth = 0;
  let bodyStart = -1;
  let prelude = "";
  for (let i = 0; i < css.length; i += 1) {
    const char = css[i];
    if (char === "/" && css[i + 1] === "*") {
      const end = css.indexOf("*/", i + 2);
      i = end < 0 ? css.length : end + 1;
      continue;
    }
    if (char === '"' || char === "'") {
      for (i += 1; i < css.length && css[i] !== char; i += 1) if (css[i] === "\\") i += 1;
      continue;
    }
    if (char === "\\") {
      i += 1;
      continue;
    }
    if (char === "{") {
      if (depth === 0) {
        prelude = css.slice(start, i);
        bodyStart = i + 1;
      }
      depth += 1;
    } else if (char === "}") {
      depth -= 1;
      if (depth === 0) {
        found.push({ prelude: stripComments(prelude), body: css.slice(bodyStart, i) });
        start = i + 1;
      }
      if (depth < 0) depth = 0;
    } else if (char === ";" && depth === 0) {
      found.push({ prelude: stripComments(css.slice(start, i)) });
      start = i + 1;
    }
  }
  const rest = stripComments(css.slice(start));
  if (squash(rest)) found.push({ prelude: rest, ...(depth > 0 ? { body: css.slice(bodyStart) } : {}) });
  return found;
}

const stripComments = (text: string) => text.replace(/\/\*[\s\S]*?(\*\/|$)/g, " ");

/** The rules of a stylesheet, in order, each with its at-rules' context. */
export function styleRules(css: string, context = ""): StyleRule[] {
  const rules: StyleRule[] = [];
  for (const { prelude, body } of items(css)) {
    const head = squash(prelude);
    if (!head && body === undefined) continue;
    if (head.startsWith("@")) {
      if (body !== undefined && GROUPING.test(head)) rules.push(...styleRules(body, `${context}${head}{`));
      // @import, @font-face, @keyframes, @property, @layer a, b; ...: not tied to elements vigie can name.
      else
        rules.push({
          key: `${context}${head}{${squash(stripComments(body ?? ""))}}`,
          selector: "",
          everywhere: head.split(/[\s({;]/)[0] ?? head,
        });
      continue;
    }
    const declarations = squash(stripComments(body ?? ""));
    const everywhere = /[{}]/.test(body ?? "")
      ? "a nested rule"
      : /(^|[;{\s])--[\w-]+\s*:/.test(declarations)
        ? "a custom property"
        : undefined;
    rules.push({ key: `${context}${head}{${declarations}}`, selector: head, ...(everywhere ? { everywhere } : {}) });
  }
  return rules;
}

/**
 * The classes and ids an element needs for one selector (a list of alternatives) to apply to
 * it; undefined when the selector asks for none (a type, `*`, an attribute alone: any page).
 * What sits inside functional pseudo-classes and attribute selectors is not required.
 */
export function selectorNeeds(selector: string): string[][] | undefined {
  const alternatives: string[][] = [];
  for (const complex of splitTopLevel(selector)) {
    if (/\\/.test(complex)) return undefined;
    let plain = complex;
    // Innermost parentheses first, until none is left: :not(.a), :is(.b .c), :nth-child(2n of .d).
    for (let before = ""; before !== plain; ) {
      before = plain;
      plain = plain.replace(/\([^()]*\)/g, "");
    }
    plain = plain.replace(/\[[^\]]*\]/g, "").replace(/"[^"]*"|'[^']*'/g, "");
    const tokens = [...plain.matchAll(/([.#])(-?[_a-zA-Z\u00a0-\uffff][\w\u00a0-\uffff-]*)/g)].map((match) => `${match[1]}${match[2]}`);
    if (tokens.length === 0) return undefined;
    alternatives.push([...new Set(tokens)]);
  }
  return alternatives.length ? alternatives : undefined;
}

/** A selector list split at its top-level commas. */
function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i += 1) {
    const char = selector[i];
    if (char === "(" || char === "[") depth += 1;
    else if (char === ")" || char === "]") depth = Math.max(0, depth - 1);
    else if (char === "," && depth === 0) {
      parts.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(selector.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}

/**
 * The rules that differ between two versions of a stylesheet: what is not in the common
 * beginning and end of both lists (an added, removed, edited or moved rule, and those between).
 */
export function changedRules(before: string, after: string): StyleRule[] {
  const old = styleRules(before);
  const now = styleRules(after);
  let head = 0;
  while (head < old.length && head < now.length && old[head]?.key === now[head]?.key) head += 1;
  let tail = 0;
  while (tail < old.length - head && tail < now.length - head && old[old.length - 1 - tail]?.key === now[now.length - 1 - tail]?.key)
    tail += 1;
  return [...old.slice(head, old.length - tail), ...now.slice(head, now.length - tail)];
}

/** What the changes of several stylesheets (each before and after) can reach. */
export function styleChange(versions: { file: string; before: string; after: string }[]): StyleChange {
  const needs: string[][] = [];
  let rules = 0;
  for (const { file, before, after } of versions) {
    for (const rule of changedRules(before, after)) {
      rules += 1;
      if (rule.everywhere) return { everywhere: `${file}: ${rule.everywhere} changed`, needs: [], rules };
      const alternatives = selectorNeeds(rule.selector);
      if (!alternatives)
        return { everywhere: `${file}: the rule for "${rule.selector.slice(0, 60)}" can apply to any page`, needs: [], rules };
      needs.push(...alternatives);
    }
  }
  return { needs, rules };
}

/** Whether a changed rule can apply to an element of a page that has these classes and ids. */
export function styleReaches(change: StyleChange, tokens: ReadonlySet<string>): boolean {
  if (change.everywhere) return true;
  return change.needs.some((alternative) => alternative.every((token) => tokens.has(token)));
}

const CLASS_OR_ID = /\s(class|id)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi;

/** The classes (".a") and ids ("#b") the elements of an HTML document are written with. */
export function htmlTokens(html: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of html.matchAll(CLASS_OR_ID)) {
    const value = match[2] ?? match[3] ?? match[4] ?? "";
    if ((match[1] ?? "").toLowerCase() === "id") {
      if (value.trim()) tokens.add(`#${value.trim()}`);
    } else for (const name of value.split(/\s+/)) if (name) tokens.add(`.${name}`);
  }
  return tokens;
}
