// The portable backend of process inspection, for macOS and the BSDs (and Linux when
// VIGIE_PROCESS_BACKEND=ps): `ps` for identity, group and command line, `lsof` for the
// working directory and the listening sockets, `sysctl kern.boottime` for the boot.
// Every call is one spawned process (execFile, never a shell): a whole-table question such
// as "who is in this group" is one `ps -A`, never one call per pid.
import { execFileSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { ProcessBackend, ProcStat } from "./backend.ts";

/**
 * Columns both procps (Linux) and BSD ps (macOS) accept. `lstart` is five words in the C
 * locale ("Wed Dec  2 15:42:59 2026"); the command goes last since it holds spaces.
 */
const FIELDS = "pid=,ppid=,pgid=,stat=,lstart=,command=";

/** A fixed locale and time zone, so that every process reads the same start time. */
const ENV = { ...process.env, LC_ALL: "C", TZ: "UTC0" };

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const LINE =
  /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+[A-Z][a-z]{2}\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})(?:\s+(.*))?$/;

export interface PsRow extends ProcStat {
  command: string;
}

/**
 * One line of `ps -o pid=,ppid=,pgid=,stat=,lstart=,command=` run with TZ=UTC0. The start
 * time is in epoch seconds: one-second resolution, which with the pid names one process
 * (a pid is not handed out twice within a second).
 */
export function parsePsLine(line: string): PsRow | undefined {
  const match = LINE.exec(line);
  if (!match) return undefined;
  const [, pid, ppid, pgid, stat, month, day, hour, minute, second, year, command] = match;
  const monthIndex = MONTHS.indexOf(month as string);
  if (monthIndex < 0) return undefined;
  const startTime = Date.UTC(Number(year), monthIndex, Number(day), Number(hour), Number(minute), Number(second)) / 1000;
  return {
    pid: Number(pid),
    ppid: Number(ppid),
    pgid: Number(pgid),
    state: (stat as string).charAt(0),
    startTime,
    command: (command ?? "").trim(),
  };
}

const located = new Map<string, string | undefined>();

/** The executable's path: PATH first, then where macOS and Linux keep system tools. */
export function locate(tool: string): string | undefined {
  if (!located.has(tool)) {
    const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
    let found: string | undefined;
    for (const dir of dirs) {
      try {
        accessSync(join(dir, tool), constants.X_OK);
        found = join(dir, tool);
        break;
      } catch {
        // not here
      }
    }
    located.set(tool, found);
  }
  return located.get(tool);
}

/** Runs a tool and returns its output; "" when it found nothing (ps and lsof exit 1 then), undefined when it could not run. */
function run(tool: string, args: string[]): string | undefined {
  const path = locate(tool);
  if (!path) return undefined;
  try {
    return execFileSync(path, args, {
      encoding: "utf8",
      env: ENV,
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15_000,
    });
  } catch (error) {
    const stdout = (error as { stdout?: unknown }).stdout;
    return typeof stdout === "string" ? stdout : undefined;
  }
}

function rows(args: string[]): PsRow[] {
  const out = run("ps", ["-ww", "-o", FIELDS, ...args]) ?? "";
  const parsed: PsRow[] = [];
  for (const line of out.split("\n")) {
    const row = parsePsLine(line);
    if (row) parsed.push(row);
  }
  return parsed;
}

function validPid(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0;
}

/** lsof's -F output as (pid, field letter, value) records. */
function lsofFields(out: string): { pid: number; field: string; value: string }[] {
  const records: { pid: number; field: string; value: string }[] = [];
  let pid = 0;
  for (const line of out.split("\n")) {
    if (!line) continue;
    const field = line.charAt(0);
    const value = line.slice(1);
    if (field === "p") pid = Number(value);
    else if (pid > 0) records.push({ pid, field, value });
  }
  return records;
}

let cachedBootId: string | undefined;

export const psBackend: ProcessBackend = {
  name: "ps",

  unusable() {
    const missing = ["ps", "lsof"].filter((tool) => !locate(tool));
    return missing.length > 0 ? `${missing.join(" and ")} cannot be found on PATH` : undefined;
  },

  stat(pid) {
    if (!validPid(pid)) return undefined;
    const row = rows(["-p", String(pid)]).find((candidate) => candidate.pid === pid);
    if (!row) return undefined;
    const { command: _command, ...stat } = row;
    return stat;
  },

  list() {
    return rows(["-A"]);
  },

  command(pid) {
    if (!validPid(pid)) return undefined;
    return rows(["-p", String(pid)]).find((candidate) => candidate.pid === pid)?.command || undefined;
  },

  cwd(pid) {
    if (!validPid(pid)) return undefined;
    const out = run("lsof", ["-w", "-a", "-d", "cwd", "-p", String(pid), "-Fn"]) ?? "";
    return lsofFields(out).find((record) => record.pid === pid && record.field === "n")?.value;
  },

  cwds() {
    const out = run("lsof", ["-w", "-d", "cwd", "-Fn"]) ?? "";
    const map = new Map<number, string>();
    for (const record of lsofFields(out)) if (record.field === "n") map.set(record.pid, record.value);
    return map;
  },

  bootId() {
    if (cachedBootId === undefined) {
      // macOS and the BSDs: "{ sec = 1764680364, usec = 181422 } Wed Dec  2 ...". Linux has
      // no kern.boottime: there the start of process 1 is the boot's identity.
      const boot = process.platform === "linux" ? undefined : run("sysctl", ["-n", "kern.boottime"])?.trim();
      if (boot) cachedBootId = `boottime ${boot.replace(/\s*}.*$/, " }")}`;
      else {
        const init = rows(["-p", "1"])[0];
        cachedBootId = init ? `init ${init.startTime}` : "";
      }
    }
    return cachedBootId;
  },

  /** "pid/fd" of each socket listening on the port, as lsof sees it (another user's only as root). */
  listeners(port) {
    const ids = new Set<string>();
    if (!Number.isInteger(port) || port <= 0 || port > 65535) return ids;
    const out = run("lsof", ["-w", "-n", "-P", `-iTCP:${port}`, "-sTCP:LISTEN", "-Fpf"]) ?? "";
    for (const record of lsofFields(out)) if (record.field === "f") ids.add(`${record.pid}/${record.value}`);
    return ids;
  },

  socketOwners(ids, among) {
    const owners = new Set<number>();
    for (const id of ids) {
      const pid = Number(id.slice(0, id.indexOf("/")));
      if (validPid(pid)) owners.add(pid);
    }
    const list = [...owners];
    return among ? list.filter((pid) => among.includes(pid)) : list;
  },
};
