// The dev-server core's typed results as the blog_dev tools answer them: the core names no
// tool; every hint that names one is worded here, and a StepError's code gets its hint.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { StartResult } from "../../src/core/devServer/start.ts";
import { StepError } from "../../src/core/nextStep.ts";
import { projectAt } from "../../src/core/project.ts";
import { defineTool } from "../../src/tools/define.ts";
import { httpGetAnswer, logsAnswer, startAnswer, statusAnswer, stopAnswer } from "../../src/tools/devAnswers.ts";
import { NEXT_STEP_HINTS, stepErrorAnswer } from "../../src/tools/hints.ts";
import { findTool } from "../../src/tools/registry.ts";
import { runTool } from "../../src/tools/run.ts";
import { FIXTURES_DIR } from "../support/blog.ts";

const FAILURES: StartResult[] = [
  { kind: "failed", error: "no dist", reason: "needs-build" },
  { kind: "failed", error: "port held", reason: "port-taken", port: 4400, holder: undefined },
  { kind: "failed", error: "all taken", reason: "no-free-port" },
  { kind: "failed", error: "never ready", reason: "never-ready", pid: 12, logTail: ["a"] },
  { kind: "failed", error: "no sh", reason: "spawn-failed", command: "npm run dev" },
  { kind: "failed", error: "exited", reason: "exited", cause: "unknown", exitCode: 1, command: "npm run dev", logTail: ["boom"] },
  { kind: "failed", error: "cancelled", reason: "aborted", command: "npm run dev" },
  { kind: "failed", error: "slow", reason: "timeout", command: "npm run dev", logTail: [] },
];

describe("the dev tools' answers from the core's typed results", () => {
  test("every failed start answers status failed, its error, a hint, and its context without the core's tags", () => {
    for (const result of FAILURES) {
      const { answer } = startAnswer(result);
      assert.equal(answer.status, "failed");
      assert.equal(answer.error, (result as { error: string }).error);
      assert.ok(String(answer.hint).length > 10, JSON.stringify(answer));
      for (const tag of ["kind", "reason", "cause"]) assert.equal(tag in answer, false, `${tag} in ${JSON.stringify(answer)}`);
    }
    const exited = startAnswer(FAILURES[5] as StartResult).answer;
    assert.deepEqual([exited.exitCode, exited.logTail], [1, ["boom"]]);
    assert.match(String(exited.hint), /blog_dev_logs/);
    assert.match(String(startAnswer(FAILURES[1] as StartResult).answer.hint), /"port" \(e\.g\. 4401\)/);
  });

  test("started and already running keep the answers agents know", () => {
    const started = startAnswer({
      kind: "started",
      pid: 9,
      port: 4322,
      url: "http://127.0.0.1:4322/",
      mode: "dev",
      readyMs: 900,
      movedFrom: 4321,
      log: ".opencode/dev-server.log",
    });
    assert.deepEqual(started, {
      answer: {
        status: "started",
        pid: 9,
        port: 4322,
        url: "http://127.0.0.1:4322/",
        mode: "dev",
        readyMs: 900,
        movedFrom: 4321,
      },
      files: { log: ".opencode/dev-server.log" },
    });
    const kept = startAnswer({
      kind: "already-running",
      pid: 9,
      port: 4321,
      url: "u",
      mode: "dev",
      uptimeS: 3,
      differences: ["port 4400"],
    }).answer;
    assert.equal(kept.status, "already_running");
    assert.match(String(kept.hint), /for port 4400, call blog_dev_stop, then blog_dev_start/);
    const astro = startAnswer({
      kind: "already-running",
      pid: 9,
      port: 4321,
      url: "u",
      mode: "dev",
      startedBy: "astro",
      differences: [],
    }).answer;
    assert.match(String(astro.hint), /outside vigie/);
  });

  test("stop, status, http_get and logs name the tool to call next", () => {
    assert.deepEqual(stopAnswer({ kind: "stopped", pid: 9, port: 4321, ms: 40, forcedAfterMs: 5000 }), {
      stopped: true,
      pid: 9,
      port: 4321,
      ms: 40,
      forced: "SIGKILL after 5000 ms of SIGTERM",
    });
    assert.match(String(stopAnswer({ kind: "not-running", why: "none" }).hint), /blog_dev_start/);
    const crashed = statusAnswer({ kind: "crashed", pid: 9, port: 4321, exitCode: 1, logTail: ["x"] });
    assert.deepEqual([crashed.running, crashed.crashed], [false, { exitCode: 1, logTail: ["x"] }]);
    const refused = statusAnswer({ kind: "running", pid: 9, mode: "dev", port: 4321, url: "u", healthy: false, problem: "refused" });
    assert.match(String(refused.hint), /Nothing answers on port 4321.*blog_dev_logs/);
    const healthy = statusAnswer({ kind: "running", pid: 9, mode: "dev", port: 4321, url: "u", uptimeS: 2, healthy: true });
    assert.equal("hint" in healthy, false);
    assert.equal("hint" in httpGetAnswer({ status: 200, contentType: "text/html", bodyLength: 5, ms: 3 }), false);
    assert.match(String(httpGetAnswer({ status: 500, contentType: "text/html", bodyLength: 5, ms: 3 }).hint), /blog_dev_logs/);
    const noLog = logsAnswer({ lines: [], total: 0, log: ".opencode/dev-server.log", missing: true });
    assert.deepEqual([noLog.answer.missing, noLog.answer.hint], [undefined, "No log yet: blog_dev_start writes it."]);
    assert.deepEqual(noLog.files, { log: ".opencode/dev-server.log" });
  });

  test("a StepError from the core answers with the hint of its code, under the project's prefix", async () => {
    const error = new StepError("no dev server of this project is running", "dev-not-running", "Start the dev server first.");
    assert.deepEqual(stepErrorAnswer(error), { error: error.message, hint: NEXT_STEP_HINTS["dev-not-running"] });
    assert.equal(stepErrorAnswer(new Error("other")), undefined);
    const failing = defineTool({
      exportName: "http_get",
      group: "dev",
      title: "t",
      description: "d",
      readOnly: true,
      idempotent: true,
      args: () => ({}),
      answer: () => ({}),
      run: () => Promise.reject(error),
    });
    const project = projectAt(join(FIXTURES_DIR, "dev-answers-unused"));
    const answer = await runTool(failing, {}, { project, prefix: "docs" });
    assert.equal(answer.error, error.message);
    assert.match(String(answer.hint), /docs_dev_start/);
  });

  test("what an edit changed, asked with no dev server: the core's StepError, its hint naming the tool under the project's prefix", async () => {
    const root = mkdtempSync(join(tmpdir(), "vigie-dev-answers-"));
    try {
      writeFileSync(join(root, "package.json"), "{}");
      const changes = findTool("blog_dev_changes");
      assert.ok(changes);
      const answer = await runTool(changes, {}, { project: projectAt(root), prefix: "docs" });
      assert.deepEqual(answer, {
        error: "no dev server of vigie's is running",
        hint: "Start it with docs_dev_start, then look again after an edit.",
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
