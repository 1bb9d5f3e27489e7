// The dev-server tests that exercise the process backend once more, with the ps/lsof backend
// forced (VIGIE_PROCESS_BACKEND=ps): the code macOS and the BSDs run, exercised on Linux by
// every `npm test`. Ownership of a stale pid or lock (stale), the port a start finds and
// refuses (start), and a whole group stopped (lifecycle); processPs.test.ts compares the two
// backends on the same processes. One child `node --test` over those files; its output is
// forwarded when it fails.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { after, describe, test } from "node:test";
import { BACKEND_VARIABLE, processBackend } from "../../../src/core/process/inspect.ts";
import { psBackend } from "../../../src/core/process/psBackend.ts";

const dir = new URL(".", import.meta.url).pathname;
const files = ["stale.test.ts", "start.e2e.test.ts", "lifecycle.e2e.test.ts"];

function skipReason(): string | undefined {
  if (process.env[BACKEND_VARIABLE]) return `${BACKEND_VARIABLE} is already set: this run is the forced one`;
  if (processBackend().name === "ps") return "ps/lsof is this system's own backend: the suite already ran with it";
  return psBackend.unusable();
}

describe("the dev-server suite with the ps/lsof backend", { skip: skipReason() }, () => {
  let group: number | undefined;

  after(() => {
    if (group === undefined) return;
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // already gone
    }
  });

  test(`${files.join(", ")} pass with ${BACKEND_VARIABLE}=ps`, { timeout: 60 * 60_000 }, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, [BACKEND_VARIABLE]: "ps" };
    // Set by the test runner for its own children: the nested runner must not see it.
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(process.execPath, ["--test", "--test-concurrency=1", "--test-reporter=spec", ...files], {
      cwd: dir,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    group = child.pid;
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    group = undefined;
    const summary = output.match(/^ℹ (tests|pass|fail) \d+$/gm)?.join(", ") ?? "no summary";
    if (code !== 0) process.stderr.write(`--- node --test with ${BACKEND_VARIABLE}=ps ---\n${output}\n--- end ---\n`);
    assert.equal(code, 0, `the ps-backend run ended with ${signal ?? `code ${code}`} (${summary}); its output is above`);
    assert.match(output, /^ℹ fail 0$/m);
  });
});
