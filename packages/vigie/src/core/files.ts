// Small readers of files and URL paths that the core shares; none of them throws.
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join, normalize, resolve, sep } from "node:path";

/** Whether a path is a regular file (false when it does not exist or cannot be read). */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A file's text, or undefined when it cannot be read. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export interface WalkOptions {
  /** Folders not entered, by name (besides those whose name starts with a dot, unless `hidden`). */
  skip?: ReadonlySet<string>;
  /** Files and folders whose name starts with a dot are read too (a Vercel function's bundle is under `.vercel/`). */
  hidden?: boolean;
  /** The deepest level of folders read (`dir` is level 0); default: no limit. */
  maxDepth?: number;
  /** The files kept, by name; default: all. */
  keep?: (name: string) => boolean;
  /** Stops once this many files are found. */
  limit?: number;
}

/**
 * Every file under `dir`, as paths relative to it with forward slashes, sorted. Files and
 * folders whose name starts with a dot are left out; a folder that cannot be read is skipped.
 */
export function walkFiles(dir: string, options: WalkOptions = {}): string[] {
  const { skip, maxDepth = Number.POSITIVE_INFINITY, keep, limit = Number.POSITIVE_INFINITY, hidden = false } = options;
  const found: string[] = [];
  const pending: { folder: string; prefix: string; depth: number }[] = [{ folder: dir, prefix: "", depth: 0 }];
  for (let next = pending.pop(); next && found.length < limit; next = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(next.folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if ((!hidden && entry.name.startsWith(".")) || skip?.has(entry.name)) continue;
      const path = `${next.prefix}${entry.name}`;
      if (entry.isDirectory()) {
        if (next.depth < maxDepth) pending.push({ folder: join(next.folder, entry.name), prefix: `${path}/`, depth: next.depth + 1 });
      } else if (entry.isFile() && (!keep || keep(entry.name)) && found.length < limit) found.push(path);
    }
  }
  return found.sort();
}

/** A JSON file's object, or undefined when it cannot be read, is not JSON or holds no object. */
export function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The percent-decoded text, or the text itself when its percent-encoding is invalid. */
export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The file a static server answers a URL path with under `root` (a resolved folder): x, then
 * x/index.html, then x.html; undefined for a path that does not decode, leaves root or finds nothing.
 */
export function servedFile(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const target = resolve(root, `.${normalize(`/${decoded}`)}`);
  if (target !== root && !target.startsWith(`${root}${sep}`)) return undefined;
  return [target, join(target, "index.html"), `${target}.html`].find(isFile);
}
