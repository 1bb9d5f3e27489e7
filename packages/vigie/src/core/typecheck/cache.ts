// The type check's results kept by what they depend on: the content of every file of the
// project the check may read (sources, content, configs, `.env` files), the lockfile, the
// versions of astro, @astrojs/check and typescript, and the packages linked into
// node_modules from outside it (a monorepo's workspaces). An unchanged project costs nothing;
// any change of those is a new key. Kept in node_modules/.cache/vigie/check/ (where a CI job
// can restore it), the newest CACHE_ENTRIES; VIGIE_CHECK_CACHE=off turns it off.
import { createHash } from "node:crypto";
import { type Dirent, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { readJson, walkFiles } from "../files.ts";
import type { Project } from "../project.ts";

/** Bumped when what is kept, or how the key is made, changes. */
const FORMAT = 1;
export const CACHE_ENTRIES = 20;
/** Past this many files, or bytes read, the project is not keyed (the check runs every time). */
const MAX_FILES = 20_000;
const MAX_BYTES = 256 * 1024 * 1024;
/** Files read whole for the key; the others (images, fonts, media) by path and size. */
const TEXT = /\.(m|c)?(t|j)sx?$|\.(astro|mdx?|markdoc|json|jsonc|json5|ya?ml|toml|csv|vue|svelte|html|d\.ts)$|^\.env|^tsconfig|config/i;
/** Folders whose files no type check reads: dependencies (the lockfile stands for them), outputs. */
const SKIP = new Set(["node_modules", "dist"]);
const LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"];
const TOOLS = ["astro", "@astrojs/check", "typescript"];

export interface CacheKey {
  key: string;
  files: number;
}

/** The key of the project as it is now, or why it has none. */
export function checkCacheKey(project: Project, command: readonly string[]): CacheKey | { none: string } {
  const hash = createHash("sha256");
  hash.update(`vigie check cache ${FORMAT}\n${command.join(" ")}\n`);
  const budget = { files: 0, bytes: 0 };
  const add = (base: string, rel: string): boolean => {
    budget.files += 1;
    if (budget.files > MAX_FILES || budget.bytes > MAX_BYTES) return false;
    const path = join(base, rel);
    try {
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      if (TEXT.test(name)) {
        const content = readFileSync(path);
        budget.bytes += content.length;
        hash.update(`${rel}\0${content.length}\0`).update(content).update("\0");
      } else hash.update(`${rel}\0${statSync(path).size}\0`);
    } catch {
      hash.update(`${rel}\0unreadable\0`);
    }
    return true;
  };
  const addTree = (base: string, label: string): boolean => {
    for (const rel of walkFiles(base, { skip: SKIP })) if (!add(base, rel)) return false;
    // Dot files at the top (.env, .env.production): astro:env's types come from them.
    for (const name of topDotFiles(base)) if (!add(base, name)) return false;
    hash.update(`end of ${label}\n`);
    return true;
  };
  if (!addTree(project.root, ".")) return { none: `more than ${MAX_FILES} files or ${MAX_BYTES >> 20} MB to key` };
  const lock = nearestLockfile(project.root);
  if (lock) add(dirname(lock), relative(dirname(lock), lock).split(sep).join("/"));
  else hash.update("no lockfile\n");
  for (const [name, version] of toolVersions(project)) hash.update(`${name}@${version}\n`);
  for (const linked of linkedPackages(project.root)) {
    if (!addTree(linked, linked)) return { none: `more than ${MAX_FILES} files or ${MAX_BYTES >> 20} MB to key` };
  }
  for (const file of extendedConfigs(project.root)) add(dirname(file), file.slice(dirname(file).length + 1));
  return { key: hash.digest("hex").slice(0, 32), files: budget.files };
}

function topDotFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.startsWith(".env"))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

function nearestLockfile(root: string): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    for (const name of LOCKFILES) {
      const path = join(dir, name);
      try {
        if (statSync(path).isFile()) return path;
      } catch {}
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function toolVersions(project: Project): [string, string][] {
  const require = createRequire(join(project.root, "package.json"));
  return TOOLS.map((name) => {
    try {
      return [name, String(readJson(require.resolve(`${name}/package.json`))?.version ?? "?")];
    } catch {
      return [name, "missing"];
    }
  });
}

/** Packages that node_modules folders on the way up link to from outside any node_modules (workspaces). */
function linkedPackages(root: string): string[] {
  const found = new Set<string>();
  const visit = (folder: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.name.startsWith("@") && entry.isDirectory()) visit(path);
      else if (entry.isSymbolicLink()) {
        try {
          const real = realpathSync(path);
          const inside = resolve(root) === real || real.startsWith(`${resolve(root)}${sep}`);
          if (!real.split(sep).includes("node_modules") && !inside) found.add(real);
        } catch {}
      }
    }
  };
  for (let dir = root; ; dir = dirname(dir)) {
    visit(join(dir, "node_modules"));
    if (dirname(dir) === dir) break;
  }
  return [...found].sort();
}

/** tsconfig files outside the project that its tsconfig.json extends by a relative path. */
function extendedConfigs(root: string): string[] {
  const found: string[] = [];
  let file = join(root, "tsconfig.json");
  for (let depth = 0; depth < 5; depth += 1) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      break;
    }
    const extended = /"extends"\s*:\s*"(\.{1,2}\/[^"]+)"/.exec(text)?.[1];
    if (!extended) break;
    file = resolve(dirname(file), extended.endsWith(".json") ? extended : `${extended}.json`);
    if (!file.startsWith(`${resolve(root)}${sep}`)) found.push(file);
  }
  return found;
}

/** Where the results are kept: node_modules/.cache/vigie/check of the node_modules that holds astro. */
export function cacheDir(project: Project): string | undefined {
  try {
    const astro = createRequire(join(project.root, "package.json")).resolve("astro/package.json");
    return join(dirname(dirname(astro)), ".cache", "vigie", "check");
  } catch {
    return undefined;
  }
}

export const cacheOff = () => /^(off|0|false|no)$/i.test(process.env.VIGIE_CHECK_CACHE ?? "");

export interface CachedRun<T> {
  /** When the check that made it ran (ISO time). */
  at: string;
  files: number;
  value: T;
}

export function readCached<T>(dir: string, key: string): CachedRun<T> | undefined {
  const entry = readJson(join(dir, `${key}.json`));
  return entry && entry.format === FORMAT ? (entry as unknown as CachedRun<T>) : undefined;
}

/** Keeps a run's result, and only the newest CACHE_ENTRIES. Never throws. */
export function writeCached<T>(dir: string, key: CacheKey, value: T): void {
  try {
    mkdirSync(dir, { recursive: true });
    const entry = { format: FORMAT, at: new Date().toISOString(), files: key.files, value };
    const temp = join(dir, `${key.key}.${process.pid}.tmp`);
    writeFileSync(temp, JSON.stringify(entry));
    // A rename, so a reader never sees half a file.
    renameSync(temp, join(dir, `${key.key}.json`));
    const entries = readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .map((name) => ({ name, mtime: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of entries.slice(CACHE_ENTRIES)) rmSync(join(dir, old.name), { force: true });
  } catch {
    // A cache that cannot be written costs the next run a check, nothing more.
  }
}
