import { readFileSync } from "node:fs";
import { commandOf, listProcesses } from "../packages/vigie/src/core/process/inspect.ts";

/** Median of a list of numbers (NaN for none): the core's. */
export { median } from "../packages/vigie/src/core/stats.ts";

export function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/** Clock ticks are 10 ms on Linux. */
const TICK_MS = 10;

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses): field 3 first. */
export function procStatFields(pid: number | "self"): string[] {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ");
}

/** CPU time (user + system, ms) of a process, from the fields `procStatFields` gives; `children` for its waited-for children. */
export function cpuMs(fields: string[], children = false): number {
  const at = children ? 13 : 11;
  return (Number(fields[at]) + Number(fields[at + 1])) * TICK_MS;
}

/**
 * CPU time (ms) of this process and of the Chromium processes it started that run now, by
 * Chromium's process type (renderer, gpu-process, the browser itself...). Linux only; processes
 * that ended in between are not counted, nor any other process's Chromium on the machine.
 */
export function cpuByProcessType(): Record<string, number> {
  const totals: Record<string, number> = {};
  const processes = listProcesses();
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const { pid, ppid } of processes) {
      if (ours.has(ppid) && !ours.has(pid)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  for (const { pid } of processes) {
    if (!ours.has(pid)) continue;
    try {
      const own = pid === process.pid;
      const command = own ? "" : (commandOf(pid, 100_000) ?? "");
      if (!own && !/chrom/i.test(command)) continue;
      const kind = own ? "node (vigie, Playwright's client)" : (command.match(/--type=([a-z-]+)/)?.[1] ?? "browser");
      totals[kind] = (totals[kind] ?? 0) + cpuMs(procStatFields(pid));
    } catch {
      // gone in between
    }
  }
  return totals;
}

/** What each kind of process spent between two `cpuByProcessType()` readings, per unit of work. */
export function cpuPer(before: Record<string, number>, after: Record<string, number>, units: number): string {
  const spent = Object.entries(after)
    .map(([kind, value]) => [kind, (value - (before[kind] ?? 0)) / units] as const)
    .filter(([, value]) => value >= 1)
    .sort((a, b) => b[1] - a[1]);
  const total = spent.reduce((sum, [, value]) => sum + value, 0);
  return `${Math.round(total)} ms (${spent.map(([kind, value]) => `${kind} ${Math.round(value)}`).join(", ")})`;
}
