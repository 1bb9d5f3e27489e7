import { readdirSync, readFileSync } from "node:fs";

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

/**
 * CPU time (ms, user + system) of this process and of the Chromium processes running now,
 * by Chromium's process type (renderer, gpu-process, the browser itself...). Linux only:
 * read from /proc; processes that ended in between are not counted.
 */
export function cpuByProcessType(): Record<string, number> {
  const ticks = 1000 / 100;
  const totals: Record<string, number> = {};
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const own = Number(pid) === process.pid;
      const command = own ? "" : readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (!own && !/chrom/i.test(command)) continue;
      const kind = own ? "node (vigie, Playwright's client)" : (command.match(/--type=([a-z-]+)/)?.[1] ?? "browser");
      const fields = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
      totals[kind] = (totals[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) * ticks;
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
