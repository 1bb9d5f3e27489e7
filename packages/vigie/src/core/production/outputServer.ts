// vigie's servers of a build that run in a process of their own: outputRunner run by the
// project's Node. For the adapters whose build has no local server of its own (Vercel's
// `.vercel/output`, Netlify's `.netlify/` and publish folder), the offline server of the build
// output, in a child process group (childServer.ts), so that the functions run in a Node
// process of ours and what they log is the server's log; and vigie's static server, when it
// must outlive the process that starts it (`dev_start --mode preview` of a static build).
import { existsSync, realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Project } from "../project.ts";
import { OUTPUT_PLATFORMS, type OutputKind } from "./adapters.ts";
import { freePort, type LoggingServer, startChildServer } from "./childServer.ts";

export const OUTPUT_READY_TIMEOUT_MS = 60_000;

/** What the runner serves: a static build's folder, or a platform's build output. */
export type RunnerOptions = { port: number; base?: string } & (
  | { kind: "static"; dir: string }
  | {
      kind: OutputKind;
      /** The project's root. */
      root: string;
      /** Netlify's publish folder (the config's outDir). */
      publish: string;
    }
);

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

type Served = RunnerOptions extends infer Each ? (Each extends RunnerOptions ? Omit<Each, "port"> : never) : never;

/**
 * The command that runs the runner on `served`, listening on `port`: a number, or a placeholder
 * the caller replaces (it goes into the JSON unquoted, where the number will be).
 */
export function runnerCommand(project: Project, served: Served, port: number | string): string[] {
  const options = JSON.stringify({ ...served, port: 0 }).replace('"port":0', `"port":${port}`);
  return [projectNode(project), runnerFile(), options];
}

/** Serves the project's last build output as `kind` serves it; rejects with the output's tail when it never answers. */
export async function startOutputServer(
  project: Project,
  kind: OutputKind,
  options: { publish: string; base?: string; timeoutMs?: number },
): Promise<LoggingServer> {
  const port = await freePort();
  const [command = "", ...args] = runnerCommand(project, { kind, root: project.root, publish: options.publish }, port);
  return startChildServer({
    command,
    args,
    cwd: project.root,
    port,
    name: `vigie's offline ${OUTPUT_PLATFORMS[kind].label} server on port ${port}`,
    readyPath: options.base ?? "/",
    timeoutMs: options.timeoutMs ?? OUTPUT_READY_TIMEOUT_MS,
  });
}
