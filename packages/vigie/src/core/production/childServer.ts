// A server on the build that runs as a child process (the adapter's `astro preview`, vigie's
// offline server of a build output): a process group of core/process (quiet environment,
// output kept, the whole group ended by close() and should this process exit first) on a
// free loopback port, waited for until it answers.
import { clip } from "../answer.ts";
import { startInGroup } from "../process/group.ts";
import type { StaticServer } from "../staticServer.ts";
import { sleep } from "../wait.ts";

export { freePort } from "../process/group.ts";

/** A server on the build whose output can be read: what it logged since `from` (a length of `log()`). */
export interface LoggingServer extends StaticServer {
  /** Everything the server printed so far, ANSI stripped. */
  log(): string;
  /** The command that runs it, for messages. */
  command: string;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000), redirect: "manual" });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

export interface ChildServerOptions {
  /** The program and its arguments. */
  command: string;
  args: string[];
  cwd: string;
  port: number;
  /** How it is named in messages ("astro preview --port 4567"). */
  name: string;
  /** The path asked until it answers (the site's base). */
  readyPath?: string;
  timeoutMs: number;
}

/** Starts the server and waits until it answers; rejects with the output's tail when it exits or never answers. */
export async function startChildServer(options: ChildServerOptions): Promise<LoggingServer> {
  const child = startInGroup(options.command, options.args, { cwd: options.cwd });
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + options.timeoutMs;
  while (!(await answers(`${url}${options.readyPath ?? "/"}`))) {
    if (child.exited() || Date.now() > deadline) {
      const exited = child.exited();
      await child.stop();
      const tail = child.output().trim().split("\n").slice(-5).join(" | ");
      throw new Error(`${options.name} ${exited ? "exited" : "never answered"}: ${clip(tail || "no output", 400)}`);
    }
    await sleep(200);
  }
  return { url, port: options.port, close: child.stop, log: child.output, command: options.name };
}
