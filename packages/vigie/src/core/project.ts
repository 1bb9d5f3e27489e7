import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The web project vigie works on, and where vigie keeps its runtime state. */
export interface Project {
  /** Absolute path of the project's root (the folder with package.json). */
  root: string;
  /** Absolute path of `.opencode/` inside the root: logs, pid/port files, reports, screenshots. */
  stateDir: string;
}

const MARKERS = ["astro.config.mjs", "astro.config.ts", "astro.config.js", "astro.config.mts", "package.json"];

/**
 * The project that contains `start` (default: the current directory): the nearest
 * folder upwards with an Astro config, else the nearest with a package.json.
 */
export function resolveProject(start: string = process.cwd()): Project {
  const from = resolve(start);
  let packageRoot: string | undefined;
  for (let dir = from; ; dir = dirname(dir)) {
    if (MARKERS.slice(0, 4).some((name) => existsSync(join(dir, name)))) return projectAt(dir);
    if (!packageRoot && existsSync(join(dir, "package.json"))) packageRoot = dir;
    if (dirname(dir) === dir) break;
  }
  if (packageRoot) return projectAt(packageRoot);
  throw new ProjectNotFoundError(from);
}

export function projectAt(root: string): Project {
  return { root: resolve(root), stateDir: join(resolve(root), ".opencode") };
}

export class ProjectNotFoundError extends Error {
  readonly from: string;
  constructor(from: string) {
    super(`No project found at or above ${from}: no astro.config.* and no package.json.`);
    this.name = "ProjectNotFoundError";
    this.from = from;
  }
}

/** An absolute path under the state directory, its parent folder created. */
export function statePath(project: Project, ...parts: string[]): string {
  const path = join(project.stateDir, ...parts);
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

/** A path as the agent should see it: relative to the project root. */
export function relativePath(project: Project, path: string): string {
  return relative(project.root, path) || ".";
}
