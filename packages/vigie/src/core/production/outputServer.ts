// vigie's offline server of an adapter's build output (Vercel's `.vercel/output`, Netlify's
// `.netlify/` and publish folder), for the adapters whose build has no local server of its
// own: outputRunner run by the project's Node in a child process group (childServer.ts), so
// that the functions run in a Node process of ours and what they log is the server's log.
import { existsSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Project } from "../project.ts";
import { freePort, type LoggingServer, startChildServer } from "./childServer.ts";
import type { RunnerOptions } from "./outputRunner.ts";

export const OUTPUT_READY_TIMEOUT_MS = 60_000;

/** The platforms whose build output vigie serves itself. */
export type OutputKind = RunnerOptions["kind"];

/**
 * The runner's file: the TypeScript source beside this one, except under node_modules/ (where
 * Node refuses to strip types: Bun runs the sources of an installed package) the compiled one.
 */
export function runnerFile(): string {
  const here = fileURLToPath(import.meta.url);
  const source = here.replace(/\.[jt]s$/, "").replace(/outputServer$/, "outputRunner");
  if (here.endsWith(".js")) return `${source}.js`;
  const installed = realpathSync(here).split(sep).includes("node_modules");
  const compiled = source.replace(`${sep}src${sep}core${sep}`, `${sep}dist${sep}core${sep}`);
  return installed && existsSync(`${compiled}.js`) ? `${compiled}.js` : `${source}.ts`;
}

/** The Node the project runs on: its node_modules/.bin/node, else this one (unless this is Bun), else the PATH's. */
export function projectNode(project: Project): string {
  const own = join(project.root, "node_modules", ".bin", "node");
  if (existsSync(own)) return own;
  return (process.versions as { bun?: string }).bun ? "node" : process.execPath;
}

/** Serves the project's last build output as `kind` serves it; rejects with the output's tail when it never answers. */
export async function startOutputServer(
  project: Project,
  kind: OutputKind,
  options: { publish: string; base?: string; timeoutMs?: number },
): Promise<LoggingServer> {
  const port = await freePort();
  const runner: RunnerOptions = { kind, root: project.root, publish: options.publish, port };
  return startChildServer({
    command: projectNode(project),
    args: [runnerFile(), JSON.stringify(runner)],
    cwd: project.root,
    port,
    name: `vigie's offline ${kind === "vercel" ? "Vercel" : "Netlify"} server on port ${port}`,
    readyPath: options.base ?? "/",
    timeoutMs: options.timeoutMs ?? OUTPUT_READY_TIMEOUT_MS,
  });
}
