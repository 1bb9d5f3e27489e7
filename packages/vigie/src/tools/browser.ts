import { type ActionsOutcome, parseActions } from "../core/actions.ts";
import { type Answer, clip, VigieError, writeReport } from "../core/answer.ts";
import { auditA11y } from "../core/browser/a11y.ts";
import { faultSummary, faultText, type PageFault, pageFaults, whereOf } from "../core/browser/faults.ts";
import type { PageFindings } from "../core/browser/findings.ts";
import { summarize } from "../core/browser/jsErrors.ts";
import { measurePerf } from "../core/browser/perf.ts";
import { takeScreenshot } from "../core/browser/screenshot.ts";
import { sharedSession } from "../core/browser/session.ts";
import { visualDiff } from "../core/browser/visualDiff.ts";
import { runBuild } from "../core/build/build.ts";
import type { PageSelection } from "../core/changes/index.ts";
import { changedPages } from "../core/checks/changed.ts";
import { checkSitePage } from "../core/checks/page.ts";
import { crawlSitePages, recordCrawl, type SiteFault } from "../core/checks/pages.ts";
import { budgetsOf, loadConfig, storageStateOf } from "../core/config.ts";
import { firstFault } from "../core/production/pageCauses.ts";
import { type Project, relativePath } from "../core/project.ts";
import { afterBuild, readSite, type Site } from "../core/site.ts";
import type { Located } from "../core/source/located.ts";
import { resolveBaseUrl, resolvePageUrl } from "../core/target.ts";
import { defineTool, portArgument, type ToolDefinition, type Zod } from "./define.ts";

const target = (z: Zod) => ({
  path: z.string().describe('Site path, default "/"').optional(),
  port: portArgument(z, "default: the dev server's"),
});
/** The actions a page check runs after the load; said once in full (js_errors), the other tools point at it. */
const actions = (z: Zod, description: string) => z.array(z.any()).describe(description).optional();
const ACTIONS =
  'steps after load, in order, one verb each: {click|hover|focus|scrollTo|waitFor|follow: T}, {fill|select: T, value}, {press: key, on?: T}; T: role and name ("button Next"), text=... or CSS';

/** The parsed actions and the saved login a page check opens with. */
function pageCheckOptions(project: Project, raw: unknown[] | undefined) {
  const actions = raw?.length ? parseActions(raw) : undefined;
  const storageState = storageStateOf(project, loadConfig(project));
  return { ...(actions ? { actions } : {}), ...(storageState ? { storageState } : {}) };
}

/** How the actions went, for an answer: nothing when none were asked. */
function actionsLine(outcome: ActionsOutcome | undefined): Answer {
  if (!outcome) return {};
  const { failed } = outcome;
  return {
    actions: { ran: outcome.ran, of: outcome.of },
    ...(failed
      ? {
          stepFailed: {
            step: failed.step,
            action: failed.action,
            reason: failed.reason,
            ...(failed.candidates ? { onThePage: [...failed.candidates] } : {}),
          },
        }
      : {}),
  };
}

const viewport = (z: Zod) => z.enum(["desktop", "mobile"]).describe("default desktop").optional();

const MAX_LISTED = 5;

/** For crawl's `changed`: builds, then chooses the pages whose output differs from the last check's, as `validate --changed` does. */
async function changedSelection(site: Site, signal: AbortSignal | undefined): Promise<{ site: Site; selection: PageSelection }> {
  const build = await runBuild(site.project, { signal });
  if (!build.success) {
    const [first] = build.errors;
    throw new VigieError(
      `the build failed${first ? `: ${clip(first.message, 200)}` : ""}, so no page can be compared with the last check`,
      "Call blog_build_run for the errors and fix them, then crawl again.",
      { report: build.report },
    );
  }
  const built = afterBuild(site);
  return { site: built, selection: changedPages(built) };
}

function listed(items: string[], max = 200): string[] {
  const shown = items.slice(0, MAX_LISTED).map((item) => clip(item, max));
  return items.length > MAX_LISTED ? [...shown, `+${items.length - MAX_LISTED} more (see report)`] : shown;
}

function listedFindings(items: (string | Answer)[]): (string | Answer)[] {
  return items.length > MAX_LISTED ? [...items.slice(0, MAX_LISTED), `+${items.length - MAX_LISTED} more (see report)`] : items;
}

/** The compact form of one page's findings, as js_errors answers it. */
/** Why an a11y answer names no component. */
const A11Y_SOURCE_UNKNOWN =
  "this page does not mark its elements with their component: Astro does on its dev server with the dev toolbar on (devToolbar.enabled)";

/** A fault as a plain string when nothing was located and no action came before it, else an object with its source and step. */
function faultItem(key: string, fault: PageFault, located: Located | undefined): string | Answer {
  const text = faultText(fault, 200, false);
  const where = whereOf(located);
  const step = fault.afterStep ? { afterStep: fault.afterStep } : {};
  return where || fault.afterStep ? { [key]: text, ...step, ...where } : text;
}

/** The islands line of an answer: how many, how many hydrated, and those not checked (a media query). */
function islandsLine(findings: PageFindings): Answer | undefined {
  const islands = findings.islands ?? [];
  if (!islands.length) return undefined;
  const notChecked = islands.filter((island) => island.note && !island.fault && !island.note.includes("threw"));
  return {
    count: islands.length,
    hydrated: islands.filter((island) => island.hydrated).length,
    ...(notChecked.length ? { notChecked: notChecked.slice(0, 3).map((island) => clip(`${island.component}: ${island.note}`, 160)) } : {}),
  };
}

/** The compact form of one page's findings, as js_errors answers it: its faults, grouped by kind. */
export function findingsAnswer(findings: PageFindings, path: string): Answer {
  const faults = pageFaults(findings);
  // One reason shared by every finding (no src/ at all, say) is said once, not per finding.
  const everyLocated = faults.map((fault) => fault.located).filter((located) => located !== undefined);
  const reasons = new Set(everyLocated.map((located) => ("sourceUnknown" in located ? located.sourceUnknown : "")));
  const shared = everyLocated.length > 1 && reasons.size === 1 ? [...reasons][0] || undefined : undefined;
  const located = (fault: PageFault) => (shared ? undefined : fault.located);
  const of = (...kinds: PageFault["kind"][]) => faults.filter((fault) => kinds.includes(fault.kind));
  const islandFaults = of("island", "hydration");
  const islands = islandsLine(findings);
  return {
    path,
    status: findings.status,
    summary: faultSummary(faults, findings.incomplete),
    errors: listedFindings(of("error").map((fault) => faultItem("message", fault, located(fault)))),
    failedRequests: listedFindings(of("request").map((fault) => faultItem("request", fault, located(fault)))),
    ...(islandFaults.length
      ? { islandFaults: listedFindings(islandFaults.map((fault) => faultItem("message", fault, located(fault)))) }
      : {}),
    ...(findings.mermaid.length
      ? {
          mermaid: findings.mermaid
            .slice(0, MAX_LISTED)
            .map((m) => ({ diagram: m.diagram, message: clip(m.message, 200), ...whereOf(shared ? undefined : m.located) })),
        }
      : {}),
    ...(islands ? { islands } : {}),
    ...(shared ? { sourceUnknown: clip(shared, 100) } : {}),
    ...(findings.devError ? { devError: findings.devError } : {}),
    ...(findings.redirectedTo ? { redirectedTo: findings.redirectedTo } : {}),
    ...actionsLine(findings.actions),
    ...(findings.warnings.length ? { warnings: listed(findings.warnings, 150) } : {}),
    ...(findings.incomplete ? { incomplete: findings.incomplete } : {}),
  };
}

/** js_errors' answer: the compact findings; whatever list it cuts ("+N more (see report)"), the report written has whole. */
export function jsErrorsAnswer(project: Project, findings: PageFindings, path: string): Answer {
  const answer = findingsAnswer(findings, path);
  // The page's controls after a step that could not run: as many as the 1 KB budget leaves, three at least.
  const near = (answer.stepFailed as { onThePage?: string[] } | undefined)?.onThePage;
  while (near && near.length > 3 && Buffer.byteLength(JSON.stringify(answer)) > 1000) near.pop();
  const faults = pageFaults(findings);
  const count = (...kinds: PageFault["kind"][]) => faults.filter((fault) => kinds.includes(fault.kind)).length;
  const lists = [count("error"), count("request"), count("island", "hydration"), findings.mermaid.length, findings.warnings.length];
  return lists.some((length) => length > MAX_LISTED)
    ? { ...answer, report: writeReport(project, `js-errors-${path.replace(/\W+/g, "-")}.json`, findings) }
    : answer;
}

export const browserTools: ToolDefinition[] = [
  defineTool({
    exportName: "js_errors",
    group: "browser",
    title: "Runtime errors of a page",
    readOnly: true,
    idempotent: true,
    description:
      "Load one page in headless Chromium as a reader would and report what breaks it at runtime: uncaught and console errors, failed requests (>= 400), islands that throw or never hydrate, hydration mismatches, failed Mermaid diagrams, Astro's dev error page, each with its source file:line. Call after every change to a page.",
    args: (z) => ({
      ...target(z),
      warnings: z.boolean().describe("also list console warnings").optional(),
      follow: z
        .array(
          z
            .string()
            .regex(/^\/[^\s]*$/, "an in-site path starting with /")
            .max(300),
        )
        .max(5)
        .describe('in-site paths to go to after the load by clicking links, as a reader does (errors after it say "after /a/ → /b/")')
        .optional(),
      actions: actions(z, ACTIONS),
    }),
    run: async (args, { project }) => {
      const path = args.path ?? "/";
      const actions = args.actions?.length ? parseActions(args.actions) : undefined;
      // A 5xx (the page, or a request it made): the error the server logged and its source.
      const { findings, serverErrors } = await checkSitePage(readSite(project), {
        session: sharedSession(),
        url: resolvePageUrl(project, args),
        config: loadConfig(project),
        warnings: args.warnings ?? false,
        ...(args.follow?.length ? { follow: args.follow } : {}),
        ...(actions ? { actions } : {}),
      });
      const answer = jsErrorsAnswer(project, findings, path);
      return serverErrors.length ? { ...answer, serverErrors } : answer;
    },
  }),
  defineTool({
    exportName: "perf",
    group: "browser",
    title: "Page performance",
    readOnly: true,
    idempotent: true,
    description:
      "Measure a page over N cold loads: median TTFB, DOMContentLoaded, load, LCP, CLS, bytes, requests, JS bytes, each against the budget (vigie.config.json; default load <= 200 ms). Judge budgets on a preview build, not the dev server.",
    args: (z) => ({ ...target(z), runs: z.number().int().min(1).max(20).describe("loads to take the median of, default 3").optional() }),
    run: async (args, { project }) => {
      const result = await measurePerf(sharedSession(), resolvePageUrl(project, args), {
        runs: args.runs ?? 3,
        budgets: budgetsOf(loadConfig(project)),
        storageState: storageStateOf(project, loadConfig(project)),
      });
      return {
        path: args.path ?? "/",
        ...result,
        url: undefined,
        ...(result.server === "dev"
          ? { note: "Measured on the dev server: timings are not what readers get. Build, start with mode preview, then measure." }
          : {}),
      };
    },
  }),
  defineTool({
    exportName: "screenshot",
    group: "browser",
    title: "Screenshot a page",
    readOnly: true,
    idempotent: false,
    description: "Save a PNG of a page or one element under .opencode/screenshots/; answers its path and size, not the image.",
    args: (z) => ({
      ...target(z),
      viewport: viewport(z),
      fullPage: z.boolean().describe("whole page, not the viewport").optional(),
      selector: z.string().min(1).max(300).describe("CSS selector of one element").optional(),
      actions: actions(z, "as js_errors' actions"),
    }),
    run: async (args, { project }) => {
      const shot = await takeScreenshot(project, sharedSession(), resolvePageUrl(project, args), args.path ?? "/", {
        ...args,
        ...pageCheckOptions(project, args.actions),
      });
      const faults = summarize(shot.findings);
      return {
        file: shot.file,
        width: shot.width,
        height: shot.height,
        bytes: shot.bytes,
        ...(faults.startsWith("clean") ? {} : { pageFaults: faults }),
        ...actionsLine(shot.findings.actions),
      };
    },
  }),
  defineTool({
    exportName: "a11y",
    group: "browser",
    title: "Accessibility audit",
    readOnly: true,
    idempotent: true,
    description: "Audit a page with axe-core; answers violations grouped by rule with impact, node count and one target selector.",
    args: (z) => ({
      ...target(z),
      tags: z
        .array(z.string().regex(/^[a-z0-9.-]+$/))
        .describe('only these axe tags, e.g. ["wcag2aa"]')
        .optional(),
      actions: actions(z, "as js_errors' actions"),
    }),
    run: async (args, { project }) => {
      const result = await auditA11y(sharedSession(), resolvePageUrl(project, args), {
        tags: args.tags,
        ...pageCheckOptions(project, args.actions),
      });
      const counts: Record<string, number> = {};
      for (const v of result.violations) counts[v.impact] = (counts[v.impact] ?? 0) + 1;
      const report = result.violations.length
        ? writeReport(project, `a11y-${(args.path ?? "/").replace(/\W+/g, "-")}.json`, result)
        : undefined;
      return {
        path: args.path ?? "/",
        violations: result.violations.slice(0, 8).map(({ id, impact, help, count, target: selector, component }) => ({
          id,
          impact,
          help: clip(help, 100),
          count,
          target: clip(selector, 120),
          ...(component ? { source: relativePath(project, component) } : {}),
        })),
        counts,
        passes: result.passes,
        ...(result.violations.length && !result.annotated ? { sourceUnknown: A11Y_SOURCE_UNKNOWN } : {}),
        ...(report ? { report } : {}),
        ...actionsLine(result.actions),
      };
    },
  }),
  defineTool({
    exportName: "crawl",
    group: "browser",
    title: "Crawl every page",
    readOnly: true,
    idempotent: true,
    description:
      "Check every page of the site (sitemap, else links from the home page) for HTTP status and runtime errors, in parallel. Answers counts and the failing pages; the full table goes to a report file. changed: only the pages whose built output changed since the last check.",
    args: (z) => ({
      port: target(z).port,
      changed: z.boolean().describe("only the pages the last edits changed (builds first)").optional(),
      maxPages: z.number().int().min(1).max(5000).describe("default 500").optional(),
      concurrency: z.number().int().min(1).max(16).describe("pages at once, default 4").optional(),
    }),
    run: async (args, { project, progress, signal }) => {
      const baseUrl = resolveBaseUrl(project, args);
      const config = loadConfig(project);
      const changed = args.changed ? await changedSelection(readSite(project), signal) : undefined;
      const site = changed?.site ?? readSite(project);
      const selection = changed?.selection;
      if (selection?.paths.length === 0) {
        return { pages: 0, ok: 0, failing: [], changed: { chosen: 0, of: selection.total, why: clip(selection.reason, 300) } };
      }
      const crawl = await crawlSitePages(site, {
        session: sharedSession(),
        pagesUrl: baseUrl,
        config,
        ...(selection ? { paths: selection.paths } : {}),
        // What a later stylesheet change can reach, for the record of a crawl of the changed pages.
        tokens: Boolean(selection),
        ...(args.maxPages ? { maxPages: args.maxPages } : {}),
        ...(args.concurrency ? { concurrency: args.concurrency } : {}),
        signal,
        onProgress: (done, total, path) => progress?.(`crawl ${done}/${total} ${path}`, { done, total }),
      });
      const { result, causes } = crawl;
      const failing = crawl.pages.filter((page) => page.faults.length > 0);
      if (selection) {
        const judged = crawl.pages.map(({ page, faults }) => ({ path: page.path, ok: faults.length === 0 }));
        recordCrawl(site, judged, result.pages, { fingerprints: selection.fingerprints });
      }
      for (const page of result.pages) delete page.tokens;
      const report = writeReport(project, "crawl.json", causes.size ? { ...result, serverErrors: Object.fromEntries(causes) } : result);
      const listedPages = failing.slice(0, 8).map(({ page, faults, linkedFrom }) => {
        // The first fault a reader meets, with where the sources write it (or why that is not known).
        const first: SiteFault | undefined = faults.find((fault) => fault.rule === "broken-link") ?? firstFault(faults);
        return {
          // A broken link found on an on-demand page is that page's fault, as validate names it.
          path: first?.rule === "broken-link" && linkedFrom ? linkedFrom : page.path,
          status: page.status,
          summary: faultSummary(faults, page.incomplete),
          first: first ? faultText(first, 120) : "",
          ...whereOf(first?.located, 100),
        };
      });
      const answerWith = (shown: typeof listedPages): Answer => ({
        pages: result.pages.length,
        ok: result.pages.length - failing.length,
        failing: shown,
        ...(failing.length > shown.length ? { moreFailing: failing.length - shown.length } : {}),
        ...(result.skipped ? { skipped: result.skipped } : {}),
        ...(selection ? { changed: { chosen: selection.paths.length, of: selection.total, why: clip(selection.reason, 300) } } : {}),
        source: result.source,
        ms: result.ms,
        report,
      });
      // Up to 8 failing pages, as many as the answer's 2 KB allow (MAX_ANSWER_BYTES); the rest are in the report.
      let shown = listedPages;
      while (shown.length > 1 && Buffer.byteLength(JSON.stringify(answerWith(shown))) > 2000) shown = shown.slice(0, -1);
      return answerWith(shown);
    },
  }),
  defineTool({
    exportName: "visual_diff",
    group: "browser",
    title: "Visual diff with a baseline",
    readOnly: false,
    idempotent: false,
    description:
      "Compare a page's screenshot with its baseline in .opencode/baselines/. Answers match, changed (diffRatio, a diff image's path) or baseline_created.",
    args: (z) => ({
      ...target(z),
      viewport: viewport(z),
      fullPage: z.boolean().describe("whole page, default true").optional(),
      selector: z.string().min(1).max(300).describe("CSS selector of one element").optional(),
      threshold: z.number().min(0).max(1).describe("per-pixel colour threshold, default 0.1").optional(),
      update: z.boolean().describe("make the current screenshot the baseline").optional(),
    }),
    run: async (args, { project }) => ({
      path: args.path ?? "/",
      ...(await visualDiff(project, sharedSession(), resolvePageUrl(project, args), args.path ?? "/", {
        ...args,
        storageState: storageStateOf(project, loadConfig(project)),
      })),
    }),
  }),
];
