// Runs a command to completion in its own process group: a timeout, a cancel signal
// or this process's exit kill the whole group (npm → sh → astro → workers), never
// only its leader.
import { spawn } from "node:child_process";
import { stripVTControlCharacters } from "node:util";

export interface CommandOptions {
  cwd: string;
  /** Kill the group after this long. */
  timeoutMs: number;
  env?: Record<string, string>;
  /** Cancels the run: the group is killed and the result says `aborted`. */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL. */
  graceMs?: number;
}

export interface CommandResult {
  /** The command as one line, for messages. */
  command: string;
  pid?: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the command could not start (ENOENT...). */
  spawnError?: string;
  durationMs: number;
  /** stdout and stderr interleaved as they came, ANSI stripped. */
  output: string;
}

/** Environment for the tools we run: no colours, no telemetry. */
export const QUIET_ENV: Record<string, string> = { NO_COLOR: "1", ASTRO_TELEMETRY_DISABLED: "1" };

const MAX_OUTPUT = 16 * 1024 * 1024;

/** Groups still running, killed if this process exits first. */
const running = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const pid of running) signalGroup(pid, "SIGKILL");
  });
}

/** Sends a signal to a whole process group; false when the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

export async function runCommand(argv: readonly string[], options: CommandOptions): Promise<CommandResult> {
  const [file, ...args] = argv;
  const command = argv.join(" ");
  const started = performance.now();
  const base = { command, exitCode: null, signal: null, timedOut: false, aborted: false, output: "" };
  if (!file) return { ...base, spawnError: "empty command", durationMs: 0 };
  if (options.signal?.aborted) return { ...base, aborted: true, durationMs: 0 };

  const env: NodeJS.ProcessEnv = { ...process.env, ...QUIET_ENV, ...options.env };
  // With NO_COLOR, a FORCE_COLOR from our own environment only makes Node print a warning.
  if (!options.env?.FORCE_COLOR) delete env.FORCE_COLOR;
  const child = spawn(file, args, { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env });
  const pid = child.pid;
  let output = "";
  let dropped = 0;
  const collect = (chunk: Buffer) => {
    if (output.length < MAX_OUTPUT) output += chunk.toString("utf8");
    else dropped += chunk.length;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);

  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const kill = () => {
    if (pid === undefined) return;
    signalGroup(pid, "SIGTERM");
    killTimer ??= setTimeout(() => signalGroup(pid, "SIGKILL"), options.graceMs ?? 3000);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    kill();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (pid !== undefined) {
    installExitHook();
    running.add(pid);
  }

  const outcome = await new Promise<{ exitCode: number | null; signal: NodeJS.Signals | null; spawnError?: string }>((resolve) => {
    child.once("error", (error) => resolve({ exitCode: null, signal: null, spawnError: error.message }));
    child.once("exit", (exitCode, signal) => {
      // The leader is gone; anything it left in its group goes with it.
      if (pid !== undefined) signalGroup(pid, "SIGTERM");
      // Wait for the pipes to drain, but not for ever: a stray grandchild may hold them.
      const drained = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({ exitCode, signal });
      }, 2000);
      child.once("close", () => {
        clearTimeout(drained);
        resolve({ exitCode, signal });
      });
    });
  });

  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  options.signal?.removeEventListener("abort", onAbort);
  if (pid !== undefined) running.delete(pid);
  if (dropped > 0) output += `\n[output truncated: ${dropped} more bytes]\n`;
  return {
    ...base,
    ...outcome,
    pid,
    timedOut,
    aborted,
    durationMs: Math.round(performance.now() - started),
    output: stripVTControlCharacters(output).replace(/\r\n?/g, "\n"),
  };
}

/** The last `count` non-empty lines of an output, each clipped to `width` characters. */
export function tailLines(output: string, count: number, width = 160): string[] {
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  return lines.slice(-count).map((line) => (line.length > width ? `${line.slice(0, width - 1)}…` : line));
}
