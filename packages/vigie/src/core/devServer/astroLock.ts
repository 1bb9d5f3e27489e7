// Astro 7 keeps its own lock per project (.astro/dev.json, .astro/preview.json) and
// refuses to start a second server while the pid in it looks alive (a zombie does). A
// server ended by a signal leaves it behind; `astro dev stop` removes it itself, so do we.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Project } from "../project.ts";

const LOCKS = ["dev.json", "preview.json"];

/** Removes Astro's lock files whose pid `shouldRemove` accepts; returns the files removed. */
export function removeAstroLocks(project: Project, shouldRemove: (pid: number) => boolean): string[] {
  const removed: string[] = [];
  for (const name of LOCKS) {
    const path = join(project.root, ".astro", name);
    let pid: unknown;
    try {
      pid = (JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown }).pid;
    } catch {
      continue;
    }
    if (typeof pid === "number" && shouldRemove(pid)) {
      rmSync(path, { force: true });
      removed.push(path);
    }
  }
  return removed;
}
