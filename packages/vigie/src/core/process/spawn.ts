// Runs a command to completion in its own process group: a timeout, a cancel signal or
// this process's exit kill the whole group (npm → sh → astro → workers), never only its
// leader. node:child_process, not execa: execa signals the child's pid, not its group, and
// its clean-up at exit does nothing for a detached child, which is the case we need; it would
// also add a dozen packages to every CLI start.
import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { onExit } from "./exitHooks.ts";
import { killGroup, signalGroup } from "./kill.ts";
import { cleanOutput } from "./output.ts";

export interface CommandOptions {
  cwd: string;
  /** Kill the group after this long. */
  timeoutMs: number;
  /** Added to this process's environment (after QUIET_ENV). */
  env?: Record<string, string>;
  /** Cancels the run: the group is killed and the result says `aborted`. */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL. Default 3000 ms. */
  graceMs?: number;
  /**
   * The group's CPU priority, as `nice` takes it (0 normal, up to 19 lowest), given to the
   * leader as it starts: what it starts inherits it. Work that must not slow the critical path.
   */
  niceness?: number;
}

/**
 * Why a command ended, with `message` saying so after its subject: "astro check timed out
 * after 120 s", "npm run build was killed by SIGKILL". One reason, the first that holds of:
 * it could not start, was cancelled, timed out (the kill's signal is ours then, not the
 * reason), was ended by a signal from elsewhere, exited.
 */
export type CommandEnd = { message: string } & (
  | { reason: "spawn-error"; error: string }
  | { reason: "abort" }
  | { reason: "timeout"; timeoutMs: number }
  | { reason: "signal"; signal: NodeJS.Signals }
  | { reason: "exit"; exitCode: number }
);

export interface CommandResult {
  /** The command as one line, for messages. */
  command: string;
  pid?: number;
  /** Why it ended, and the words for it. */
  ended: CommandEnd;
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

/** A duration in seconds as messages give it: "120", "1.5". */
function seconds(ms: number): string {
  return ms % 1000 === 0 ? String(ms / 1000) : (ms / 1000).toFixed(1);
}

/** Why a command ended, from what spawnCommand saw. */
export function commandEnd(
  run: Pick<CommandResult, "exitCode" | "signal" | "timedOut" | "aborted" | "spawnError">,
  timeoutMs: number,
): CommandEnd {
  if (run.spawnError !== undefined) return { reason: "spawn-error", error: run.spawnError, message: `could not start: ${run.spawnError}` };
  if (run.aborted) return { reason: "abort", message: "was cancelled" };
  if (run.timedOut) return { reason: "timeout", timeoutMs, message: `timed out after ${seconds(timeoutMs)} s` };
  if (run.signal) return { reason: "signal", signal: run.signal, message: `was killed by ${run.signal}` };
  // Node gives a code or a signal; neither would mean a leader that never ran.
  const exitCode = run.exitCode ?? -1;
  return { reason: "exit", exitCode, message: `exited with code ${exitCode}` };
}

/** Environment for the tools we run: no colours, no telemetry. */
export const QUIET_ENV: Record<string, string> = { NO_COLOR: "1", ASTRO_TELEMETRY_DISABLED: "1" };

/** This process's environment for a tool we run: QUIET_ENV, then `extra`. */
export function quietEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...QUIET_ENV, ...extra };
  // With NO_COLOR, a FORCE_COLOR from our own environment only makes Node print a warning.
  if (!extra.FORCE_COLOR) delete env.FORCE_COLOR;
  return env;
}

const MAX_OUTPUT = 16 * 1024 * 1024;
/** How long the pipes get to drain after the leader exits (a stray grandchild may hold them). */
const DRAIN_MS = 2000;

type Outcome = Pick<CommandResult, "exitCode" | "signal" | "spawnError">;

/** `file args...` in its own process group, to completion, a timeout or a cancellation. */
export async function spawnCommand(file: string, args: readonly string[], options: CommandOptions): Promise<CommandResult> {
  const command = [file, ...args].join(" ");
  const started = performance.now();
  const base = { command, exitCode: null, signal: null, timedOut: false, aborted: false, output: "" };
  const ended = (run: Omit<CommandResult, "ended">): CommandResult => ({ ...run, ended: commandEnd(run, options.timeoutMs) });
  if (!file) return ended({ ...base, spawnError: "empty command", durationMs: 0 });
  if (options.signal?.aborted) return ended({ ...base, aborted: true, durationMs: 0 });

  const child = spawn(file, args, { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: quietEnv(options.env) });
  const pid = child.pid;
  if (pid !== undefined && options.niceness) {
    try {
      setPriority(pid, options.niceness);
    } catch {
      // Not allowed here: it runs at the normal priority.
    }
  }
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  const collect = (chunk: Buffer) => {
    if (kept < MAX_OUTPUT) {
      chunks.push(chunk);
      kept += chunk.length;
    } else dropped += chunk.length;
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);

  let timedOut = false;
  let aborted = false;
  let killing: Promise<unknown> | undefined;
  const kill = () => {
    if (pid !== undefined) killing ??= killGroup(pid, { graceMs: options.graceMs ?? 3000 });
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
  const unhook = pid === undefined ? undefined : onExit(() => signalGroup(pid, "SIGKILL"));

  const outcome = await new Promise<Outcome>((resolve) => {
    child.once("error", (error) => resolve({ exitCode: null, signal: null, spawnError: error.message }));
    child.once("exit", (exitCode, signal) => {
      // The leader is gone; anything it left in its group goes with it.
      if (pid !== undefined) signalGroup(pid, "SIGTERM");
      const drained = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve({ exitCode, signal });
      }, DRAIN_MS);
      child.once("close", () => {
        clearTimeout(drained);
        resolve({ exitCode, signal });
      });
    });
  });

  clearTimeout(timer);
  options.signal?.removeEventListener("abort", onAbort);
  await killing;
  unhook?.();
  let output = Buffer.concat(chunks).toString("utf8");
  if (dropped > 0) output += `\n[output truncated: ${dropped} more bytes]\n`;
  return ended({
    ...base,
    ...outcome,
    pid,
    timedOut,
    aborted,
    durationMs: Math.round(performance.now() - started),
    output: cleanOutput(output),
  });
}

/** spawnCommand with the command as one array, as the callers keep their commands. */
export function runCommand(argv: readonly string[], options: CommandOptions): Promise<CommandResult> {
  const [file = "", ...args] = argv;
  return spawnCommand(file, args, options);
}
