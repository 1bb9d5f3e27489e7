// The ps/lsof backend (what macOS and the BSDs use) read on real processes and compared
// with what Linux's /proc says about the same ones; its parsing of macOS-shaped lines; the
// backend choice and the clear errors when none can work (an unknown name, Windows).
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { VigieError } from "../../../src/core/answer.ts";
import { listeningInodes } from "../../../src/core/devServer/ports.ts";
import { BACKEND_VARIABLE, isLive, processBackend, requireProc } from "../../../src/core/process/inspect.ts";
import { procBackend } from "../../../src/core/process/procBackend.ts";
import { parsePsLine, psBackend } from "../../../src/core/process/psBackend.ts";
import { projectAt } from "../../../src/core/project.ts";
import { FIXTURES_DIR } from "../../support/blog.ts";
import { call, waitFor } from "./helpers.ts";

const hasProc = procBackend.unusable() === undefined;

/** Epoch seconds at which a process started, from /proc (boot time + clock ticks; 100 ticks a second here). */
function procStartSeconds(pid: number): number {
  const btime = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
  return btime + (procBackend.stat(pid)?.startTime ?? Number.NaN) / 100;
}

describe("the ps/lsof process backend", { skip: psBackend.unusable() }, () => {
  const root = join(FIXTURES_DIR, `ps-backend-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  const children: ChildProcess[] = [];
  let sleeper: ChildProcess;
  let server: Server;

  function start(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { cwd: root, detached: true, stdio: "ignore" });
    children.push(child);
    return child;
  }

  before(async () => {
    mkdirSync(root, { recursive: true });
    sleeper = start("sleep", ["300"]);
    await once(sleeper, "spawn");
    server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  });

  after(() => {
    for (const child of children) {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    server.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("a process's group, parent, state, command line and working directory", async () => {
    const pid = sleeper.pid as number;
    // Until exec, the child is a copy of node: wait for it to be `sleep`.
    await waitFor("sleep to exec", () => (psBackend.command(pid) === "sleep 300" ? true : undefined));
    const stat = psBackend.stat(pid);
    assert.ok(isLive(stat));
    assert.equal(stat.pid, pid);
    assert.equal(stat.pgid, pid, "detached: its own group");
    assert.equal(stat.ppid, process.pid);
    assert.equal(psBackend.cwd(pid), realpathSync(root));
    assert.equal(psBackend.cwds().get(pid), realpathSync(root));
    if (hasProc) {
      const proc = procBackend.stat(pid);
      assert.deepEqual({ ...stat, startTime: 0 }, { ...proc, startTime: 0 });
      assert.equal(psBackend.command(pid), procBackend.command(pid));
      assert.equal(psBackend.cwd(pid), procBackend.cwd(pid));
    }
  });

  test("the start time is in epoch seconds, stable, and agrees with /proc", () => {
    const pid = sleeper.pid as number;
    const first = psBackend.stat(pid)?.startTime as number;
    assert.ok(Number.isInteger(first));
    assert.ok(Math.abs(first - Date.now() / 1000) < 3600, `${first} is about now`);
    assert.equal(psBackend.stat(pid)?.startTime, first, "the same at every read");
    assert.equal(psBackend.stat(process.pid)?.startTime, psBackend.stat(process.pid)?.startTime);
    if (hasProc) {
      const exact = procStartSeconds(pid);
      assert.ok(first <= exact + 0.01 && exact < first + 1, `ps says ${first}, /proc ${exact}`);
    }
  });

  test("the whole table: the members of a group, zombies marked as such", async () => {
    // sh forks a `sleep 0` that its exec'd successor never reaps: a zombie of the group.
    const group = start("sh", ["-c", "sleep 0 & exec sleep 300"]);
    await once(group, "spawn");
    const pgid = group.pid as number;
    const zombie = await waitFor("the zombie", () => psBackend.list().find((stat) => stat.pgid === pgid && stat.state === "Z"));
    assert.equal(zombie.ppid, pgid);
    assert.equal(isLive(psBackend.stat(zombie.pid)), false);
    const live = psBackend
      .list()
      .filter((stat) => stat.pgid === pgid && isLive(stat))
      .map((stat) => stat.pid);
    assert.deepEqual(live, [pgid]);
    if (hasProc) {
      const fromProc = procBackend
        .list()
        .filter((stat) => stat.pgid === pgid && isLive(stat))
        .map((stat) => stat.pid);
      assert.deepEqual(live, fromProc);
    }
  });

  test("a gone pid, pid 0 and nonsense are no process", async () => {
    const gone = spawn("true");
    await once(gone, "exit");
    assert.equal(psBackend.stat(gone.pid as number), undefined);
    assert.equal(psBackend.command(gone.pid as number), undefined);
    assert.equal(psBackend.cwd(gone.pid as number), undefined);
    assert.equal(psBackend.stat(0), undefined);
    assert.equal(psBackend.stat(-1), undefined);
    assert.equal(psBackend.stat(1.5), undefined);
  });

  test("the listening sockets of a port and who holds them", () => {
    const port = (server.address() as { port: number }).port;
    const ids = psBackend.listeners(port);
    assert.ok(ids.size > 0);
    assert.deepEqual(psBackend.socketOwners(ids), [process.pid]);
    assert.deepEqual(psBackend.socketOwners(ids, [sleeper.pid as number]), []);
    if (hasProc) assert.deepEqual(procBackend.socketOwners(procBackend.listeners(port), [process.pid]), [process.pid]);
    assert.equal(psBackend.listeners(1).size, 0);
    assert.equal(psBackend.listeners(70_000).size, 0);
  });

  test("the boot id is the same at every read and not empty", () => {
    const id = psBackend.bootId();
    assert.ok(id.length > 0);
    assert.equal(psBackend.bootId(), id);
  });
});

describe("ps output as macOS prints it", () => {
  test("BSD ps lines: states with flags, a command with spaces and parentheses", () => {
    assert.deepEqual(parsePsLine("    1     0     1 Ss   Wed Dec  2 09:05:07 2026     /sbin/launchd"), {
      pid: 1,
      ppid: 0,
      pgid: 1,
      state: "S",
      startTime: Date.UTC(2026, 11, 2, 9, 5, 7) / 1000,
      command: "/sbin/launchd",
    });
    const row = parsePsLine("81234 81200 81234 S+   Mon Nov 30 23:59:59 2026 node /Users/me/My Blog (copy)/node_modules/.bin/astro dev");
    assert.equal(row?.command, "node /Users/me/My Blog (copy)/node_modules/.bin/astro dev");
    assert.equal(row?.startTime, Date.UTC(2026, 10, 30, 23, 59, 59) / 1000);
    assert.equal(parsePsLine("  502   501   501 Z    Tue Dec  1 10:00:00 2026 <defunct>")?.state, "Z");
    assert.equal(parsePsLine("  PID  PPID  PGID STAT STARTED COMMAND"), undefined);
    assert.equal(parsePsLine(""), undefined);
  });
});

describe("choosing a backend", () => {
  const saved = process.env[BACKEND_VARIABLE];
  const root = join(FIXTURES_DIR, `backend-choice-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);

  before(() => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "package.json"), '{"name":"backend-choice","private":true}\n');
  });

  after(() => {
    if (saved === undefined) delete process.env[BACKEND_VARIABLE];
    else process.env[BACKEND_VARIABLE] = saved;
    rmSync(root, { recursive: true, force: true });
  });

  test("VIGIE_PROCESS_BACKEND forces one; unset, /proc where it exists", () => {
    process.env[BACKEND_VARIABLE] = "ps";
    assert.equal(processBackend().name, "ps");
    process.env[BACKEND_VARIABLE] = "proc";
    assert.equal(processBackend().name, "proc");
    delete process.env[BACKEND_VARIABLE];
    assert.equal(processBackend().name, hasProc ? "proc" : "ps");
  });

  test("an unknown backend name is an error answer naming the accepted ones", async () => {
    process.env[BACKEND_VARIABLE] = "sysctl";
    try {
      assert.throws(requireProc, (error: unknown) => error instanceof VigieError && /"proc".*"ps"/.test(error.hint));
      const answer = await call(projectAt(root), "status");
      assert.match(String(answer.error), /VIGIE_PROCESS_BACKEND is "sysctl"/);
      assert.match(String(answer.hint), /"proc" .*"ps"/);
    } finally {
      if (saved === undefined) delete process.env[BACKEND_VARIABLE];
      else process.env[BACKEND_VARIABLE] = saved;
    }
  });

  test("on Windows every process tool answers an error that names WSL", async () => {
    const platform = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
    Object.defineProperty(process, "platform", { ...platform, value: "win32" });
    try {
      for (const name of ["start", "stop", "status"] as const) {
        const answer = await call(projectAt(root), name);
        assert.match(String(answer.error), /Windows/, name);
        assert.match(String(answer.hint), /WSL/, name);
      }
    } finally {
      Object.defineProperty(process, "platform", platform);
    }
  });

  test("the listening check goes through the chosen backend", async () => {
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as { port: number }).port;
    try {
      for (const name of ["ps", "proc"]) {
        if (name === "proc" && !hasProc) continue;
        process.env[BACKEND_VARIABLE] = name;
        assert.ok(listeningInodes(port).size > 0, name);
      }
    } finally {
      if (saved === undefined) delete process.env[BACKEND_VARIABLE];
      else process.env[BACKEND_VARIABLE] = saved;
      server.close();
    }
  });
});
