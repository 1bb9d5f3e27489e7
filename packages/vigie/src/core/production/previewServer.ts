// The adapter's own server on a build (`astro preview`), for the adapters that have one
// (node, Cloudflare), as a child server (childServer.ts): its output is kept for the server
// errors it logs.
import type { Project } from "../project.ts";
import { freePort, type LoggingServer, startChildServer } from "./childServer.ts";

export type { LoggingServer } from "./childServer.ts";

export const PREVIEW_READY_TIMEOUT_MS = 60_000;

/** `astro preview` of the project's last build; rejects with the output's tail when it never answers. */
export async function startPreviewServer(project: Project, options: { timeoutMs?: number; base?: string } = {}): Promise<LoggingServer> {
  const port = await freePort();
  // npx puts the project's node_modules/.bin first on PATH: the Node the project runs on, Astro's own CLI.
  return startChildServer({
    command: "npx",
    args: ["--no-install", "astro", "preview", "--port", String(port), "--host", "127.0.0.1"],
    cwd: project.root,
    port,
    name: `astro preview --port ${port}`,
    readyPath: options.base ?? "/",
    timeoutMs: options.timeoutMs ?? PREVIEW_READY_TIMEOUT_MS,
  });
}
