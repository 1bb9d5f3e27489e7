// The Linux backend of process inspection: everything is read from /proc, no process is
// spawned, so the 25 ms polling loops cost almost nothing.
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import type { ProcessBackend, ProcStat } from "./backend.ts";

function readStat(pid: number): ProcStat | undefined {
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
    // Field 22: clock ticks after boot at which the process started.
    startTime: Number(fields[19]),
  };
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

const LISTEN = "0A";

let cachedBootId: string | undefined;

export const procBackend: ProcessBackend = {
  name: "proc",

  unusable() {
    return existsSync("/proc/self/stat") ? undefined : "this system has no Linux /proc";
  },

  stat: readStat,

  list() {
    const stats: ProcStat[] = [];
    for (const pid of allPids()) {
      const stat = readStat(pid);
      if (stat) stats.push(stat);
    }
    return stats;
  },

  command(pid) {
    try {
      const text = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
      return text || undefined;
    } catch {
      return undefined;
    }
  },

  cwd(pid) {
    try {
      return readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return undefined;
    }
  },

  cwds() {
    const map = new Map<number, string>();
    for (const pid of allPids()) {
      try {
        map.set(pid, readlinkSync(`/proc/${pid}/cwd`));
      } catch {
        // gone, or another user's
      }
    }
    return map;
  },

  bootId() {
    if (cachedBootId === undefined) {
      try {
        cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      } catch {
        cachedBootId = "";
      }
    }
    return cachedBootId;
  },

  /** Inodes of the sockets listening on the port, on any address, IPv4 or IPv6 (every user's). */
  listeners(port) {
    const inodes = new Set<string>();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text: string;
      try {
        text = readFileSync(table, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n").slice(1)) {
        const columns = line.trim().split(/\s+/);
        const local = columns[1];
        if (!local || columns[3] !== LISTEN) continue;
        if (Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16) === port && columns[9]) inodes.add(columns[9]);
      }
    }
    return inodes;
  },

  /** Best effort: /proc/<pid>/fd of other users is unreadable. */
  socketOwners(ids, among) {
    if (ids.size === 0) return [];
    const owners: number[] = [];
    for (const pid of among ?? allPids()) {
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
        if (match?.[1] && ids.has(match[1])) {
          owners.push(pid);
          break;
        }
      }
    }
    return owners;
  },
};
