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
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
 * The tarball of the package as it is now, packed once and kept in the system's temporary
 * folder under a hash of the package's files (every test file of a run, and the next run
 * while nothing changed, reuse it); older tarballs there are removed.
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
  const existing = existsSync(folder) ? readdirSync(folder).find((file) => file.endsWith(".tgz")) : undefined;
  if (existing) {
    const tarball = join(folder, existing);
    return { tarball, bytes: statSync(tarball).size, ms: 0, cached: true };
  }
  for (const old of readdirSync(tmpdir()))
    if (old.startsWith("vigie-tarball-")) rmSync(join(tmpdir(), old), { recursive: true, force: true });
  const staging = mkdtempSync(join(tmpdir(), "vigie-pack-"));
  try {
    const packed = await packVigie(staging);
    renameSync(staging, folder);
    return { tarball: join(folder, packed.tarball.slice(staging.length + 1)), bytes: packed.bytes, ms: packed.ms, cached: false };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface SiteSpec {
  /** A short name for the temporary folder. */
  name: string;
  /** Files of the site, by path relative to its root (package.json is written from `dependencies`). */
  files: Record<string, string>;
  /** Files and folders of this repository copied into the site first, as they are (images included). */
  copy?: string[];
  /** Registry packages besides astro, node and vigie: name → version. */
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface InstalledSite {
  root: string;
  /** ms of `npm install`. */
  installMs: number;
  /** `npx --no-install vigie <args>` in the site. */
  vigie(args: string[], timeoutMs?: number): Promise<RunResult>;
  read(path: string): string;
  write(path: string, text: string): void;
  /** Ends what is still running and removes the folder. */
  remove(): void;
}

/**
 * A minimal Astro site (the files of `spec`) in a temporary folder, with astro, the `node`
 * package (so npm scripts and npx run on Node 24 whatever the system Node is) and vigie
 * from `tarball`, installed by `npm install --prefer-offline` (bounded by `timeoutMs`; npm's
 * cache makes the second run fast). Install scripts: only the `node` package's and
 * esbuild's are allowed, as a careful user would.
 */
export async function installSite(spec: SiteSpec, tarball: string, timeoutMs = 600_000): Promise<InstalledSite> {
  const root = mkdtempSync(join(tmpdir(), `vigie-site-${spec.name}-`));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const manifest = {
    name: `vigie-test-${spec.name}`,
    private: true,
    type: "module",
    scripts: { dev: "astro dev", build: "astro build", preview: "astro preview" },
    dependencies: { astro: ASTRO_VERSION, ...spec.dependencies },
    devDependencies: { node: NODE_VERSION, vigie: `file:${tarball}`, ...spec.devDependencies },
    allowScripts: { node: true, esbuild: true, "msgpackr-extract": false },
  };
  for (const path of spec.copy ?? []) cpSync(join(BLOG_ROOT, path), join(root, path), { recursive: true });
  write("package.json", `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(spec.files)) write(path, text);
  const remove = () => {
    endAll();
    rmSync(root, { recursive: true, force: true });
  };
  // What npm's cache holds is not asked for again (the first run on a machine fills it).
  const install = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: root,
    timeoutMs,
  });
  if (install.code !== 0) {
    remove();
    throw new Error(
      `npm install in the ${spec.name} site failed (${install.code ?? `timed out after ${timeoutMs} ms`}):\n${install.stderr.slice(-3000)}`,
    );
  }
  return {
    root,
    installMs: install.ms,
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
  // The OpenCode tool files import vigie/opencode, which needs the plugin (an optional peer).
  devDependencies: { "@opencode-ai/plugin": OPENCODE_PLUGIN_VERSION },
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
 * What this repository adds for itself (the workspace's tooling, and the benchmark's rival
 * MCP servers), left out of the blog's copy.
 */
const WORKSPACE_ONLY = ["@biomejs/biome", "bun", "opencode-ai", "node", "@playwright/mcp", "chrome-devtools-mcp"];

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
