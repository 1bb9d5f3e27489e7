// Every internal link, asset and #fragment of the build resolves; every page has its alternates.
import { checkDevSiteLinks, checkSiteLinks } from "../../checks/links.ts";
import type { BrokenLink } from "../../links/links.ts";
import { enabled, firstShard, type Step, type ValidateContext } from "./context.ts";
import type { Finding } from "./findings.ts";
import { dependencyFix, isErrorPage, themeNote, themeOriginOf } from "./triage.ts";

export function linkFinding(ctx: ValidateContext, broken: BrokenLink): Finding {
  const rule = broken.where.includes("hreflang") ? "hreflang-alternate" : "broken-link";
  const theme = themeOriginOf({ rule, page: broken.from, target: broken.where }, [], ctx.site.settings);
  return {
    // An error page is indexed by no search engine: its alternates lead nobody astray. A
    // theme's own markup is not the site's to change.
    severity: (rule === "hreflang-alternate" && isErrorPage(broken.from)) || theme ? "warn" : "fail",
    tool: ctx.tool("build_links"),
    rule,
    page: broken.from,
    ...(broken.source ? { file: broken.source } : {}),
    target: broken.where,
    ...(theme ? { origin: theme.origin } : {}),
    message: `broken link to ${broken.to}: ${broken.reason}${broken.pages > 1 ? ` (on ${broken.pages} pages)` : ""}${theme ? ` (${themeNote(theme)})` : ""}`,
    fix: theme
      ? dependencyFix({ rule, target: undefined }, theme.origin, theme.component).replace('"reason"', `"page": "${broken.from}", "reason"`)
      : `Point the link at an existing page, asset or id${broken.source ? ` in ${broken.source}` : ""}.`,
  };
}

export const linksStep: Step = {
  name: "links",
  tool: "build_links",
  after: ["build"],
  // On the dev server, once lint's sync of .astro/ (which restarts it) is done.
  alsoAfter: (ctx) => (ctx.options.changes?.dev ? ["lint"] : []),
  skip: (ctx) =>
    !ctx.built && !ctx.options.changes?.dev
      ? "no build to check"
      : enabled(ctx, "links") && firstShard(ctx)
        ? undefined
        : "not this shard, or disabled",
  async run(ctx) {
    // --changed on vigie's dev server: the links of the pages the change reaches, as it renders them.
    const dev = ctx.options.changes?.dev;
    if (dev) {
      const result = await checkDevSiteLinks(ctx.site, dev.url, dev.paths, { signal: ctx.options.signal, known: dev.known });
      const findings = result.broken.map((broken) => linkFinding(ctx, broken));
      const failing = findings.filter((finding) => finding.severity === "fail").length;
      return {
        status: failing ? "fail" : result.broken.length ? "warn" : "ok",
        summary: `${result.checked} links on the ${result.pages} pages loaded from the dev server, ${result.broken.length} broken`,
        findings,
      };
    }
    // The built pages and assets (an adapter's prerendered folder); a link to a route rendered
    // on demand is checked by the crawl, which loads that page.
    const result = await checkSiteLinks(ctx.site);
    const findings = result.broken.map((broken) => linkFinding(ctx, broken));
    const failing = findings.filter((finding) => finding.severity === "fail").length;
    return {
      status: failing ? "fail" : result.broken.length ? "warn" : "ok",
      summary: `${result.checked} links on ${result.pages} pages, ${result.broken.length} broken`,
      findings,
    };
  },
};
