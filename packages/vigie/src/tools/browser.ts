import { resolve } from "node:path";
import { type ActionsOutcome, parseActions } from "../core/actions.ts";
import { type Answer, VigieError, writeReport } from "../core/answer.ts";
import { afterBuild, readSite, type Site } from "../core/astro/site.ts";
import { visualDiff } from "../core/browser/capture/visualDiff.ts";
import { type PageFault, pageFaults } from "../core/browser/page/faults.ts";
import { failingPageItem, faultItem, faultSummary, whereOf } from "../core/browser/page/faultView.ts";
import type { PageFindings } from "../core/browser/page/findings.ts";
import { unreachedNote } from "../core/browser/page/network.ts";
import { sharedSession } from "../core/browser/session/session.ts";
import { runBuild } from "../core/build/build.ts";
import { builtChanges, changeReach, devScopeNote } from "../core/changes/changed.ts";
import type { Fingerprints } from "../core/changes/fingerprints.ts";
import { recordCheckedPages } from "../core/changes/record.ts";
import { checkPageA11y } from "../core/checks/a11y.ts";
import { checkSitePage } from "../core/checks/page.ts";
import { firstFault } from "../core/checks/pageCauses.ts";
import { checkedPage, crawlSitePages, type SiteFault } from "../core/checks/pages.ts";
import { checkPagePerf } from "../core/checks/perf.ts";
import { againstBaselineFile } from "../core/checks/perfBaseline.ts";
import { saveScreenshot } from "../core/checks/screenshot.ts";
import { loadConfig, storageStateOf } from "../core/config.ts";
import { readDevPort } from "../core/devServer/status.ts";
import { resolveBaseUrl, resolvePageUrl } from "../core/devServer/target.ts";
import { pagesLine, secondsLeft } from "../core/progress.ts";
import type { Project } from "../core/project.ts";
import { finding, lines } from "./answers.ts";
import { defineTool, portArgument, type ToolDefinition, type ToolOutput, type Zod } from "./define.ts";
import { baselineAnswer, perfAnswer } from "./perfAnswer.ts";

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

/** The pages crawl's `changed` loads, where from, and why; with the build's fingerprints when a build chose them. */
interface ChangedChoice {
  site: Site;
  paths: string[];
  of: number;
  why: string;
  /** The dev server, when its module graph chose the pages. */
  origin?: string;
  fingerprints?: Fingerprints;
}

/**
 * For crawl's `changed`: the pages the change reaches, as every "changed" answers it: on the
 * running dev server (the crawl's server), from its module graph, without a build; else a
 * build, and the pages whose output differs from the last check's, as `validate --changed` does.
 */
async function changedChoice(project: Project, port: number | undefined, signal: AbortSignal | undefined): Promise<ChangedChoice> {
  const site = readSite(project);
  const onDev = port === undefined || port === readDevPort(project);
  const reach = onDev ? await changeReach(site, undefined, signal ? { signal } : {}) : undefined;
  if (reach && "dev" in reach) {
    const { dev } = reach;
    return { site, paths: dev.paths, of: dev.known.length, why: devScopeNote(dev), origin: dev.origin };
  }
  const build = await runBuild(site, { signal });
  if (!build.success) {
    const [first] = build.errors;
    throw new VigieError(
      `the build failed, so no page can be compared with the last check${first ? `: ${first.message}` : ""}`,
      "Call blog_build_run for the errors and fix them, then crawl again.",
      { files: { report: build.report } },
    );
  }
  const built = afterBuild(site);
  const selection = builtChanges(built);
  return { site: built, paths: selection.paths, of: selection.total, why: selection.reason, fingerprints: selection.fingerprints };
}

/** Why an a11y answer names no component. */
const A11Y_SOURCE_UNKNOWN =
  "this page does not mark its elements with their component: Astro does on its dev server with the dev toolbar on (devToolbar.enabled)";

/** The islands line of an answer: how many, how many hydrated, and those not checked (a media query). */
function islandsLine(findings: PageFindings): Answer | undefined {
  const islands = findings.islands ?? [];
  if (!islands.length) return undefined;
  const notChecked = islands.filter((island) => island.note && !island.fault && !island.note.includes("threw"));
  return {
    count: islands.length,
    hydrated: islands.filter((island) => island.hydrated).length,
    ...(notChecked.length ? { notChecked: notChecked.map((island) => `${island.component}: ${island.note}`) } : {}),
  };
}

/** The crawl's pages that were checked a second time, and why ("2 pages: dev server re-optimised dependencies"). */
function reloadedLine(pages: PageFindings[]): Answer {
  const reloaded = pages.filter((page) => page.reloaded);
  if (!reloaded.length) return {};
  const why = [...new Set(reloaded.map((page) => page.reloaded))].join("; ");
  return { reloaded: `${reloaded.length} page${reloaded.length > 1 ? "s" : ""}: ${why}` };
}

/**
 * One page's findings as js_errors answers them: its faults grouped by kind, each list whole
 * (the renderer cuts them to js_errors' sizes and budget; the report then has the findings).
 */
export function findingsOutput(findings: PageFindings, path: string): ToolOutput {
  const faults = pageFaults(findings);
  // One reason shared by every finding (no src/ at all, say) is said once, not per finding.
  const everyLocated = faults.map((fault) => fault.located).filter((located) => located !== undefined);
  const reasons = new Set(everyLocated.map((located) => ("sourceUnknown" in located ? located.sourceUnknown : "")));
  const shared = everyLocated.length > 1 && reasons.size === 1 ? [...reasons][0] || undefined : undefined;
  const items = (...kinds: PageFault["kind"][]) =>
    faults.filter((fault) => kinds.includes(fault.kind)).map((fault) => faultItem(fault, shared ? undefined : fault.located));
  const islandFaults = items("island", "hydration");
  const islands = islandsLine(findings);
  const answer: Answer = {
    path,
    status: findings.status,
    summary: faultSummary(faults, findings.incomplete),
    errors: items("error"),
    failedRequests: items("request"),
    ...(islandFaults.length ? { islandFaults } : {}),
    ...(findings.mermaid.length
      ? {
          mermaid: findings.mermaid.map((m) => ({
            diagram: m.diagram,
            message: m.message,
            ...whereOf(shared ? undefined : m.located),
          })),
        }
      : {}),
    ...(islands ? { islands } : {}),
    ...(shared ? { sourceUnknown: shared } : {}),
    ...(findings.unreached?.length ? { notJudged: unreachedNote(findings.unreached) } : {}),
    ...(findings.devError ? { devError: findings.devError } : {}),
    ...(findings.redirectedTo ? { redirectedTo: findings.redirectedTo } : {}),
    ...actionsLine(findings.actions),
    ...(findings.warnings.length ? { warnings: findings.warnings } : {}),
    ...(findings.incomplete ? { incomplete: findings.incomplete } : {}),
    ...(findings.reloaded ? { reloaded: findings.reloaded } : {}),
  };
  return { answer, full: { name: `js-errors-${path.replace(/\W+/g, "-")}.json`, content: findings } };
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
    answer: (z) => ({
      path: z.string(),
      status: z.number().int().nullable(),
      summary: z.string().describe('"clean", or what broke the page'),
      errors: z.array(finding(z)).describe("uncaught errors and console errors, with their source file:line where known"),
      failedRequests: z.array(finding(z)),
      islandFaults: z.array(finding(z)),
      mermaid: z.array(z.looseObject({ diagram: z.number().optional(), message: z.string().optional() })),
      sourceUnknown: z.string(),
      notJudged: z.string(),
      warnings: lines(z),
      serverErrors: lines(z),
      incomplete: z.string(),
      reloaded: z.string().describe("why the page was checked a second time (the dev server's own work on its first load)"),
    }),
    // A broken page in 1 KB (DESIGN.md), every fault named as far as it goes.
    budget: 1024,
    lists: {
      errors: 5,
      failedRequests: 5,
      islandFaults: 5,
      mermaid: 5,
      serverErrors: 3,
      "stepFailed.onThePage": 8,
      "islands.notChecked": 3,
      warnings: 5,
    },
    limits: { "mermaid.message": 200, sourceUnknown: 100, "islands.notChecked": 160, warnings: 150 },
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
      const output = findingsOutput(findings, path);
      if (serverErrors.length) output.answer.serverErrors = serverErrors;
      return output;
    },
  }),
  defineTool({
    exportName: "perf",
    group: "browser",
    title: "Page performance",
    readOnly: true,
    idempotent: true,
    description:
      "Measure a page over N cold loads: medians vs budget, or vs a baseline, and why (LCP, shifts, slow interaction): causes with element, source line, fix. Judge a build.",
    args: (z) => ({
      ...target(z),
      runs: z.number().int().min(1).max(20).describe("loads, default 3").optional(),
      actions: actions(z, "as js_errors'; for INP"),
      baseline: z.string().min(1).optional(),
    }),
    answer: (z) => ({
      path: z.string(),
      runs: z.number().int(),
      server: z.enum(["dev", "production"]),
      medians: z.record(z.string(), z.number()),
      budget: z.record(
        z.string(),
        z.looseObject({ value: z.number().optional(), max: z.number().optional(), pass: z.boolean().optional() }),
      ),
      verdict: z.enum(["pass", "over_budget"]),
    }),
    lists: { causes: 4 },
    limits: { "causes.element": 100, "causes.sourceUnknown": 120, "causes.message": 200, "causes.fix": 120 },
    run: async (args, { project }) => {
      // The perf check validate runs: a production page over budget is measured again.
      const actions = args.actions?.length ? parseActions(args.actions) : undefined;
      const result = await checkPagePerf(readSite(project), {
        session: sharedSession(),
        url: resolvePageUrl(project, args),
        config: loadConfig(project),
        ...(args.runs ? { runs: args.runs } : {}),
        ...(actions ? { actions } : {}),
      });
      if (result instanceof Error) throw result;
      const path = args.path ?? "/";
      const against = args.baseline
        ? await againstBaselineFile(
            readSite(project),
            { session: sharedSession(), url: resolvePageUrl(project, args), config: loadConfig(project) },
            resolve(project.root, args.baseline),
            path,
            result,
          )
        : undefined;
      const report = writeReport(project, `perf-${path.replace(/\W+/g, "-").replace(/^-|-$/g, "") || "index"}.json`, result);
      const answer = { ...perfAnswer(path, result, report), ...actionsLine(result.actions) };
      return { answer: against ? { ...answer, baseline: baselineAnswer(against) } : answer };
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
    answer: (z) => ({
      width: z.number().int(),
      height: z.number().int(),
      bytes: z.number().int(),
      pageFaults: z.string(),
    }),
    run: async (args, { project }) => {
      // The screenshot check validate's pictures of failing pages take.
      const shot = await saveScreenshot(project, sharedSession(), resolvePageUrl(project, args), args.path ?? "/", {
        ...args,
        ...pageCheckOptions(project, args.actions),
      });
      if (shot instanceof Error) throw shot;
      const faults = pageFaults(shot.findings);
      const answer: Answer = {
        width: shot.width,
        height: shot.height,
        bytes: shot.bytes,
        ...(faults.length || shot.findings.incomplete ? { pageFaults: faultSummary(faults, shot.findings.incomplete) } : {}),
        ...actionsLine(shot.findings.actions),
      };
      return { answer, files: { screenshot: shot.file } };
    },
  }),
  defineTool({
    exportName: "a11y",
    group: "browser",
    title: "Accessibility audit",
    readOnly: true,
    idempotent: true,
    description:
      "Audit a page with axe-core as validate does; answers the violations it reports (moderate and up) by rule: severity, impact, node count, one target, source; counts of every impact.",
    args: (z) => ({
      ...target(z),
      tags: z
        .array(z.string().regex(/^[a-z0-9.-]+$/))
        .describe('only these axe tags, e.g. ["wcag2aa"]')
        .optional(),
      actions: actions(z, "as js_errors' actions"),
    }),
    answer: (z) => ({
      path: z.string(),
      violations: z.array(
        z.looseObject({
          id: z.string().optional(),
          impact: z.string().optional(),
          count: z.number().int().optional(),
          target: z.string().optional(),
        }),
      ),
      counts: z.record(z.string(), z.number().int()),
      passes: z.number().int(),
      sourceUnknown: z.string(),
    }),
    lists: { violations: 8 },
    limits: { "violations.help": 100, "violations.target": 120 },
    run: async (args, { project }) => {
      // The a11y check validate runs: the same rules, impacts reported and sources.
      const actions = args.actions?.length ? parseActions(args.actions) : undefined;
      const checked = await checkPageA11y(readSite(project), {
        session: sharedSession(),
        url: resolvePageUrl(project, args),
        config: loadConfig(project),
        ...(args.tags?.length ? { tags: args.tags } : {}),
        ...(actions ? { actions } : {}),
      });
      if (checked instanceof Error) throw checked;
      const { result, judged } = checked;
      const counts: Record<string, number> = {};
      for (const v of result.violations) counts[v.impact] = (counts[v.impact] ?? 0) + 1;
      const report = result.violations.length
        ? writeReport(project, `a11y-${(args.path ?? "/").replace(/\W+/g, "-")}.json`, result)
        : undefined;
      const answer: Answer = {
        path: args.path ?? "/",
        violations: judged.map(({ violation: { id, impact, help, count, target: selector }, severity, source }) => ({
          id,
          impact,
          severity,
          help,
          count,
          target: selector,
          ...(source ? { source } : {}),
        })),
        counts,
        passes: result.passes,
        ...(judged.some((violation) => !violation.source) && !result.annotated ? { sourceUnknown: A11Y_SOURCE_UNKNOWN } : {}),
        ...actionsLine(result.actions),
      };
      return { answer, files: { report } };
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
    answer: (z) => ({
      pages: z.number().int(),
      ok: z.number().int(),
      failing: z.array(
        z.looseObject({
          path: z.string().optional(),
          status: z.number().int().nullable().optional(),
          summary: z.string().optional(),
          first: z.string().optional(),
        }),
      ),
      changed: z.looseObject({ chosen: z.number().int().optional(), of: z.number().int().optional(), why: z.string().optional() }),
      source: z.string(),
      notJudged: z.string(),
      reloaded: z.string().describe("pages checked a second time, and why"),
      ms: z.number(),
    }),
    lists: { failing: 8 },
    // The build's first error, when a build for `changed` fails, is the end of the error.
    limits: { "changed.why": 300, error: 400 },
    run: async (args, { project, progress, signal }) => {
      const baseUrl = resolveBaseUrl(project, args);
      const config = loadConfig(project);
      const selection = args.changed ? await changedChoice(project, args.port, signal) : undefined;
      const site = selection?.site ?? readSite(project);
      const changedLine = selection && { changed: { chosen: selection.paths.length, of: selection.of, why: selection.why } };
      if (selection?.paths.length === 0) return { answer: { pages: 0, ok: 0, failing: [], ...changedLine } };
      const started = Date.now();
      const crawl = await crawlSitePages(site, {
        session: sharedSession(),
        pagesUrl: selection?.origin ?? baseUrl,
        config,
        ...(selection ? { paths: selection.paths } : {}),
        // What a later stylesheet change can reach, for the record of a crawl of the changed built pages.
        tokens: Boolean(selection?.fingerprints),
        ...(args.maxPages ? { maxPages: args.maxPages } : {}),
        ...(args.concurrency ? { concurrency: args.concurrency } : {}),
        signal,
        onProgress: (done, total, path, failing) =>
          progress?.(`${pagesLine("crawl", done, total, failing, secondsLeft(started, done, total))}: ${path}`, { done, total }),
      });
      const { result, causes } = crawl;
      const failing = crawl.pages.filter((page) => page.faults.length > 0);
      const fingerprints = selection?.fingerprints;
      if (fingerprints) recordCheckedPages(site, crawl.pages.map(checkedPage), { fingerprints, failOn: config.a11y?.failOn });
      for (const page of result.pages) delete page.tokens;
      const report = writeReport(project, "crawl.json", causes.size ? { ...result, serverErrors: Object.fromEntries(causes) } : result);
      const listedPages = failing.map(({ page, faults, linkedFrom }) => {
        // The first fault a reader meets, with where the sources write it (or why that is not known).
        const first: SiteFault | undefined = faults.find((fault) => fault.rule === "broken-link") ?? firstFault(faults);
        // A broken link found on an on-demand page is that page's fault, as validate names it.
        const path = first?.rule === "broken-link" && linkedFrom ? linkedFrom : page.path;
        return failingPageItem({ path, status: page.status, incomplete: page.incomplete }, faults, first);
      });
      const answer: Answer = {
        pages: result.pages.length,
        ok: result.pages.length - failing.length,
        failing: listedPages,
        ...(result.skipped ? { skipped: result.skipped } : {}),
        ...changedLine,
        source: result.source,
        ...(result.unreached ? { notJudged: unreachedNote(result.unreached, result.network) } : {}),
        ...reloadedLine(result.pages),
        ms: result.ms,
      };
      return { answer, files: { report } };
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
    answer: (z) => ({
      path: z.string(),
      status: z.enum(["match", "changed", "baseline_created", "baseline_updated"]),
      diffRatio: z.number(),
      diffPixels: z.number().int(),
    }),
    run: async (args, { project }) => {
      const { baseline, diffImage, ...result } = await visualDiff(
        project,
        sharedSession(),
        resolvePageUrl(project, args),
        args.path ?? "/",
        {
          ...args,
          storageState: storageStateOf(project, loadConfig(project)),
        },
      );
      return { answer: { path: args.path ?? "/", ...result }, files: { baseline, diffImage } };
    },
  }),
];
