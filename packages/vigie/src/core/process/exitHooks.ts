// Last-resort clean-up of what this process started (a build's process group, Chromium):
// whoever owns a process registers a hook when it starts it and removes the hook once it is
// gone. Nothing is registered at import: the process listeners exist only while a hook does.
//
// A hook runs once, synchronously, when this process exits; and on SIGINT, SIGTERM or SIGHUP
// when nobody else handles that signal (then the signal ends the process as it would have,
// exit code 128 + its number). When someone else handles it (the MCP server, the CLI's
// Ctrl-C), they own the shutdown and the hooks run at the exit that follows.
// (signal-exit does the same, but by replacing process.emit and process.reallyExit of the
// host, which is OpenCode's own process when we run as its plugin.)
import { constants } from "node:os";

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const hooks = new Set<() => void>();

function runHooks(): void {
  const pending = [...hooks];
  hooks.clear();
  uninstall();
  for (const hook of pending) {
    try {
      hook();
    } catch {
      // one failing hook must not keep the others from running
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else handles this signal: they decide when the process ends.
  if (process.listenerCount(signal) > 1) return;
  runHooks();
  process.exit(128 + (constants.signals[signal] ?? 15));
}

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  process.once("exit", runHooks);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off("exit", runHooks);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/**
 * Runs `hook` if this process ends while the hook is registered; returns the function that
 * removes it (call it once the process it guards is gone). The hook must be synchronous.
 */
export function onExit(hook: () => void): () => void {
  const own = () => hook();
  hooks.add(own);
  install();
  return () => {
    hooks.delete(own);
    if (hooks.size === 0) uninstall();
  };
}

/** How many hooks are registered (for tests). */
export function exitHookCount(): number {
  return hooks.size;
}
