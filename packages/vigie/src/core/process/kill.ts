// Ending a process group: TERM to the whole group (npm → sh → node astro → workers), KILL
// after a grace period. Killing the leader alone leaves the rest running (and a port held).
import { waitUntil } from "../wait.ts";
import { groupMembers, pollMs, processBackend } from "./inspect.ts";

/** How long processes get to vanish after SIGKILL (they may be in uninterruptible sleep). */
export const AFTER_KILL_MS = 3000;

/** Whether a process group still has a live member. */
export function groupAlive(pgid: number): boolean {
  if (processBackend().unusable() === undefined) return groupMembers(pgid).length > 0;
  // No way to list processes here: ask the kernel (this counts zombies too).
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sends a signal to a whole process group, only while it has live members: once the group
 * is empty its id may be given to a new, unrelated process. False when nothing was signalled.
 * Synchronous, for exit hooks too.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  // kill(-1) would signal every process of the user, kill(-0) our own group.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`refusing to signal process group ${pgid}`);
  if (!groupAlive(pgid)) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    return false;
  }
}

/**
 * Sends a signal to one process. False when it is already gone (ESRCH); other errors (EPERM:
 * not ours) are thrown. Synchronous, for exit hooks too.
 */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  // kill(0) and kill(-n) would signal whole groups: those go through signalGroup.
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`refusing to signal process ${pid}`);
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    return false;
  }
}

export interface KillOptions {
  /** Between SIGTERM and SIGKILL. Default 5000 ms. */
  graceMs?: number;
  /** How long the group gets to vanish after SIGKILL. Default 3000 ms. */
  afterKillMs?: number;
}

/** What killGroup did. */
export interface GroupKill {
  /** SIGTERM was sent (false: the group was already gone). */
  termed: boolean;
  /** SIGKILL was needed. */
  forced: boolean;
  /** No live member is left. */
  gone: boolean;
  /** The members still alive when `gone` is false (stuck in the kernel, state D). */
  left: number[];
  ms: number;
}

/**
 * Ends a process group the caller knows to be its own: SIGTERM, then SIGKILL after
 * `graceMs` if a member is still alive, then waits for the group to be gone.
 */
export async function killGroup(pgid: number, options: KillOptions = {}): Promise<GroupKill> {
  const started = performance.now();
  const gone = (timeoutMs: number) => waitUntil(() => !groupAlive(pgid), { timeoutMs, intervalMs: pollMs }).then(Boolean);
  const done = (termed: boolean, forced: boolean, isGone: boolean): GroupKill => ({
    termed,
    forced,
    gone: isGone,
    left: isGone ? [] : groupMembers(pgid),
    ms: Math.round(performance.now() - started),
  });
  const termed = signalGroup(pgid, "SIGTERM");
  if (!termed) return done(false, false, true);
  if (await gone(options.graceMs ?? 5000)) return done(true, false, true);
  signalGroup(pgid, "SIGKILL");
  return done(true, true, await gone(options.afterKillMs ?? AFTER_KILL_MS));
}
