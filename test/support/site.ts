// Shared by the blog's end-to-end tests: one build, one `astro preview` on a free
// loopback port in its own process group, killed whole at the end.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";

export const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
// Run Astro with this process's Node (the project's), whatever `node` is first on PATH.
const ASTRO_BIN = join(ROOT, "node_modules", "astro", "bin", "astro.mjs");

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Runs a command to completion in its own process group; rejects with its output tail on failure. */
export async function run(command: string, args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<string> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ASTRO_TELEMETRY_DISABLED: "1" },
  });
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const timer = setTimeout(() => killGroup(child), options.timeoutMs ?? 180_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output.slice(-3000)}`);
  return output;
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

let built = false;
/** Builds the blog once per test process (the build is what the tests look at). */
export async function buildSite(): Promise<void> {
  if (built && existsSync(join(ROOT, "dist", "index.html"))) return;
  await run(process.execPath, [ASTRO_BIN, "build"]);
  built = true;
}

export interface Preview {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Serves dist/ with `astro preview` on a free loopback port. */
export async function startPreview(): Promise<Preview> {
  const port = await freePort();
  const child = spawn(process.execPath, [ASTRO_BIN, "preview", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ASTRO_TELEMETRY_DISABLED: "1" },
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
  };
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`astro preview exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return { url, port, stop };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`astro preview did not answer within 30 s:\n${output}`);
}

/** Every page URL listed by the built sitemap, as paths. */
export async function sitemapPaths(baseUrl: string): Promise<string[]> {
  const index = await (await fetch(`${baseUrl}/sitemap-index.xml`)).text();
  const paths: string[] = [];
  for (const [, loc] of index.matchAll(/<loc>([^<]+)<\/loc>/g)) {
    const sitemap = await (await fetch(`${baseUrl}${new URL(loc ?? "").pathname}`)).text();
    for (const [, page] of sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)) paths.push(new URL(page ?? "").pathname);
  }
  return [...new Set(paths)];
}

export interface PageFaults {
  pageErrors: string[];
  consoleErrors: string[];
  failedRequests: string[];
  badResponses: string[];
}

/** Loads a page and collects every runtime fault: page errors, console errors, failed requests, responses >= 400. */
export async function openAndWatch(page: Page, url: string): Promise<PageFaults> {
  const faults: PageFaults = { pageErrors: [], consoleErrors: [], failedRequests: [], badResponses: [] };
  page.on("pageerror", (error) => faults.pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") faults.consoleErrors.push(message.text());
  });
  page.on("requestfailed", (request) => faults.failedRequests.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => {
    if (response.status() >= 400) faults.badResponses.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(url, { waitUntil: "load", timeout: 20_000 });
  // Diagrams are drawn after load: wait for the page's own done flag (one round trip).
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const root = document.documentElement;
        if (root.dataset.mermaid !== "pending") return resolve();
        const observer = new MutationObserver(() => {
          if (root.dataset.mermaid === "pending") return;
          observer.disconnect();
          resolve();
        });
        observer.observe(root, { attributes: true, attributeFilter: ["data-mermaid"] });
      }),
  );
  return faults;
}

export interface PageReport extends PageFaults {
  path: string;
  diagrams: { state: string | null; svg: boolean; errorSvg: boolean }[];
}

/** Loads every path with `concurrency` pages of one context at a time; faults and diagram states per page. */
export async function checkPages(context: BrowserContext, baseUrl: string, paths: string[], concurrency = 4): Promise<PageReport[]> {
  const reports: PageReport[] = [];
  const queue = [...paths];
  const worker = async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      const page = await context.newPage();
      try {
        const faults = await openAndWatch(page, `${baseUrl}${path}`);
        const diagrams = await page.$$eval(".mermaid-diagram", (hosts) =>
          hosts.map((host) => ({
            state: host.getAttribute("data-mermaid-state"),
            svg: host.querySelector("svg") !== null,
            errorSvg: host.querySelector('svg[aria-roledescription="error"]') !== null,
          })),
        );
        reports.push({ path, ...faults, diagrams });
      } finally {
        await page.close();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return reports.sort((a, b) => a.path.localeCompare(b.path));
}
