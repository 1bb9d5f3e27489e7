// Five starts at once from separate processes leave exactly one server; that server's
// astro process killed with kill -9 is then reported as crashed by any process.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { groupMembers } from "../../../src/core/process/inspect.ts";
import { type BlogCopy, copyBlog } from "../../support/blog.ts";
import { call, freePort, killEverythingIn, processesUnder, waitFor } from "./helpers.ts";

const run = promisify(execFile);
const HELPERS = new URL("./helpers.ts", import.meta.url).href;

/** A separate Node process that calls blog_dev_start once and prints the answer. */
async function startFromAnotherProcess(root: string, port: number): Promise<Record<string, unknown>> {
  const script = `
    const { call } = await import(${JSON.stringify(HELPERS)});
    const { projectAt } = await import(${JSON.stringify(new URL("../../../src/core/project.ts", import.meta.url).href)});
    process.stdout.write(JSON.stringify(await call(projectAt(${JSON.stringify(root)}), "start", { port: ${port} })));
  `;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { timeout: 120_000 });
  return JSON.parse(stdout);
}

/** The node processes running Astro in the copy. */
function astroProcesses(root: string): number[] {
  return processesUnder(root).filter((pid) => {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return /node$/.test(argv[0] ?? "") && argv.some((arg) => /astro/.test(arg));
  });
}

describe("several processes, one dev server", () => {
  let copy: BlogCopy;

  before(() => {
    copy = copyBlog("dev-concurrency");
  });

  after(() => {
    killEverythingIn(copy);
    copy.remove();
  });

  test("five starts at once from separate processes leave exactly one server", async () => {
    const port = await freePort();
    const answers = await Promise.all(Array.from({ length: 5 }, () => startFromAnotherProcess(copy.root, port)));
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(
      statuses,
      ["already_running", "already_running", "already_running", "already_running", "started"],
      JSON.stringify(answers),
    );
    assert.equal(new Set(answers.map((answer) => answer.pid)).size, 1, "the same pid everywhere");
    assert.equal(new Set(answers.map((answer) => answer.port)).size, 1, "the same port everywhere");
    assert.equal(astroProcesses(copy.root).length, 1, "one astro process");
    const status = await call(copy, "status");
    assert.equal(status.running, true);
    assert.equal(status.pid, answers[0]?.pid);
  });

  test("kill -9 of the astro process: status reports the crash with its exit code and log tail", async () => {
    const [astro] = astroProcesses(copy.root);
    assert.ok(astro, "an astro process runs");
    process.kill(astro, "SIGKILL");
    const status = await waitFor("status to see the crash", async () => {
      const answer = await call(copy, "status");
      return answer.running === false ? answer : undefined;
    });
    const crashed = status.crashed as { exitCode: number; signal?: string; logTail: string[] };
    assert.ok(crashed, JSON.stringify(status));
    assert.equal(crashed.exitCode, 137);
    assert.equal(crashed.signal, "SIGKILL");
    assert.ok(crashed.logTail.length > 0);
    assert.equal(typeof status.hint, "string");
    // Reported again, until a start or a stop.
    assert.deepEqual((await call(copy, "status")).crashed, crashed);
    assert.deepEqual(groupMembers(status.pid as number), []);
  });

  test("stop after a crash cleans the state and signals nothing", async () => {
    const answer = await call(copy, "stop");
    assert.equal(answer.stopped, false);
    assert.match(String(answer.reason), /already exited with code 137/);
    assert.equal((await call(copy, "status")).crashed, undefined);
    assert.deepEqual(processesUnder(copy.root), []);
  });
});
