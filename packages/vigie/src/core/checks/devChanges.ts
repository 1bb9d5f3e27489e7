// After an edit, on the running dev server: which files changed since the last look, the pages
// they reach (the dev server's module graph, through vigie's dev integration), whether the edit
// applied (HMR, full reload, or the server's compile error with file:line), and per page reached
// the faults new since the last look, resolved, and still there, as js_errors counts them.
// The last look is the dev part of the project's one baseline: the first call takes it by
// checking every page; each call then updates it for the pages it checked. The pages checked are
// chosen, and limited, as every "changed" chooses them (core/changes/changed.ts).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Site } from "../astro/site.ts";
import type { PageFault } from "../browser/page/faults.ts";
import { type FaultItem, faultItem, sourceOf } from "../browser/page/faultView.ts";
import type { BrowserSession } from "../browser/session/session.ts";
import { CHANGED_PAGE_LIMIT, chooseLoaded } from "../changes/changed.ts";
import { type ContentError, contentErrorsSince } from "../changes/contentErrors.ts";
import {
  type AppliedEvent,
  ask,
  configError,
  type DevAnswer,
  type DevBaseline,
  isConfigFile,
  type KeptFault,
  readDevBaseline,
  type TypeErrors,
  typeErrors,
  waitForServer,
  warmChecker,
  writeDevBaseline,
} from "../changes/dev.ts";
import { importersOf, missingModule } from "../changes/missingImport.ts";
import { pagesReached } from "../changes/reach.ts";
import { isGone, type MovedPages, movedPages } from "../changes/removedPages.ts";
import type { VigieConfig } from "../config.ts";
import type { RenderError } from "../devServer/devProtocol.ts";
import { readDevServerRecord } from "../devServer/index.ts";
import { firstErrorSince, logSize } from "../devServer/log.ts";
import { readDevPort } from "../devServer/status.ts";
import { StepError } from "../nextStep.ts";
import type { Project } from "../project.ts";
import { sleep } from "../wait.ts";
import { crawlSitePages } from "./pages.ts";

export interface PageDelta {
  path: string;
  new: FaultItem[];
  resolved: FaultItem[];
  still: number;
}

export interface RemovedPage {
  path: string;
  /** The file that made it, gone. */
  file: string;
  /** "file:line" of each link to it the sources still write. */
  links: string[];
}

export interface DevChangesOptions {
  session: BrowserSession;
  config: VigieConfig;
  /** Pages to check among those reached (and pending); default: `limit` of them, spread over their routes. */
  pages?: string[];
  limit?: number;
  /** Take a new baseline. */
  reset?: boolean;
  signal?: AbortSignal;
}

export interface DevChangesResult {
  /** Set when this call took the baseline: its page count and duration. */
  baseline?: { pages: number; ms: number; faults: number };
  changed: string[];
  applied?: AppliedEvent;
  /** Changed files that no page loaded so far uses (not in the module graph, not a content entry of a page). */
  unused: string[];
  /** Why pages the change does not reach were checked: the graph cannot vouch for a changed file. */
  instead?: string;
  reached: string[];
  checked: PageDelta[];
  /** Pages reached and not checked in this call (over the limit). */
  pending: string[];
  /** Pages the change removed (their file deleted or renamed), and the source lines that still link to them. */
  removed?: RemovedPage[];
  /** The type errors of the changed files (Astro's checker, warm in the dev server), or why there are none. */
  types?: TypeErrors;
  ms: number;
}

export async function devChanges(site: Site, options: DevChangesOptions): Promise<DevChangesResult> {
  const started = Date.now();
  const { project } = site;
  const port = readDevPort(project);
  const record = readDevServerRecord(project);
  if (port === undefined || !record) {
    throw new StepError("no dev server of vigie's is running", "changes-no-server", "Start the dev server, then look again after an edit.");
  }
  const origin = `http://127.0.0.1:${port}`;
  const server = { pid: record.pid, port, startedAt: record.startedAt };
  let baseline = options.reset ? undefined : readDevBaseline(project, server);
  if (!baseline) {
    const first = await ask(origin, 0, options.signal);
    const checker = warmChecker(origin);
    const taken = await takeBaseline(site, origin, options, first, server);
    writeDevBaseline(project, taken.baseline);
    await checker;
    return { baseline: taken.summary, changed: [], unused: [], reached: [], checked: [], pending: [], ms: Date.now() - started };
  }
  const answer = await waitForServer(project, origin, baseline, options.signal);
  const paths = Object.keys(baseline.pages);
  // A file deleted is a change (a page removed, an import gone), unless an editor's own temporary.
  const exists = (file: string) => existsSync(join(project.root, file));
  answer.changed = answer.changed.filter((file) => exists(file) || answer.reached[file]?.pages.length || !EDITOR_TEMP.test(file));
  const moved = await movedPages(project, origin, answer, paths, baseline.removed ?? [], options.signal);
  const { reached, unused, toCheck, wanted, instead } = choosePages(project, answer, baseline, paths, options, moved);
  // The type check runs in the server while the pages are checked.
  const types = typeErrors(origin, answer.changed.filter(exists), options.signal);
  const now = await checkPages(site, origin, toCheck, options);
  const config = answer.changed.find(isConfigFile);
  const again = config ? await checkAgainAfterRestart(site, origin, answer.seq, now, options) : undefined;
  const removed = await removedPages(origin, moved, now, options.signal);
  // An entry the content loaders refused keeps its old data on its pages: the error is the page's fault.
  const content = await contentErrorsSince(project, baseline.logAt ?? logSize(project), answer.changed, options.signal);
  for (const error of content.errors) {
    const pages = pagesReached(project, [error.file], answer.reached, answer.routes, paths).reached;
    for (const path of pages) now.get(path)?.push(contentFault(error));
  }
  // A compile error reaches the browsers when a page is rendered: asked again after the checks.
  const later = await ask(origin, answer.seq, options.signal);
  addRenderErrors(now, later.renderErrors ?? [], again);
  const missing = locateMissingImports(project, now);
  const { checked, compileError } = compare(baseline, toCheck, now, answer);
  const done = new Set(checked.map((page) => page.path));
  // An error the server told since is the edit's only while a page checked still fails on the server.
  const failing = [...now.values()].some((faults) => faults.some((fault) => fault.serverError));
  const applied = appliedOf({
    told: later.last?.kind === "error" && failing ? later.last : (compileError ?? contentEvent(answer, content.errors[0]) ?? answer.last),
    answer,
    ...(missing ? { missing } : {}),
    ...(config ? { restart: restartOf(project, answer, config, baseline.logAt) } : {}),
  });
  const seq = later.changed.length ? answer.seq : later.seq;
  const back = new Set(moved.pages.filter((page) => !page.deleted).map((page) => page.path));
  const stillRemoved = [...(baseline.removed ?? []).filter((path) => !back.has(path)), ...removed.map((page) => page.path)];
  baseline = {
    ...baseline,
    seq,
    lookedAt: started,
    logAt: content.end,
    pending: wanted.filter((path) => !done.has(path)),
    removed: [...new Set(stillRemoved)],
  };
  writeDevBaseline(project, baseline);
  return {
    changed: answer.changed,
    ...(applied ? { applied } : {}),
    unused,
    ...(instead ? { instead } : {}),
    reached,
    checked,
    pending: baseline.pending,
    ...(removed.length ? { removed } : {}),
    ...((await types) ?? {}),
    ms: Date.now() - started,
  };
}

/**
 * The pages a look checks: those the change reaches first, chosen as every "changed" chooses them
 * (the config reaches every page: the server restarted with it), then an earlier look's pending ones.
 */
function choosePages(
  project: Project,
  answer: DevAnswer,
  baseline: DevBaseline,
  paths: string[],
  options: DevChangesOptions,
  moved: MovedPages,
) {
  const graph = pagesReached(project, answer.changed, answer.reached, answer.routes, paths);
  const added = addedPages(answer, paths);
  paths.push(...added.map((page) => page.path));
  // A page whose file is gone is not loaded: the pages that link to it are.
  const gone = new Set(moved.pages.filter((page) => page.deleted).map((page) => page.path));
  const reached = answer.changed.some(isConfigFile)
    ? paths
    : [...new Set([...graph.reached, ...added.map((page) => page.path), ...moved.linking.keys()])].filter((path) => !gone.has(path));
  const unused = graph.unused.filter(
    (file) => !isConfigFile(file) && !added.some((page) => page.file === file) && !moved.pages.some((page) => page.file === file),
  );
  const wanted = [...new Set([...reached, ...baseline.pending])];
  const limit = options.limit ?? CHANGED_PAGE_LIMIT;
  // A file no page imports may still be read by pages (with fs, a glob, at build time), which the
  // graph cannot see: pages of every template are checked instead, and the answer says so.
  const instead = !options.pages?.length && !reached.length && unused.some(mayBeRead);
  const toCheck = options.pages?.length
    ? wanted.filter((path) => options.pages?.includes(path)).slice(0, limit)
    : reached.length
      ? chooseLoaded(
          reached,
          graph.byEntry.filter((path) => !gone.has(path)),
          answer.routes,
          limit,
        )
      : instead
        ? chooseLoaded(paths, [], answer.routes, limit)
        : wanted.slice(0, limit);
  return { reached, unused, toCheck, wanted, ...(instead ? { instead: INSTEAD } : {}) };
}

const INSTEAD =
  "no page imports the changed files (the module graph cannot see a file read with fs, a glob or at build time): pages of every template were checked instead";

/** A file an editor writes and removes as it saves: a swap file, a backup, an atomic save's temporary. */
const EDITOR_TEMP = /(~|\.swp|\.swx|\.tmp|\.bak|\.orig|___jb_\w+___)$|(^|\/)\.?#[^/]*$|(^|\/)4913$|(^|\/)[^/.]+$/i;

/**
 * The pages whose file was deleted and that the dev server no longer has: each link the sources
 * still write to one is a fault of the checked pages it is on, at its line (the fix goes there,
 * or the page comes back).
 */
async function removedPages(
  origin: string,
  moved: MovedPages,
  now: Map<string, KeptFault[]>,
  signal?: AbortSignal,
): Promise<RemovedPage[]> {
  const removed: RemovedPage[] = [];
  for (const page of moved.pages) {
    if (!page.deleted || removed.some((each) => each.path === page.path) || !(await isGone(origin, page.path, signal))) continue;
    removed.push({
      path: page.path,
      file: page.file,
      links: moved.links.filter((link) => link.target === page.path).map((link) => link.at),
    });
    for (const [path, links] of moved.linking) {
      for (const link of links.filter((each) => each.target === page.path)) {
        const message = `broken link to ${page.path}: the page is gone (its file was deleted or renamed)`;
        now.get(path)?.push({ key: `link|||${page.path}|${link.at}`, item: { message: message.slice(0, 300), source: link.at } });
      }
    }
  }
  return removed;
}

/** A file pages may read without importing it: under src/ or public/, not a test or a note. */
const mayBeRead = (file: string) => /^(src|public)\//.test(file) && !/\.(test|spec)\.[cm]?[jt]sx?$|\.md$/i.test(file);

/**
 * Pages added since the last look: a changed page component whose route has no parameter and is
 * not among the pages known, at its URL path (written with a trailing slash as the known ones are).
 */
function addedPages(answer: DevAnswer, paths: string[]): { file: string; path: string }[] {
  const slash = paths.filter((path) => path !== "/").every((path) => path.endsWith("/"));
  const found: { file: string; path: string }[] = [];
  for (const file of answer.changed) {
    for (const route of answer.routes) {
      if (route.entrypoint !== file || route.type !== "page" || route.params.length) continue;
      const path = route.pattern === "/" || !slash ? route.pattern : `${route.pattern}/`;
      if (!paths.includes(path)) found.push({ file, path });
    }
  }
  return found;
}

/** Each page checked against its last look (the baseline updated with it), and the compile error a changed file caused. */
function compare(baseline: DevBaseline, toCheck: string[], now: Map<string, KeptFault[]>, answer: DevAnswer) {
  const checked: PageDelta[] = [];
  let compileError: AppliedEvent | undefined;
  for (const path of toCheck) {
    const faults = now.get(path);
    if (!faults) continue;
    const had = new Set((baseline.pages[path] ?? []).map((fault) => fault.key));
    // A new server error whose source is a changed file: the edit did not compile (or throws as it renders).
    const error = faults.find((fault) => fault.serverError && !had.has(fault.key) && fromChanged(fault.serverError.file, answer.changed));
    if (!compileError && error?.serverError) compileError = { seq: answer.seq, kind: "error", ...error.serverError };
    checked.push(delta(path, baseline.pages[path] ?? [], faults));
    baseline.pages[path] = faults;
  }
  return { checked, compileError };
}

/** An error the server logged as it rendered the page, after its 200 went out: the page is cut short. */
function renderFault(error: RenderError): KeptFault {
  const message = `the server's render failed after it answered 200 (the page is cut short): ${error.message}`;
  return {
    key: `render|||${error.message}`,
    item: error.file ? { message: message.slice(0, 300), source: error.file } : message.slice(0, 300),
    serverError: { message: error.message, ...(error.file ? { file: error.file } : {}) },
  };
}

const contentEvent = (answer: DevAnswer, refused: ContentError | undefined): AppliedEvent | undefined =>
  refused && { seq: answer.seq, kind: "error", message: refused.message, file: refused.source };

/**
 * What the edit did, said once: a file imported but gone (the server told its browsers no error),
 * a config the server could not restart with, the error it told, else the restart or its last word.
 */
function appliedOf(said: {
  told: AppliedEvent | undefined;
  answer: DevAnswer;
  missing?: Pick<AppliedEvent, "message" | "file">;
  restart?: AppliedEvent;
}): AppliedEvent | undefined {
  const { told, answer, missing, restart } = said;
  if (missing) return { seq: told?.seq ?? answer.seq, kind: "error", ...missing };
  if (restart?.kind === "error") return restart;
  if (told?.kind === "error") return told;
  return restart ?? told;
}

/** Every page of the site, checked as the crawl checks it: the faults each has now. */
async function takeBaseline(site: Site, origin: string, options: DevChangesOptions, answer: DevAnswer, server: DevBaseline["server"]) {
  const started = Date.now();
  const crawl = await crawlSitePages(site, {
    session: options.session,
    pagesUrl: origin,
    config: options.config,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const pages: Record<string, KeptFault[]> = {};
  for (const { page, faults } of crawl.pages) pages[page.path] = faults.map(kept);
  const faults = Object.values(pages).reduce((sum, list) => sum + list.length, 0);
  const baseline: DevBaseline = { server, seq: answer.seq, lookedAt: started, pages, pending: [], logAt: logSize(site.project) };
  return { baseline, summary: { pages: crawl.pages.length, ms: Date.now() - started, faults } };
}

/** The pages checked as the baseline checked them (the crawl's page check, several at a time): their faults by path. */
async function checkPages(site: Site, origin: string, paths: string[], options: DevChangesOptions): Promise<Map<string, KeptFault[]>> {
  const found = new Map<string, KeptFault[]>();
  if (!paths.length) return found;
  const crawl = await crawlSitePages(site, {
    session: options.session,
    pagesUrl: origin,
    config: options.config,
    paths,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  for (const { page, faults } of crawl.pages) found.set(page.path, faults.map(kept));
  return found;
}

/** The render errors the server logged to the pages checked (those loaded again: from their second load on). */
function addRenderErrors(now: Map<string, KeptFault[]>, errors: RenderError[], again: Map<string, number> | undefined): void {
  for (const error of errors) {
    const other = error.path.endsWith("/") ? error.path.slice(0, -1) : `${error.path}/`;
    if (again && error.seq <= (again.get(error.path) ?? again.get(other) ?? 0)) continue;
    const faults = now.get(error.path) ?? now.get(other);
    const fault = renderFault(error);
    if (faults && !faults.some((each) => each.key === fault.key)) faults.push(fault);
  }
}

/** How long a page that failed on a server just restarted is left before it is loaded again. */
const RESTART_SETTLE_MS = 1000;

/**
 * The pages that failed on the server just after it restarted with a changed config, loaded once
 * more: what fails again stands. A guard: the restart is told once the new server serves (the
 * dev integration), and a first render that fails then is not expected to pass the next time.
 */
async function checkAgainAfterRestart(
  site: Site,
  origin: string,
  since: number,
  now: Map<string, KeptFault[]>,
  options: DevChangesOptions,
): Promise<Map<string, number>> {
  const failed = [...now].filter(([, faults]) => faults.some((fault) => fault.serverError)).map(([path]) => path);
  const from = new Map<string, number>();
  if (!failed.length) return from;
  await sleep(RESTART_SETTLE_MS, options.signal ? { signal: options.signal } : {});
  // The server's render errors before this second load are the first load's: left out of these pages'.
  const { seq } = await ask(origin, since, options.signal);
  for (const [path, faults] of await checkPages(site, origin, failed, options)) {
    now.set(path, faults);
    from.set(path, seq);
  }
  return from;
}

const fromChanged = (file: string | undefined, changed: string[]) => file !== undefined && changed.some((path) => file.startsWith(path));

/** Vite's notice in a server error's message, which says nothing of the fault. */
const STACK_NOTICE = / ?\(The stacktrace appears to be already rewritten[^)]*\)/;

/** What identifies a fault from one look to the next: its kind, viewport, island and message, cache-busting queries left out. */
function kept(fault: PageFault): KeptFault {
  const said = { ...fault, message: fault.message.replace(STACK_NOTICE, "") };
  const message = said.message.replace(/([?&])(t|v|import)=[\w.-]+/g, "$1");
  const server = fault.kind === "dev-error" || (fault.kind === "status" && (fault.status ?? 0) >= 500);
  const file = sourceOf(fault) ?? fault.at;
  return {
    key: [fault.kind, fault.viewport ?? "", fault.island ?? "", message].join("|"),
    item: faultItem(said),
    ...(server ? { serverError: { message: said.message, ...(file ? { file } : {}) } } : {}),
  };
}

/**
 * What a change of the config did: the server restarted with it, or it did not come back (the
 * first error it logged since the last look, at the config).
 */
function restartOf(project: Project, answer: DevAnswer, config: string, logAt: number | undefined): AppliedEvent {
  if (answer.last?.kind === "restarted" && answer.last.seq > answer.lastChangeSeq) return answer.last;
  const error = configError(project, logAt ?? logSize(project)) ?? firstErrorSince(project, logAt ?? logSize(project));
  const message = `the dev server did not restart with the changed config (it runs with the previous one)${error ? `: ${error}` : ""}`;
  return { seq: answer.seq, kind: "error", message: message.slice(0, 300), file: config };
}

/**
 * A module the pages import that is gone (a file deleted or renamed): each such server error is
 * located at the line that imports it, and said once for the edit.
 */
function locateMissingImports(project: Project, pages: Map<string, KeptFault[]>): Pick<AppliedEvent, "message" | "file"> | undefined {
  const importers = new Map<string, string[]>();
  let said: Pick<AppliedEvent, "message" | "file"> | undefined;
  for (const faults of pages.values()) {
    for (const [index, fault] of faults.entries()) {
      const gone = fault.serverError && missingModule(fault.serverError.message);
      if (!gone || existsSync(join(project.root, gone.path))) continue;
      if (!importers.has(gone.path)) importers.set(gone.path, importersOf(project, gone.path));
      const at = importers.get(gone.path) ?? [];
      if (!at[0]) continue;
      const also = at.length > 1 ? `; also imported at ${at.slice(1).join(", ")}` : "";
      const message = `${gone.path} is imported but does not exist (deleted or renamed)${also}`;
      faults[index] = { ...fault, item: { message: message.slice(0, 300), source: at[0] } };
      said ??= { message, file: at[0] };
    }
  }
  return said;
}

/** A content entry the loaders refused, as a fault of the pages it reaches: they still show its last valid data. */
function contentFault(error: ContentError): KeptFault {
  const message = `content entry not loaded (the page shows its last valid data): ${error.message}`;
  return { key: `content|||${error.file}|${error.message}`, item: { message: message.slice(0, 300), source: error.source } };
}

function delta(path: string, before: KeptFault[], now: KeptFault[]): PageDelta {
  const had = new Set(before.map((fault) => fault.key));
  const has = new Set(now.map((fault) => fault.key));
  return {
    path,
    new: once(now.filter((fault) => !had.has(fault.key)).map((fault) => fault.item)),
    resolved: once(before.filter((fault) => !has.has(fault.key)).map((fault) => fault.item)),
    still: now.filter((fault) => had.has(fault.key)).length,
  };
}

/** Items said once: two faults of one page that read the same (the document's 500 and its error page, located alike) are one. */
function once(items: FaultItem[]): FaultItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
