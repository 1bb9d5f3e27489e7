// What a build wrote: pages (HTML files) and bytes, counted from the output folder.
import { statSync } from "node:fs";
import { join } from "node:path";
import { walkFiles } from "../files.ts";

export interface DistStats {
  exists: boolean;
  pageCount: number;
  fileCount: number;
  distBytes: number;
  /** The largest JavaScript files, biggest first, paths relative to the output folder. */
  largestScripts: { file: string; bytes: number }[];
}

/** Counts the output folder; with `since`, only files written at or after that time (ms since epoch). */
export function distStats(dir: string, since?: number): DistStats {
  let exists = false;
  try {
    exists = statSync(dir).isDirectory();
  } catch {
    exists = false;
  }
  const stats: DistStats = { exists, pageCount: 0, fileCount: 0, distBytes: 0, largestScripts: [] };
  if (!exists) return stats;
  const scripts: { file: string; bytes: number }[] = [];
  for (const file of walkFiles(dir)) {
    const info = statSync(join(dir, file));
    if (since !== undefined && info.mtimeMs < since) continue;
    stats.fileCount++;
    stats.distBytes += info.size;
    if (file.endsWith(".html")) stats.pageCount++;
    if (/\.m?js$/.test(file)) scripts.push({ file, bytes: info.size });
  }
  stats.largestScripts = scripts.sort((a, b) => b.bytes - a.bytes).slice(0, 5);
  return stats;
}
