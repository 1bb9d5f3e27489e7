// The dev server's state under .opencode/: who it is (pid, process group, start time),
// where it listens, how it ended. Any process can read it back and recognise the server,
// so the CLI may start it and OpenCode stop it, and a reused pid is never mistaken for it.
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { readText } from "../files.ts";
import { bootId, commandOf, groupMembers, isLive, readProcStat } from "../process/inspect.ts";
import { type Project, statePath } from "../project.ts";

export type DevMode = "dev" | "preview";

/** Everything needed to recognise our server from any process. */
export interface DevServerRecord {
  /** The group leader (the supervisor shell); its pid is the process group id. */
  pid: number;
  pgid: number;
  /** /proc/<pid>/stat field 22 at spawn, and the boot it belongs to. */
  startTime: number;
  bootId: string;
  command: string[];
  mode: DevMode;
  requestedPort: number;
  /** Epoch ms of the spawn. */
  startedAt: number;
  /** Set once the server is ready: the port it really listens on. */
  port?: number;
  url?: string;
  readyMs?: number;
}

export const files = {
  record: (project: Project) => statePath(project, "dev-server.json"),
  pid: (project: Project) => statePath(project, "dev-server.pid"),
  port: (project: Project) => statePath(project, "dev-server.port"),
  log: (project: Project) => statePath(project, "dev-server.log"),
  /** Written by the supervisor shell when the server exits: its exit status. */
  exit: (project: Project) => statePath(project, "dev-server.exit"),
  /** Where the previous logs call stopped reading, for `since: "last"`. */
  logCursor: (project: Project) => statePath(project, "dev-server.logs.json"),
  lock: (project: Project, name: string) => statePath(project, `${name}.lock`),
};

/** Replaces a file in one step, so a reader never sees half of it. */
export function writeAtomic(path: string, content: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

export function readRecord(project: Project): DevServerRecord | undefined {
  const text = readText(files.record(project));
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as DevServerRecord;
    const valid = Number.isInteger(record.pid) && record.pid > 1 && record.pgid === record.pid && Number.isInteger(record.startTime);
    return valid ? record : undefined;
  } catch {
    return undefined;
  }
}

export function writeRecord(project: Project, record: DevServerRecord): void {
  writeAtomic(files.record(project), `${JSON.stringify(record)}\n`);
  writeAtomic(files.pid(project), `${record.pid}\n`);
  if (record.port !== undefined) writeAtomic(files.port(project), `${record.port}\n`);
}

/** Removes what says a server runs; the log stays, for reading after the fact. */
export function clearRecord(project: Project): void {
  for (const path of [files.record(project), files.pid(project), files.port(project), files.exit(project)]) rmSync(path, { force: true });
}

export interface ExitStatus {
  exitCode: number | null;
  /** The signal that ended the server, when its exit status says so (128 + n). */
  signal?: string;
}

const SIGNAL_NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * Did the server end because someone asked it to (`astro dev stop`, Ctrl-C, a hang-up)?
 * SIGKILL is not counted: it may be the kernel's out-of-memory killer, a crash to the user.
 */
export function endedByStopRequest(exit: ExitStatus | undefined): boolean {
  return exit?.signal === "SIGTERM" || exit?.signal === "SIGINT" || exit?.signal === "SIGHUP";
}

/** The exit status the supervisor recorded, if it could. */
export function readExit(project: Project): ExitStatus | undefined {
  const text = readText(files.exit(project))?.trim();
  if (!text || !/^\d+$/.test(text)) return undefined;
  const exitCode = Number(text);
  const signal = exitCode > 128 ? SIGNAL_NAMES.get(exitCode - 128) : undefined;
  return signal ? { exitCode, signal } : { exitCode };
}

/** What the recorded state amounts to, checked against /proc. */
export type Inspection =
  | { kind: "none" }
  /** The files name a process that is not our server: never signal it. */
  | { kind: "stale"; pid?: number; reason: string }
  | { kind: "exited"; record: DevServerRecord; exit?: ExitStatus }
  | { kind: "running"; record: DevServerRecord };

/**
 * Is the recorded server alive and ours? The leader must have the recorded start time.
 * When the leader is gone but members of its group remain, they are ours: Linux does not
 * give a process group's id to a new process while the group has members.
 */
export function inspect(project: Project): Inspection {
  const record = readRecord(project);
  if (!record) {
    const pidText = readText(files.pid(project))?.trim();
    if (pidText === undefined) return { kind: "none" };
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0) return { kind: "stale", reason: `the pid file holds "${pidText.slice(0, 20)}", not a pid` };
    return { kind: "stale", pid, reason: staleReason(pid, "there is no ownership record (dev-server.json) to prove it is our server") };
  }
  if (record.bootId !== bootId())
    return { kind: "stale", pid: record.pid, reason: `pid ${record.pid} was recorded before the machine rebooted` };
  const leader = readProcStat(record.pid);
  if (leader && leader.startTime !== record.startTime) {
    return { kind: "stale", pid: record.pid, reason: staleReason(record.pid, "its start time differs from the recorded one (pid reused)") };
  }
  if (isLive(leader) || groupMembers(record.pgid).length > 0) return { kind: "running", record };
  return { kind: "exited", record, exit: readExit(project) };
}

function staleReason(pid: number, why: string): string {
  const stat = readProcStat(pid);
  if (!isLive(stat)) return `pid ${pid} is not running`;
  const command = commandOf(pid, 80);
  return `pid ${pid} is now ${command ? `"${command}"` : "another process"}, not our server: ${why}`;
}
