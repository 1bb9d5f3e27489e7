// After an edit, on the running dev server: which files changed since the last look, the pages
// they reach (the dev server's module graph, through vigie's dev integration), whether the edit
// applied (HMR, full reload, or the server's compile error with file:line), and per page reached
// the faults new since the last look, resolved, and still there, as js_errors counts them.
// The last look is a baseline kept per dev server under .opencode/changes/: the first call takes
// it by checking every page; each call then updates it for the pages it checked.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { PageFault } from "../browser/faults.ts";
import { type FaultItem, faultItem, sourceOf } from "../browser/faultView.ts";
import type { BrowserSession } from "../browser/session.ts";
import { crawlSitePages } from "../checks/pages.ts";
import type { VigieConfig } from "../config.ts";
import { DEV_CHANGES_ROUTE, DEV_CONFIG } from "../devServer/devConfig.ts";
import type { DevChangesAnswer as DevAnswer, DevEvent, DevTypesAnswer } from "../devServer/devProtocol.ts";
import { readDevServerRecord } from "../devServer/index.ts";
import { inspect } from "../devServer/state.ts";
import { readDevPort } from "../devServer/status.ts";
import { StepError } from "../nextStep.ts";
import { type Project, statePath } from "../project.ts";
import type { Site } from "../site.ts";
import { pagesReached } from "./reach.ts";

export const DEFAULT_PAGE_LIMIT = 5;
/** How long a call waits for the server's watcher to see a file saved before it. */
const WATCH_WAIT_MS = 2000;
/** How long it waits, after the last change, for the server to tell its browsers (HMR, reload, error). */
const APPLY_WAIT_MS = 1500;
const POLL_MS = 50;

/** The last thing the server told its browsers (the dev endpoint's event), or the compile error a check found. */
export type AppliedEvent = Omit<DevEvent, "at">;

/** A fault as the baseline keeps it: what identifies it, and how an answer shows it. */
interface KeptFault {
  key: string;
  item: FaultItem;
  /** For the server's own error (a 500, its error page): its message and source, which say whether an edit compiled. */
  serverError?: { message: string; file?: string };
}

interface Baseline {
  /** The dev server it was taken on. */
  server: { pid: number; port: number; startedAt?: number };
  seq: number;
  lookedAt: number;
  pages: Record<string, KeptFault[]>;
  /** Pages reached by an earlier call and not checked yet (over its limit). */
  pending: string[];
}

export interface PageDelta {
  path: string;
  new: FaultItem[];
  resolved: FaultItem[];
  still: number;
}

export interface DevChangesOptions {
  session: BrowserSession;
  config: VigieConfig;
  /** Pages to check among those reached (and pending); default: the first `limit`. */
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
  reached: string[];
  checked: PageDelta[];
  /** Pages reached and not checked in this call (over the limit). */
  pending: string[];
  /** The type errors of the changed files (Astro's checker, warm in the dev server), or why there are none. */
  types?: { errors: { source: string; message: string }[] } | { unavailable: string };
  ms: number;
}

const baselineFile = (project: Project) => statePath(project, "changes", "dev.json");

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
  let baseline = options.reset ? undefined : readBaseline(project, server);
  if (!baseline) {
    const first = await ask(origin, 0, options.signal);
    const taken = await takeBaseline(site, origin, options, first, server);
    writeBaseline(project, taken.baseline);
    warmChecker(origin);
    return { baseline: taken.summary, changed: [], unused: [], reached: [], checked: [], pending: [], ms: Date.now() - started };
  }
  const answer = await waitForServer(project, origin, baseline, options.signal);
  const paths = Object.keys(baseline.pages);
  answer.changed = answer.changed.filter((file) => existsSync(join(project.root, file)) || answer.reached[file]?.pages.length);
  const { reached, unused } = pagesReached(project, answer.changed, answer.reached, answer.routes, paths);
  const wanted = [...new Set([...reached, ...baseline.pending])];
  // The pages a new edit reaches come first: an earlier edit's pending pages are checked when a call reaches nothing new, or named.
  const asked = options.pages?.length ? wanted.filter((path) => options.pages?.includes(path)) : reached.length ? reached : wanted;
  const limit = options.limit ?? DEFAULT_PAGE_LIMIT;
  const toCheck = asked.slice(0, limit);
  // The type check runs in the server while the pages are checked.
  const types = typeErrors(origin, answer.changed, options.signal);
  const checked: PageDelta[] = [];
  let compileError: AppliedEvent | undefined;
  const now = await checkPages(site, origin, toCheck, options);
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
  const done = new Set(checked.map((page) => page.path));
  // A compile error reaches the browsers when a page is rendered: asked again after the checks.
  const later = await ask(origin, answer.seq, options.signal);
  const applied = later.last?.kind === "error" ? later.last : (compileError ?? answer.last);
  const seq = later.changed.length ? answer.seq : later.seq;
  baseline = { ...baseline, seq, lookedAt: started, pending: wanted.filter((path) => !done.has(path)) };
  writeBaseline(project, baseline);
  return {
    changed: answer.changed,
    ...(applied ? { applied } : {}),
    unused,
    reached,
    checked,
    pending: baseline.pending,
    ...((await types) ?? {}),
    ms: Date.now() - started,
  };
}

/** Every page of the site, checked as the crawl checks it: the faults each has now. */
async function takeBaseline(site: Site, origin: string, options: DevChangesOptions, answer: DevAnswer, server: Baseline["server"]) {
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
  const baseline: Baseline = { server, seq: answer.seq, lookedAt: started, pages, pending: [] };
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

function delta(path: string, before: KeptFault[], now: KeptFault[]): PageDelta {
  const had = new Set(before.map((fault) => fault.key));
  const has = new Set(now.map((fault) => fault.key));
  return {
    path,
    new: now.filter((fault) => !had.has(fault.key)).map((fault) => fault.item),
    resolved: before.filter((fault) => !has.has(fault.key)).map((fault) => fault.item),
    still: now.filter((fault) => had.has(fault.key)).length,
  };
}

const TYPED = /\.(astro|ts|tsx|mts|cts|js|jsx|mjs|vue|svelte)$/i;
const TYPES_TIMEOUT_MS = 30_000;

/** Type errors of the changed files that have types, from the dev server's warm checker. */
async function typeErrors(origin: string, changed: string[], signal?: AbortSignal): Promise<Pick<DevChangesResult, "types"> | undefined> {
  const files = changed.filter((file) => TYPED.test(file));
  if (!files.length) return undefined;
  const timeout = AbortSignal.timeout(TYPES_TIMEOUT_MS);
  try {
    const response = await fetch(`${origin}${DEV_CHANGES_ROUTE}/types?files=${encodeURIComponent(files.join(","))}`, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    const body = (await response.json()) as DevTypesAnswer;
    if ("errors" in body) return { types: { errors: body.errors } };
    return { types: { unavailable: body.unavailable || "the checker gave no answer" } };
  } catch (error) {
    const why = timeout.aborted ? `the checker took more than ${TYPES_TIMEOUT_MS / 1000} s` : (error as Error).message;
    return { types: { unavailable: why } };
  }
}

/**
 * Whether vigie's dev server runs with its dev config (so its warm checker can be asked), from its
 * record alone: no request.
 */
export function hasWarmChecker(project: Project): boolean {
  const state = inspect(project);
  return state.kind === "running" && state.record.mode === "dev" && state.record.command.includes(DEV_CONFIG);
}

/** The type errors of `files` (relative to the root) from the running dev server's warm checker, or why it could not say. */
export async function warmTypeErrors(
  project: Project,
  files: string[],
  signal?: AbortSignal,
): Promise<{ errors: { file: string; line: number; message: string }[] } | { unavailable: string }> {
  const port = readDevPort(project);
  if (port === undefined) return { unavailable: "no dev server" };
  const answer = await typeErrors(`http://127.0.0.1:${port}`, files, signal);
  const types = answer?.types ?? { errors: [] };
  if ("unavailable" in types) return types;
  return {
    errors: types.errors.map((error) => {
      const [, file = error.source, line = "1"] = /^(.*):(\d+)$/.exec(error.source) ?? [];
      return { file, line: Number(line), message: error.message };
    }),
  };
}

/** Starts the checker in the dev server after the baseline, so the first edit finds it warm; not waited for. */
function warmChecker(origin: string): void {
  fetch(`${origin}${DEV_CHANGES_ROUTE}/types?files=src/pages/index.astro`, { signal: AbortSignal.timeout(500) }).catch(() => undefined);
}

async function ask(origin: string, since: number, signal?: AbortSignal): Promise<DevAnswer> {
  let response: Response;
  try {
    response = await fetch(`${origin}${DEV_CHANGES_ROUTE}?since=${since}`, {
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(10_000)]) : AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new StepError(
      `the dev server did not answer: ${(error as Error).message}`,
      "dev-no-answer",
      "Check the dev server's status; start it again if it is down.",
    );
  }
  const type = response.headers.get("content-type") ?? "";
  if (!response.ok || !type.includes("json")) {
    throw new StepError(
      "this dev server cannot say what a change reaches: it was not started by vigie with its dev config (the default `astro dev` script)",
      "dev-not-vigie",
      "Stop it and start it again with vigie.",
    );
  }
  return (await response.json()) as DevAnswer;
}

/**
 * The server's answer once its watcher has seen every file saved since the last look (at most
 * 2 s), and once it has told its browsers what the last change did (at most 1.5 s more).
 */
function waitForServer(project: Project, origin: string, baseline: Baseline, signal?: AbortSignal): Promise<DevAnswer> {
  return waitForSaved(origin, savedSince(project, baseline.lookedAt), baseline.seq, signal);
}

/** The server's answer after `since` once its watcher has seen each of `saved` and the last change applied (bounded waits). */
async function waitForSaved(origin: string, saved: string[], since: number, signal?: AbortSignal): Promise<DevAnswer> {
  const watchBy = Date.now() + WATCH_WAIT_MS;
  let answer = await ask(origin, since, signal);
  while (saved.some((file) => !answer.changed.includes(file)) && Date.now() < watchBy) {
    await sleep(POLL_MS);
    answer = await ask(origin, since, signal);
  }
  const applyBy = Date.now() + APPLY_WAIT_MS;
  while (answer.changed.length && (answer.last?.seq ?? 0) < answer.lastChangeSeq && Date.now() < applyBy) {
    await sleep(POLL_MS);
    answer = await ask(origin, since, signal);
  }
  return answer;
}

/**
 * Before pages are checked on the running dev server (validate --changed): the files of `files`
 * saved since it started have been seen by its watcher and applied, as a look after an edit waits.
 */
export async function untilServerSaw(project: Project, files: string[], signal?: AbortSignal): Promise<void> {
  const port = readDevPort(project);
  const record = readDevServerRecord(project);
  if (port === undefined || !record?.startedAt) return;
  const since = record.startedAt;
  const saved = files.filter((file) => (statSync(join(project.root, file), { throwIfNoEntry: false })?.mtimeMs ?? 0) > since);
  if (saved.length) await waitForSaved(`http://127.0.0.1:${port}`, saved, 0, signal);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SKIPPED = new Set(["node_modules", ".git", ".astro", ".opencode", "dist", ".vercel", ".netlify"]);

/** Files under src/ (and public/) saved after `since`, relative to the root. */
function savedSince(project: Project, since: number): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) > since) {
        found.push(relative(project.root, path).split(sep).join("/"));
      }
    }
  };
  walk(join(project.root, "src"));
  return found.slice(0, 50);
}

/**
 * The pages the baseline of the running dev server holds, when one was taken on it: it loaded
 * every page, so the server's module graph knows every module a page uses.
 */
export function baselinePages(project: Project): string[] | undefined {
  const port = readDevPort(project);
  const record = readDevServerRecord(project);
  if (port === undefined || !record) return undefined;
  const baseline = readBaseline(project, { pid: record.pid, port, startedAt: record.startedAt });
  return baseline ? Object.keys(baseline.pages) : undefined;
}

function readBaseline(project: Project, server: Baseline["server"]): Baseline | undefined {
  try {
    const baseline = JSON.parse(readFileSync(baselineFile(project), "utf8")) as Baseline;
    const same = baseline.server.pid === server.pid && baseline.server.port === server.port;
    return same ? baseline : undefined;
  } catch {
    return undefined;
  }
}

function writeBaseline(project: Project, baseline: Baseline): void {
  mkdirSync(statePath(project, "changes"), { recursive: true });
  writeFileSync(baselineFile(project), JSON.stringify(baseline));
}
