// The accessibility check as browser_a11y and validate's crawl both run it: axe-core's rules
// with the config's accepted selectors, each violation judged on the config's impacts (a FAIL at
// those it fails on, default serious and critical; moderate ones a WARN; minor ones not
// reported) and given one source: the component that wrote its element when the page says so,
// else where the sources write its image. A page that cannot be audited is an error returned.
import type { Action } from "../actions.ts";
import type { Site } from "../astro/site.ts";
import { type A11yResult, auditA11y, locateViolationImages, type Violation } from "../browser/a11y/a11y.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import { storageStateOf, type VigieConfig } from "../config.ts";
import { relativePath } from "../project.ts";
import { SourceFiles } from "../source/files.ts";

export type A11ySeverity = "fail" | "warn";

export interface JudgedViolation {
  violation: Violation;
  severity: A11ySeverity;
  /** "src/components/X.astro:12", or where the sources write the violating image. */
  source?: string;
}

/** The selectors the config accepts violations on (its accept rules'), which the audit tests the elements against. */
export const acceptSelectorsOf = (config: VigieConfig): string[] =>
  (config.accept ?? []).flatMap((rule) => (rule.selector ? [rule.selector] : []));

/** The impacts a check fails on (the config's, default serious and critical), and those it reports (those, and moderate). */
export function a11yImpacts(config: VigieConfig): { failOn: Set<string>; reported: Set<string> } {
  const failOn = new Set<string>(config.a11y?.failOn ?? ["serious", "critical"]);
  return { failOn, reported: new Set([...failOn, "moderate"]) };
}

/** Where a violation comes from: its element's component, else its first located image. */
export function violationSource(site: Site, violation: Violation): string | undefined {
  if (violation.component) return relativePath(site.project, violation.component);
  return violation.sources?.flatMap((located) => ("source" in located ? [located.source] : []))[0];
}

/** The violations reported, each with its severity and source, in the audit's order. */
export function judgeViolations(site: Site, config: VigieConfig, violations: Violation[]): JudgedViolation[] {
  const { failOn, reported } = a11yImpacts(config);
  return violations.flatMap((violation): JudgedViolation[] => {
    if (!reported.has(violation.impact)) return [];
    const source = violationSource(site, violation);
    return [{ violation, severity: failOn.has(violation.impact) ? "fail" : "warn", ...(source ? { source } : {}) }];
  });
}

export interface PageA11yOptions {
  session: BrowserSession;
  /** The page's full URL. */
  url: string;
  config: VigieConfig;
  /** Only axe's rules with these tags. */
  tags?: string[];
  /** The reader's actions before the audit. */
  actions?: Action[];
}

export interface PageA11y {
  /** The whole audit (every impact). */
  result: A11yResult;
  /** The violations a check reports. */
  judged: JudgedViolation[];
}

export async function checkPageA11y(site: Site, options: PageA11yOptions): Promise<PageA11y | Error> {
  const { config, url } = options;
  const storageState = storageStateOf(site.project, config);
  const result = await auditA11y(options.session, url, {
    selectors: acceptSelectorsOf(config),
    ...(options.tags?.length ? { tags: options.tags } : {}),
    ...(options.actions?.length ? { actions: options.actions } : {}),
    ...(storageState ? { storageState } : {}),
  }).catch((error: Error) => error);
  if (result instanceof Error) return result;
  locateViolationImages(result.violations, new SourceFiles(site.project.root), url);
  return { result, judged: judgeViolations(site, config, result.violations) };
}
