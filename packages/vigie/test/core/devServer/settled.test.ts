// A build waits while a dev server of the project is starting (both write .astro/): an
// `astro dev` in the project's folder that Astro's lock does not name yet is starting; once
// .astro/dev.json names it (it listens), or once it is gone, nothing is. A stand-in process
// with astro's command line, in a temporary project.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  devStarting,
  devStartWaitLine,
  untilAstroFilesWritten,
  untilNoDevStart,
  writingAstroFiles,
} from "../../../src/core/devServer/settled.ts";
import { writeRecord } from "../../../src/core/devServer/state.ts";
import { bootId, readProcStat } from "../../../src/core/process/inspect.ts";
import { projectAt } from "../../../src/core/project.ts";

let root = "";
let child: ChildProcess | undefined;

before(async () => {
  root = mkdtempSync(join(tmpdir(), "vigie-settled-"));
  mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
  mkdirSync(join(root, ".astro"));
  writeFileSync(join(root, "package.json"), '{ "name": "site", "private": true }\n');
  writeFileSync(join(root, "node_modules", ".bin", "astro"), "process.stdin.resume(); process.stdin.on('end', () => process.exit(0));\n");
  child = spawn(process.execPath, [join(root, "node_modules", ".bin", "astro"), "dev"], { cwd: root, stdio: ["pipe", "ignore", "ignore"] });
  await once(child, "spawn");
});

after(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("an astro dev of the project not listening yet is starting; named by Astro's lock, it is not", () => {
  const project = projectAt(root);
  assert.equal(devStarting(project), `pid ${child?.pid} (astro dev)`);
  writeFileSync(join(root, ".astro", "dev.json"), JSON.stringify({ pid: child?.pid, port: 4321 }));
  assert.equal(devStarting(project), undefined);
  rmSync(join(root, ".astro", "dev.json"));
});

test("the dev server vigie started is starting until its record has its port; Astro 5 and 6 write no dev.json", async () => {
  const own = mkdtempSync(join(tmpdir(), "vigie-settled-own-"));
  mkdirSync(join(own, ".opencode"), { recursive: true });
  const project = projectAt(own);
  const ours = spawn(process.execPath, [join(root, "node_modules", ".bin", "astro"), "dev"], {
    cwd: own,
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  try {
    await once(ours, "spawn");
    const pid = ours.pid as number;
    const startTime = readProcStat(pid)?.startTime as number;
    const record = {
      pid,
      pgid: pid,
      startTime,
      bootId: bootId(),
      command: ["astro", "dev"],
      mode: "dev" as const,
      requestedPort: 4321,
      startedAt: Date.now(),
    };
    writeRecord(project, record);
    assert.equal(devStarting(project), `pid ${pid} (astro dev)`);
    // Ready: the record has the port it listens on. No .astro/dev.json, as under Astro 5 and 6.
    writeRecord(project, { ...record, port: 4321, url: "http://127.0.0.1:4321/" });
    assert.equal(devStarting(project), undefined);
  } finally {
    ours.kill("SIGKILL");
    rmSync(own, { recursive: true, force: true });
  }
});

test("untilNoDevStart waits for the start to end, and says what it waited for", async () => {
  const project = projectAt(root);
  const waiting = untilNoDevStart(project, { timeoutMs: 20_000 });
  child?.stdin?.end();
  const waited = await waiting;
  assert.ok(waited);
  assert.equal(waited.waitedFor, `pid ${child?.pid} (astro dev)`);
  assert.equal(waited.gaveUp, false);
  assert.match(
    devStartWaitLine(waited),
    /^waited \d+ ms for a dev server starting on the project: pid \d+ \(astro dev\), until it listened$/,
  );
  assert.equal(devStarting(project), undefined);
  assert.equal(await untilNoDevStart(project), undefined);
});

test("a dev server start waits for this process's commands writing .astro/, and only while they run", async () => {
  const project = projectAt(root);
  assert.equal(await untilAstroFilesWritten(project), false);
  let finish: (value: string) => void = () => {};
  const writing = writingAstroFiles(project, () => new Promise<string>((resolve) => (finish = resolve)));
  await new Promise((resolve) => setImmediate(resolve));
  let written = false;
  const waiting = untilAstroFilesWritten(project).then((waited) => {
    written = true;
    return waited;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(written, false, "the start goes on only once the sync has ended");
  finish("synced");
  assert.equal(await waiting, true);
  assert.deepEqual(await writing, { value: "synced" });
  assert.equal(await untilAstroFilesWritten(project), false);
  // A command that fails is let go of too, its error kept for its caller.
  await assert.rejects(
    writingAstroFiles(project, () => Promise.reject(new Error("sync failed"))),
    /sync failed/,
  );
  assert.equal(await untilAstroFilesWritten(project), false);
});
