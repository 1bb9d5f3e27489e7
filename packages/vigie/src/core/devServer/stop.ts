// Stopping: TERM to the whole process group (npm → sh → node astro → workers), KILL
// after a grace period, then check that no process of the group remains and the port is
// free. Killing the npm pid alone leaves Astro running and the port answering.
import { rmSync, statSync } from "node:fs";
import { StepError } from "../nextStep.ts";
import { groupMembers, isLive, pollMs, readProcStat, requireProc } from "../process/inspect.ts";
import { AFTER_KILL_MS, killGroup, signalProcess } from "../process/kill.ts";
import type { Project } from "../project.ts";
import { waitUntil } from "../wait.ts";
import {
  type AstroServer,
  astroLogPath,
  findAstroServer,
  isSameAstroServer,
  removeAstroLocks,
  type StartedBy,
  startedBy,
} from "./astroLock.ts";
import { withLock } from "./lock.ts";
import { logTail } from "./log.ts";
import { describeHolder, listeningInodes, portHolder } from "./ports.ts";
import { clearRecord, type DevMode, type ExitStatus, endedByStopRequest, files, inspect } from "./state.ts";

export const DEFAULT_GRACE_MS = 5000;
/** How long the port gets to close once the group is gone. */
const PORT_CLOSE_MS = 2000;

/** True once `done` holds, false when `ms` have passed first. */
const within = async (ms: number, done: () => boolean): Promise<boolean> =>
  (await waitUntil(done, { timeoutMs: ms, intervalMs: pollMs })) === true;

const pidGone = (pid: number) => () => !isLive(readProcStat(pid));
const portClosed = (port: number) => () => listeningInodes(port).size === 0;

export interface GroupEnd {
  /** SIGKILL was needed. */
  forced: boolean;
}

/**
 * Ends a process group that was checked to be ours: TERM, KILL after `graceMs`. Throws
 * when a process survives KILL.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<GroupEnd> {
  const end = await killGroup(pgid, { graceMs });
  if (end.gone) return { forced: end.forced };
  throw new StepError(
    `processes of the dev server's group survived SIGKILL: ${end.left.join(", ")}`,
    "dev-stuck",
    "They are stuck in the kernel (state D); wait a few seconds and stop the dev server again.",
    { pids: end.left },
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
      signalProcess(server.pid, "SIGTERM");
      if (!(await within(graceMs, pidGone(server.pid)))) {
        if (isSameAstroServer(server)) signalProcess(server.pid, "SIGKILL");
        end = { forced: true };
        if (!(await within(AFTER_KILL_MS, pidGone(server.pid)))) {
          const hint = "Wait a few seconds and stop the dev server again.";
          throw new StepError(`the astro server (pid ${server.pid}) survived SIGKILL`, "astro-stuck", hint);
        }
      }
    }
  }
  rmSync(server.lockPath, { force: true });
  return end;
}

export interface StopOptions {
  /** ms between SIGTERM and SIGKILL (default 5000). */
  graceMs?: number;
}

export type StopResult =
  | {
      kind: "stopped";
      pid: number;
      port: number | undefined;
      /** Set for a server Astro started: it was stopped as `astro <mode> stop` would, its lock removed. */
      astro?: { startedBy: StartedBy; mode: DevMode };
      ms: number;
      /** SIGKILL was needed after this many ms of SIGTERM. */
      forcedAfterMs?: number;
      /** Who still holds the port, when it was not freed. */
      portHeldBy?: string;
    }
  | { kind: "not-running"; why: "none" }
  | { kind: "not-running"; why: "stale"; reason: string }
  | { kind: "not-running"; why: "stopped-outside"; pid: number; signal: string | undefined }
  | { kind: "not-running"; why: "exited"; pid: number; exit: ExitStatus | undefined; logTail: string[] };

/** Never signals a process that the recorded state does not prove ours. */
export async function stopDevServer(project: Project, options: StopOptions = {}): Promise<StopResult> {
  requireProc();
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  return withLock(project, "dev-server", { waitMs: 60_000 + graceMs }, async () => {
    const state = inspect(project);
    if (state.kind !== "running") {
      const astro = findAstroServer(project);
      if (astro.kind === "live") {
        if (state.kind !== "none") clearRecord(project);
        const server = astro.server;
        return stopServer({ pid: server.pid, port: server.port, graceMs, end: () => endAstroServer(server, graceMs), astro: server });
      }
    }
    if (state.kind === "none") return { kind: "not-running", why: "none" };
    if (state.kind === "stale") {
      clearRecord(project);
      return { kind: "not-running", why: "stale", reason: state.reason };
    }
    if (state.kind === "exited") {
      const { record, exit } = state;
      clearRecord(project);
      if (endedByStopRequest(exit)) return { kind: "not-running", why: "stopped-outside", pid: record.pid, signal: exit?.signal };
      return { kind: "not-running", why: "exited", pid: record.pid, exit, logTail: logTail(project) };
    }
    const { record } = state;
    const end = () => endServer(project, record.pgid, graceMs);
    return stopServer({ pid: record.pid, port: record.port, graceMs, end, after: () => clearRecord(project) });
  });
}

interface Stopping {
  pid: number;
  port: number | undefined;
  graceMs: number;
  end: () => Promise<GroupEnd>;
  /** A server Astro started. */
  astro?: AstroServer;
  /** Once the port is closed (or given up on). */
  after?: () => void;
}

/** Ends a server (our group, or one Astro started), then waits for its port to close. */
async function stopServer({ pid, port, graceMs, end, astro, after }: Stopping): Promise<StopResult> {
  const started = Date.now();
  const { forced } = await end();
  const portFree = port === undefined || (await within(PORT_CLOSE_MS, portClosed(port)));
  after?.();
  return {
    kind: "stopped",
    pid,
    port,
    ...(astro ? { astro: { startedBy: startedBy(astro), mode: astro.mode } } : {}),
    ms: Date.now() - started,
    ...(forced ? { forcedAfterMs: graceMs } : {}),
    ...(!portFree && port !== undefined ? { portHeldBy: describeHolder(portHolder(port)) } : {}),
  };
}
