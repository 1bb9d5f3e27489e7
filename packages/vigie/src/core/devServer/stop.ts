// Stopping: TERM to the whole process group (npm → sh → node astro → workers), KILL
// after a grace period, then check that no process of the group remains and the port is
// free. Killing the npm pid alone leaves Astro running and the port answering.
import { rmSync, statSync } from "node:fs";
import { VigieError } from "../answer.ts";
import { groupMembers, isLive, pollMs, readProcStat, requireProc } from "../process/inspect.ts";
import type { Project } from "../project.ts";
import { type AstroServer, astroLogPath, findAstroServer, isSameAstroServer, removeAstroLocks } from "./astroLock.ts";
import { withLock } from "./lock.ts";
import { logTail } from "./log.ts";
import { describeHolder, listeningInodes, portHolder } from "./ports.ts";
import { clearRecord, endedByStopRequest, files, inspect } from "./state.ts";

export const DEFAULT_GRACE_MS = 5000;
/** How long processes get to vanish after SIGKILL (they may be in uninterruptible sleep). */
const AFTER_KILL_MS = 3000;
/** How long the port gets to close once the group is gone. */
const PORT_CLOSE_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Signals the group only while it has live members: once the group is empty its id may
 * be given to a new, unrelated process.
 */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  // kill(-1) would signal every process of the user, kill(-0) our own group.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`refusing to signal process group ${pgid}`);
  if (groupMembers(pgid).length === 0) return;
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (groupMembers(pgid).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs());
  }
}

export interface GroupEnd {
  /** SIGKILL was needed. */
  forced: boolean;
}

/**
 * Ends a process group that was checked to be ours: TERM, KILL after `graceMs`. Throws
 * when a process survives KILL.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<GroupEnd> {
  signalGroup(pgid, "SIGTERM");
  if (await waitGroupGone(pgid, graceMs)) return { forced: false };
  signalGroup(pgid, "SIGKILL");
  if (await waitGroupGone(pgid, AFTER_KILL_MS)) return { forced: true };
  const left = groupMembers(pgid);
  throw new VigieError(
    `processes of the dev server's group survived SIGKILL: ${left.join(", ")}`,
    "They are stuck in the kernel (state D); wait a few seconds and call blog_dev_stop again.",
    { pids: left },
  );
}

/**
 * Ends our server's process group (see endGroup), then removes the lock Astro keeps for it
 * (only when it names a process of that group), as `astro dev stop` would.
 */
export async function endServer(project: Project, pgid: number, graceMs: number): Promise<GroupEnd> {
  const members = new Set(groupMembers(pgid));
  const end = await endGroup(pgid, graceMs);
  removeAstroLocks(project, (pid) => members.has(pid));
  unshareLog(project);
  return end;
}

/** Undoes the hard link start made from .astro/<mode>.log to our log, so Astro's next background log starts a file of its own. */
function unshareLog(project: Project): void {
  for (const mode of ["dev", "preview"] as const) {
    const path = astroLogPath(project, mode);
    try {
      if (statSync(path).ino === statSync(files.log(project)).ino) rmSync(path, { force: true });
    } catch {
      // no such link
    }
  }
}

async function waitPidGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!isLive(readProcStat(pid))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs());
  }
}

/**
 * Stops a server Astro started, as `astro dev stop` would: TERM, KILL after the grace
 * period, then its lock removed. When it leads its own process group (`--background`), the
 * whole group goes; in a terminal's group, only the server (its npm parent then exits).
 */
async function endAstroServer(server: AstroServer, graceMs: number): Promise<GroupEnd> {
  let end: GroupEnd = { forced: false };
  if (isSameAstroServer(server)) {
    if (server.pgid === server.pid) end = await endGroup(server.pgid, graceMs);
    else {
      process.kill(server.pid, "SIGTERM");
      if (!(await waitPidGone(server.pid, graceMs))) {
        if (isSameAstroServer(server)) process.kill(server.pid, "SIGKILL");
        end = { forced: true };
        if (!(await waitPidGone(server.pid, AFTER_KILL_MS))) {
          throw new VigieError(`the astro server (pid ${server.pid}) survived SIGKILL`, "Wait a few seconds and call blog_dev_stop again.");
        }
      }
    }
  }
  rmSync(server.lockPath, { force: true });
  return end;
}

async function waitPortClosed(port: number): Promise<boolean> {
  const deadline = Date.now() + PORT_CLOSE_MS;
  for (;;) {
    if (listeningInodes(port).size === 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(pollMs());
  }
}

export interface StopOptions {
  /** ms between SIGTERM and SIGKILL (default 5000). */
  graceMs?: number;
}

export type StopAnswer = { [key: string]: unknown; stopped: boolean };

/** The stop tool. Never signals a process that the recorded state does not prove ours. */
export async function stopDevServer(project: Project, options: StopOptions = {}): Promise<StopAnswer> {
  requireProc();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  return withLock(project, "dev-server", { waitMs: 60_000 + graceMs }, async () => {
    const state = inspect(project);
    if (state.kind !== "running") {
      const astro = findAstroServer(project);
      if (astro.kind === "live") {
        if (state.kind !== "none") clearRecord(project);
        return stopAstroServer(astro.server, graceMs);
      }
    }
    if (state.kind === "none") {
      return { stopped: false, reason: "no dev server is recorded for this project", hint: "Nothing to stop; blog_dev_start starts one." };
    }
    if (state.kind === "stale") {
      clearRecord(project);
      return {
        stopped: false,
        reason: `stale state cleaned, nothing signalled: ${state.reason}`,
        hint: "No server of ours was running; blog_dev_start starts one.",
      };
    }
    if (state.kind === "exited") {
      const { record, exit } = state;
      clearRecord(project);
      if (endedByStopRequest(exit)) {
        return {
          stopped: false,
          reason: `the server (pid ${record.pid}) had already been stopped from outside, by ${exit?.signal}`,
          hint: "Nothing to stop; blog_dev_start starts it again.",
        };
      }
      return {
        stopped: false,
        reason: `the server (pid ${record.pid}) had already exited${exit ? ` with code ${exit.exitCode}${exit.signal ? ` (${exit.signal})` : ""}` : ""}`,
        logTail: logTail(project, 8, 700),
        hint: 'Read blog_dev_logs with level "error" for why; blog_dev_start starts it again.',
      };
    }
    const { record } = state;
    const started = Date.now();
    const { forced } = await endServer(project, record.pgid, graceMs);
    const port = record.port;
    const portFree = port === undefined ? true : await waitPortClosed(port);
    clearRecord(project);
    const answer: StopAnswer = { stopped: true, pid: record.pid, port, ms: Date.now() - started };
    if (forced) answer.forced = `SIGKILL after ${graceMs} ms of SIGTERM`;
    if (!portFree && port !== undefined) {
      answer.portFree = false;
      answer.hint = `Port ${port} is still held by ${describeHolder(portHolder(port))}, which is not of this server's process group.`;
    }
    return answer;
  });
}

async function stopAstroServer(server: AstroServer, graceMs: number): Promise<StopAnswer> {
  const started = Date.now();
  const { forced } = await endAstroServer(server, graceMs);
  const portFree = server.port === undefined ? true : await waitPortClosed(server.port);
  const answer: StopAnswer = {
    stopped: true,
    pid: server.pid,
    port: server.port,
    startedBy: server.background ? "astro (background)" : "astro",
    ms: Date.now() - started,
    note: `a server started outside vigie, stopped as \`astro ${server.mode} stop\` would; its lock .astro/${server.mode}.json was removed`,
  };
  if (forced) answer.forced = `SIGKILL after ${graceMs} ms of SIGTERM`;
  if (!portFree && server.port !== undefined) {
    answer.portFree = false;
    answer.hint = `Port ${server.port} is still held by ${describeHolder(portHolder(server.port))}.`;
  }
  return answer;
}
