// The dev tools where agents run them, and next to Astro's own servers. Each call goes
// through the `vigie` CLI in a child process, with an agent's environment markers (Astro 7
// backgrounds `astro dev` by itself when it sees them), on a real blog copy:
// - under OpenCode's, Claude Code's, Codex's and Cursor's agent markers, and under none:
//   start, status, http_get, stop, and nothing of the project left;
// - a server that `astro dev --background` or a foreground `astro dev` started: found,
//   reused, checked, validated and stopped by vigie;
// - vigie's server seen by `astro dev status`, `logs` and `stop`;
// - a lock naming a live unrelated process is never signalled.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import type { Answer } from "../../../src/core/answer.ts";
import { isPortFree } from "../../../src/core/devServer/ports.ts";
import { isLive, readProcStat } from "../../../src/core/process/inspect.ts";
import type { ValidationReport } from "../../../src/core/validate/steps/findings.ts";
import { BLOG_ROOT, type BlogCopy, copyBlog, killGroup } from "../../support/blog.ts";
import { freePort, killEverythingIn, processesUnder, sleep, waitFor } from "./helpers.ts";

const CLI = join(BLOG_ROOT, "packages", "vigie", "src", "cli", "main.ts");
const ASTRO = join(BLOG_ROOT, "node_modules", "astro", "bin", "astro.mjs");

/** Agents' environment markers, as am-i-vibing (what Astro uses) recognises them. */
const AGENTS: Record<string, Record<string, string>> = {
  none: {},
  OpenCode: { OPENCODE: "1" },
  "Claude Code": { CLAUDECODE: "1" },
  Codex: { CODEX_THREAD_ID: "thread-test" },
  "Cursor agent": { CURSOR_TRACE_ID: "trace-test", PAGER: "head -n 10000 | cat" },
};
const MARKERS = [...new Set(Object.values(AGENTS).flatMap((markers) => Object.keys(markers)))];

/** This process's environment without any agent marker, plus `extra`. */
function environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ASTRO_TELEMETRY_DISABLED: "1" };
  for (const name of [...MARKERS, "ASTRO_DEV_BACKGROUND", "ASTRO_PREVIEW_BACKGROUND"]) delete env[name];
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end in its own process group (killed after `timeoutMs`). */
async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Run> {
  const started = Date.now();
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), timeoutMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** `vigie <words>` on the copy, under `markers`; its one-line JSON answer. */
async function vigie(copy: BlogCopy, markers: Record<string, string>, ...words: string[]): Promise<Answer & { cliMs: number }> {
  const result = await run(process.execPath, [CLI, "--project", copy.root, ...words], copy.root, environment(markers));
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return { ...(JSON.parse(line) as Answer), cliMs: result.ms };
  } catch {
    throw new Error(`vigie ${words.join(" ")} printed no answer (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
  }
}

/** `astro <args>` on the copy, with this process's Node. */
function astro(copy: BlogCopy, args: string[], markers: Record<string, string> = {}): Promise<Run> {
  return run(process.execPath, [ASTRO, ...args], copy.root, environment(markers), 60_000);
}

/** A bound on each test, so that a hang fails it and its clean-up still runs. */
const TEST_TIMEOUT_MS = 300_000;

const alive = (pid: number) => isLive(readProcStat(pid));
const lockOf = (copy: BlogCopy) => join(copy.root, ".astro", "dev.json");

/** Ends whatever a test left running in the copy, and Astro's lock with it. */
function cleanUp(copy: BlogCopy): void {
  killEverythingIn(copy);
  rmSync(lockOf(copy), { force: true });
}

/** Nothing of the copy runs and the port is free (given a few seconds to get there). */
async function assertNothingLeft(copy: BlogCopy, port: number): Promise<void> {
  await waitFor("the copy's processes to end", () => (processesUnder(copy.root).length === 0 ? true : undefined), 10_000).catch(() => {
    assert.deepEqual(processesUnder(copy.root), [], "no process of the project is left");
  });
  await waitFor(`port ${port} to be free`, async () => ((await isPortFree(port)) ? true : undefined), 5000);
}

describe("the dev tools under agents' environment markers", () => {
  let copy: BlogCopy;
  const timings: string[] = [];

  before(() => {
    copy = copyBlog("dev-agents");
  });

  after(() => {
    if (timings.length > 0) console.log(timings.join("\n"));
    killEverythingIn(copy);
    copy.remove();
  });

  for (const [agent, markers] of Object.entries(AGENTS)) {
    test(`${agent}: start, status, http_get and stop leave nothing behind`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const port = await freePort();
      try {
        const start = await vigie(copy, markers, "dev", "start", "--port", String(port));
        assert.equal(start.status, "started", JSON.stringify(start));
        assert.equal(start.port, port);
        const pid = start.pid as number;
        // The server is in vigie's group, not a background server Astro spawned.
        assert.equal(readProcStat(pid)?.pgid, pid);

        const status = await vigie(copy, markers, "dev", "status");
        assert.equal(status.running, true, JSON.stringify(status));
        assert.equal(status.pid, pid);
        assert.equal(status.port, port);

        const page = await vigie(copy, markers, "dev", "http_get", "--path", "/", "--timeoutMs", "60000");
        assert.equal(page.status, 200, JSON.stringify(page));

        const stop = await vigie(copy, markers, "dev", "stop");
        assert.equal(stop.stopped, true, JSON.stringify(stop));
        assert.equal(stop.pid, pid);
        await assertNothingLeft(copy, port);
        assert.equal(existsSync(lockOf(copy)), false, "Astro's lock is removed");
        timings.push(
          `${agent}: start ${start.cliMs} ms by the CLI (server ready in ${start.readyMs} ms), stop ${stop.cliMs} ms by the CLI (${stop.ms} ms in the tool), processes left 0`,
        );
      } finally {
        cleanUp(copy);
      }
    });
  }
});

describe("servers Astro started", () => {
  let copy: BlogCopy;
  let foreground: ChildProcess | undefined;

  before(() => {
    copy = copyBlog("dev-astro");
    // The validation below only needs the dev server and the critical routes.
    const checks = { lint: false, build: false, links: false, check: false, crawl: false, perf: false, a11y: false };
    writeFileSync(join(copy.root, "vigie.config.json"), JSON.stringify({ checks }));
  });

  afterEach(() => {
    if (foreground) killGroup(foreground, "SIGKILL");
    cleanUp(copy);
  });

  after(() => {
    cleanUp(copy);
    copy.remove();
  });

  /**
   * What every tool does with a server Astro started: status reports it, start reuses it,
   * js_errors and validate check it (and leave it running), stop ends it and its lock.
   */
  async function exercise(pid: number, port: number, startedBy: string): Promise<void> {
    const status = await vigie(copy, {}, "dev", "status");
    assert.equal(status.running, true, JSON.stringify(status));
    assert.equal(status.pid, pid);
    assert.equal(status.port, port);
    assert.equal(status.startedBy, startedBy);

    const before = processesUnder(copy.root).length;
    const start = await vigie(copy, { CLAUDECODE: "1" }, "dev", "start");
    assert.equal(start.status, "already_running", JSON.stringify(start));
    assert.equal(start.pid, pid);
    assert.equal(start.port, port);
    assert.equal(processesUnder(copy.root).length, before, "nothing new spawned");

    const page = await vigie(copy, { OPENCODE: "1" }, "browser_js_errors", "--path", "/");
    assert.equal(page.status, 200, JSON.stringify(page));
    assert.deepEqual([page.errors, page.failedRequests], [[], []], JSON.stringify(page));
    assert.match(String(page.summary), /^clean/);

    const json = join(copy.root, "report.json");
    const validate = await run(process.execPath, [CLI, "validate", "--project", copy.root, "--json", json], copy.root, environment());
    const report = JSON.parse(readFileSync(json, "utf8")) as ValidationReport;
    assert.equal(report.verdict, "PASS", validate.stdout + validate.stderr);
    assert.equal(validate.code, 0);
    assert.ok(alive(pid), "validate leaves a server it did not start running");

    const stop = await vigie(copy, {}, "dev", "stop");
    assert.equal(stop.stopped, true, JSON.stringify(stop));
    assert.equal(stop.pid, pid);
    await waitFor(`pid ${pid} to end`, () => (alive(pid) ? undefined : true), 10_000);
    assert.equal(existsSync(lockOf(copy)), false, "the lock is removed");
    await assertNothingLeft(copy, port);
  }

  test("`astro dev --background`: status, start, js_errors and validate use it; stop ends it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const port = await freePort();
    const started = await astro(copy, ["dev", "--background", "--port", String(port), "--host", "127.0.0.1"]);
    assert.equal(started.code, 0, started.stdout + started.stderr);
    const lock = JSON.parse(readFileSync(lockOf(copy), "utf8")) as { pid: number; background: boolean };
    assert.equal(lock.background, true);
    await exercise(lock.pid, port, "astro (background)");
  });

  test("a foreground `astro dev` in its own process group: the same", { timeout: TEST_TIMEOUT_MS }, async () => {
    const port = await freePort();
    foreground = spawn(process.execPath, [ASTRO, "dev", "--port", String(port), "--host", "127.0.0.1"], {
      cwd: copy.root,
      env: environment(),
      detached: true,
      stdio: "ignore",
    });
    const pid = foreground.pid as number;
    await waitFor("astro dev's lock", () => {
      try {
        return (JSON.parse(readFileSync(lockOf(copy), "utf8")) as { pid: number }).pid === pid ? true : undefined;
      } catch {
        return undefined;
      }
    });
    await exercise(pid, port, "astro");
  });

  test("vigie's server, as `astro dev status`, `logs` and `stop` see it", { timeout: TEST_TIMEOUT_MS }, async () => {
    const port = await freePort();
    const start = await vigie(copy, { OPENCODE: "1" }, "dev", "start", "--port", String(port));
    assert.equal(start.status, "started", JSON.stringify(start));

    const status = await astro(copy, ["dev", "status"]);
    assert.match(status.stdout, new RegExp(`running at http://127\\.0\\.0\\.1:${port} \\(pid \\d+, uptime \\d+s, background\\)`));
    console.log(`astro dev status on vigie's server: ${status.stdout.trim()}`);
    const logs = await astro(copy, ["dev", "logs"]);
    assert.match(logs.stdout, new RegExp(`Local\\s+http://127\\.0\\.0\\.1:${port}/`), logs.stdout + logs.stderr);

    const stop = await astro(copy, ["dev", "stop"], { OPENCODE: "1" });
    assert.match(stop.stdout, /Stopped dev server/);
    await waitFor("the server to end", () => (alive(start.pid as number) ? undefined : true), 10_000);

    const after = await vigie(copy, {}, "dev", "status");
    assert.equal(after.running, false, JSON.stringify(after));
    assert.equal(after.crashed, undefined, "stopped from outside is no crash");
    assert.match(String(after.stopped), /from outside/);
    await assertNothingLeft(copy, port);
  });

  test("a lock naming a live process that is not this project's server is never signalled", { timeout: TEST_TIMEOUT_MS }, async () => {
    const sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
    const sleeperPid = sleeper.pid as number;
    try {
      writeFileSync(
        lockOf(copy),
        JSON.stringify({ pid: sleeperPid, port: 1, url: "http://127.0.0.1:1", background: true, startedAt: new Date().toISOString() }),
      );
      const status = await vigie(copy, {}, "dev", "status");
      assert.equal(status.running, false, JSON.stringify(status));
      const stop = await vigie(copy, {}, "dev", "stop");
      assert.equal(stop.stopped, false, JSON.stringify(stop));
      assert.ok(alive(sleeperPid), "stop did not signal it");

      const port = await freePort();
      const start = await vigie(copy, {}, "dev", "start", "--port", String(port));
      assert.equal(start.status, "started", JSON.stringify(start));
      const stopped = await vigie(copy, {}, "dev", "stop");
      assert.equal(stopped.stopped, true, JSON.stringify(stopped));
      await sleep(200);
      assert.ok(alive(sleeperPid), "start and stop did not signal it");
      await assertNothingLeft(copy, port);
    } finally {
      killGroup(sleeper, "SIGKILL");
    }
  });
});
