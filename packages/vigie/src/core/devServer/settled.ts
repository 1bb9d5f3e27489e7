// A dev server that is starting writes Astro's data store (.astro/data-store.json,
// .astro/content-assets.mjs) before it listens, and a build writes the same files: run side
// by side on a project, one of them may fail on the other's half-written file (ENOENT on
// `.astro/content-assets.mjs.tmp`). A build waits until no dev server of the project is
// starting: one vigie is starting (it holds the dev-server lock), or an `astro dev` started by
// anyone in the project's folder that is not listening yet (Astro writes .astro/dev.json once
// it listens, naming its pid). The other way round, a dev server vigie starts waits for the
// commands of this process that are writing .astro/ (astro sync, astro check, a build).
import { realpathSync } from "node:fs";
import { readText } from "../files.ts";
import { bootId, commandOf, isLive, listProcesses, readProcStat, workingDirectories } from "../process/inspect.ts";
import type { Project } from "../project.ts";
import { sleep, waitUntil } from "../wait.ts";
import { ASTRO_COMMAND, astroLockPath, readAstroLock } from "./astroLock.ts";
import { files, readRecord } from "./state.ts";

/** The longest a build waits for a dev server to finish starting. */
export const DEV_START_WAIT_MS = 60_000;

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

/** The live process holding vigie's dev-server lock of the project (a start or a stop under way), if any. */
function lockHolder(project: Project): number | undefined {
  const text = readText(files.lock(project, "dev-server"));
  if (!text) return undefined;
  try {
    const holder = JSON.parse(text) as { pid?: number; startTime?: number; bootId?: string };
    if (typeof holder.pid !== "number" || holder.bootId !== bootId()) return undefined;
    const stat = readProcStat(holder.pid);
    return isLive(stat) && stat.startTime === holder.startTime ? holder.pid : undefined;
  } catch {
    return undefined;
  }
}

/** The process group of the dev server vigie started on the project, once it is ready (its record has the port it listens on). */
function readyGroup(project: Project): number | undefined {
  const record = readRecord(project);
  return record?.port !== undefined && record.bootId === bootId() ? record.pgid : undefined;
}

/**
 * `astro dev` processes of the project's folder that are not listening yet: .astro/dev.json does
 * not name them (Astro 7 writes it once it listens), and they are not the dev server vigie
 * started and saw ready (Astro 5 and 6 write no dev.json: without this, a build would wait for
 * vigie's own listening server the whole DEV_START_WAIT_MS).
 */
function astroDevStarting(project: Project): number[] {
  const root = real(project.root);
  const listening = readAstroLock(astroLockPath(project, "dev"))?.pid;
  const ours = readyGroup(project);
  const cwds = workingDirectories();
  const all = listProcesses();
  // The listening server and what started it (`sh -c "astro dev"` under `npm run dev`).
  const serving = new Set<number>();
  const byPid = new Map(all.map((stat) => [stat.pid, stat]));
  for (let pid = listening; pid !== undefined && pid > 1 && !serving.has(pid); pid = byPid.get(pid)?.ppid) serving.add(pid);
  const starting: number[] = [];
  for (const stat of all) {
    if (serving.has(stat.pid) || stat.pid === process.pid || stat.pgid === ours || !isLive(stat)) continue;
    const cwd = cwds.get(stat.pid);
    if (!cwd || real(cwd) !== root) continue;
    const command = commandOf(stat.pid, 400) ?? "";
    if (ASTRO_COMMAND.test(command) && /\sdev(?:\s|$)/.test(command)) starting.push(stat.pid);
  }
  return starting;
}

/** What is starting a dev server on the project right now ("pid 123 (astro dev)"), or undefined. */
export function devStarting(project: Project): string | undefined {
  const holder = lockHolder(project);
  if (holder !== undefined) return `pid ${holder} (vigie's dev server start)`;
  const [astro] = astroDevStarting(project);
  return astro === undefined ? undefined : `pid ${astro} (astro dev)`;
}

/** What a command writing .astro/ waited for: the start, how long, and whether it was still starting when the wait ran out. */
export interface DevStartWait {
  waitedFor: string;
  ms: number;
  gaveUp: boolean;
}

/**
 * Waits until no dev server of the project is starting, within `timeoutMs`. Says what it waited
 * for and how long, or undefined when nothing was starting.
 */
export async function untilNoDevStart(
  project: Project,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<DevStartWait | undefined> {
  const first = devStarting(project);
  if (!first) return undefined;
  const started = Date.now();
  const settled = await waitUntil(() => devStarting(project) === undefined, {
    timeoutMs: options.timeoutMs ?? DEV_START_WAIT_MS,
    intervalMs: 250,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { waitedFor: first, ms: Date.now() - started, gaveUp: !settled };
}

/** The build log's line for such a wait. */
export function devStartWaitLine(waited: DevStartWait): string {
  const end = waited.gaveUp ? ", still starting when the wait ran out" : ", until it listened";
  return `waited ${waited.ms} ms for a dev server starting on the project: ${waited.waitedFor}${end}`;
}

/** The longest a dev server start waits for this process's commands that write .astro/. */
export const ASTRO_WRITERS_WAIT_MS = 120_000;

/** Commands of this process writing the project's .astro/ right now, by project root. */
const writers = new Map<string, Set<Promise<unknown>>>();

/**
 * Runs `write` (a command that writes .astro/: astro sync, astro check, a build) once no dev
 * server of the project is starting, and keeps it known while it runs, so that a dev server
 * this process starts meanwhile waits for it. Says what it waited for first, if anything.
 */
export async function writingAstroFiles<T>(
  project: Project,
  write: () => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<{ value: T; waited?: DevStartWait }> {
  const waited = await untilNoDevStart(project, options.signal ? { signal: options.signal } : {});
  const running = write();
  const set = writers.get(project.root) ?? new Set();
  writers.set(project.root, set);
  set.add(running);
  const done = () => {
    set.delete(running);
    if (set.size === 0) writers.delete(project.root);
  };
  running.then(done, done);
  const value = await running;
  return waited ? { value, waited } : { value };
}

/** Waits (within `timeoutMs`) until this process's commands writing the project's .astro/ have ended. */
export async function untilAstroFilesWritten(project: Project, timeoutMs = ASTRO_WRITERS_WAIT_MS): Promise<boolean> {
  const set = writers.get(project.root);
  if (!set?.size) return false;
  const stop = new AbortController();
  await Promise.race([Promise.allSettled([...set]), sleep(timeoutMs, { signal: stop.signal, unref: true }).catch(() => undefined)]);
  stop.abort();
  return true;
}
