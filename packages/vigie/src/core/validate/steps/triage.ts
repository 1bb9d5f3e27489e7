// What a finding means for this site: Astro's and Starlight's known benign notices are
// not findings; a finding in a dependency's markup says whose markup it is; the
// findings vigie.config.json accepts are set apart with their reason.
import type { SiteFacts } from "../../astro/site.ts";
import type { AcceptRule } from "../../config.ts";
import type { AcceptedFinding, Finding } from "./findings.ts";

/** Build notices that Astro and Starlight print on every healthy site. */
const BENIGN_NOTICES: { pattern: RegExp; starlightOnly?: boolean }[] = [
  // Astro marks its content modules with this directive on purpose; Rolldown notices it.
  { pattern: /module level directive "use astro:head-inject"/i },
  // Starlight looks for an optional i18n collection of UI strings.
  { pattern: /The collection "i18n" does not exist or is empty/, starlightOnly: true },
  // Starlight looks for an optional docs entry that would replace its 404 page.
  { pattern: /Entry docs → 404 was not found/, starlightOnly: true },
];

export function isBenignNotice(message: string, site: Pick<SiteFacts, "starlight">): boolean {
  return BENIGN_NOTICES.some(({ pattern, starlightOnly }) => pattern.test(message) && (!starlightOnly || site.starlight));
}

export const STARLIGHT_MARKUP = "@astrojs/starlight's markup";

/** Starlight's own elements: its custom elements, its search, its `sl-` classes. */
const STARLIGHT_ELEMENTS =
  /(^|[\s>(,])(site-search|starlight-[\w-]+|mobile-starlight-toggle)\b|\.sl-[\w-]+|\[data-open-modal\]|#starlight__/;

/** Starlight's components a site can replace (its `components` option), by the elements of their markup. */
const STARLIGHT_COMPONENTS: { component: string; element: RegExp }[] = [
  { component: "Search", element: /(^|[\s>(,])site-search\b|\[data-open-modal\]|#starlight__search|\.pagefind-ui/ },
  { component: "ThemeSelect", element: /(^|[\s>(,])starlight-theme-select\b/ },
  { component: "LanguageSelect", element: /(^|[\s>(,])starlight-lang-select\b/ },
  { component: "MobileMenuToggle", element: /(^|[\s>(,])(mobile-starlight-toggle|starlight-menu-button)\b/ },
  { component: "MobileTableOfContents", element: /(^|[\s>(,])mobile-starlight-toc\b/ },
  { component: "TableOfContents", element: /(^|[\s>(,])starlight-toc\b/ },
];

/** Astro writes its error pages as 404.html and 500.html; no search engine indexes them. */
export const isErrorPage = (page?: string) => page !== undefined && /(^|\/)(404|500)(\.html|\/)?$/.test(page);

/** A finding in a theme's own markup: whose markup (`origin`) and, when known, which of its components. */
export interface ThemeOrigin {
  origin: string;
  component?: string;
}

type ThemeSite = Pick<SiteFacts, "starlight"> & { starlightComponents?: string[] };

/**
 * Whose markup a finding comes from, when it can be known: on a Starlight site, an element
 * inside Starlight's own components, or an alternate on the 404 page Starlight generates.
 * Undefined when it is (or may be) the site's own: a component the site replaced through
 * Starlight's `components` option is the site's.
 */
export function themeOriginOf(
  finding: Pick<Finding, "rule" | "page" | "target">,
  within: string[],
  site: ThemeSite,
): ThemeOrigin | undefined {
  if (!site.starlight) return undefined;
  const places = [...within, finding.target ?? ""];
  const component = STARLIGHT_COMPONENTS.find(({ element }) => places.some((place) => element.test(place)))?.component;
  if (component && site.starlightComponents?.includes(component)) return undefined;
  if (component) return { origin: STARLIGHT_MARKUP, component };
  if (within.some((tag) => /^(site-search|starlight-|mobile-starlight-)/.test(tag))) return { origin: STARLIGHT_MARKUP };
  if (finding.target && STARLIGHT_ELEMENTS.test(finding.target)) return { origin: STARLIGHT_MARKUP };
  if (finding.rule === "hreflang-alternate" && isErrorPage(finding.page)) return { origin: STARLIGHT_MARKUP, component: "404 page" };
  return undefined;
}

/** Whose markup a finding comes from ("@astrojs/starlight's markup"), or undefined when it is (or may be) the site's. */
export function originOf(finding: Pick<Finding, "rule" | "page" | "target">, within: string[], site: ThemeSite): string | undefined {
  return themeOriginOf(finding, within, site)?.origin;
}

/** The words a finding in a theme's markup ends with: "from Starlight's own markup (its Search component), which the site cannot change". */
export function themeNote(theme: ThemeOrigin): string {
  const whose = theme.origin === STARLIGHT_MARKUP ? "Starlight's own markup" : theme.origin;
  const part = theme.component ? ` (its ${theme.component}${/ page$/.test(theme.component) ? "" : " component"})` : "";
  return `from ${whose}${part}, which the site cannot change`;
}

/** The words of a selector in order: "site-search > button" → site-search, button. */
const parts = (selector: string) => selector.split(/[\s>+~]+/).filter(Boolean);

/** Does `selector` name the finding's target? Exact for axe findings (tested in the page), by its parts in order otherwise. */
function selectorMatches(selector: string, finding: Finding & { matches?: string[] }): boolean {
  if (finding.matches?.includes(selector)) return true;
  if (!finding.target) return false;
  const wanted = parts(selector);
  const have = parts(finding.target);
  let at = 0;
  for (const part of have) if (at < wanted.length && part.includes(wanted[at] as string)) at++;
  return at === wanted.length;
}

function pageMatches(page: string, finding: Finding): boolean {
  if (!finding.page) return false;
  return page.endsWith("*") ? finding.page.startsWith(page.slice(0, -1)) : finding.page === page;
}

/** The accept entry that covers a finding, if any: same rule, and the selector and page when given. */
export function acceptanceOf(finding: Finding & { matches?: string[] }, rules: AcceptRule[]): AcceptRule | undefined {
  return rules.find(
    (rule) =>
      rule.rule === finding.rule &&
      (!rule.selector || selectorMatches(rule.selector, finding)) &&
      (!rule.page || pageMatches(rule.page, finding)),
  );
}

/** Moves the findings this machine's network explains out of `findings` (in place); returns them. */
export function setNotJudged(findings: Finding[]): Finding[] {
  const notJudged = findings.filter((finding) => finding.unreachable !== undefined);
  const judged = findings.filter((finding) => finding.unreachable === undefined);
  findings.splice(0, findings.length, ...judged);
  return notJudged;
}

/** Moves the accepted findings out of `findings` (in place); returns them with their reason. */
export function setAccepted(findings: (Finding & { matches?: string[] })[], rules: AcceptRule[]): AcceptedFinding[] {
  const accepted: AcceptedFinding[] = [];
  for (let i = findings.length - 1; i >= 0; i--) {
    const finding = findings[i] as Finding & { matches?: string[] };
    const rule = acceptanceOf(finding, rules);
    if (!rule) continue;
    findings.splice(i, 1);
    const { matches: _, ...rest } = finding;
    accepted.unshift({ ...rest, reason: rule.reason });
  }
  return accepted;
}

/** The fix for a finding in a dependency's markup: report it upstream, or accept it. */
export function dependencyFix(finding: Pick<Finding, "rule" | "target">, origin: string, component?: string): string {
  const selector = finding.target ? `, "selector": ${JSON.stringify(finding.target)}` : "";
  const override =
    component && origin === STARLIGHT_MARKUP && !/ page$/.test(component)
      ? `replace its ${component} component through Starlight's \`components\` option`
      : "override the component";
  return `It comes from ${origin}, not from your sources: report it upstream, ${override}, or accept it in vigie.config.json: "accept": [{ "rule": "${finding.rule}"${selector}, "reason": "..." }].`;
}
