// Astro 7 keeps its own lock per project (.astro/dev.json, .astro/preview.json): every
// `astro dev` writes one, foreground or `--background`, and so does the server Astro
// backgrounds by itself when it sees an agent's environment markers. A server started
// outside vigie is the project's one server all the same: found here, reported, reused
// and stopped as `astro dev stop` would. A lock proves nothing by itself: its pid is
// trusted only while it is a live `astro` process whose working directory is this project.
import { readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { commandOf, cwdOf, isLive, readProcStat } from "../process/inspect.ts";
import type { Project } from "../project.ts";
import type { DevMode } from "./state.ts";

const LOCKS = ["dev.json", "preview.json"];

/** The lock (and log) file of a mode: .astro/dev.json, .astro/preview.json. */
export function astroLockPath(project: Project, mode: DevMode): string {
  return join(project.root, ".astro", `${mode}.json`);
}

/** Where `astro dev logs` reads a background server's log: .astro/dev.log. */
export function astroLogPath(project: Project, mode: DevMode): string {
  return join(project.root, ".astro", `${mode}.log`);
}

/** What Astro writes in its lock. */
export interface AstroLock {
  pid: number;
  port?: number;
  url?: string;
  background?: boolean;
  startedAt?: string;
}

export function readAstroLock(path: string): AstroLock | undefined {
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as Partial<AstroLock>;
    return typeof data.pid === "number" && Number.isInteger(data.pid) && data.pid > 0 ? (data as AstroLock) : undefined;
  } catch {
    return undefined;
  }
}

/** A server of this project that Astro's lock names and that proved to be one. */
export interface AstroServer {
  mode: DevMode;
  pid: number;
  /** The process group of that pid: its own when `astro dev --background` started it. */
  pgid: number;
  /** /proc start time of the pid when it was found: a stop re-checks it before any signal. */
  startTime: number;
  port?: number;
  url?: string;
  /** Started with `--background` or by Astro for an agent (true), or in a terminal (false). */
  background: boolean;
  /** Epoch ms, from the lock. */
  startedAt?: number;
  lockPath: string;
}

/** Who started a server vigie did not spawn itself. */
export type StartedBy = "astro" | "astro (background)";

export function startedBy(server: AstroServer): StartedBy {
  return server.background ? "astro (background)" : "astro";
}

export type AstroLookup =
  | { kind: "none" }
  /** A lock that names no live Astro server of this project: its pid is never signalled. */
  | { kind: "stale"; pid: number; reason: string; lockPath: string }
  | { kind: "live"; server: AstroServer };

/** Astro's own test of a lock's process, plus the subcommand: `node …/astro/bin/astro.mjs dev …` or `…/.bin/astro dev …`. */
export const ASTRO_COMMAND = /(?:^|[\\/\s"'])(?:astro[\\/]bin[\\/]astro\.mjs|\.bin[\\/]astro|astro)(?=\s)/;

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

/** The live Astro server of a lock, or why the lock is stale. */
function check(project: Project, mode: DevMode): AstroLookup {
  const lockPath = astroLockPath(project, mode);
  const lock = readAstroLock(lockPath);
  if (!lock) return { kind: "none" };
  const stale = (reason: string): AstroLookup => ({ kind: "stale", pid: lock.pid, reason, lockPath });
  const stat = readProcStat(lock.pid);
  if (!isLive(stat)) return stale(`pid ${lock.pid} in .astro/${mode}.json is not running`);
  const command = commandOf(lock.pid, 400) ?? "";
  if (!ASTRO_COMMAND.test(command) || !new RegExp(`\\s${mode}(?:\\s|$)`).test(command)) {
    return stale(`pid ${lock.pid} in .astro/${mode}.json is "${command.slice(0, 80)}", not astro ${mode}`);
  }
  const cwd = cwdOf(lock.pid);
  if (cwd === undefined || !samePath(cwd, project.root)) {
    return stale(`pid ${lock.pid} in .astro/${mode}.json is an astro server of another folder (${cwd ?? "unknown"})`);
  }
  const startedAt = lock.startedAt ? Date.parse(lock.startedAt) : Number.NaN;
  return {
    kind: "live",
    server: {
      mode,
      pid: lock.pid,
      pgid: stat.pgid,
      startTime: stat.startTime,
      port: typeof lock.port === "number" ? lock.port : undefined,
      url: typeof lock.url === "string" ? `${lock.url.replace(/\/$/, "")}/` : undefined,
      background: lock.background === true,
      startedAt: Number.isFinite(startedAt) ? startedAt : undefined,
      lockPath,
    },
  };
}

/** The project's running Astro server (dev first, then preview), as its lock and /proc say. */
export function findAstroServer(project: Project): AstroLookup {
  const dev = check(project, "dev");
  if (dev.kind === "live") return dev;
  const preview = check(project, "preview");
  if (preview.kind === "live") return preview;
  return dev.kind === "stale" ? dev : preview;
}

/** Is this still the process that was found (same pid, same start time, alive)? */
export function isSameAstroServer(server: AstroServer): boolean {
  const stat = readProcStat(server.pid);
  return isLive(stat) && stat.startTime === server.startTime;
}

/**
 * Removes Astro's lock files whose pid `shouldRemove` accepts; returns the files removed.
 * A server ended by a signal leaves its lock behind, and Astro refuses to start a second
 * server while the pid in it looks alive (a zombie does).
 */
export function removeAstroLocks(project: Project, shouldRemove: (pid: number) => boolean): string[] {
  const removed: string[] = [];
  for (const name of LOCKS) {
    const path = join(project.root, ".astro", name);
    const lock = readAstroLock(path);
    if (lock && shouldRemove(lock.pid)) {
      rmSync(path, { force: true });
      removed.push(path);
    }
  }
  return removed;
}
