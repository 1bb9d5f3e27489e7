// The adapter's own server on a build (`astro preview`), for the adapters that have one
// (node, Cloudflare): started in its own process group on a free loopback port, its output
// kept for the server errors it logs, and always stopped (by close(), and should this
// process exit first).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { clip } from "../answer.ts";
import { onExit } from "../process/exitHooks.ts";
import { signalGroup } from "../process/kill.ts";
import { stripAnsi } from "../process/output.ts";
import type { Project } from "../project.ts";
import type { StaticServer } from "../staticServer.ts";
import { sleep } from "../wait.ts";

export const PREVIEW_READY_TIMEOUT_MS = 60_000;
/** The output kept, at most (the newest part). */
const MAX_LOG_CHARS = 2_000_000;

/** A server on the build whose output can be read: what it logged since `from` (a length of `log()`). */
export interface LoggingServer extends StaticServer {
  /** Everything the server printed so far, ANSI stripped. */
  log(): string;
  /** The command that runs it, for messages. */
  command: string;
}

async function freePort(): Promise<number> {
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

/** `astro preview` of the project's last build; rejects with the output's tail when it never answers. */
export async function startPreviewServer(project: Project, options: { timeoutMs?: number; base?: string } = {}): Promise<LoggingServer> {
  const port = await freePort();
  // npx puts the project's node_modules/.bin first on PATH: the Node the project runs on, Astro's own CLI.
  const args = ["--no-install", "astro", "preview", "--port", String(port), "--host", "127.0.0.1"];
  const child = spawn("npx", args, {
    cwd: project.root,
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
  const pgid = child.pid;
  const removeHook = pgid ? onExit(() => signalGroup(pgid, "SIGTERM")) : () => undefined;
  const close = async () => {
    removeHook();
    if (!pgid || exited) return;
    signalGroup(pgid, "SIGTERM");
    for (let waited = 0; !exited && waited < 3000; waited += 100) await sleep(100);
    if (!exited) signalGroup(pgid, "SIGKILL");
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? PREVIEW_READY_TIMEOUT_MS);
  while (!(await answers(`${url}${options.base ?? "/"}`))) {
    if (exited || Date.now() > deadline) {
      await close();
      const tail = output.trim().split("\n").slice(-5).join(" | ");
      throw new Error(`astro preview ${exited ? "exited" : "never answered"}: ${clip(tail || "no output", 400)}`);
    }
    await sleep(200);
  }
  return { url, port, close, log: () => output, command: `astro preview --port ${port}` };
}
