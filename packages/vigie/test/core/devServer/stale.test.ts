// State left behind: a pid file naming a live unrelated process (never signalled), a pid
// that is dead, a lock file whose holder died, a lock held by a live process.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { VigieError } from "../../../src/core/answer.ts";
import { withLock } from "../../../src/core/devServer/lock.ts";
import { bootId, isLive, readProcStat } from "../../../src/core/process/inspect.ts";
import { projectAt } from "../../../src/core/project.ts";
import { FIXTURES_DIR } from "../../support/blog.ts";
import { call } from "./helpers.ts";

const STATE_FILES = ["dev-server.json", "dev-server.pid", "dev-server.port"];

describe("stale state", () => {
  // No server is started here: an empty project folder is enough.
  const root = join(FIXTURES_DIR, `dev-stale-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const project = projectAt(root);
  let sleeper: ChildProcess;

  function writeState(files: Record<string, string>): void {
    mkdirSync(project.stateDir, { recursive: true });
    for (const [name, content] of Object.entries(files)) writeFileSync(join(project.stateDir, name), content);
  }

  function leftState(): string[] {
    return STATE_FILES.filter((name) => existsSync(join(project.stateDir, name)));
  }

  /** A record as start writes it, for a pid whose start time is not the recorded one (a reused pid). */
  function recordFor(pid: number, startTime: number): string {
    return JSON.stringify({
      pid,
      pgid: pid,
      startTime,
      bootId: bootId(),
      command: ["npm", "run", "dev"],
      mode: "dev",
      requestedPort: 4321,
      port: 4321,
      startedAt: Date.now(),
    });
  }

  before(async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), '{"name":"stale-fixture","private":true}\n');
    // An unrelated process, leader of its own group: a wrong kill(-pid) would end it too.
    sleeper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    await once(sleeper, "spawn");
  });

  afterEach(() => {
    assert.ok(isLive(readProcStat(sleeper.pid as number)), "the unrelated process is still alive");
  });

  after(() => {
    sleeper.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  });

  test("a pid now used by an unrelated process: status says stale, stop cleans and signals nothing", async () => {
    const pid = sleeper.pid as number;
    const realStart = readProcStat(pid)?.startTime as number;
    writeState({ "dev-server.json": recordFor(pid, realStart - 1), "dev-server.pid": `${pid}\n`, "dev-server.port": "4321\n" });
    const status = await call(project, "status");
    assert.equal(status.running, false);
    assert.match(String(status.stale), new RegExp(`pid ${pid} is now "sleep 300"`));
    const answer = await call(project, "stop");
    assert.equal(answer.stopped, false);
    assert.match(String(answer.reason), /stale state cleaned, nothing signalled/);
    assert.deepEqual(leftState(), []);
  });

  test("a bare pid file (no ownership record) naming a live process: cleaned, never signalled", async () => {
    writeState({ "dev-server.pid": `${sleeper.pid}\n` });
    const answer = await call(project, "stop");
    assert.equal(answer.stopped, false);
    assert.match(String(answer.reason), /no ownership record/);
    assert.deepEqual(leftState(), []);
  });

  test("start cleans a stale state before anything else", async () => {
    const pid = sleeper.pid as number;
    writeState({ "dev-server.json": recordFor(pid, 1), "dev-server.pid": `${pid}\n` });
    // Preview without a build fails before spawning: what is left to see is the cleaning.
    const answer = await call(project, "start", { mode: "preview" });
    assert.equal(answer.status, "failed");
    assert.deepEqual(leftState(), []);
  });

  test("a dead pid: status reports a server that died, stop cleans", async () => {
    const gone = spawn("true");
    await once(gone, "exit");
    const pid = gone.pid as number;
    writeState({ "dev-server.json": recordFor(pid, 1), "dev-server.pid": `${pid}\n`, "dev-server.port": "4321\n" });
    const status = await call(project, "status");
    assert.equal(status.running, false);
    assert.deepEqual((status.crashed as { exitCode: unknown }).exitCode, null);
    const answer = await call(project, "stop");
    assert.equal(answer.stopped, false);
    assert.match(String(answer.reason), /already exited/);
    assert.deepEqual(leftState(), []);
  });

  test("a lock file left by a dead process is taken over", async () => {
    const gone = spawn("true");
    await once(gone, "exit");
    writeState({ "dev-server.lock": JSON.stringify({ pid: gone.pid, startTime: 1, bootId: bootId(), nonce: "x" }) });
    const answer = await call(project, "stop");
    assert.equal(answer.stopped, false);
    assert.match(String(answer.reason), /no dev server/);
    assert.equal(existsSync(join(project.stateDir, "dev-server.lock")), false);
  });

  test("a lock held by a live process makes the call wait, then fail with a hint", async () => {
    const holder = readProcStat(sleeper.pid as number);
    writeState({ "dev-server.lock": JSON.stringify({ pid: holder?.pid, startTime: holder?.startTime, bootId: bootId(), nonce: "y" }) });
    await assert.rejects(
      withLock(project, "dev-server", { waitMs: 200 }, async () => "ran"),
      (error: unknown) => error instanceof VigieError && /held the dev-server lock/.test(error.message) && error.hint.length > 0,
    );
    assert.ok(existsSync(join(project.stateDir, "dev-server.lock")), "a live holder's lock is kept");
  });

  test("calls of one process queue on the lock", async () => {
    rmSync(join(project.stateDir, "dev-server.lock"), { force: true });
    const order: string[] = [];
    const task = (name: string) =>
      withLock(project, "dev-server", { waitMs: 5000 }, async () => {
        order.push(`${name}+`);
        await new Promise((resolve) => setTimeout(resolve, 30));
        order.push(`${name}-`);
      });
    await Promise.all([task("a"), task("b"), task("c")]);
    assert.deepEqual(order, ["a+", "a-", "b+", "b-", "c+", "c-"]);
    assert.equal(existsSync(join(project.stateDir, "dev-server.lock")), false);
  });
});
