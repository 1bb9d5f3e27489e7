// A process that runs until it is stopped (a server), in its own process group: started with
// the quiet environment, its output kept (the newest part, escapes stripped), and ended with
// its whole group (TERM, KILL after a grace period, then waited for), by stop() or should this
// process exit first. spawn.ts runs a command to its end; this is its long-running sibling.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { onExit } from "./exitHooks.ts";
import { killGroup, signalGroup } from "./kill.ts";
import { stripAnsi } from "./output.ts";
import { quietEnv } from "./spawn.ts";

/** The output kept, at most (the newest part). */
const MAX_OUTPUT_CHARS = 2_000_000;

/** A loopback port free right now (the system's choice). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (!address || typeof address === "string") throw new Error("no free port");
  return address.port;
}

export interface GroupProcess {
  /** The group's leader (and the group's id); undefined when it could not start. */
  pid: number | undefined;
  /** Everything it printed so far (stdout and stderr as they came), ANSI stripped. */
  output(): string;
  /** Whether the leader has exited (or could not start). */
  exited(): boolean;
  /** Ends the whole group (TERM, KILL after `graceMs`) and waits for it to be gone. */
  stop(): Promise<void>;
}

/** `file args...` in its own process group, left running. */
export function startInGroup(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; graceMs?: number },
): GroupProcess {
  const child = spawn(file, args, { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: quietEnv(options.env) });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += stripAnsi(chunk.toString("utf8"));
    if (output.length > MAX_OUTPUT_CHARS) output = output.slice(-MAX_OUTPUT_CHARS / 2);
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
  const pid = child.pid;
  const unhook = pid === undefined ? () => undefined : onExit(() => signalGroup(pid, "SIGTERM"));
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // The group may outlive its leader (a server a script started): it is ended whatever the leader did.
      if (pid !== undefined) await killGroup(pid, { graceMs: options.graceMs ?? 3000 });
      unhook();
    })();
    return stopping;
  };
  return { pid, output: () => output, exited: () => exited, stop };
}
