// What Linux's /proc says about a process: enough to recognise our server after the
// process that started it is gone, and to never signal a process that is not ours.
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { clip, VigieError } from "../answer.ts";

/** The dev-server tools read /proc to recognise their processes: without it they refuse to act. */
export function requireProc(): void {
  if (!existsSync("/proc/self/stat")) {
    throw new VigieError(
      "the dev-server tools need Linux's /proc to recognise their processes, and this system has none",
      "Run vigie on Linux (a container or WSL 2 will do), or start the dev server yourself and use the browser tools with its port.",
    );
  }
}

export interface ProcStat {
  pid: number;
  /** R, S, D, Z (zombie: dead, not yet reaped), T, X... */
  state: string;
  ppid: number;
  pgid: number;
  /** Field 22: clock ticks after boot at which the process started. With the boot id it names one process for good. */
  startTime: number;
}

/** /proc/<pid>/stat parsed, or undefined when there is no such process. */
export function readProcStat(pid: number): ProcStat | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "?",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: Number(fields[19]),
  };
}

/** A zombie has exited: it only waits for its parent to read its status. */
export function isLive(stat: ProcStat | undefined): stat is ProcStat {
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** The live processes of a process group. */
export function groupMembers(pgid: number): number[] {
  return allPids().filter((pid) => {
    const stat = readProcStat(pid);
    return isLive(stat) && stat.pgid === pgid;
  });
}

/** The command line of a process, short, or undefined when it cannot be read. */
export function commandOf(pid: number, max = 160): string | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const text = raw.split("\0").filter(Boolean).join(" ");
    return text ? clip(text, max) : undefined;
  } catch {
    return undefined;
  }
}

/** The working directory of a process, or undefined when it cannot be read. */
export function cwdOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

let cachedBootId: string | undefined;
/** Changes at every boot: a start time recorded before a reboot means nothing after it. */
export function bootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      cachedBootId = "";
    }
  }
  return cachedBootId;
}

/** The process ids that hold a socket with one of these inodes (best effort: /proc/<pid>/fd of other users is unreadable). */
export function socketOwners(inodes: ReadonlySet<string>, among: readonly number[] = allPids()): number[] {
  if (inodes.size === 0) return [];
  const owners: number[] = [];
  for (const pid of among) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1] && inodes.has(match[1])) {
        owners.push(pid);
        break;
      }
    }
  }
  return owners;
}
