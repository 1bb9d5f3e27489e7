// Shared by the dev-server tests: the tools as every face calls them, free ports, and a
// safety net that ends whatever a test started in its blog copy, even when it failed.
import type { Answer } from "../../../src/core/answer.ts";
import { readDevServerRecord } from "../../../src/core/devServer/index.ts";
import { groupMembers, isLive, listProcesses, workingDirectories } from "../../../src/core/process/inspect.ts";
import type { Project } from "../../../src/core/project.ts";
import { devTools } from "../../../src/tools/dev.ts";
import { runTool } from "../../../src/tools/run.ts";

export type DevToolName = "start" | "stop" | "status" | "logs" | "http_get";

/** Calls a blog_dev_* tool through runTool, as OpenCode, MCP and the CLI do. */
export function call(project: Project, name: DevToolName, args: unknown = {}): Promise<Answer> {
  const definition = devTools.find((tool) => tool.exportName === name);
  if (!definition) throw new Error(`no dev tool ${name}`);
  return runTool(definition, args, { project });
}

export { freePort } from "../../support/blog.ts";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it returns a value, or fails after `ms`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Live processes whose working directory is inside `root` (what a blog copy's server runs as), asked of the process backend. */
export function processesUnder(root: string): number[] {
  const cwds = workingDirectories();
  return listProcesses()
    .filter((stat) => {
      const cwd = cwds.get(stat.pid);
      return isLive(stat) && cwd !== undefined && (cwd === root || cwd.startsWith(`${root}/`));
    })
    .map((stat) => stat.pid);
}

/**
 * Ends everything the tests started in a blog copy: the recorded server's process group,
 * then any process still running inside the copy. Only the copy's processes are touched.
 */
export function killEverythingIn(project: Project): void {
  const record = readDevServerRecord(project);
  if (record && groupMembers(record.pgid).length > 0) {
    try {
      process.kill(-record.pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const pid of processesUnder(project.root)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
