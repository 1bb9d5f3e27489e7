// The adapter's own server on a build (`astro preview`), for the adapters that have one
// (node, Cloudflare), as a child server (childServer.ts): its output is kept for the server
// errors it logs.
import { astroMajor } from "../packages.ts";
import type { Project } from "../project.ts";
import { freePort, type LoggingServer, startChildServer } from "./childServer.ts";

export type { LoggingServer } from "./childServer.ts";

export const PREVIEW_READY_TIMEOUT_MS = 60_000;

/** `astro preview` of the project's last build; rejects with the output's tail when it never answers. */
export async function startPreviewServer(project: Project, options: { timeoutMs?: number; base?: string } = {}): Promise<LoggingServer> {
  const port = await freePort();
  // Astro 7 refuses a second preview of a project while its lock names a live one (the user's own
  // `astro preview`): this one is vigie's, on a port of its own, for the time of a check.
  const ignoreLock = (astroMajor(project.root) ?? 0) >= 7 ? ["--ignore-lock"] : [];
  // npx puts the project's node_modules/.bin first on PATH: the Node the project runs on, Astro's own CLI.
  return startChildServer({
    command: "npx",
    args: ["--no-install", "astro", "preview", "--port", String(port), "--host", "127.0.0.1", ...ignoreLock],
    cwd: project.root,
    port,
    name: `astro preview --port ${port}`,
    readyPath: options.base ?? "/",
    timeoutMs: options.timeoutMs ?? PREVIEW_READY_TIMEOUT_MS,
  });
}
