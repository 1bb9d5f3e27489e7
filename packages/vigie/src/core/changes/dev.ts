// The running dev server, as "changed" asks it (through vigie's dev integration): which files
// changed since the last look, the pages they reach (its module graph), whether the edit applied
// (HMR, full reload, or the server's compile error with file:line), the type errors of changed
// files from its warm checker. The last look is the dev part of the project's one baseline
// (baseline.ts): the faults each page had on this dev server, and the pages still to check.
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { FaultItem } from "../browser/page/faultView.ts";
import { DEV_CHANGES_ROUTE, DEV_CONFIG } from "../devServer/devConfig.ts";
import type { DevChangesAnswer as DevAnswer, DevEvent, DevTypesAnswer } from "../devServer/devProtocol.ts";
import { readDevServerRecord } from "../devServer/index.ts";
import { linesSince, logSize } from "../devServer/log.ts";
import { inspect } from "../devServer/state.ts";
import { readDevPort } from "../devServer/status.ts";
import { StepError } from "../nextStep.ts";
import type { Project } from "../project.ts";
import { readBaseline, writeBaseline } from "./baseline.ts";

/** How long a call waits for the server's watcher to see a file saved before it. */
const WATCH_WAIT_MS = 2000;
/** How long it waits, after the last change, for the server to tell its browsers (HMR, reload, error). */
const APPLY_WAIT_MS = 1500;
/** How long it waits for the server to come back after a change of its config. */
const RESTART_WAIT_MS = 20_000;
const POLL_MS = 50;

export type { DevAnswer, DevEvent };

/** The last thing the server told its browsers (the dev endpoint's event), or the compile error a check found. */
export type AppliedEvent = Omit<DevEvent, "at">;

/** A fault as the baseline keeps it: what identifies it, and how an answer shows it. */
export interface KeptFault {
  key: string;
  item: FaultItem;
  /** For the server's own error (a 500, its error page): its message and source, which say whether an edit compiled. */
  serverError?: { message: string; file?: string };
}

/** The dev part of the project's baseline: the last look at the pages of one dev server. */
export interface DevBaseline {
  /** The dev server it was taken on. */
  server: { pid: number; port: number; startedAt?: number };
  seq: number;
  lookedAt: number;
  pages: Record<string, KeptFault[]>;
  /** Pages reached by an earlier call and not checked yet (over its limit). */
  pending: string[];
  /** Where the dev server's log ended at the last look: what it logged since is read for content errors. */
  logAt?: number;
  /** Pages an earlier look found removed (their file deleted): when their file is back, the pages that link to them are checked again. */
  removed?: string[];
}

const TYPED = /\.(astro|ts|tsx|mts|cts|js|jsx|mjs|vue|svelte)$/i;
const TYPES_TIMEOUT_MS = 30_000;

/** The type errors of changed files, or why the checker could not say. */
export type TypeErrors = { errors: { source: string; message: string }[] } | { unavailable: string };

/** Type errors of the changed files that have types, from the dev server's warm checker. */
export async function typeErrors(origin: string, changed: string[], signal?: AbortSignal): Promise<{ types: TypeErrors } | undefined> {
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

/** How long the baseline waits, after its crawl, for the checker it started to be warm. */
const WARM_WAIT_MS = 60_000;

/**
 * Starts the dev server's checker (its first answer builds TypeScript's program: seconds of CPU)
 * as the baseline starts, so that it is built beside the baseline's crawl and not on the first
 * edit; the promise ends when it answered (or could not), never rejects.
 */
export function warmChecker(origin: string): Promise<void> {
  return fetch(`${origin}${DEV_CHANGES_ROUTE}/types?files=src/pages/index.astro`, { signal: AbortSignal.timeout(WARM_WAIT_MS) })
    .then((response) => response.arrayBuffer())
    .then(
      () => undefined,
      () => undefined,
    );
}

export async function ask(origin: string, since: number, signal?: AbortSignal): Promise<DevAnswer> {
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
export async function waitForServer(project: Project, origin: string, baseline: DevBaseline, signal?: AbortSignal): Promise<DevAnswer> {
  const { files, folders } = savedSince(project, baseline.lookedAt);
  const answer = await waitForSaved(origin, files, baseline.seq, signal, folders);
  const from = baseline.logAt ?? logSize(project);
  return answer.changed.some(isConfigFile)
    ? untilRestarted(origin, baseline.seq, answer, () => configError(project, from) !== undefined, signal)
    : answer;
}

/** The error the server logged (from byte `from` of its log on) when it could not load its changed config. */
export function configError(project: Project, from: number): string | undefined {
  const { lines } = linesSince(project, from);
  const refused = lines.find((line) => /\[ERROR\]\s+\[config\]/.test(line));
  if (refused) return refused.replace(/^.*?\[ERROR\]\s+\[config\]\s*/, "");
  return lines.some((line) => /Continuing with previous valid configuration/.test(line))
    ? "the changed config could not be loaded"
    : undefined;
}

/**
 * The server's answer after `since` once its watcher has seen each of `saved`, a change in each
 * of `folders` (a file deleted or renamed there: its folder changed), and the last change applied
 * (bounded waits).
 */
async function waitForSaved(
  origin: string,
  saved: string[],
  since: number,
  signal?: AbortSignal,
  folders: string[] = [],
): Promise<DevAnswer> {
  const watchBy = Date.now() + WATCH_WAIT_MS;
  let answer = await askThroughRestart(origin, since, signal);
  const unseen = () =>
    saved.some((file) => !answer.changed.includes(file)) ||
    folders.some((folder) => !answer.changed.some((file) => file.startsWith(`${folder}/`)));
  while (unseen() && Date.now() < watchBy) {
    await sleep(POLL_MS);
    answer = await askThroughRestart(origin, since, signal);
  }
  const applyBy = Date.now() + APPLY_WAIT_MS;
  while (answer.changed.length && (answer.last?.seq ?? 0) < answer.lastChangeSeq && Date.now() < applyBy) {
    await sleep(POLL_MS);
    answer = await askThroughRestart(origin, since, signal);
  }
  return answer;
}

/**
 * The server's answer; while it does not answer (it restarts when its config changed: it closes
 * and listens again within seconds), asked again for at most RESTART_WAIT_MS.
 */
async function askThroughRestart(origin: string, since: number, signal?: AbortSignal): Promise<DevAnswer> {
  const by = Date.now() + RESTART_WAIT_MS;
  for (;;) {
    try {
      return await ask(origin, since, signal);
    } catch (error) {
      if (!(error instanceof StepError && error.next === "dev-no-answer") || Date.now() > by || signal?.aborted) throw error;
      await sleep(4 * POLL_MS);
    }
  }
}

/** The project's Astro config: a change restarts the dev server. */
export const isConfigFile = (file: string) => /^astro\.config\.[cm]?[jt]s$/.test(file);

/**
 * After a config change, the answer once the server came back from its restart (at most
 * RESTART_WAIT_MS; it does not answer while it restarts), or the last one it gave when it did not.
 */
async function untilRestarted(
  origin: string,
  since: number,
  answer: DevAnswer,
  failed: () => boolean,
  signal?: AbortSignal,
): Promise<DevAnswer> {
  const by = Date.now() + RESTART_WAIT_MS;
  let last = answer;
  while (!(last.last?.kind === "restarted" && last.last.seq > last.lastChangeSeq) && !failed() && Date.now() < by && !signal?.aborted) {
    await sleep(4 * POLL_MS);
    last = await ask(origin, since, signal).catch(() => last);
  }
  return last;
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

/**
 * Files under src/ saved after `since`, and the folders whose entries changed then (a file added,
 * deleted or renamed), relative to the root.
 */
function savedSince(project: Project, since: number): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders: string[] = [];
  const rel = (path: string) => relative(project.root, path).split(sep).join("/");
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
      const changed = (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) > since;
      if (entry.isDirectory()) {
        if (changed) folders.push(rel(path));
        walk(path);
      } else if (entry.isFile() && changed) files.push(rel(path));
    }
  };
  walk(join(project.root, "src"));
  // A folder removed from src/ itself (with its files): src/ is the folder that changed.
  if ((statSync(join(project.root, "src"), { throwIfNoEntry: false })?.mtimeMs ?? 0) > since) folders.push("src");
  for (const name of readdirSync(project.root)) {
    if (isConfigFile(name) && (statSync(join(project.root, name), { throwIfNoEntry: false })?.mtimeMs ?? 0) > since) files.push(name);
  }
  // A folder where a file was only added: that file is among the saved ones and stands for it.
  const added = (folder: string) => files.some((file) => file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes("/"));
  return { files: files.slice(0, 50), folders: folders.filter((folder) => !added(folder)).slice(0, 20) };
}

/**
 * The pages the baseline of the running dev server holds, when one was taken on it: it loaded
 * every page, so the server's module graph knows every module a page uses.
 */
export function baselinePages(project: Project): string[] | undefined {
  const port = readDevPort(project);
  const record = readDevServerRecord(project);
  if (port === undefined || !record) return undefined;
  const baseline = readDevBaseline(project, { pid: record.pid, port, startedAt: record.startedAt });
  return baseline ? Object.keys(baseline.pages) : undefined;
}

/** The dev part of the project's baseline, when it was taken on this dev server. */
export function readDevBaseline(project: Project, server: DevBaseline["server"]): DevBaseline | undefined {
  const baseline = readBaseline<unknown, DevBaseline>(project).dev;
  const same = baseline?.server && baseline.server.pid === server.pid && baseline.server.port === server.port;
  return same ? baseline : undefined;
}

export function writeDevBaseline(project: Project, baseline: DevBaseline): void {
  writeBaseline(project, "dev", baseline);
}
