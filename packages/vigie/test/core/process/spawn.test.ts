// Why a command ended, as spawnCommand's result says it: real short commands that exit with
// a code, are killed by a signal from elsewhere, time out, are cancelled or cannot start.
import assert from "node:assert/strict";
import { test } from "node:test";
import { groupAlive } from "../../../src/core/process/kill.ts";
import { runCommand } from "../../../src/core/process/spawn.ts";

const options = { cwd: "/", timeoutMs: 10_000 };

test("a command that exits with code 3 ended by exit, and says so", async () => {
  const result = await runCommand(["sh", "-c", "exit 3"], options);
  assert.deepEqual(result.ended, { reason: "exit", exitCode: 3, message: "exited with code 3" });
  const ok = await runCommand(["sh", "-c", "exit 0"], options);
  assert.deepEqual(ok.ended, { reason: "exit", exitCode: 0, message: "exited with code 0" });
});

test("a command killed by a signal from elsewhere names the signal", async () => {
  // The shell signals itself: nobody here asked for it to end.
  const result = await runCommand(["sh", "-c", "kill -s TERM $$; sleep 5"], options);
  assert.deepEqual(result.ended, { reason: "signal", signal: "SIGTERM", message: "was killed by SIGTERM" });
  assert.equal(result.timedOut, false);
});

test("a command past its timeout ended by the timeout, not by the signal that killed it", async () => {
  const result = await runCommand(["sleep", "600"], { cwd: "/", timeoutMs: 300 });
  try {
    assert.deepEqual(result.ended, { reason: "timeout", timeoutMs: 300, message: "timed out after 0.3 s" });
    assert.equal(result.signal, "SIGTERM", "the kill is still recorded");
  } finally {
    if (result.pid && groupAlive(result.pid)) process.kill(-result.pid, "SIGKILL");
  }
});

test("a cancelled command and one that cannot start say so", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const cancelled = await runCommand(["sleep", "600"], { ...options, signal: controller.signal });
  assert.deepEqual(cancelled.ended, { reason: "abort", message: "was cancelled" });
  const missing = await runCommand(["/nonexistent/command"], options);
  assert.equal(missing.ended.reason, "spawn-error");
  assert.match(missing.ended.message, /^could not start: .*ENOENT/);
});
