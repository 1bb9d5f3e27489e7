// The reference blog (the repository root) and disposable copies of it for tests.
// Copies live in <repo>/.fixtures/, so Node and Vite find the one install of the
// repository by walking up: no `npm install` per copy.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../src/core/process/group.ts";
import { type Project, projectAt } from "../../src/core/project.ts";

export const BLOG_ROOT = new URL("../../../..", import.meta.url).pathname.replace(/\/$/, "");
export const FIXTURES_DIR = join(BLOG_ROOT, ".fixtures");

const COPIED = ["src", "public", "astro.config.mjs", "package.json", "tsconfig.json"];

export interface BlogCopy extends Project {
  remove(): void;
}

/** A fresh copy of the blog's sources under .fixtures/<name>-<random>/. */
export function copyBlog(name: string): BlogCopy {
  const root = join(FIXTURES_DIR, `${name.replace(/[^a-z0-9-]/gi, "-")}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(root, { recursive: true });
  for (const entry of COPIED) cpSync(join(BLOG_ROOT, entry), join(root, entry), { recursive: true });
  return { ...projectAt(root), remove: () => rmSync(root, { recursive: true, force: true }) };
}

// Run Astro with this process's Node (the project's), whatever `node` is first on PATH.
const ASTRO_BIN = join(BLOG_ROOT, "node_modules", "astro", "bin", "astro.mjs");
const QUIET_ENV = { NO_COLOR: "1", FORCE_COLOR: "0", ASTRO_TELEMETRY_DISABLED: "1" };

export { freePort };

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Runs Astro to completion in its own process group; rejects with the output tail on failure. */
export async function runAstro(root: string, args: string[], timeoutMs = 180_000): Promise<string> {
  const child = spawn(process.execPath, [ASTRO_BIN, ...args], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...QUIET_ENV },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), timeoutMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`astro ${args.join(" ")} exited with ${code}:\n${output.slice(-3000)}`);
  return output;
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestMtime(join(path, name))), stat.mtimeMs);
}

/** Builds a blog unless its dist/ is newer than its sources. */
export async function buildBlog(root: string): Promise<void> {
  const built = join(root, "dist", "index.html");
  if (existsSync(built)) {
    const sources = Math.max(
      newestMtime(join(root, "src")),
      newestMtime(join(root, "public")),
      statSync(join(root, "astro.config.mjs")).mtimeMs,
    );
    if (statSync(built).mtimeMs > sources) return;
  }
  await runAstro(root, ["build"]);
}

export interface Served {
  url: string;
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** `astro dev` or `astro preview` of a blog on a free loopback port, in its own process group. */
export async function serveBlog(root: string, mode: "dev" | "preview"): Promise<Served> {
  const port = await freePort();
  // --ignore-lock: Astro 7 refuses a second server of a project while its lock (.astro/<mode>.json)
  // names a live one, and test files side by side may each serve the repository's build.
  const child = spawn(process.execPath, [ASTRO_BIN, mode, "--port", String(port), "--host", "127.0.0.1", "--ignore-lock"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...QUIET_ENV },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    killGroup(child, "SIGTERM");
    const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    // The group may outlive its leader for a moment.
    killGroup(child, "SIGKILL");
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`astro ${mode} exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) });
      if (response.status < 500) return { url, port, output: () => output, stop };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`astro ${mode} did not answer within 60 s:\n${output}`);
}
