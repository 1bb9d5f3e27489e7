// Real process groups: TERM first, KILL for what ignores it; timeouts and cancellation
// end the whole group of a command; exit hooks run once, at exit or on an unhandled signal.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { test } from "node:test";
import { exitHookCount, onExit } from "../../../src/core/process/exitHooks.ts";
import { groupMembers } from "../../../src/core/process/inspect.ts";
import { groupAlive, killGroup, signalGroup, signalProcess } from "../../../src/core/process/kill.ts";
import { runCommand, spawnCommand } from "../../../src/core/process/spawn.ts";
import { waitUntil } from "../../../src/core/wait.ts";

const EXIT_HOOKS = new URL("../../../src/core/process/exitHooks.ts", import.meta.url).pathname;

/** A detached group: a shell and a `sleep` it started; with `ignoreTerm`, both ignore SIGTERM. */
async function startGroup(ignoreTerm: boolean): Promise<number> {
  const script = `${ignoreTerm ? "trap '' TERM; " : ""}sleep 600 & echo started; wait`;
  const child = spawn("sh", ["-c", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  child.unref();
  await once(child.stdout, "data");
  const pid = child.pid as number;
  assert.ok(await waitUntil(() => groupMembers(pid).length === 2, { timeoutMs: 5000 }), "the group has its two members");
  return pid;
}

/** Whatever a failed assertion left behind. */
function cleanup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // gone
  }
}

test("killGroup: TERM ends a group that heeds it, without KILL", async () => {
  const pgid = await startGroup(false);
  try {
    const result = await killGroup(pgid, { graceMs: 5000 });
    assert.deepEqual({ ...result, ms: 0 }, { termed: true, forced: false, gone: true, left: [], ms: 0 });
    assert.equal(groupAlive(pgid), false);
  } finally {
    cleanup(pgid);
  }
});

test("killGroup: a group whose members ignore TERM is KILLed after the grace period", async () => {
  const pgid = await startGroup(true);
  try {
    const result = await killGroup(pgid, { graceMs: 300 });
    assert.equal(result.termed, true);
    assert.equal(result.forced, true);
    assert.equal(result.gone, true);
    assert.deepEqual(groupMembers(pgid), []);
  } finally {
    cleanup(pgid);
  }
});

test("killGroup: a group already gone is not signalled; pids 0, 1 and negatives are refused", async () => {
  const pgid = await startGroup(false);
  process.kill(-pgid, "SIGKILL");
  await waitUntil(() => !groupAlive(pgid), { timeoutMs: 5000 });
  assert.deepEqual({ ...(await killGroup(pgid)), ms: 0 }, { termed: false, forced: false, gone: true, left: [], ms: 0 });
  for (const bad of [0, 1, -5, 1.5]) assert.throws(() => signalGroup(bad, "SIGTERM"), /refusing/);
});

test("signalProcess: true when delivered, false once the process is gone; 0, 1 and negatives are refused", async () => {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  const pid = child.pid as number;
  const exited = once(child, "exit");
  try {
    assert.equal(signalProcess(pid, "SIGTERM"), true);
    assert.deepEqual(await exited, [null, "SIGTERM"]);
    assert.equal(signalProcess(pid, "SIGKILL"), false, "reaped: ESRCH is not an error");
    for (const bad of [0, 1, -5, 1.5]) assert.throws(() => signalProcess(bad, "SIGTERM"), /refusing/);
  } finally {
    child.kill("SIGKILL");
  }
});

test("spawnCommand: output, exit code, ANSI stripped, CRLF made LF", async () => {
  const result = await spawnCommand("sh", ["-c", "printf '\\033[31mred\\033[0m\\r\\nline\\n'; echo err >&2; exit 3"], {
    cwd: "/",
    timeoutMs: 10_000,
  });
  assert.equal(result.exitCode, 3);
  assert.equal(result.output.replace("err\n", ""), "red\nline\n");
  assert.match(result.output, /err/);
  assert.equal(result.timedOut, false);
  assert.equal(exitHookCount(), 0, "the exit hook is removed once the command ended");
});

test("spawnCommand: a timeout kills the whole group, TERM-ignoring grandchild included", async () => {
  let pid: number | undefined;
  try {
    const result = await spawnCommand("sh", ["-c", "trap '' TERM; sleep 600 & wait"], { cwd: "/", timeoutMs: 500, graceMs: 300 });
    pid = result.pid;
    assert.equal(result.timedOut, true);
    assert.equal(result.aborted, false);
    assert.ok(pid);
    assert.equal(groupAlive(pid), false, "no member of the group is left");
    assert.equal(exitHookCount(), 0);
  } finally {
    if (pid) cleanup(pid);
  }
});

test("spawnCommand: cancellation kills the group and says aborted; an aborted signal runs nothing", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const result = await spawnCommand("sh", ["-c", "sleep 600 & wait"], { cwd: "/", timeoutMs: 60_000, signal: controller.signal });
  try {
    assert.equal(result.aborted, true);
    assert.equal(result.timedOut, false);
    assert.equal(groupAlive(result.pid as number), false);
  } finally {
    if (result.pid) cleanup(result.pid);
  }
  const none = await runCommand(["sh", "-c", "exit 0"], { cwd: "/", timeoutMs: 1000, signal: controller.signal });
  assert.deepEqual([none.aborted, none.pid], [true, undefined]);
});

test("spawnCommand: a command that cannot start says why", async () => {
  const result = await runCommand(["/nonexistent/command"], { cwd: "/", timeoutMs: 1000 });
  assert.match(result.spawnError ?? "", /ENOENT/);
  assert.equal((await runCommand([], { cwd: "/", timeoutMs: 1000 })).spawnError, "empty command");
});

test("onExit: nothing registered at import; a hook runs at exit, on an unhandled SIGTERM, not once removed", async () => {
  assert.equal(process.listenerCount("exit") > 0 && exitHookCount() > 0, false);
  const run = async (body: string, signal?: NodeJS.Signals) => {
    const script = `import { onExit } from ${JSON.stringify(EXIT_HOOKS)};
const before = process.listenerCount("SIGTERM") + process.listenerCount("exit");
${body}
console.log("ready " + before);
setTimeout(() => {}, 60_000);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    await waitUntil(() => out.includes("ready"), { timeoutMs: 20_000 });
    if (signal) child.kill(signal);
    else setTimeout(() => child.kill("SIGKILL"), 300);
    const [code, killedBy] = (await once(child, "exit")) as [number | null, string | null];
    return { out, code, killedBy };
  };
  const fired = await run(`onExit(() => console.log("hook ran"));`, "SIGTERM");
  assert.match(fired.out, /ready 0/, "importing registers no listener");
  assert.match(fired.out, /hook ran/);
  assert.equal(fired.code, 143);
  const removed = await run(`const off = onExit(() => console.log("hook ran")); off(); process.exitCode = 0;`, "SIGTERM");
  assert.doesNotMatch(removed.out, /hook ran/);
  assert.equal(removed.killedBy, "SIGTERM", "with no hook left, the signal ends the process as usual");
  const handled = await run(
    `onExit(() => console.log("hook ran")); process.on("SIGTERM", () => { console.log("own handler"); process.exit(0); });`,
    "SIGTERM",
  );
  assert.match(handled.out, /own handler\nhook ran/, "someone else handles the signal; the hook runs at the exit that follows");
  assert.equal(handled.code, 0);
  const unhooked = onExit(() => undefined);
  assert.equal(exitHookCount(), 1);
  unhooked();
  assert.equal(exitHookCount(), 0);
});
