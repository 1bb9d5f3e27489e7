// What the system says about a process: enough to recognise our server after the process
// that started it is gone, and to never signal a process that is not ours. Two backends
// behind one interface, chosen at run time: /proc on Linux, ps and lsof elsewhere (macOS,
// the BSDs). VIGIE_PROCESS_BACKEND=proc|ps forces one (the tests run the suite with both).
import { clip, VigieError } from "../answer.ts";
import type { ProcessBackend, ProcStat } from "./backend.ts";
import { procBackend } from "./procBackend.ts";
import { psBackend } from "./psBackend.ts";

export type { ProcessBackend, ProcStat } from "./backend.ts";

export const BACKEND_VARIABLE = "VIGIE_PROCESS_BACKEND";
const NAMES = ["proc", "ps"] as const;

/** The backend this process uses: the forced one, else /proc where it exists, else ps/lsof. */
export function processBackend(): ProcessBackend {
  const forced = process.env[BACKEND_VARIABLE];
  if (forced === "proc") return procBackend;
  if (forced === "ps") return psBackend;
  return procBackend.unusable() === undefined ? procBackend : psBackend;
}

/**
 * How often to look again while waiting on processes: reading /proc costs well under a
 * millisecond, a `ps` or `lsof` run tens of milliseconds that block this process, so the
 * ps backend looks four times less often.
 */
export function pollMs(): number {
  return processBackend().name === "ps" ? 100 : 25;
}

const WINDOWS_HINT =
  "Run vigie inside WSL 2 (keep the project in the Linux file system), where every tool works; " +
  "or start the dev server yourself (`npm run dev`) and use the build and browser tools.";

/**
 * The dev-server tools must recognise their processes and stop a whole process group:
 * without a usable backend they refuse to act. (The name is from when /proc was the only one.)
 */
export function requireProc(): void {
  if (process.platform === "win32") {
    throw new VigieError(
      "the dev-server tools do not run on Windows: they stop a server's whole process tree and never a process that is not theirs, and Windows gives Node neither process groups nor a way to check a pid's identity",
      WINDOWS_HINT,
    );
  }
  const forced = process.env[BACKEND_VARIABLE];
  if (forced !== undefined && forced !== "" && !(NAMES as readonly string[]).includes(forced)) {
    throw new VigieError(
      `${BACKEND_VARIABLE} is "${clip(forced, 40)}", which names no process backend`,
      `Set ${BACKEND_VARIABLE} to "proc" (Linux's /proc) or "ps" (ps and lsof, as on macOS), or unset it to choose by system.`,
    );
  }
  const backend = processBackend();
  const reason = backend.unusable();
  if (reason === undefined) return;
  throw new VigieError(
    `the dev-server tools cannot inspect processes here: ${reason}`,
    backend.name === "proc"
      ? `Run vigie on Linux, or set ${BACKEND_VARIABLE}=ps to use ps and lsof.`
      : "Install ps and lsof (Debian/Ubuntu: `apt-get install -y procps lsof`; macOS has both in /bin and /usr/sbin).",
  );
}

/** One process's pid, state, parent, group and start time, or undefined when there is no such process. */
export function readProcStat(pid: number): ProcStat | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return processBackend().stat(pid);
}

/** A zombie has exited: it only waits for its parent to read its status. */
export function isLive(stat: ProcStat | undefined): stat is ProcStat {
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

/** Every process this user can see, live or zombie. */
export function listProcesses(): ProcStat[] {
  return processBackend().list();
}

/** The live processes of a process group. */
export function groupMembers(pgid: number): number[] {
  return processBackend()
    .list()
    .filter((stat) => isLive(stat) && stat.pgid === pgid)
    .map((stat) => stat.pid);
}

/** The command line of a process, short, or undefined when it cannot be read. */
export function commandOf(pid: number, max = 160): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const text = processBackend().command(pid);
  return text ? clip(text, max) : undefined;
}

/** The working directory of a process, or undefined when it cannot be read. */
export function cwdOf(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return processBackend().cwd(pid);
}

/** The working directory of every process this user may inspect, by pid. */
export function workingDirectories(): Map<number, string> {
  return processBackend().cwds();
}

/** Changes at every boot: a start time recorded before a reboot means nothing after it. */
export function bootId(): string {
  return processBackend().bootId();
}

/** The process ids that hold one of these sockets (best effort: other users' processes may be hidden). */
export function socketOwners(inodes: ReadonlySet<string>, among?: readonly number[]): number[] {
  if (inodes.size === 0) return [];
  return processBackend().socketOwners(inodes, among);
}
