// Projects a new user would have: a temporary Astro site made from npm packages only, with
// vigie installed from the tarball of `npm pack` (what the registry would serve), and the
// commands run in it the way a user runs them (npx). Every process started here runs in its
// own process group, ended on timeout and by `remove()`.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { isLive, readProcStat } from "../../packages/vigie/src/core/process/inspect.ts";
import { BLOG_ROOT, killGroup } from "../../packages/vigie/test/support/blog.ts";
import { STARLIGHT, starlightFiles } from "./sites.ts";

export const VIGIE_PACKAGE = join(BLOG_ROOT, "packages", "vigie");

/** The versions this repository pins, so that the temporary sites run the same stack. */
function rootVersions(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(BLOG_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  return { ...manifest.dependencies, ...manifest.devDependencies };
}

export const ASTRO_VERSION = "7.3.5";
export const NODE_VERSION = rootVersions().node ?? "24.21.0";
export const OPENCODE_PLUGIN_VERSION = rootVersions()["opencode-ai"] ?? "1.18.33";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

const running = new Set<ChildProcess>();

/**
 * Runs a command in its own process group and resolves with its output; on timeout the
 * group gets TERM, then KILL 5 s later, and the result says so (code null).
 */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<RunResult> {
  const started = Date.now();
  const child = spawn(command, args, {
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ASTRO_TELEMETRY_DISABLED: "1", npm_config_update_notifier: "false", ...options.env },
  });
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let kill: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    killGroup(child, "SIGTERM");
    kill = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
  }, options.timeoutMs);
  try {
    const [code, signal] = await exited;
    return { code, signal, stdout, stderr, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
    clearTimeout(kill);
    running.delete(child);
  }
}

/** Ends every process group started by `run` that is still alive (for `after` hooks). */
export function endAll(): void {
  for (const child of running) {
    killGroup(child, "SIGKILL");
    running.delete(child);
  }
}

/**
 * Removes the entries of `dir` named `prefix…` that nothing has touched for a day: earlier
 * tarballs and installs. Recent ones stay, since another checkout's tests may be using them.
 */
function removeStale(dir: string, prefix: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    try {
      if (statSync(join(dir, name)).mtimeMs < dayAgo) rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      // removed meanwhile
    }
  }
}

/** `npm pack` of packages/vigie (its prepack compiles dist/) into `destination`; the tarball's path. */
export async function packVigie(destination: string): Promise<{ tarball: string; bytes: number; ms: number }> {
  mkdirSync(destination, { recursive: true });
  const result = await run("npm", ["pack", "--json", "--pack-destination", destination], { cwd: VIGIE_PACKAGE, timeoutMs: 300_000 });
  if (result.code !== 0) throw new Error(`npm pack failed (${result.code ?? result.signal}):\n${result.stderr.slice(-3000)}`);
  const [packed] = JSON.parse(result.stdout.slice(result.stdout.indexOf("["))) as { filename: string; size: number }[];
  if (!packed) throw new Error(`npm pack printed no tarball:\n${result.stdout.slice(-2000)}`);
  return { tarball: join(destination, packed.filename), bytes: packed.size, ms: result.ms };
}

/**
 * One attempt at the lock folder `busy`, shared by the test files of this machine: true when
 * this process now holds it (its pid written inside; the caller removes the folder when done).
 * Otherwise it waits a second and answers false, having removed the lock if its holder is gone:
 * a run that was killed (or a machine restarted mid-run) leaves it behind, and its work is never
 * finished by anyone. A holder still alive after `timeoutMs` is an error naming the lock.
 */
export async function takeLock(busy: string, what: string, timeoutMs: number): Promise<boolean> {
  try {
    mkdirSync(busy);
    writeFileSync(join(busy, "pid"), String(process.pid));
    return true;
  } catch {
    let pid = Number.NaN;
    let age = 0;
    try {
      age = Date.now() - statSync(busy).mtimeMs;
      pid = Number(readFileSync(join(busy, "pid"), "utf8"));
    } catch {
      // released meanwhile, or taken an instant ago and its pid not yet written
    }
    // A lock with no pid after a few seconds is from an older run (or its holder died at once).
    const abandoned = Number.isInteger(pid) && pid > 0 ? !isLive(readProcStat(pid)) : age > 10_000;
    if (abandoned || age > 2 * timeoutMs) {
      rmSync(busy, { recursive: true, force: true });
      return false;
    }
    if (age > timeoutMs) throw new Error(`${what} by another test file (pid ${pid}) did not end in ${timeoutMs} ms (lock ${busy})`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return false;
  }
}

/**
 * The tarball of the package as it is now, packed once and kept in the system's temporary
 * folder under a hash of the package's files (every test file of a run, and the next run
 * while nothing changed, reuse it); tarballs unused for a day are removed.
 */
export async function packedVigie(): Promise<{ tarball: string; bytes: number; ms: number; cached: boolean }> {
  const hash = createHash("sha256");
  const files = (readdirSync(VIGIE_PACKAGE, { recursive: true }) as string[])
    .filter((path) => !/^(node_modules|dist|test)(\/|$)/.test(path))
    .sort();
  for (const path of files) {
    const absolute = join(VIGIE_PACKAGE, path);
    if (!statSync(absolute).isFile()) continue;
    hash.update(`${path}\0`).update(readFileSync(absolute));
  }
  const name = `vigie-tarball-${hash.digest("hex").slice(0, 16)}`;
  const folder = join(tmpdir(), name);
  // Two test files packing at once would race in packages/vigie (prepack removes dist/): one packs, the other waits for it.
  const busy = join(tmpdir(), `vigie-packing-${createHash("sha256").update(VIGIE_PACKAGE).digest("hex").slice(0, 12)}`);
  for (;;) {
    const existing = existsSync(folder) ? readdirSync(folder).find((file) => file.endsWith(".tgz")) : undefined;
    if (existing) {
      const tarball = join(folder, existing);
      utimesSync(folder, new Date(), new Date());
      return { tarball, bytes: statSync(tarball).size, ms: 0, cached: true };
    }
    if (await takeLock(busy, "npm pack of vigie", 600_000)) break;
  }
  removeStale(tmpdir(), "vigie-tarball-");
  const staging = mkdtempSync(join(tmpdir(), "vigie-pack-"));
  try {
    const packed = await packVigie(staging);
    renameSync(staging, folder);
    return { tarball: join(folder, packed.tarball.slice(staging.length + 1)), bytes: packed.bytes, ms: packed.ms, cached: false };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(busy, { recursive: true, force: true });
  }
}

export interface SiteSpec {
  /** A short name: the temporary folder's, and the pinned lock's (test/sites/<name>.package-lock.json). */
  name: string;
  /** Files of the site, by path relative to its root (package.json is written from `dependencies`). */
  files: Record<string, string>;
  /** Files and folders of this repository copied into the site first, as they are (images included). */
  copy?: string[];
  /** Registry packages besides astro, node and vigie: name → version. */
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  /** npm's allowScripts of the site's package.json, besides node's and esbuild's. */
  allowScripts?: Record<string, boolean>;
}

export interface InstalledSite {
  root: string;
  /** ms of the site's `npm ci` (0 when this run or an earlier one had installed it already). */
  installMs: number;
  /** Whether the packages came from an install made earlier (this run's, or a previous run's while nothing changed). */
  cached: boolean;
  /** `npx --no-install vigie <args>` in the site. */
  vigie(args: string[], timeoutMs?: number): Promise<RunResult>;
  read(path: string): string;
  write(path: string, text: string): void;
  /** Ends what is still running and removes the folder. */
  remove(): void;
}

/**
 * The packages of the site named "islands" (React, Preact, Solid, Vue and Svelte islands): every
 * test file that installs a site of that name gives these, so that its pinned lock fits them all.
 */
export const ISLANDS_DEPENDENCIES: Record<string, string> = {
  "@astrojs/preact": "6.0.5",
  "@astrojs/react": "7.1.1",
  "@astrojs/solid-js": "7.0.2",
  "@astrojs/vue": "7.0.3",
  "@astrojs/svelte": "9.0.1",
  react: "19.3.1",
  "react-dom": "19.3.1",
  preact: "10.29.8",
  "solid-js": "1.9.20",
  vue: "3.5.46",
  svelte: "5.57.3",
  typescript: "6.0.3",
};

/** Where the pinned locks of the sites made from npm are kept: `<name>.package-lock.json`. */
export const SITE_LOCKS = join(BLOG_ROOT, "test", "sites");

/** The tarball's name inside an installed site: fixed, so that the site's lock does not name a temporary folder. */
const TARBALL_NAME = "vigie.tgz";

function siteManifest(spec: SiteSpec): object {
  return {
    name: `vigie-test-${spec.name}`,
    private: true,
    type: "module",
    scripts: { dev: "astro dev", build: "astro build", preview: "astro preview" },
    dependencies: { astro: ASTRO_VERSION, ...spec.dependencies },
    devDependencies: { node: NODE_VERSION, vigie: `file:${TARBALL_NAME}`, ...spec.devDependencies },
    allowScripts: { node: true, esbuild: true, "msgpackr-extract": false, ...spec.allowScripts },
  };
}

/**
 * The lock kept in the repository for `spec`, as npm ci must read it: the integrity of
 * vigie's own tarball is dropped (it changes with every change of the package; its
 * dependencies stay pinned).
 */
function pinnedLock(spec: SiteSpec): string | undefined {
  const path = join(SITE_LOCKS, `${spec.name}.package-lock.json`);
  if (!existsSync(path)) return undefined;
  const lock = JSON.parse(readFileSync(path, "utf8")) as { packages?: Record<string, { integrity?: string }> };
  delete lock.packages?.["node_modules/vigie"]?.integrity;
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/**
 * The site's packages, installed once per run (and kept while nothing changes) in the
 * system's temporary folder under a hash of its manifest, its pinned lock and the tarball:
 * `npm ci --prefer-offline` from the lock in test/sites/, or, without a lock (a new site,
 * or VIGIE_UPDATE_LOCKS=1), `npm install`, whose lock is then written to test/sites/ to be
 * committed. In CI (CI set) a missing or stale lock is an error. Concurrent test files wait
 * for one another's install instead of repeating it.
 */
async function installedPackages(
  spec: SiteSpec,
  tarball: string,
  timeoutMs: number,
): Promise<{ folder: string; ms: number; cached: boolean }> {
  const manifest = `${JSON.stringify(siteManifest(spec), null, 2)}\n`;
  const update = process.env.VIGIE_UPDATE_LOCKS === "1";
  const lock = update ? undefined : pinnedLock(spec);
  if (!lock && process.env.CI && !update) {
    throw new Error(
      `the ${spec.name} site has no pinned lock (test/sites/${spec.name}.package-lock.json): run its test once with VIGIE_UPDATE_LOCKS=1 and commit the lock`,
    );
  }
  const key = createHash("sha256")
    .update(manifest)
    .update(lock ?? "no lock")
    .update(readFileSync(tarball))
    .digest("hex")
    .slice(0, 16);
  const cache = join(tmpdir(), "vigie-sites");
  const folder = join(cache, `${spec.name}-${key}`);
  const busy = `${folder}.installing`;
  mkdirSync(cache, { recursive: true });
  // Another test file may be installing the same site: wait for it (its lock folder is removed when done).
  for (;;) {
    if (existsSync(join(folder, "node_modules"))) {
      utimesSync(folder, new Date(), new Date());
      return { folder, ms: 0, cached: true };
    }
    if (await takeLock(busy, `the ${spec.name} site's install`, timeoutMs)) break;
  }
  const staging = mkdtempSync(join(cache, `${spec.name}-staging-`));
  try {
    removeStale(cache, `${spec.name}-`);
    writeFileSync(join(staging, "package.json"), manifest);
    cpSync(tarball, join(staging, TARBALL_NAME));
    if (lock) writeFileSync(join(staging, "package-lock.json"), lock);
    const args = lock
      ? ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"]
      : ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];
    let install = await run("npm", args, { cwd: staging, timeoutMs });
    // npm's cached metadata can be older than the lock (a version published since): ask the registry.
    if (install.code !== 0 && install.code !== null && !/in sync|out of date|Missing: /i.test(install.stderr))
      install = await run(
        "npm",
        args.filter((arg) => arg !== "--prefer-offline"),
        { cwd: staging, timeoutMs },
      );
    if (install.code !== 0) {
      const stale = /in sync|out of date|Missing: /i.test(install.stderr);
      throw new Error(
        `npm ${args[0]} in the ${spec.name} site failed (${install.code ?? `timed out after ${timeoutMs} ms`})${
          stale ? `: its lock is stale; run its test with VIGIE_UPDATE_LOCKS=1 and commit test/sites/${spec.name}.package-lock.json` : ""
        }:\n${install.stderr.slice(-3000)}`,
      );
    }
    if (!lock) {
      mkdirSync(SITE_LOCKS, { recursive: true });
      cpSync(join(staging, "package-lock.json"), join(SITE_LOCKS, `${spec.name}.package-lock.json`));
      console.log(`wrote test/sites/${spec.name}.package-lock.json: commit it`);
    }
    renameSync(staging, folder);
    return { folder, ms: install.ms, cached: false };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(busy, { recursive: true, force: true });
  }
}

/**
 * A minimal Astro site (the files of `spec`) in a temporary folder of its own, with astro,
 * the `node` package (so npm scripts and npx run on Node 24 whatever the system Node is)
 * and vigie from `tarball`. The packages are installed once per run from the site's
 * pinned lock (`installedPackages`) and copied into the folder: the site may be changed
 * freely, the install it came from never is. Install scripts: only the `node` package's
 * and esbuild's are allowed, as a careful user would.
 */
export async function installSite(spec: SiteSpec, tarball: string, timeoutMs = 600_000): Promise<InstalledSite> {
  const packages = await installedPackages(spec, tarball, timeoutMs);
  const root = mkdtempSync(join(tmpdir(), `vigie-site-${spec.name}-`));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const remove = () => {
    endAll();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    for (const path of spec.copy ?? []) cpSync(join(BLOG_ROOT, path), join(root, path), { recursive: true });
    for (const file of ["package.json", "package-lock.json", TARBALL_NAME]) cpSync(join(packages.folder, file), join(root, file));
    // A real copy (links would let the site's tools write into the shared install); cp keeps the links inside node_modules/.bin.
    const copied = await run("cp", ["-a", join(packages.folder, "node_modules"), join(root, "node_modules")], { cwd: root, timeoutMs });
    if (copied.code !== 0) throw new Error(`copying the ${spec.name} site's node_modules failed: ${copied.stderr.slice(-1000)}`);
    for (const [path, text] of Object.entries(spec.files)) write(path, text);
  } catch (error) {
    remove();
    throw error;
  }
  return {
    root,
    installMs: packages.ms,
    cached: packages.cached,
    vigie: (args, ms = 300_000) => run("npx", ["--no-install", "vigie", ...args], { cwd: root, timeoutMs: ms }),
    read: (path) => readFileSync(join(root, path), "utf8"),
    write,
    remove,
  };
}

const page = (title: string, body: string) => `---
const title = ${JSON.stringify(title)};
---
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," /><title>{title}</title></head>
  <body><main><h1>{title}</h1>${body}</main></body>
</html>
`;

/** The minimal site: two .astro pages and one .md page with a layout, no integration, one language. */
export const MINIMAL_SITE: SiteSpec = {
  name: "minimal",
  files: {
    "astro.config.mjs": 'import { defineConfig } from "astro/config";\n\nexport default defineConfig({});\n',
    "src/pages/index.astro": page("Home", '<p><a href="/about/">About</a> and <a href="/notes/">notes</a>.</p>'),
    "src/pages/about.astro": page("About", '<p>Back <a href="/">home</a>.</p>'),
    "src/layouts/Base.astro": `---
const { frontmatter } = Astro.props;
---
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width" /><link rel="icon" href="data:," /><title>{frontmatter.title}</title></head>
  <body><main><slot /></main></body>
</html>
`,
    "src/pages/notes.md": "---\nlayout: ../layouts/Base.astro\ntitle: Notes\n---\n\n# Notes\n\nShort notes. Back [home](/).\n",
  },
  // No @opencode-ai/plugin: the OpenCode tool files that init writes load without it.
};

/**
 * The Starlight site of test/support/sites.ts (two languages, a dozen pages, a Mermaid
 * diagram drawn by a client script), its packages from npm: @astrojs/starlight and mermaid.
 */
export const STARLIGHT_SITE: SiteSpec = {
  name: "starlight",
  files: starlightFiles(),
  dependencies: { "@astrojs/starlight": STARLIGHT.split("@").at(-1) as string, mermaid: rootVersions().mermaid ?? "^12.3.0" },
  devDependencies: { "@opencode-ai/plugin": OPENCODE_PLUGIN_VERSION },
};

/**
 * What this repository adds for itself (the workspace's tooling, the benchmark's rival MCP
 * servers, the agents its tests drive), left out of the blog's copy.
 */
const WORKSPACE_ONLY = [
  "@biomejs/biome",
  "bun",
  "opencode-ai",
  "node",
  "@playwright/mcp",
  "chrome-devtools-mcp",
  // The agents the repository's own tests drive.
  "@anthropic-ai/claude-code",
  "@google/gemini-cli",
  "@openai/codex",
];

/**
 * A copy of this blog as its author would have it in a project of its own: its sources,
 * public files, Astro and TypeScript configs and .gitignore, and its package.json's
 * dependencies without the workspace (no packages/, no repository tooling); vigie comes
 * from the tarball.
 */
export function blogCopySpec(): SiteSpec {
  const manifest = JSON.parse(readFileSync(join(BLOG_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const devDependencies = Object.fromEntries(Object.entries(manifest.devDependencies).filter(([name]) => !WORKSPACE_ONLY.includes(name)));
  return {
    name: "blog",
    copy: ["src", "public", "astro.config.mjs", "tsconfig.json", ".gitignore"],
    files: {},
    dependencies: manifest.dependencies,
    devDependencies: { ...devDependencies, "@opencode-ai/plugin": OPENCODE_PLUGIN_VERSION },
  };
}
