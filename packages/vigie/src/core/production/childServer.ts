// A server on the build that runs as a child process (the adapter's `astro preview`, vigie's
// offline server of a build output): started in its own process group on a free loopback
// port, its output kept for the server errors it logs, and always stopped (by close(), and
// should this process exit first).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { clip } from "../answer.ts";
import { onExit } from "../process/exitHooks.ts";
import { signalGroup } from "../process/kill.ts";
import { stripAnsi } from "../process/output.ts";
import type { StaticServer } from "../staticServer.ts";
import { sleep } from "../wait.ts";

/** The output kept, at most (the newest part). */
const MAX_LOG_CHARS = 2_000_000;

/** A server on the build whose output can be read: what it logged since `from` (a length of `log()`). */
export interface LoggingServer extends StaticServer {
  /** Everything the server printed so far, ANSI stripped. */
  log(): string;
  /** The command that runs it, for messages. */
  command: string;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (!address || typeof address === "string") throw new Error("no free port");
  return address.port;
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
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ASTRO_TELEMETRY_DISABLED: "1" },
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += stripAnsi(chunk.toString("utf8"));
    if (output.length > MAX_LOG_CHARS) output = output.slice(-MAX_LOG_CHARS / 2);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  child.on("error", (error) => {
    exited = true;
    output += `\n${error.message}`;
  });
  const pgid = child.pid;
  const removeHook = pgid ? onExit(() => signalGroup(pgid, "SIGTERM")) : () => undefined;
  const close = async () => {
    removeHook();
    if (!pgid || exited) return;
    signalGroup(pgid, "SIGTERM");
    for (let waited = 0; !exited && waited < 3000; waited += 100) await sleep(100);
    if (!exited) signalGroup(pgid, "SIGKILL");
  };
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + options.timeoutMs;
  while (!(await answers(`${url}${options.readyPath ?? "/"}`))) {
    if (exited || Date.now() > deadline) {
      await close();
      const tail = output.trim().split("\n").slice(-5).join(" | ");
      throw new Error(`${options.name} ${exited ? "exited" : "never answered"}: ${clip(tail || "no output", 400)}`);
    }
    await sleep(200);
  }
  return { url, port: options.port, close, log: () => output, command: options.name };
}
