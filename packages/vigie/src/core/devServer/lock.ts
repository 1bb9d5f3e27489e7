// Dev-server calls run one at a time per project: an in-process queue for calls of one
// process (OpenCode and MCP call tools in parallel), and a lock file created with O_EXCL
// for calls from separate processes (a CLI next to OpenCode). A lock whose holder died
// is taken over.
import { closeSync, linkSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { readText } from "../files.ts";
import { StepError } from "../nextStep.ts";
import { bootId, isLive, readProcStat } from "../process/inspect.ts";
import type { Project } from "../project.ts";
import { waitUntil } from "../wait.ts";
import { files } from "./state.ts";

const POLL_MS = 25;
/** A lock file still empty after this long was left by a process that died while creating it. */
const EMPTY_LOCK_STALE_MS = 5000;

const queues = new Map<string, Promise<void>>();

export interface LockOptions {
  /** How long to wait for the lock before giving up (ms). */
  waitMs: number;
}

/** Runs `task` holding the named lock of the project (e.g. "dev-server"). */
export async function withLock<T>(project: Project, name: string, options: LockOptions, task: () => Promise<T>): Promise<T> {
  const path = files.lock(project, name);
  const previous = queues.get(path) ?? Promise.resolve();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const mine = previous.then(() => gate);
  queues.set(path, mine);
  const deadline = Date.now() + options.waitMs;
  await previous;
  try {
    const token = await acquireFile(path, deadline);
    try {
      return await task();
    } finally {
      releaseFile(path, token);
    }
  } finally {
    release();
    if (queues.get(path) === mine) queues.delete(path);
  }
}

interface Holder {
  pid: number;
  startTime: number;
  bootId: string;
  nonce: string;
}

function parseHolder(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined;
  }
}

function holderIsGone(holder: Holder): boolean {
  if (holder.bootId !== bootId()) return true;
  // The in-process queue lets one call of this process at a time reach the file: a lock
  // naming this process was left by an earlier call that could not remove it.
  if (holder.pid === process.pid) return true;
  const stat = readProcStat(holder.pid);
  return !isLive(stat) || stat.startTime !== holder.startTime;
}

/** One attempt: the token once the lock file is ours (a stale one taken over), else undefined. */
function tryAcquire(path: string, token: string): string | undefined {
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      try {
        writeSync(fd, token);
      } finally {
        closeSync(fd);
      }
      return token;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const seen = readText(path);
    if (seen === undefined) continue; // released meanwhile: try again at once
    const holder = parseHolder(seen);
    if (!(holder ? holderIsGone(holder) : isOldEmptyLock(path))) return undefined;
    takeOverStale(path, seen);
  }
}

async function acquireFile(path: string, deadline: number): Promise<string> {
  const self = readProcStat(process.pid);
  const token = JSON.stringify({
    pid: process.pid,
    startTime: self?.startTime ?? 0,
    bootId: bootId(),
    nonce: Math.random().toString(36).slice(2),
  } satisfies Holder);
  const acquired = await waitUntil(() => tryAcquire(path, token), { timeoutMs: Math.max(0, deadline - Date.now()), intervalMs: POLL_MS });
  if (acquired) return acquired;
  const holder = parseHolder(readText(path) ?? "");
  throw new StepError(
    `another call has held the dev-server lock for too long${holder ? ` (pid ${holder.pid})` : ""}`,
    "dev-busy",
    "A start or stop is still under way in another process; check the dev server's status, then retry.",
    { lock: path },
  );
}

function isOldEmptyLock(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > EMPTY_LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * Removes a lock whose holder is gone. The file is first renamed away, so that when another
 * process took the lock between our read and the rename, its fresh lock is put back.
 */
function takeOverStale(path: string, seen: string): void {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else removed it
  }
  if (readText(aside) !== seen) {
    try {
      linkSync(aside, path);
    } catch {
      // a newer lock already stands there
    }
  }
  rmSync(aside, { force: true });
}

function releaseFile(path: string, token: string): void {
  if (readText(path) === token) rmSync(path, { force: true });
}
